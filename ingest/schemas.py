"""Request and response shapes of the ingest API (listed fields, never `__all__`)."""

from datetime import datetime
from typing import Literal
from uuid import UUID

from ninja import Field, Schema

from games.models import BOOKLET_KINDS


class IngestIn(Schema):
    """Bounded as the models are (names 200, language 8, BGG ids positive 32-bit): checked
    here, before the database, with a 422 naming the field."""

    game_id: UUID | None = None
    new_game_name: str = Field("", max_length=200)
    kind: Literal[BOOKLET_KINDS] = "base"  # type: ignore[valid-type]  # the model's choices
    name: str = Field("", max_length=200)
    language: str = Field("", max_length=8, pattern=r"^([a-z]{2,3}(-[A-Za-z0-9]{2,4})?)?$")  # empty: told from the text
    bgg_id: int | None = Field(None, ge=1, le=2**31 - 1)
    scheduled_start_at: str = Field("", max_length=40)  # ISO 8601 with a zone, at most 7 days ahead


class IngestAccepted(Schema):
    job_id: UUID
    game_id: UUID
    extension_id: UUID | None
    status: str
    events_url: str
    job_url: str


class JobOut(Schema):
    id: UUID
    game_id: UUID
    extension_id: UUID | None
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
    events_url: str


class ErrorOut(Schema):
    detail: str


class CancelledOut(Schema):
    job_id: str
    deleted: str  # "game" | "extension" | "job": the largest row the cancellation removed


class CancelOut(Schema):
    job_id: UUID
    outcome: str  # "cancelled" (it was queued) or "requested" (running: its worker stops within seconds)
