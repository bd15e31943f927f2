from django.apps import AppConfig


def is_worker_start(proc_name: str) -> bool:
    """Whether a django-q2 `post_spawn` comes from a cluster worker that just started.

    django-q2's sync mode (Q_SYNC, the tests) runs every task through `worker()` in the
    calling process, which sends post_spawn each time with proc_name "MainProcess": that is
    no start-up, and the start-up work must not run around every inline task."""
    return bool(proc_name) and proc_name != "MainProcess"


def sweep_at_worker_start(proc_name: str = "", **_signal_kwargs) -> None:
    """A cluster worker starts: requeue the jobs of dead workers, fail orphaned questions
    (oracle_site.recovery; web processes also sweep periodically)."""
    if not is_worker_start(proc_name):
        return
    from oracle_site.recovery import sweep

    sweep()


class IngestConfig(AppConfig):
    name = "ingest"
    verbose_name = "Ingestion"

    def ready(self):
        from .scheduling import connect_startup_hooks

        connect_startup_hooks(self)  # re-arm scheduled ingests and the BGG sync at start-up

        from django_q.signals import post_spawn

        post_spawn.connect(sweep_at_worker_start, dispatch_uid="oracle-recovery-spawn")
