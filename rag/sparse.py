"""BM25 sparse vectors for French and English text, the same on the index and query side.

Qdrant computes the IDF part itself (sparse vector with `Modifier.IDF`); we send the
term-frequency part of BM25: tf·(k1+1) / (tf + k1·(1 − b + b·len/avg_len)).

Tokenising: Unicode-normalised, lower-cased, accents folded, elisions split (« l'action »
→ « action »), stop words of both languages dropped, and every token stemmed with both
the French and the English Snowball stemmers. Emitting both stems makes a term match
whatever the language of the text it comes from (a French question about an English
expansion still matches « carte »/« card » through the dense side, and shared words such
as « action », « initiative », « 702.2b » through this one).
Rule numbers like « 702.2b » and « 4.1 » are kept whole: questions cite them.

A booklet in the other language than the question gets a translated query instead
(`translated_query`, words from `rag.lexicon`): the question's words plus their
translations, weighed half.
"""

from __future__ import annotations

import re
import threading
import unicodedata
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

from rag.language import is_function_word

K1 = 1.2
B = 0.75
AVG_LEN = 120.0  # tokens per chunk, roughly; only shapes the length normalisation

_FRENCH = snowballstemmer.stemmer("french")
_ENGLISH = snowballstemmer.stemmer("english")
_STEMMER_LOCK = threading.Lock()  # a Snowball stemmer keeps its word in itself: not thread-safe

_TOKEN_RE = re.compile(r"\d+(?:\.\d+)*[a-z]?|[a-z0-9]+", re.IGNORECASE)
_ELISION_RE = re.compile(r"\b(?:l|d|j|m|n|s|t|c|qu|jusqu|lorsqu|puisqu|quoiqu)['’]", re.IGNORECASE)

STOP_WORDS = frozenset(
    """
    a au aux avec ce ces cet cette dans de des du elle en et eux il ils je la le les leur leurs lui
    ma mais me meme mes moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses son sur
    ta te tes toi ton tu un une vos votre vous y est sont ete etre avoir a ont fait peut plus
    the an and are as at be by for from has have he her his i if in into is it its of on or our
    she so that the their them then there these they this to was we were what when where which
    who will with you your can do does not no any all
    """.split()
)


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return text.lower()


_STEMMERS = {"fr": _FRENCH, "en": _ENGLISH}


@lru_cache(maxsize=200_000)
def stem(word: str, language: str) -> str:
    """`word` folded and stemmed the way this language's side of the index stems it."""
    with _STEMMER_LOCK:
        return _STEMMERS[language].stemWord(_fold(word))


@lru_cache(maxsize=200_000)
def _stems(word: str) -> tuple[str, ...]:
    if word[0].isdigit():
        return (word,)
    with _STEMMER_LOCK:
        french = _FRENCH.stemWord(word)
        english = _ENGLISH.stemWord(word)
    return (french,) if french == english else (french, english)


def words(text: str) -> list[str]:
    """The folded words of `text` that count, in order (stop words and single letters dropped)."""
    text = _fold(_ELISION_RE.sub(" ", text.replace("\u200b", "")))
    kept = []
    for match in _TOKEN_RE.finditer(text):
        word = match.group(0).rstrip(".")
        if word not in STOP_WORDS and (len(word) >= 2 or word.isdigit()):
            kept.append(word)
    return kept


def tokenize(text: str) -> list[str]:
    """Stemmed terms of `text`, in order, stop words removed."""
    return [term for word in words(text) for term in _stems(word)]


def term_index(term: str) -> int:
    """Stable 31-bit id of a term (same in every process and release)."""
    return zlib.crc32(term.encode("utf-8")) & 0x7FFFFFFF


@dataclass(frozen=True)
class SparseVector:
    indices: list[int]
    values: list[float]

    def as_dict(self) -> dict:
        return {"indices": self.indices, "values": self.values}

    @classmethod
    def from_dict(cls, data: dict) -> "SparseVector":
        return cls(indices=list(data.get("indices", [])), values=list(data.get("values", [])))


def _vector(counts: Counter, length: int, *, document: bool) -> SparseVector:
    indices: list[int] = []
    values: list[float] = []
    norm = K1 * (1 - B + B * length / AVG_LEN)
    merged: dict[int, float] = {}
    for term, tf in counts.items():
        weight = tf * (K1 + 1) / (tf + norm) if document else 1.0
        idx = term_index(term)
        merged[idx] = max(merged.get(idx, 0.0), weight)
    for idx in sorted(merged):
        indices.append(idx)
        values.append(round(merged[idx], 5))
    return SparseVector(indices, values)


def document_vector(text: str) -> SparseVector:
    terms = tokenize(text)
    return _vector(Counter(terms), len(terms), document=True)


def query_vector(text: str) -> SparseVector:
    """Each query term once, weight 1: Qdrant multiplies by the document weight and IDF."""
    terms = tokenize(text)
    return _vector(Counter(terms), len(terms), document=False)


# --- across languages ------------------------------------------------------------------

TRANSLATION_WEIGHT = 0.5  # a translation is a guess: it counts half of a word of the question


@dataclass(frozen=True)
class TranslatedQuery:
    """A question's BM25 query for a booklet in the other language.

    `groups` holds, for each word of the question, its own stems and the stems of its
    translations: a chunk matches the word if it contains any of them.
    """

    vector: SparseVector
    groups: tuple[frozenset[str], ...]


def translated_query(text: str, source: str, target: str, lexicon) -> TranslatedQuery:
    """The question's words (weight 1: names, numbers and shared words such as « action » still
    match) and their translations into `target` (TRANSLATION_WEIGHT), stemmed the way the
    index stems the booklet's words."""
    weights: dict[int, float] = {}
    groups: list[frozenset[str]] = []
    for word in words(text):
        if is_function_word(word):
            continue
        own = set(_stems(word))
        translated = {
            stem(part, target)
            for phrase in lexicon.translate(word, source)
            for part in words(phrase)
        } - own
        for term in own:
            weights[term_index(term)] = 1.0
        for term in translated:
            index = term_index(term)
            weights[index] = max(weights.get(index, 0.0), TRANSLATION_WEIGHT)
        group = frozenset(own | translated)
        if group not in groups:
            groups.append(group)
    indices = sorted(weights)
    return TranslatedQuery(SparseVector(indices, [weights[i] for i in indices]), tuple(groups))
