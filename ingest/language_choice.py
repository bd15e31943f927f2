"""A booklet's language: chosen by the admin, or told from its text by the ingestion.

Every entry point (the wizard and `POST /api/games/ingest`, the admin's upload form, the
`ingest` command) turns what the admin sent into a requested language with
`requested_language`: "fr", "en"… or `DETECT` (« Détecter », an empty or absent value).
`services.create_ingest` gives a new booklet a provisional language and marks the job
(`IngestJob.detect_language`), or keeps the language the admin chose in the job's stats
(`job_fields`); after chunking, the coordinator calls `settle`:
- the admin left it to the text: the booklet takes the detected language;
- the admin chose one: the booklet takes it — a booklet that already existed too, whatever
  its language was (a replacement on its swap, with its new chunks);
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

from . import booklet_swap

DETECT = ""  # « Détecter »: the booklet's text says
PROVISIONAL = "fr"  # a new booklet's language until its text is read
CHOICES = [(DETECT, gettext_lazy("Détecter")), ("fr", gettext_lazy("Français")), ("en", gettext_lazy("Anglais"))]
LANGUAGE_CODE = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]{2,4})?$")
NAMES = {"fr": gettext_lazy("français"), "en": gettext_lazy("anglais")}


# The job's stats key holding the language the admin chose, until `settle` gives it to the
# booklet (the job's final stats replace it). An existing booklet is not given it at upload:
# it still serves its old chunks, in its old language, until the job swaps in the new ones.
DECLARED_KEY = "declared_language"


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


def job_fields(requested: str) -> dict:
    """A new job's fields for what the admin sent: DETECT marks it `detect_language`; a chosen
    language is kept in its stats, for `settle` to give the booklet — a booklet that exists
    too, whatever its language was — once the job has read the text."""
    if requested == DETECT:
        return {"detect_language": True, "stats": {}}
    return {"detect_language": False, "stats": {DECLARED_KEY: requested}}


def declared_language(job) -> str | None:
    """The language the admin chose when uploading this job's PDF, None when left to the text."""
    return (job.stats or {}).get(DECLARED_KEY) or None


def language_name(code: str | None) -> str:
    return str(NAMES.get(language.normalise(code) or "", code or "?"))


@dataclass(frozen=True)
class Settled:
    detected: str | None  # "fr", "en", or None when the text does not say
    declared: str  # the admin's choice for this job, else the booklet's language before
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
    """Detect the booklet's language from `text`; set it when the job was left to detect, or
    to the admin's choice, and compare that choice with the text (with `write(booklet, code)`:
    a replacement keeps its language until its swap, ingest.booklet_swap)."""
    write = write or set_owner_language
    detected = language.detect(text)
    if job.detect_language:
        if _differs(detected, booklet.language) or (detected and not booklet.language):
            write(booklet, detected)
        return Settled(detected, booklet.language, applied=bool(detected), mismatch=False)
    declared = declare(job, booklet, write)
    return Settled(detected, declared, applied=False, mismatch=_differs(detected, declared))


def declare(job, booklet: Booklet, write) -> str:
    """The language the booklet is declared in: the admin's choice for this job, which it takes
    even though it existed in another one (re-uploaded French rules of an English game), or,
    with no choice (a re-ingestion), its own."""
    chosen = declared_language(job)
    if chosen and chosen != booklet.language:
        write(booklet, chosen)
        return chosen
    return booklet.language


def _differs(detected: str | None, declared: str | None) -> bool:
    return detected is not None and language.is_other_language(detected, declared or detected)


def set_owner_language(booklet: Booklet, code: str) -> None:
    owner = booklet.extension or booklet.game
    type(owner).objects.filter(pk=owner.pk).update(language=code)
    owner.language = code


def language_read(job) -> dict | None:
    """The `language` event of the job's latest run (none after a `retry` until it reads
    again): what the job page shows, and what « Corriger la langue » sets."""
    latest = job.events.filter(event__in=("language", "retry")).order_by("-pk").values_list("event", "data").first()
    return latest[1] if latest and latest[0] == "language" else None


def detected_language(job) -> str | None:
    """The language the job's latest run read in the text."""
    return (language_read(job) or {}).get("detected") or None


def correct_language(job) -> str:
    """« Corriger la langue »: give the job's booklet the detected language, and update what
    depends on it as the API's PATCH does (`games.services.set_booklet_language`: the chunks'
    payload, re-synced to the index now when this process owns it, and the game's terms learnt
    from translated booklets). Returns the language set."""
    detected = detected_language(job)
    if detected is None:
        raise UnknownLanguage(_("L'ingestion n'a pas encore lu la langue de ce livret."))
    booklet = fresh_booklet(job)
    refuse_before_the_swap(job, booklet)
    set_booklet_language(booklet, detected)
    job.emit("language", {**Settled(detected, booklet.language, applied=True, mismatch=False).as_event(), "corrected": True})
    return detected


def refuse_before_the_swap(job, booklet: Booklet) -> None:
    """A replacement not yet swapped in gives the booklet the admin's choice on its swap
    (`declare`): corrected before that, the booklet would silently take that choice back."""
    chosen = declared_language(job)
    if job.is_finished or not chosen or chosen == booklet.language or not booklet_swap.is_replacement(job, booklet):
        return
    raise UnknownLanguage(_(
        "Ce livret prendra la langue choisie à l'envoi (« %(language)s ») quand son nouveau PDF sera adopté : "
        "corrigez-la une fois l'ingestion terminée."
    ) % {"language": chosen})


def fresh_booklet(job) -> Booklet:
    if job.extension_id:
        return Extension.objects.select_related("game").get(pk=job.extension_id).booklet
    return Game.objects.get(pk=job.game_id).base_booklet
