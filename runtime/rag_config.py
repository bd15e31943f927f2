"""The process-wide switches of `rag` that the ask flow does not pass call by call, set from
Django settings when the games app is ready and again when a test overrides them.

`rag` reads no settings itself and `runtime` imports no app: the games app hands over the
one thing only it knows, where a booklet's page images are rendered from (`page_source`)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from django.conf import settings
from django.core.signals import setting_changed

WATCHED = {"RAG_FUSION_V2_ENABLED", "PAGE_IMAGES_DPI", "PAGE_IMAGES_DIR", "MEDIA_ROOT"}

_page_source: Callable[[Path], Path | None] | None = None  # images folder -> its booklet's PDF


def configure_rag() -> None:
    from rag import fusion, page_render

    fusion.configure(v2_enabled=settings.RAG_FUSION_V2_ENABLED)
    # Page images are rendered when an answer first needs one (docs/ingestion.md, step 11).
    page_render.configure(source=_page_source, dpi=settings.PAGE_IMAGES_DPI)


def _reconfigure(*, setting, **kwargs) -> None:
    if setting in WATCHED:
        configure_rag()


def connect(*, page_source: Callable[[Path], Path | None] | None) -> None:
    global _page_source
    _page_source = page_source
    configure_rag()
    setting_changed.connect(_reconfigure, dispatch_uid="runtime-rag-config")
