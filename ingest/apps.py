from django.apps import AppConfig


class IngestConfig(AppConfig):
    name = "ingest"
    verbose_name = "Ingestion"

    def ready(self):
        from .scheduling import connect_startup_hooks

        connect_startup_hooks(self)  # re-arm scheduled ingests and the BGG sync at start-up
