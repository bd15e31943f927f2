"""A booklet's language: chosen by the admin, or told from its text by the ingestion.

Every entry point (the wizard and `POST /api/games/ingest`, the admin's upload form, the
`ingest` command) turns what the admin sent into a requested language with
`requested_language`: "fr", "en"… or `DETECT` (« Détecter », an empty or absent value).
`services.create_ingest` gives a new booklet a provisional language and marks the job
(`IngestJob.detect_language`); after chunking, the coordinator calls `settle`:
- the admin left it to the text: the booklet takes the detected language;
- the admin chose one and the text says otherwise: a `warning`, and the job page offers
  « Corriger la langue » (`correct_language`), which sets the detected language and updates
  what depends on it (the chunks' payload and index, the game's translated terms) through
  `games.services.set_booklet_language`, the one path the API's PATCH takes too.

Why it matters: a question in the other language searches a booklet with translated words
only if the booklet's language is right (docs/asking.md, « Across languages »).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.models import Booklet, Extension, Game
from games.services import set_booklet_language
from rag import language

DETECT = ""  # « Détecter »: the booklet's text says
PROVISIONAL = "fr"  # a new booklet's language until its text is read
CHOICES = [(DETECT, gettext_lazy("Détecter")), ("fr", gettext_lazy("Français")), ("en", gettext_lazy("Anglais"))]
LANGUAGE_CODE = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]{2,4})?$")
NAMES = {"fr": gettext_lazy("français"), "en": gettext_lazy("anglais")}


class UnknownLanguage(ValueError):
    pass


def requested_language(value: str | None) -> str:
    """What the admin sent (« fr », "en-GB", « Anglais », "", "auto", None) → "fr", "en" or DETECT.
    Raises UnknownLanguage (a 422 / a form error) for anything else."""
    value = (value or "").strip()
    if value.lower() in ("", "auto", "detect", "détecter"):
        return DETECT
    normalised = language.normalise(value)
    if normalised is not None:
        return normalised
    if LANGUAGE_CODE.match(value):
        return value  # another language: stored as given (the text can only tell French from English)
    raise UnknownLanguage(_("Langue inconnue : « %(value)s » (fr, en, ou vide pour la détecter).") % {"value": value})


def language_name(code: str | None) -> str:
    return str(NAMES.get(language.normalise(code) or "", code or "?"))


@dataclass(frozen=True)
class Settled:
    detected: str | None  # "fr", "en", or None when the text does not say
    declared: str  # the booklet's language before
    applied: bool  # the booklet took the detected language
    mismatch: bool  # the admin chose a language the text contradicts

    def as_event(self) -> dict:
        return {
            "detected": self.detected or "",
            "detected_label": language_name(self.detected) if self.detected else "",
            "declared": self.declared,
            "declared_label": language_name(self.declared),
            "applied": self.applied,
            "mismatch": self.mismatch,
        }


def settle(job, booklet: Booklet, text: str, write=None) -> Settled:
    """Detect the booklet's language from `text`; set it when the job was left to detect
    (with `write(booklet, code)`: a replacement keeps it until its swap, ingest.booklet_swap)."""
    write = write or set_owner_language
    detected = language.detect(text)
    differs = detected is not None and language.is_other_language(detected, booklet.language or detected)
    if job.detect_language:
        if differs or (detected and not booklet.language):
            write(booklet, detected)
        return Settled(detected, booklet.language, applied=bool(detected), mismatch=False)
    return Settled(detected, booklet.language, applied=False, mismatch=differs)


def set_owner_language(booklet: Booklet, code: str) -> None:
    owner = booklet.extension or booklet.game
    type(owner).objects.filter(pk=owner.pk).update(language=code)
    owner.language = code


def detected_language(job) -> str | None:
    """The language the job's ingestion read in the text (stored with its `language` event)."""
    event = job.events.filter(event="language").order_by("-pk").first()
    return (event.data.get("detected") or None) if event else None


def correct_language(job) -> str:
    """« Corriger la langue »: give the job's booklet the detected language, and update what
    depends on it as the API's PATCH does (`games.services.set_booklet_language`: the chunks'
    payload, re-synced to the index now when this process owns it, and the game's terms learnt
    from translated booklets). Returns the language set."""
    detected = detected_language(job)
    if detected is None:
        raise UnknownLanguage(_("L'ingestion n'a pas encore lu la langue de ce livret."))
    booklet = fresh_booklet(job)
    set_booklet_language(booklet, detected)
    job.emit("language", {**Settled(detected, booklet.language, applied=True, mismatch=False).as_event(), "corrected": True})
    return detected


def fresh_booklet(job) -> Booklet:
    if job.extension_id:
        return Extension.objects.select_related("game").get(pk=job.extension_id).booklet
    return Game.objects.get(pk=job.game_id).base_booklet
