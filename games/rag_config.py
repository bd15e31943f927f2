"""The process-wide switches of `rag` that the ask flow does not pass call by call, set from
Django settings when the app is ready and again when a test overrides them.

(`rag` reads no settings itself; with the runtime layer in place this belongs there.)"""

from __future__ import annotations

from django.conf import settings
from django.core.signals import setting_changed

WATCHED = {"RAG_FUSION_V2_ENABLED", "PAGE_IMAGES_DPI", "PAGE_IMAGES_DIR", "MEDIA_ROOT"}


def configure_rag() -> None:
    from rag import fusion, page_render

    from .page_images import pdf_for_images_dir

    fusion.configure(v2_enabled=settings.RAG_FUSION_V2_ENABLED)
    # Page images are rendered when an answer first needs one (docs/ingestion.md, step 11).
    page_render.configure(source=pdf_for_images_dir, dpi=settings.PAGE_IMAGES_DPI)


def _reconfigure(*, setting, **kwargs) -> None:
    if setting in WATCHED:
        configure_rag()


def connect() -> None:
    configure_rag()
    setting_changed.connect(_reconfigure, dispatch_uid="games-rag-config")
