"""Quotes of a passage: its sentences with their offsets and pages, the sentence that answers
a question, and the citation that names it.

Citations read `[Livret, p.N : "citation"]`, N being the page on which the quoted words
stand: a chunk spanning pages 3–4 carries `page_offsets` ([[page, offset], …]) so a quote is
placed on its page, and a quote never straddles a page break. A quote is a whole sentence
from its first word: never the tail of a sentence cut by the chunking or carried over from
the previous page, and a table row comes with the line that labels it. The sentence that
states a rule is quoted rather than its "Example:" paragraph (the Comprehensive Rules'
illustrations), unless only the example shares the question's words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from rag import language
from rag.lexicon import lexicon_of
from rag.retrieve import RetrievedChunk
from rag.sparse import tokenize, translated_query
from rag.terms import expand_question

MAX_QUOTE_CHARS = 400
SHORT_SENTENCE = 300  # a quote this short goes on with the next sentences (same page); issue 26 dev: 120 → 300, fact in lead quote +9 / −0
EXAMPLE_WEIGHT = 0.01  # a sentence of an "Example:" paragraph is quoted only when no other shares a word
EXAMPLE_PREFIXES = ("Example", "Exemple")
TABLE_CELL = 60  # a line this short without a full stop, among others like it, is a table row
RARITY_TIE_BREAK = 2  # the rarity of the words a sentence holds only breaks ties of their count
QUANTITY_BONUS = 0.5  # « combien », "how many": a sentence sharing a word and stating a number, half a word more

_QUANTITY_QUESTION = re.compile(r"\b(combien|how (many|much|long|far)|what number|nombre de|quel nombre)\b", re.IGNORECASE)
_NUMBER = re.compile(
    r"\b(\d+|two|three|four|five|six|seven|eight|nine|ten|twelve|deux|trois|quatre|cinq|six|sept|huit"
    r"|neuf|dix|douze|half|moitié|double|twice|once)\b", re.IGNORECASE)

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n\s*\n|\n(?=\s*(?:[-•*–]|\d+[.)]|\d{3}\.\d))")
_MID_SENTENCE = re.compile(r"^[a-zàâçéèêëîïôûùüÿœ,;:)\]]")


def page_of_offset(chunk: RetrievedChunk, offset: int) -> int:
    """The page on which character `offset` of the chunk's text stands."""
    page = chunk.page_start
    for start_page, start_offset in sorted(chunk.page_offsets, key=lambda item: item[1]):
        if start_offset <= offset:
            page = int(start_page)
    return page


def _page_breaks(chunk: RetrievedChunk) -> list[int]:
    return sorted(int(offset) for _, offset in chunk.page_offsets if int(offset) > 0)


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


def sentences(chunk: RetrievedChunk) -> list[Span]:
    """Sentences of the chunk with their offsets, also cut at every page break."""
    text = chunk.text
    cuts = {0, len(text)}
    cuts.update(m.end() for m in _SENTENCE_END.finditer(text))
    cuts.update(_page_breaks(chunk))
    bounds = sorted(cuts)
    spans = []
    for start, end in zip(bounds, bounds[1:]):
        piece = text[start:end]
        stripped = piece.strip()
        if len(stripped) < 3:
            continue
        lead = len(piece) - len(piece.lstrip())
        spans.append(Span(start + lead, start + lead + len(stripped), stripped))
    return spans


def starts_mid_sentence(chunk: RetrievedChunk, span: Span) -> bool:
    """The words before the first full stop of the chunk, or of a page, when the sentence
    started earlier (cut by the chunking, or carried over from the previous page): « la carte
    est défaussée. », "the regeneration rule." after a page number."""
    if _MID_SENTENCE.match(span.text) is None:
        return False
    return span.start == 0 or _opens_page(chunk, span)


def _in_example(chunk: RetrievedChunk, span: Span) -> bool:
    """Is `span` in an "Example:" paragraph (the Comprehensive Rules' illustrations)?"""
    start = chunk.text.rfind("\n\n", 0, span.start + 1)
    return chunk.text[start + 1 if start >= 0 else 0:].lstrip().startswith(EXAMPLE_PREFIXES)


def _opens_page(chunk: RetrievedChunk, span: Span) -> bool:
    """Is `span` the first text of a page of the chunk (past a page number left alone)?"""
    for offset in _page_breaks(chunk):
        head = chunk.text[offset:span.start]
        if offset <= span.start and (not head.strip() or head.strip().isdigit()):
            return True
    return False


@dataclass(frozen=True)
class Quote:
    text: str
    page: int
    start: int
    score: float = 0.0  # how many of the question's words (or translations) it holds


def clip(text: str, limit: int = MAX_QUOTE_CHARS) -> str:
    """A verbatim prefix of `text`, cut at a word boundary (no ellipsis inside the quote);
    double quotes become single ones, since the citation encloses the quote in them."""
    text = " ".join(text.replace('"', "'").split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip(" ,;:")


def best_quote(question: str, chunk: RetrievedChunk, embedder=None) -> Quote | None:
    spans = sentences(chunk)
    if not spans:
        return None
    scores = [float(s) for s in shared_words(question, chunk, [s.text for s in spans])]
    if max(scores) < 1 and embedder is not None and len(spans) > 1:
        # Cross-lingual question: no shared words, so compare meanings.
        candidates = spans[:16]
        vectors = embedder.embed_passages([s.text for s in candidates])
        sims = vectors @ np.asarray(embedder.embed_query(question))
        scores = [float(x) / 100 for x in sims] + [0.0] * (len(spans) - len(candidates))
    if _QUANTITY_QUESTION.search(question):  # the sentence that answers states the number
        scores = [sc + QUANTITY_BONUS if sc >= 1 and _NUMBER.search(span.text) else sc for sc, span in zip(scores, spans)]
    for index, span in enumerate(spans):
        if len(spans) > 1 and starts_mid_sentence(chunk, span):
            scores[index] = -1.0
        elif _in_example(chunk, span):
            scores[index] *= EXAMPLE_WEIGHT
    best = max(range(len(spans)), key=lambda i: (scores[i], -i))
    return Quote(text=clip(_quoted_text(chunk, spans, best)), page=page_of_offset(chunk, spans[best].start),
                 start=spans[best].start, score=scores[best])


def _quoted_text(chunk: RetrievedChunk, spans: list[Span], best: int) -> str:
    """The sentence, with its table label before a table row, and the next sentences after a
    short one until the quote is SHORT_SENTENCE long (on the same page)."""
    span = spans[best]
    page = page_of_offset(chunk, span.start)
    start, end = span.start, span.end
    if _is_table_row(span.text) and best > 0 and page_of_offset(chunk, spans[best - 1].start) == page:
        start = spans[best - 1].start  # the row's label: the line above it
    else:
        start += _heading_length(chunk, span.text)
    after = best + 1  # while the quote is short, the next sentences too: « 702.2. Deathtouch » →
    # « 702.2a Deathtouch is a static ability. » → the rule that answers (dev split: fact in quotes +4, −0)
    while after < len(spans) and end - start < SHORT_SENTENCE and page_of_offset(chunk, spans[after].start) == page:
        end = spans[after].end
        after += 1
    return chunk.text[start:end].strip()


def _heading_length(chunk: RetrievedChunk, text: str) -> int:
    """The section heading glued before the sentence (« Surchauffe Lorsqu'un joueur… »): the
    citation names the section already, the quote starts at the sentence."""
    heading = chunk.hierarchy_path.replace("›", ">").split(">")[-1].strip()
    if not heading or not text.startswith(heading) or len(text) <= len(heading) + 20:
        return 0
    rest = text[len(heading):]
    if not rest[:1].isspace():
        return 0
    return len(heading) + len(rest) - len(rest.lstrip())


def _is_table_row(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and all(len(line) <= TABLE_CELL and not line.rstrip().endswith(".") for line in lines)


def shared_words(question: str, chunk: RetrievedChunk, texts: list[str]) -> list[float]:
    """How many of the question's words each text holds; for a booklet in the other language,
    a word counts through its translations too (as in the BM25 search, rag.retrieve).

    Between texts holding as many words, the one holding the rarer ones (in fewer of the
    `texts`) comes first: each held word adds less than 1/RARITY_TIE_BREAK of a word more
    the fewer texts hold it. « How does regeneration work? » in a passage of skills: every
    sentence says "work" or "unit", one says "Regeneration"."""
    groups = question_groups(question, chunk)
    held = [[bool(group & terms) for group in groups] for terms in (set(tokenize(text)) for text in texts)]
    if not texts or not groups:
        return [0.0] * len(texts)
    df = [sum(row[i] for row in held) for i in range(len(groups))]
    rarity = [1.0 - df[i] / len(texts) for i in range(len(groups))]
    return [
        sum(row) + sum(rarity[i] for i, has in enumerate(row) if has) / (RARITY_TIE_BREAK * len(groups))
        for row in held
    ]


def question_groups(question: str, chunk: RetrievedChunk) -> tuple[frozenset[str], ...]:
    """The question's words, each with its translations when the booklet is in the other
    language: the dictionary's and the game's own terms (« contact mortel » → deathtouch,
    rag.terms), as the searches translate them (rag.rule_routing.search_text)."""
    asked_in = language.detect(question)
    if not language.is_other_language(asked_in, chunk.booklet.language):
        return tuple(frozenset({term}) for term in dict.fromkeys(tokenize(question)))
    target = language.normalise(chunk.booklet.language)
    question = expand_question(question, getattr(chunk.booklet, "terms", None), asked_in, {target})
    return translated_query(question, asked_in, target, lexicon_of(chunk.booklet)).groups


def key_term_coverage(question: str, chunk: RetrievedChunk, quote: str) -> float:
    """The share of the question's content words (or their translations) the quote holds."""
    groups = question_groups(question, chunk)
    if not groups:
        return 0.0
    terms = set(tokenize(quote))
    return round(sum(1 for group in groups if group & terms) / len(groups), 3)


def citation(booklet_name: str, page: int, quote: str) -> str:
    return f'[{booklet_name}, p.{page} : "{quote}"]'
