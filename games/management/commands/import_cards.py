"""`manage.py import_cards GAME FILE`: create or update a game's card catalog, embed the new
or changed cards, and index them when this process may write the vector store."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from games.card_import import CardFileError, import_cards
from games.card_indexing import embed_pending_cards
from games.indexing import sync_card_collections
from games.management.progress import ProgressBar
from games.models import Game
from rag.embeddings import EmbeddingError
from rag.store import VectorStoreError
from runtime import components
from runtime.refusals import first_line

MAX_ERRORS_SHOWN = 20


def find_game(slug_or_id: str) -> Game:
    game = Game.objects.filter(slug=slug_or_id).first()
    if game is None:
        try:
            game = Game.objects.filter(pk=slug_or_id).first()
        except Exception:  # not a UUID
            game = None
    if game is None:
        raise CommandError(f"no game {slug_or_id!r} (give its slug or id)")
    return game


def index_now(command: BaseCommand, game: Game) -> None:
    """Local Qdrant: only one process may open the folder; if the web process holds it, it
    indexes the rows itself at its next sync (docs/architecture.md, decision 2)."""
    try:
        reports = sync_card_collections(components.vector_store(), game)
    except VectorStoreError as exc:
        if components.store_is_shared():  # a Qdrant server down: the web process syncs the rows once it answers
            command.stdout.write(f"Index left to the web process, which writes the rows once the server answers ({exc}).")
        else:
            command.stdout.write(f"Index left to the web process ({exc}).")
        return
    written = sum(r["written"] for r in reports)
    command.stdout.write(f"Indexed: {written} points written ({reports[0]['total']} cards).")


class Command(BaseCommand):
    help = "Import a card file (Scryfall/MTGJSON for Magic; our JSON/CSV for Flesh and Blood and Riftbound)."

    def add_arguments(self, parser):
        parser.add_argument("game", help="slug or id of the game (its card game must be set)")
        parser.add_argument("file", type=Path)
        parser.add_argument("--no-embed", action="store_true", help="only write the rows")
        parser.add_argument("--no-index", action="store_true", help="do not open the vector store")

    def handle(self, *args, game, file, no_embed, no_index, **options):
        game = find_game(game)
        if not file.is_file():  # a folder would get as far as open() and its traceback
            raise CommandError(f"{file} is a folder, not a card file" if file.is_dir() else f"{file} does not exist")
        bar = ProgressBar(f"Lecture de {file.name}")
        try:
            report = import_cards(game, file, progress=bar.update)
        except CardFileError as exc:
            # The batches written before the bad record are cards like the others: embedded and
            # indexed now, not at the next import; the command still fails, saying where.
            bar.close()
            try:
                self._embed_and_index(game, no_embed, no_index)
            except EmbeddingError as embedding:  # the file's error is the one to fix first
                self.stderr.write(f"Cards written before the error not embedded: {first_line(embedding)}")
            raise CommandError(str(exc)) from exc
        bar.close()
        repeats = ""
        if report.repeats:  # reprints in one file: counted apart, or created then "updated"
            repeats = f" ({report.repeats} repeated in the file: the first record of each card kept)"
        self.stdout.write(
            f"{report.read} cards read: {report.created} created, {report.updated} updated, "
            f"{report.unchanged} unchanged{repeats}; {report.terms} French/English terms learnt."
        )
        if report.errors:  # rows left out, the others imported
            self.stderr.write(f"{len(report.errors)} rows left out:\n" + "\n".join(report.errors[:MAX_ERRORS_SHOWN]))
        try:
            self._embed_and_index(game, no_embed, no_index)
        except EmbeddingError as exc:
            raise CommandError(
                f"{first_line(exc)}. The cards are saved; those not embedded yet stay out of search until "
                "the same import_cards is run again (it embeds only the cards without a vector)."
            ) from exc

    def _embed_and_index(self, game, no_embed: bool, no_index: bool) -> None:
        if no_embed:
            return
        bar = ProgressBar("Embeddings")
        try:
            embedded = embed_pending_cards(game, components.embedder(), progress=bar.update)
        finally:  # the error, if any, starts on its own line
            bar.close()
        self.stdout.write(f"{embedded} cards embedded.")
        if not no_index:
            index_now(self, game)
