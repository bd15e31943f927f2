"""Create the demo game (Les Aéronautes, its expansion and FAQ) and queue their ingestion."""

from django.core.management.base import BaseCommand

from games.demo.loader import load_demo
from ingest.demo import needs_ingest, queue_ingest


class Command(BaseCommand):
    help = "Create the demo game and its booklets; queue the ingestion of those not yet ingested."

    def add_arguments(self, parser):
        parser.add_argument(
            "--no-ingest", action="store_true", help="Only create the game and booklets (with their PDFs)."
        )

    def handle(self, *args, no_ingest=False, **options):
        hooks = {} if no_ingest else {"needs_ingest": needs_ingest, "queue_ingest": queue_ingest}
        result = load_demo(**hooks)
        parts = [f"Demo game '{result.game.slug}'"]
        if result.created:
            parts.append(f"created: {', '.join(result.created)}")
        if result.queued:
            parts.append(f"ingestion queued: {', '.join(result.queued)}")
        if result.skipped:
            parts.append(f"already ingested or in progress: {', '.join(result.skipped)}")
        if result.failed:
            parts.append(f"could not be queued (see the log): {', '.join(result.failed)}")
        self.stdout.write("; ".join(parts) + ".")
