from django.apps import AppConfig


class QuestionsConfig(AppConfig):
    name = "questions"
    verbose_name = "Questions"

    def ready(self):
        from runtime.periodic import at_worker_start, every_web_process

        from .lookups import connect_signals
        from .recovery import sweep
        from .token_revocation import connect as connect_token_revocation

        connect_signals()
        connect_token_revocation()
        # Questions left pending by a killed process are failed: by each web process, at
        # start and periodically, and by each cluster worker at start.
        every_web_process("questions-recovery", sweep, "RECOVERY_SWEEP_INTERVAL_S")
        at_worker_start(sweep, uid="oracle-questions-recovery-spawn")
