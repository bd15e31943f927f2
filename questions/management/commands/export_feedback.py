"""`manage.py export_feedback [--out FILE] [--game SLUG]`: the 👎 answers as evaluation cases.

One JSONL line per 👎 whose right passage the staff gave (questions/feedback_export.py);
run them with `python -m eval.run --cases FILE`. The 👎 without an expected page are counted.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from games.models import Game
from questions.feedback_export import disliked, export_cases, to_jsonl


class Command(BaseCommand):
    help = "Export the 👎 answers with an expected page as evaluation cases (JSONL, eval/sets format)."

    def add_arguments(self, parser):
        parser.add_argument("--out", help="file to write (default: standard output)")
        parser.add_argument("--game", help="slug of one game (default: every game)")

    def handle(self, *args, out=None, game=None, **options):
        if game and not Game.objects.filter(slug=game).exists():
            raise CommandError(f"unknown game {game!r}")
        export = export_cases(disliked(game))
        if out:
            try:
                Path(out).write_text(to_jsonl(export.cases), encoding="utf-8")
            except OSError as exc:  # a folder that does not exist, no right to write there: one line
                raise CommandError(f"{out}: {exc.strerror or exc}") from None
        else:
            self.stdout.write(to_jsonl(export.cases), ending="")
        where = out or "standard output"
        self.stderr.write(
            f"{len(export.cases)} case(s) written to {where}; "
            f"{export.without_page} 👎 without an expected page skipped (set it in the admin)."
        )
