"""JSON endpoints of the questions app (mounted under /api/)."""

from ninja import Router

router = Router(tags=["questions"])
