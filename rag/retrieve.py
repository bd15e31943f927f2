"""Retrieval for one question (docs/architecture.md, « question → answer »), plain Python.

Step 0 embeds the question (and the HyDE passage, and a follow-up's context). Step 1 runs a
dense and a BM25 search per booklet collection, concurrently, merges each kind of search across
collections and fuses the lists with RRF v2. A booklet in the other language than the question
is searched with the question's words translated (`rag.sparse.translated_query`). A rule number
named in the question ("702.2b", « règle 4.1 ») puts the chunk that states it first; a keyword
the booklet defines (« 702.19. Trample ») adds its rule's chunks as one more list, and the
game's own terms carry a French keyword to an English booklet (`rag.rule_routing`). Step 2
reranks the top 50 when a cross-encoder is configured; an expansion's change then comes right
after the base rule it changes (`rag.overrides`). Forum chunks are dropped for synergy,
deckbuilding and meta questions.
"""
from __future__ import annotations

import logging
import math
import re
import time
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from rag import language, rule_routing
from rag.fusion import CONTEXT_WEIGHT, HYDE_WEIGHT, QUESTION_WEIGHT, Fused, RankedList, fuse, merge_by_score
from rag.lexicon import lexicon_of
from rag.overrides import overrides_first
from rag.rerank import RERANK_TOP_N, RerankError, blend, normalise
from rag.sparse import TranslatedQuery, query_vector, tokenize, translated_query
from rag.store import Hit, VectorStore

log = logging.getLogger(__name__)

LIST_LIMIT = 30
MIN_SHARED_TERMS = 2  # a BM25 hit sharing fewer terms with a longer question is noise
MIN_SHARED_FRACTION = 1 / 2
FORUM_FREE_INTENTS = {"synergy", "deckbuilding", "meta"}
# A multilingual embedder scores a passage in the question's language higher than the same
# rule in the other language; merging the booklets' dense hits, the other language's cosines
# get this much more (the reported cosine is left as it is). Dev split: rulebooks R@1 0.681 →
# 0.736 with 0.02, first citation 0.625 → 0.681 (0.04 did no better).
OTHER_LANGUAGE_COSINE = 0.02
EXAMPLE_PREFIXES = ("Example", "Exemple")
EXAMPLE_SHARE = 0.6  # a chunk this much made of "Example:" paragraphs illustrates its rule

_RULE_NUMBER_RE = re.compile(r"\b(\d{3}\.\d+[a-z]?)\b", re.IGNORECASE)
_NAMED_RULE_RE = re.compile(
    r"\b(?:r[eè]gles?|rules?|sections?|articles?|§)\s*(?:n[°o]\.?\s*)?(\d+(?:\.\d+)*[a-z]?)\b", re.IGNORECASE
)

@dataclass(frozen=True)
class BookletRef:
    """What retrieval and answering need to know about one booklet (no ORM)."""

    collection: str
    slug: str
    name: str
    kind: str = "base"  # base | extension | advanced_rules | faq
    images_dir: Path | None = None
    language: str = ""  # as the admin gave it: « fr », "en"…; empty when unknown
    id: str = ""  # the booklet's id in links (the game's for the base booklet); empty when none
    # What the booklet's game and document define (rag.rule_routing): keyword → rule number,
    # and the game's French ↔ English terms (rag.terms.GameTerms).
    rule_keywords: dict = field(default_factory=dict, compare=False, hash=False)
    terms: object = field(default=None, compare=False, hash=False)
    # The French <-> English dictionary its searches translate with (rag.lexicon; the caller
    # builds it from BILINGUAL_DICTIONARY_DIR); None: the default folder's.
    lexicon: object = field(default=None, compare=False, hash=False, repr=False)

    @property
    def is_extension(self) -> bool:
        return self.kind != "base"


@dataclass
class RetrievedChunk:
    id: str
    booklet: BookletRef
    payload: dict
    score: float  # final score (fusion, blended with rerank when configured)
    fusion_score: float
    dense_score: float | None = None  # cosine with the raw question, when dense found it
    rerank_score: float | None = None
    rule_match: bool = False
    overrides: "RetrievedChunk | None" = None  # the base passage this one changes (rag.overrides)
    variant_of: "RetrievedChunk | None" = None  # the base passage a variant the question does not name changes
    found_by: tuple[str, ...] = ()  # the kinds of search that found it: "dense", "bm25", "keyword"
    search_ranks: dict = field(default_factory=dict)  # "dense" / "bm25" → its rank (0 = first) for the question

    @property
    def text(self) -> str:
        return self.payload.get("text", "")

    @property
    def page_start(self) -> int:
        return int(self.payload.get("page_start") or 0)

    @property
    def page_end(self) -> int:
        return int(self.payload.get("page_end") or self.page_start)

    @property
    def page_offsets(self) -> list:
        return self.payload.get("page_offsets") or []

    @property
    def hierarchy_path(self) -> str:
        return self.payload.get("hierarchy_path", "")

    @property
    def is_forum(self) -> bool:
        return bool(self.payload.get("is_forum_chunk"))

    @property
    def conflict(self) -> dict | None:
        kind = self.payload.get("conflict_type")
        if not kind:
            return None
        return {
            "type": kind,
            "base_chunk_id": self.payload.get("conflict_base_chunk_id"),
            "base_page": self.payload.get("conflict_base_page"),
            "summary": self.payload.get("conflict_summary", ""),
        }

    @property
    def pages(self) -> str:
        if self.page_start and self.page_end and self.page_end != self.page_start:
            return f"{self.page_start}-{self.page_end}"
        return str(self.page_start)


@dataclass
class Retrieval:
    chunks: list[RetrievedChunk]
    timings_ms: dict[str, float] = field(default_factory=dict)
    rule_numbers: list[str] = field(default_factory=list)
    candidates: int = 0
    reranked: bool = False

    @property
    def best_score(self) -> float:
        """Relevance of the best chunk: its cosine with the question (fusion scores are ranks)."""
        scores = [c.dense_score for c in self.chunks[:5] if c.dense_score is not None]
        return round(max(scores), 4) if scores else 0.0


def rule_numbers_in(question: str) -> list[str]:
    numbers = [m.group(1) for m in _RULE_NUMBER_RE.finditer(question)]
    numbers += [m.group(1) for m in _NAMED_RULE_RE.finditer(question)]
    seen: list[str] = []
    for number in numbers:
        number = number.lower().rstrip(".")
        if number not in seen:
            seen.append(number)
    return seen


def states_rule(text: str, number: str) -> bool:
    """Does `text` contain the line that states rule `number` ("702.2b …", "4.1. …")?"""
    return re.search(rf"(?m)^\s*{re.escape(number)}\.?(?=\s|$)", text, re.IGNORECASE) is not None


class _Timer:
    def __init__(self):
        self.timings: dict[str, float] = {}

    def mark(self, name: str, start: float) -> float:
        now = time.perf_counter()
        self.timings[name] = round((now - start) * 1000, 2)
        return now


def retrieve(
    question: str,
    *,
    store: VectorStore,
    embedder,
    booklets: list[BookletRef],
    hyde_passage: str | None = None,
    context_text: str | None = None,
    intent: str = "rules",
    reranker=None,
    top_k: int = 8,
    modes: tuple[str, ...] = ("dense", "bm25"),
    fusion_v2: bool = True,
    executor: Executor | None = None,
    rerank_query: str | None = None,
) -> Retrieval:
    """The best `top_k` chunks of `booklets` for `question`, best first.

    `context_text`: a follow-up's previous question with it (rag.followup), searched at a lower
    weight. `modes` restricts the searches (the benchmark compares bm25 only, dense only, hybrid).
    `fusion_v2`: RRF v2 or plain RRF (the caller's RAG_FUSION_V2_ENABLED). The
    searches run concurrently in `executor`; without one, one after another. `rerank_query`: what
    the reranker reads the passages for (a follow-up's standalone question), the question by default."""
    timer = _Timer()
    start = time.perf_counter()
    queries = _queries(question, booklets, hyde_passage, context_text)
    dense_vectors = {name: embedder.embed_query(text) for name, text in queries.items()} if "dense" in modes else {}
    start = timer.mark("embed", start)
    submit = executor.submit if executor is not None else _run_now
    lists, dense_scores, rule_hits = _search_all(store, booklets, queries, dense_vectors, modes, question, submit)
    start = timer.mark("search", start)
    numbers = rule_numbers_in(question)
    fused = _fuse(lists, rule_hits, numbers, intent, fusion_v2)
    by_collection = {b.collection: b for b in booklets}
    chunks = [_to_chunk(f, by_collection, dense_scores, numbers) for f in fused]
    start = timer.mark("fusion", start)
    reranked = reranker is not None and bool(chunks)
    if reranked:
        try:
            chunks = _rerank(rerank_query or question, chunks, reranker, timer, start)
        except RerankError as exc:  # the fused order is a full answer: keep it
            log.warning("rerank unavailable, fusion order kept: %s", exc)
            reranked = False
    chunks = statements_before_examples(chunks)  # after the reranker, which would undo it
    chunks = overrides_first(chunks, question)  # an expansion's change that applies, right after the base rule it changes
    return Retrieval(
        chunks=chunks[:top_k], timings_ms=timer.timings, rule_numbers=numbers, candidates=len(fused), reranked=reranked
    )


def _queries(question: str, booklets: list[BookletRef], hyde_passage: str | None, context_text: str | None) -> dict:
    """The texts searched: the question and a follow-up's context with the game's terms in the
    booklets' other language (rag.rule_routing), the HyDE passage as it is."""
    queries = {"question": rule_routing.search_text(question, booklets)}
    queries.update({"hyde": hyde_passage} if hyde_passage else {})
    if context_text:
        queries["context"] = rule_routing.search_text(context_text, booklets)
    return queries


def _fuse(lists: list[RankedList], rule_hits: list[Hit], numbers: list[str], intent: str, v2: bool) -> list:
    """RRF v2 (or plain RRF) of the lists, rules the question names first, no unwanted forum."""
    fused = _rule_numbers_first(fuse(lists, v2), rule_hits, numbers)
    if intent in FORUM_FREE_INTENTS:
        fused = [f for f in fused if not f.hit.payload.get("is_forum_chunk")]
    return fused


def _run_now(fn, *args) -> Future:
    future: Future = Future()
    future.set_result(fn(*args))
    return future


def _search_all(store, booklets, queries, dense_vectors, modes, question, submit):
    """Every search of the question, concurrently; returns the ranked lists to fuse."""
    translated = {name: _translations(text, booklets) for name, text in queries.items()} if "bm25" in modes else {}
    jobs = {}
    for booklet in booklets:
        for name, text in queries.items():
            if "dense" in modes:
                jobs[("dense", name, booklet.collection)] = submit(
                    store.search_dense, booklet.collection, dense_vectors[name], LIST_LIMIT
                )
            if "bm25" in modes:
                other = translated[name].get(booklet.collection)
                vector = other.vector if other else query_vector(text)
                jobs[("bm25", name, booklet.collection)] = submit(
                    store.search_sparse, booklet.collection, vector, LIST_LIMIT
                )
    numbers = rule_numbers_in(question)
    rule_jobs = []
    if numbers:
        rule_query = query_vector(" ".join(numbers))
        rule_jobs = [submit(store.search_sparse, b.collection, rule_query, 10) for b in booklets]
    results = {key: future.result() for key, future in jobs.items()}
    dense_scores = {
        hit.id: hit.score for (kind, name, _), hits in results.items() if kind == "dense" and name == "question"
        for hit in hits
    }  # fmt: skip
    rule_hits = [hit for job in rule_jobs for hit in job.result()]
    lists = _ranked_lists(results, queries, translated, _other_language(queries, booklets))
    if "bm25" in modes:  # the rules of the keywords the question names, one more list
        lists += rule_routing.keyword_lists(store, booklets, queries["question"], lists)
    return lists, dense_scores, rule_hits


def _other_language(queries: dict, booklets: list[BookletRef]) -> dict[str, set[str]]:
    """query name → the collections of the booklets in the other language than that query."""
    asked = {name: language.detect(text) for name, text in queries.items()}
    return {name: {b.collection for b in booklets if language.is_other_language(asked[name], b.language)}
            for name in queries}


def _ranked_lists(results: dict, queries: dict, translated: dict, other_language: dict | None = None) -> list[RankedList]:
    """One list per kind of search and query, merged across the booklets by score (dense: the
    cosines of a booklet in the other language raised by OTHER_LANGUAGE_COSINE)."""
    lists = []
    for kind in ("dense", "bm25"):
        for name in queries:
            hit_lists = [hits for (k, n, _), hits in results.items() if k == kind and n == name]
            if not hit_lists:
                continue
            weight = QUESTION_WEIGHT if name == "question" else CONTEXT_WEIGHT if name == "context" else HYDE_WEIGHT
            if kind == "bm25":  # filtered before the merge: noise must not take the places of real matches
                kept = [h for hits in hit_lists for h in keep_lexical_matches(queries[name], hits, translated[name])]
                merged = by_coverage(queries[name], kept, translated[name], LIST_LIMIT)
            else:
                merged = merge_dense(hit_lists, (other_language or {}).get(name, set()))
            lists.append(RankedList(f"{kind}:{name}", weight, merged))
    return lists


def merge_dense(hit_lists: list[list[Hit]], other_language: set[str]) -> list[Hit]:
    """The dense hits of several booklets in one ranking by cosine, a booklet in the other
    language than the question raised by OTHER_LANGUAGE_COSINE."""
    if not other_language or len(hit_lists) < 2:
        return merge_by_score(hit_lists, LIST_LIMIT)
    merged = [hit for hits in hit_lists for hit in hits]
    merged.sort(key=lambda h: h.score + (OTHER_LANGUAGE_COSINE if h.collection in other_language else 0.0), reverse=True)
    return merged[:LIST_LIMIT]


def _translations(text: str, booklets: list[BookletRef]) -> dict[str, TranslatedQuery]:
    """collection → the translated BM25 query, for the booklets in the other language."""
    asked_in = language.detect(text)
    out = {}
    for booklet in booklets:
        if language.is_other_language(asked_in, booklet.language):
            out[booklet.collection] = translated_query(
                text, asked_in, language.normalise(booklet.language), lexicon_of(booklet)
            )
    return out


def keep_lexical_matches(
    query: str, hits: list[Hit], translated: dict[str, TranslatedQuery] | None = None
) -> list[Hit]:
    """BM25 hits that share at least half of the query's terms, and at least two (all of
    them for a shorter query).

    A chunk matching two common words (« player », « start ») of a seven-word question is not
    lexical evidence, and across languages it would outrank the dense side's good match.
    For a booklet searched in translation (`translated`, by collection) a question word
    counts when the chunk has the word or one of its translations.
    """
    return [hit for hit in hits if _shared_terms(query, hit, translated)[0]]


def by_coverage(query: str, hits: list[Hit], translated: dict[str, TranslatedQuery] | None, limit: int) -> list[Hit]:
    """The BM25 hits of several booklets in one ranking: most of the question's words first,
    then score. Raw BM25 scores are not comparable across a translated and a plain query (a
    translation weighs half; each booklet has its own IDF): « tempête », found as "storm"
    only in the English expansion, lost to French passages holding fewer of the question's
    words. (Weighing each shared word by its rarity among the hits did worse: demo R@5
    0.931 → 0.914.) The hits of one booklet alone keep their BM25 order: within a booklet the
    scores are comparable and already weigh each shared word by its rarity, where a count
    lets a long passage holding many common words (« sort », « pile ») outrank the one that
    holds the rare word — measured on the dev split, Comprehensive Rules R@1 0.525 → 0.550,
    every set's first citation 0.647 → 0.659."""
    if len({h.collection for h in hits}) <= 1:
        return sorted(hits, key=lambda h: h.score, reverse=True)[:limit]
    ranked = sorted(hits, key=lambda h: (len(_matched_words(query, h, translated)), h.score), reverse=True)
    return ranked[:limit]


def _matched_words(query: str, hit: Hit, translated: dict[str, TranslatedQuery] | None) -> set[int]:
    """Which of the question's words (by position) the hit holds, itself or translated."""
    terms = _terms_of(hit.id, hit.payload.get("text", ""))
    other = (translated or {}).get(hit.collection)
    if other is None:
        return {i for i, term in enumerate(dict.fromkeys(tokenize(query))) if term in terms}
    return {i for i, group in enumerate(other.groups) if group & terms}


def _shared_terms(query: str, hit: Hit, translated: dict[str, TranslatedQuery] | None) -> tuple[bool, int]:
    """Whether the hit shares enough of the query's words, and how many it shares."""
    wanted = set(tokenize(query))
    terms = _terms_of(hit.id, hit.payload.get("text", ""))
    other = (translated or {}).get(hit.collection)
    if other is None:
        shared = len(wanted & terms)
        return shared >= _needed(len(wanted)), shared
    shared = sum(1 for group in other.groups if group & terms)
    return shared >= _needed(len(other.groups)), shared


def _needed(count: int) -> int:
    return min(count, max(MIN_SHARED_TERMS, math.ceil(count * MIN_SHARED_FRACTION)))


@lru_cache(maxsize=65_536)
def _terms_of(point_id: str, text: str) -> frozenset[str]:
    """A chunk's terms, computed once per process (the same chunks come back often)."""
    return frozenset(tokenize(text))


def _rule_numbers_first(fused: list[Fused], rule_hits: list[Hit], numbers: list[str]) -> list[Fused]:
    """Chunks stating a rule the question names go first, in the order the rules were named."""
    if not numbers:
        return fused
    by_id = {f.id: f for f in fused}
    for hit in rule_hits:
        by_id.setdefault(hit.id, Fused(hit=hit, score=0.0))
    stating = []
    for number in numbers:
        for entry in sorted(by_id.values(), key=lambda f: f.score, reverse=True):
            if entry not in stating and states_rule(entry.hit.payload.get("text", ""), number):
                stating.append(entry)
    if not stating:
        return fused
    top = (fused[0].score if fused else 0.0) + 1.0
    for offset, entry in enumerate(stating):
        entry.score = top - offset * 0.01
    rest = [f for f in fused if f not in stating]
    return stating + rest


def illustrates(chunk: RetrievedChunk) -> bool:
    """Is the chunk mostly "Example:" paragraphs — the part of a long numbered rule that holds
    its illustrations (« 702.19. Trample » then examples only), not its statements?"""
    paragraphs = [p.strip() for p in chunk.text.split("\n\n") if p.strip()]
    total = sum(len(p) for p in paragraphs)
    examples = sum(len(p) for p in paragraphs if p.startswith(EXAMPLE_PREFIXES))
    return bool(total) and examples / total >= EXAMPLE_SHARE


def statements_before_examples(chunks: list[RetrievedChunk]) -> list[RetrievedChunk]:
    """A part of a numbered rule made of its examples comes after a part of the same rule that
    states it, when both are candidates: the player is quoted the rule, then may read the
    illustration (the Comprehensive Rules' 702.19 is cut into parts; its examples-only part
    led « my trampler is blocked by a 1/1 » before 702.19b)."""
    out = list(chunks)
    for chunk in chunks:
        rule = chunk.payload.get("rule")
        if not rule or not illustrates(chunk):
            continue
        at = out.index(chunk)
        statement = next((c for c in out[at + 1:] if c.payload.get("rule") == rule and c.booklet == chunk.booklet
                          and not illustrates(c)), None)
        if statement is not None:
            out.remove(statement)
            out.insert(at, statement)
    return out


def _to_chunk(fused: Fused, by_collection: dict, dense_scores: dict, numbers: list[str]) -> RetrievedChunk:
    collection = fused.hit.collection or fused.hit.payload.get("collection", "")
    booklet = by_collection.get(collection) or BookletRef(collection=collection, slug=collection, name=collection)
    text = fused.hit.payload.get("text", "")
    return RetrievedChunk(
        id=fused.id,
        booklet=booklet,
        payload=fused.hit.payload,
        score=round(fused.score, 6),
        fusion_score=round(fused.score, 6),
        dense_score=dense_scores.get(fused.id),
        rule_match=any(states_rule(text, n) for n in numbers),
        found_by=tuple(sorted({name.split(":")[0] for name in fused.ranks})),
        search_ranks={name.split(":")[0]: rank for name, rank in fused.ranks.items() if name.endswith(":question")},
    )


def _rerank(question: str, chunks: list[RetrievedChunk], reranker, timer: _Timer, start: float) -> list[RetrievedChunk]:
    """A cross-encoder's scores blended with the fused order by position (rag.rerank.blend);
    a listwise reranker's (the LLM's, rag.llm_rerank) taken as the order of the head it read.
    Chunks stating a rule the question names stay first either way."""
    top_n = getattr(reranker, "top_n", RERANK_TOP_N)
    head, tail = chunks[:top_n], chunks[top_n:]
    texts = [_rerank_text(c) for c in head]
    rerank_scores = reranker.scores(question, texts)
    if getattr(reranker, "listwise", False):
        # above every chunk it did not read (scores stay one scale: the page image, the
        # `context` event), rules the question names above all
        floor = max((c.score for c in tail), default=0.0) + 1.0
        ordered = [floor + n for n in normalise(rerank_scores)]
        named = 2.0
    else:
        ordered = blend([c.fusion_score for c in head], rerank_scores)
        named = 1.0
    for chunk, rerank_score, score in zip(head, rerank_scores, ordered):
        chunk.rerank_score = round(rerank_score, 6)
        chunk.score = round(score + (named if chunk.rule_match else 0.0), 6)
    head.sort(key=lambda c: c.score, reverse=True)
    timer.mark("rerank", start)
    return head + tail


def _rerank_text(chunk: RetrievedChunk) -> str:
    context = chunk.payload.get("contextual_text") or chunk.hierarchy_path
    return f"{context}\n{chunk.text}" if context else chunk.text
