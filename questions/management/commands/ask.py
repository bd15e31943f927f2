"""`manage.py ask --game SLUG [--ext SLUG…] "question"`: ask from the terminal, streamed."""

from django.core.management.base import BaseCommand, CommandError

from games.models import Extension, Game
from questions.ask_flow.flow import answer_question
from questions.services import Asker, ask_question
from rag.store import VectorStoreError
from runtime import components
from runtime.refusals import Refused


class Command(BaseCommand):
    help = "Ask the Oracle a question about a game; the answer streams to the terminal."

    def add_arguments(self, parser):
        parser.add_argument("question")
        parser.add_argument("--game", required=True, help="slug of the game")
        parser.add_argument("--ext", action="append", default=[], help="slug of a booklet to include (repeatable; default: every booklet of the game)")
        parser.add_argument("--base-only", action="store_true", help="search the base booklet alone")
        parser.add_argument("--sources", action="store_true", help="list the passages found")

    def handle(self, *args, question, game, ext, sources, base_only=False, **options):
        game_obj = Game.objects.filter(slug=game).first()
        if game_obj is None:
            raise CommandError(f"unknown game {game!r}")
        booklets = Extension.objects.filter(game=game_obj).order_by("name")
        extensions = [] if base_only else list(booklets.filter(slug__in=ext) if ext else booklets)
        missing = set(ext) - {e.slug for e in extensions}
        if missing:
            raise CommandError(f"unknown booklet(s) of {game}: {', '.join(sorted(missing))}")
        try:  # before a Question is stored: the web server may own the embedded index (as `reindex` checks)
            components.vector_store()
        except VectorStoreError as exc:
            owner = ". Ask through the site, or stop the web server (it owns the embedded index)"
            raise CommandError(f"{exc}{'' if components.store_is_shared() else owner}") from None
        try:  # the terminal's operator: no access check, no rate limit (Asker without a request)
            asked = ask_question(Asker(None), game=game_obj, text=question, extensions=[e.pk for e in extensions]).question
        except Refused as exc:
            raise CommandError(exc.message) from None
        failed = []

        def show(name, data):
            if name == "phase":
                self.stderr.write(f"… {data['label']}")
            elif name == "context" and sources:
                for chunk in data["chunks"]:
                    self.stderr.write(f"  [{chunk['booklet']}, p.{chunk['pages']}] {chunk['score']:.3f} {chunk['hierarchy_path']}")
            elif name == "token":
                self.stdout.write(data["text"], ending="")
                self.stdout.flush()
            elif name == "done":
                self.stdout.write("")
                self.stderr.write(f"bestScore {data['bestScore']}  question {data['questionId']}")
            elif name == "error":
                failed.append(data["message"])

        answer_question(asked.pk, show)
        if failed:
            raise CommandError(failed[0])
