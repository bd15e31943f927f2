"""Rebuild every vector collection from the chunk rows (the source of truth)."""

from django.core.management.base import BaseCommand, CommandError

from games.indexing import rebuild_all, reembed_all
from rag.store import VectorStoreError
from runtime import components


class Command(BaseCommand):
    help = "Rebuild the Qdrant collections from the database (--reembed after an embedder change)."

    def add_arguments(self, parser):
        parser.add_argument("--reembed", action="store_true", help="embed every chunk again with the current embedder")

    def handle(self, *args, reembed=False, **options):
        try:
            store = components.vector_store()
        except VectorStoreError as exc:
            raise CommandError(f"{exc}. Stop the web server (it owns the embedded index) and run again.") from exc
        if reembed:
            count = reembed_all(components.embedder(), progress=self.stdout.write)
            self.stdout.write(f"{count} chunks embedded again.")
            from games.card_indexing import reembed_card_rows

            self.stdout.write(f"{reembed_card_rows(components.embedder())} cards and decklists embedded again.")
        for report in rebuild_all(store):
            self.stdout.write(f"{report['collection']}: {report['written']} points")
        self.stdout.write(self.style.SUCCESS("Index rebuilt from the database."))
