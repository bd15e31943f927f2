"""Request and response shapes of the games and booklets API (listed fields, never `__all__`)."""

from datetime import datetime
from typing import Literal
from uuid import UUID

from ninja import Field, Schema

BOOKLET_EXAMPLE = {"id": "5d1c2a8e-7f0b-4a39-8a0e-2f4b9c3d7e21", "game_id": "0b9f6f0e-3c1a-4d55-9a53-6d1f0f6a2b11",
    "name": "Heat — Heavy Rain", "slug": "heat-heavy-rain", "kind": "extension", "language": "en", "pages": 12,
    "chunk_count": 58, "index_state": "indexed",
    "last_job": {"id": "c2a4e1f7-9b0d-4e8a-b3c5-1d2e3f4a5b6c", "status": "done", "created_at": "2026-11-30T09:13:00+00:00",
                 "finished_at": "2026-11-30T09:15:40+00:00", "error": "", "url": "/api/ingest/c2a4e1f7-9b0d-4e8a-b3c5-1d2e3f4a5b6c"},
    "url": "/api/booklets/5d1c2a8e-7f0b-4a39-8a0e-2f4b9c3d7e21",
    "pdf_url": "/api/booklets/5d1c2a8e-7f0b-4a39-8a0e-2f4b9c3d7e21/pdf", "updated_at": "2026-11-30T09:15:42+00:00"}
GAME_EXAMPLE = {"id": "0b9f6f0e-3c1a-4d55-9a53-6d1f0f6a2b11", "name": "Heat", "slug": "heat", "language": "fr",
    "description": "", "bgg_id": 366013, "card_game": "", "booklet_count": 2,
    "url": "/api/games/0b9f6f0e-3c1a-4d55-9a53-6d1f0f6a2b11",
    "created_at": "2026-11-30T09:12:00+00:00", "updated_at": "2026-11-30T09:15:42+00:00"}
LANGUAGE = r"^[a-z]{2,3}(-[A-Za-z0-9]{2,4})?$"  # fr, en, pt-BR: what the models' 8 characters hold
NAME = r"^[^\x00]*[^\x00\s][^\x00]*$"  # not blank; no NUL, which PostgreSQL refuses in a string
TEXT = r"^[^\x00]*$"


class JobSummary(Schema):
    id: UUID
    status: str
    created_at: datetime
    finished_at: datetime | None
    error: str
    url: str


class BookletOut(Schema):
    model_config = {"json_schema_extra": {"examples": [BOOKLET_EXAMPLE]}}

    id: UUID  # the Extension's id, or the Game's for its base booklet
    game_id: UUID
    name: str
    slug: str
    kind: str
    language: str
    pages: int | None
    chunk_count: int
    index_state: Literal["empty", "pending", "indexed"]
    last_job: JobSummary | None
    url: str
    pdf_url: str | None
    updated_at: datetime


class GameOut(Schema):
    model_config = {"json_schema_extra": {"examples": [GAME_EXAMPLE]}}

    id: UUID
    name: str
    slug: str
    language: str
    description: str
    bgg_id: int | None
    card_game: str
    booklet_count: int
    url: str
    created_at: datetime
    updated_at: datetime


class GameDetailOut(GameOut):
    model_config = {"json_schema_extra": {"examples": [{**GAME_EXAMPLE, "booklets": [BOOKLET_EXAMPLE]}]}}

    booklets: list[BookletOut]


class GameIn(Schema):
    name: str = Field(..., min_length=1, max_length=200, pattern=NAME, examples=["Heat: Pedal to the Metal"])
    language: str = Field("fr", max_length=8, pattern=LANGUAGE, examples=["fr"])
    description: str = Field("", max_length=5000, pattern=TEXT)
    bgg_id: int | None = Field(None, ge=1, le=2**31 - 1, examples=[366013])


class GamePatch(Schema):
    name: str = Field(..., min_length=1, max_length=200, pattern=NAME, examples=["Heat"])


class BookletPatch(Schema):
    language: str | None = Field(None, max_length=8, pattern=LANGUAGE, examples=["en"])
    name: str | None = Field(None, min_length=1, max_length=200, pattern=NAME, examples=["Heat — Heavy Rain"])
