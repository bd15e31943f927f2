"""The web process owns the local Qdrant folder (docs/architecture.md, decision 2): it brings the
index up to date from the chunk rows at start and whenever writers mark a collection as
changed. A daemon thread polls `IndexState` (one small query) every few seconds, so the
first question after an ingest does not pay for the sync."""

import threading

from django.conf import settings

from runtime.periodic import start_periodic


def sync_now() -> list[dict]:
    from games.indexing import sync_if_changed
    from runtime import components

    return sync_if_changed(components.vector_store())


def start_index_owner() -> threading.Event | None:
    """Start the sync thread once per process; returns its stop event."""
    return start_periodic("index-owner", sync_now, settings.INDEX_SYNC_INTERVAL_S)
