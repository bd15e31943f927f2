"""Request and response shapes of the ingest API (listed fields, never `__all__`)."""

from datetime import datetime
from typing import Literal
from uuid import UUID

from django.utils.translation import gettext as _
from ninja import Field, Schema
from pydantic import ValidationInfo, field_validator

from games.models import BOOKLET_KINDS


class IngestIn(Schema):
    """Bounded as the models are (names 200, language 8, BGG ids positive 32-bit): checked
    here, before the database, with a 422 naming the field. A name left empty is not given;
    one of spaces only is refused, as `POST /api/games` refuses it. (A NUL character in any
    field: runtime/api_input.py.)"""

    game_id: UUID | None = None
    new_game_name: str = Field("", max_length=200)
    kind: Literal[BOOKLET_KINDS] = "base"  # type: ignore[valid-type]  # the model's choices
    # Required beside a kind other than base: unnamed, two expansions would share one extension.
    name: str = Field("", max_length=200, validate_default=True)
    # Empty: a new booklet's language is detected from its text (ingest.coordinator).
    language: str = Field("", max_length=8, pattern=r"^([a-z]{2,3}(-[A-Za-z0-9]{2,4})?)?$", examples=["fr", "en"])
    bgg_id: int | None = Field(None, ge=1, le=2**31 - 1)
    scheduled_start_at: str = Field("", max_length=40)  # ISO 8601 (no zone: the site's), at most 7 days ahead
    # A later start is asked (the wizard's « Planifier le démarrage »): `scheduled_start_at` is then required.
    start_later: bool = False

    @field_validator("new_game_name", "name")
    @classmethod
    def not_blank(cls, value: str) -> str:
        if value and not value.strip():
            raise ValueError(_("le nom est vide"))
        return value

    @field_validator("name")
    @classmethod
    def named_unless_base(cls, value: str, info: ValidationInfo) -> str:
        if not value and info.data.get("kind", "base") != "base":
            raise ValueError(_("Nommez le livret (par exemple « Extension Tempête »)."))
        return value


class IngestAccepted(Schema):
    job_id: UUID
    game_id: UUID
    extension_id: UUID | None
    status: str
    events_url: str
    job_url: str


class JobOut(Schema):
    model_config = {"json_schema_extra": {"examples": [{
        "id": "c2a4e1f7-9b0d-4e8a-b3c5-1d2e3f4a5b6c", "game_id": "0b9f6f0e-3c1a-4d55-9a53-6d1f0f6a2b11",
        "extension_id": None, "booklet_id": "0b9f6f0e-3c1a-4d55-9a53-6d1f0f6a2b11", "booklet_name": "Heat",
        "booklet_kind": "base", "status": "running", "pause_reason": "", "scheduled_at": None, "act": "embed",
        "progress": {"read": {"done": 24, "total": 24}, "embed": {"done": 40, "total": 112}}, "stats": {}, "error": "",
        "created_at": "2026-11-30T09:13:00+00:00", "started_at": "2026-11-30T09:13:01+00:00", "finished_at": None,
        "url": "/api/ingest/c2a4e1f7-9b0d-4e8a-b3c5-1d2e3f4a5b6c",
        "events_url": "/api/ingest/c2a4e1f7-9b0d-4e8a-b3c5-1d2e3f4a5b6c/events",
    }]}}

    id: UUID
    game_id: UUID
    extension_id: UUID | None
    booklet_id: UUID  # the Extension's id, or the game's for its base booklet
    booklet_name: str
    booklet_kind: str
    status: str
    pause_reason: str
    scheduled_at: datetime | None
    act: str
    progress: dict
    stats: dict
    error: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    url: str
    events_url: str


class CancelledOut(Schema):
    job_id: str
    deleted: str  # "game" | "extension" | "job": the largest row the cancellation removed


class CancelOut(Schema):
    job_id: UUID
    outcome: str  # "cancelled" (it was queued) or "requested" (running: its worker stops within seconds)
