from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Jeux"

    def ready(self):
        from django.db.models.signals import post_save

        from .bgg_sync import fetch_metadata_when_bgg_id_set
        from .page_images import configure_lazy_rendering

        post_save.connect(fetch_metadata_when_bgg_id_set, sender="games.Game", dispatch_uid="bgg-metadata-on-save")
        configure_lazy_rendering()  # page images are rendered when an answer first needs one
