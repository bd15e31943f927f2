from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Jeux"

    def ready(self):
        from django.db.models.signals import post_save

        from runtime import components

        from .bgg_sync import fetch_metadata_when_bgg_id_set
        from .page_sources import pdf_for_images_dir

        post_save.connect(fetch_metadata_when_bgg_id_set, sender="games.Game", dispatch_uid="bgg-metadata-on-save")
        components.connect(page_source=pdf_for_images_dir)  # where lazy page images are rendered from
