"""`manage.py import_decklists GAME FILE…`: tournament decklists as `[META]` chunks."""

import datetime as dt
from functools import partial
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from games.card_indexing import embed_pending_decklists
from games.decklists import import_decklist
from games.management.commands.import_cards import find_game, index_now
from runtime import components


class Command(BaseCommand):
    help = "Import plain-text tournament decklists (\"4 Lightning Bolt\", a Sideboard section)."

    def add_arguments(self, parser):
        parser.add_argument("game")
        parser.add_argument("files", nargs="+", type=Path)
        parser.add_argument("--format", default="", help="e.g. standard, modern (else read from the list's comments)")
        parser.add_argument("--date", type=dt.date.fromisoformat, default=None, help="YYYY-MM-DD")
        parser.add_argument("--no-index", action="store_true")

    def handle(self, *args, game, files, format, date, no_index, **options):
        game = find_game(game)
        for path in files:
            try:
                deck = import_decklist(game, path, format=format, date=date, on_unread=partial(self.unread, path))
            except (OSError, ValueError) as exc:
                raise CommandError(str(exc)) from exc
            main = sum(q for q, _ in deck.sections.get("main", []))
            side = sum(q for q, _ in deck.sections.get("sideboard", []))
            self.stdout.write(f"{deck.name}: {deck.format}, {deck.played_on or 'no date'}, {main} + {side} cards")
        embedded = embed_pending_decklists(game, components.embedder())
        self.stdout.write(f"{embedded} decklists embedded.")
        if not no_index:
            index_now(self, game)

    def unread(self, path: Path, lines: list[str]) -> None:
        """Lines left out of the list (no count, not a known heading): named, so the list
        imported is not taken for the file."""
        for line in lines:
            self.stderr.write(f"{path.name}: line not read, left out: {line[:80]}")
