from django.apps import AppConfig


class QuestionsConfig(AppConfig):
    name = "questions"
    verbose_name = "Questions"

    def ready(self):
        from .lookups import connect_signals

        connect_signals()
