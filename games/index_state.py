"""Writers mark a collection as changed; the index owner syncs it (games/indexing.py).

Kept apart from the sync so that every writer (ingestion, forum sync, card import) can mark
without depending on how the index is brought up to date."""

from django.db.models import F

from .models import IndexState


def mark_changed(collection: str) -> None:
    """Record that the rows of a collection changed (call inside the writer's transaction)."""
    state, created = IndexState.objects.get_or_create(collection=collection, defaults={"version": 1})
    if not created:
        IndexState.objects.filter(pk=state.pk).update(version=F("version") + 1)
