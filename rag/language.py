"""French or English? For a question of a few words and for a whole booklet.

Only these two languages matter here, and their function words barely overlap, so counting
them is enough (and needs no model): « Qui commence la partie ? » has « qui », « la »;
"How do the Liberals win?" has "how", "do", "the". Elisions (« l'action », « d'un ») count
for French. A text with as many of each, or none, has no language (`None`): callers then
leave it as it is.
"""

from __future__ import annotations

import re
import unicodedata

FRENCH, ENGLISH = "fr", "en"

_FRENCH_WORDS = frozenset(
    """
    le la les un une des du de et est sont qui que quoi quel quelle quels quelles quand comment
    combien pourquoi ou où peut peuvent doit doivent il ils elle elles on je nous vous avec pour
    dans sur au aux ce cette ces se si pas ne en son sa ses leur leurs lorsque chaque tous toutes
    après avant pendant entre sans sous aussi mais donc car être avoir fait faut
    """.split()
)
_ENGLISH_WORDS = frozenset(
    """
    the a an of and is are was were who what which when how why can could does do did should must
    may with for in on at to it its this that these those if not by from their his her be been
    has have had each any all after before during between without into than then there where
    """.split()
)
_WORD_RE = re.compile(r"[^\W\d_]+")
_ELISION_RE = re.compile(r"\b(?:l|d|j|m|n|s|t|c|qu|jusqu|lorsqu|puisqu)['’]\w", re.IGNORECASE)


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(unicodedata.normalize("NFC", text).lower())


def detect(text: str) -> str | None:
    """"fr", "en", or None when the text does not say."""
    french = english = 0.0
    for word in _words(text):
        french += word in _FRENCH_WORDS
        english += word in _ENGLISH_WORDS
    french += 0.5 * len(_ELISION_RE.findall(text))
    if french == english:
        return None
    return FRENCH if french > english else ENGLISH


_NAMES = {"fr": FRENCH, "fra": FRENCH, "fre": FRENCH, "francais": FRENCH, "français": FRENCH, "french": FRENCH,
          "en": ENGLISH, "eng": ENGLISH, "anglais": ENGLISH, "english": ENGLISH}


def normalise(language: str | None) -> str | None:
    """A booklet's language as an admin typed it (« fr », "en-GB", « Anglais ») → "fr", "en" or None."""
    if not language:
        return None
    return _NAMES.get(language.strip().lower().replace("_", "-").split("-")[0])


def is_other_language(question_language: str | None, booklet_language: str | None) -> bool:
    """True when both are French or English and they differ."""
    question, booklet = normalise(question_language), normalise(booklet_language)
    return question is not None and booklet is not None and question != booklet


def is_function_word(word: str) -> bool:
    """« combien », "each"…: words that say nothing about what is asked, in either language."""
    word = word.lower()
    return word in _FRENCH_WORDS or word in _ENGLISH_WORDS or word in _MORE_FUNCTION_WORDS


_MORE_FUNCTION_WORDS = frozenset("many much should would might also only just very est-ce".split())
