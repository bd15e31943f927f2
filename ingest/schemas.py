"""Request and response shapes of the ingest API (listed fields, never `__all__`)."""

from datetime import datetime
from typing import Literal
from uuid import UUID

from ninja import Schema

from games.models import BOOKLET_KINDS


class IngestIn(Schema):
    game_id: UUID | None = None
    new_game_name: str = ""
    kind: Literal[BOOKLET_KINDS] = "base"  # type: ignore[valid-type]  # the model's choices
    name: str = ""
    language: str = "fr"
    bgg_id: int | None = None
    scheduled_start_at: str = ""  # ISO 8601 with a zone, at most 7 days ahead


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
