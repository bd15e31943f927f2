from django.apps import AppConfig


class IngestConfig(AppConfig):
    name = "ingest"
    verbose_name = "Ingestion"

    def ready(self):
        from .scheduling import connect_startup_hooks

        connect_startup_hooks(self)  # re-arm scheduled ingests and the BGG sync at start-up

        from django_q.signals import post_spawn

        from oracle_site.recovery import sweep

        post_spawn.connect(sweep, dispatch_uid="oracle-recovery-spawn")  # requeue jobs of dead workers
