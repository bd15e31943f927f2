"""Rebuild every vector collection from the chunk rows (the source of truth)."""

from django.core.management.base import BaseCommand, CommandError

from games.card_indexing import reembed_card_rows
from games.indexing import rebuild_all, reembed_all
from rag.embeddings import EmbeddingError
from rag.store import VectorStoreError
from runtime import components
from runtime.refusals import first_line


class Command(BaseCommand):
    help = "Rebuild the Qdrant collections from the database (--reembed after an embedder change)."

    def add_arguments(self, parser):
        parser.add_argument("--reembed", action="store_true", help="embed every chunk again with the current embedder")

    def handle(self, *args, reembed=False, **options):
        try:
            store = components.vector_store()
        except VectorStoreError as exc:
            if components.store_is_shared():  # a Qdrant server down: stopping the web server would not help
                raise CommandError(f"{exc}. Run again once it answers.") from exc
            raise CommandError(f"{exc}. Stop the web server (it owns the embedded index) and run again.") from exc
        if reembed:
            try:
                self._reembed()
            except EmbeddingError as exc:
                # Rows are re-embedded in place, batch by batch: nothing has lost its vector.
                raise CommandError(
                    f"{first_line(exc)}. The rows embedded before the error have their new vectors, the others "
                    "keep their old ones; run `manage.py reindex --reembed` again when the embedder answers."
                ) from exc
        for report in rebuild_all(store):
            self.stdout.write(f"{report['collection']}: {report['written']} points")
        self.stdout.write(self.style.SUCCESS("Index rebuilt from the database."))

    def _reembed(self) -> None:
        embedder = components.embedder()
        count = reembed_all(embedder, progress=self.stdout.write)
        self.stdout.write(f"{count} chunks embedded again.")
        self.stdout.write(f"{reembed_card_rows(embedder)} cards and decklists embedded again.")
