"""JSON endpoints of the games app (mounted under /api/)."""

from ninja import Router

router = Router(tags=["games"])
