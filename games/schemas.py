"""Request and response shapes of the games and booklets API (listed fields, never `__all__`)."""

from datetime import datetime
from typing import Literal
from uuid import UUID

from ninja import Field, Schema

LANGUAGE = r"^[a-z]{2,3}(-[A-Za-z0-9]{2,4})?$"  # fr, en, pt-BR: what the models' 8 characters hold


class JobSummary(Schema):
    id: UUID
    status: str
    created_at: datetime
    finished_at: datetime | None
    error: str
    url: str


class BookletOut(Schema):
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
    booklets: list[BookletOut]


class GameIn(Schema):
    name: str = Field(..., min_length=1, max_length=200, pattern=r"\S", examples=["Heat: Pedal to the Metal"])
    language: str = Field("fr", max_length=8, pattern=LANGUAGE, examples=["fr"])
    description: str = Field("", max_length=5000)
    bgg_id: int | None = Field(None, ge=1, le=2**31 - 1, examples=[366013])


class GamePatch(Schema):
    name: str = Field(..., min_length=1, max_length=200, pattern=r"\S", examples=["Heat"])


class BookletPatch(Schema):
    language: str | None = Field(None, max_length=8, pattern=LANGUAGE, examples=["en"])
    name: str | None = Field(None, min_length=1, max_length=200, pattern=r"\S", examples=["Heat — Heavy Rain"])
