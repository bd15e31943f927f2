"""`manage.py import_decklists GAME FILE…`: tournament decklists as `[META]` chunks."""

import datetime as dt
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from games.card_indexing import embed_pending_decklists
from games.decklists import read_decklist, save_decklist
from games.management.commands.import_cards import find_game, index_now
from rag.embeddings import EmbeddingError
from runtime import components
from runtime.refusals import first_line


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
        # Every file is read and checked before the first is written: a bad one (missing, no
        # format, no card line) stops the command with nothing written, nothing left unindexed.
        decks = []
        for path in files:
            try:
                decks.append((path, read_decklist(path, format=format, date=date)))
            except OSError as exc:
                raise CommandError(f"{path}: {exc.strerror or exc}") from exc
            except ValueError as exc:
                raise CommandError(str(exc)) from exc
        for path, read in decks:
            self.unread(path, read.parsed.unread)
            deck = save_decklist(game, read)
            main = sum(q for q, _ in deck.sections.get("main", []))
            side = sum(q for q, _ in deck.sections.get("sideboard", []))
            self.stdout.write(f"{deck.name}: {deck.format}, {deck.played_on or 'no date'}, {main} + {side} cards")
        try:
            embedded = embed_pending_decklists(game, components.embedder())
        except EmbeddingError as exc:
            raise CommandError(
                f"{first_line(exc)}. The decklists are saved but stay out of search until the same "
                "import_decklists is run again."
            ) from exc
        self.stdout.write(f"{embedded} decklists embedded.")
        if not no_index:
            index_now(self, game)

    def unread(self, path: Path, lines: list[str]) -> None:
        """Lines left out of the list (no count, not a known heading): named, so the list
        imported is not taken for the file."""
        for line in lines:
            self.stderr.write(f"{path.name}: line not read, left out: {line[:80]}")
