"""JSON endpoints of the ingest app (mounted under /api/)."""

from ninja import Router

router = Router(tags=["ingest"])
