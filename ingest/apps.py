from django.apps import AppConfig


class IngestConfig(AppConfig):
    name = "ingest"
    verbose_name = "Ingestion"

    def ready(self):
        from runtime.periodic import at_worker_start, every_web_process

        from . import booklet_cleanup
        from .recovery import sweep
        from .scheduling import connect_startup_hooks

        booklet_cleanup.connect(self)  # a deleted booklet takes its jobs' PDFs and caches along
        connect_startup_hooks(self)  # re-arm scheduled ingests and the BGG sync at start-up
        # Jobs of dead workers are requeued (or failed): by each web process, at start and
        # periodically, and by each cluster worker at start.
        every_web_process("ingest-recovery", sweep, "RECOVERY_SWEEP_INTERVAL_S")
        at_worker_start(sweep, uid="oracle-ingest-recovery-spawn")
