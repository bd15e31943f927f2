"""Retrieval for one question (docs/architecture.md, « question → answer »), plain Python.

Step 0 embeds the question (and the HyDE passage, and a follow-up's context). Step 1 runs a
dense and a BM25 search per booklet collection, concurrently (`rag.searches`), merges each kind
of search across collections and fuses the lists with RRF v2. A booklet in the other language
than the question is searched with the question's words translated (`rag.lexical`). A rule
number named in the question ("702.2b", « règle 4.1 ») puts the chunk that states it first
(`rag.numbered_rules`); a keyword the booklet defines (« 702.19. Trample ») adds its rule's
chunks as one more list, and the game's own terms carry a French keyword to an English booklet
(`rag.rule_routing`). Step 2 reranks the top 50 when a cross-encoder is configured; an
expansion's change then comes right after the base rule it changes (`rag.overrides`). Forum
chunks are dropped when the caller asks (`drop_forum`: it knows the question's intent).

The values it returns live in `rag.passages`; the names below stay importable from here.
"""
from __future__ import annotations

import logging
import time
from concurrent.futures import Executor

from rag.fusion import Fused, RankedList, fuse
from rag.lexical import by_coverage, keep_lexical_matches  # noqa: F401  (importable from here)
from rag.numbered_rules import rule_numbers_first, rule_numbers_in, states_rule, statements_before_examples
from rag.overrides import overrides_first
from rag.passages import BookletRef, Retrieval, RetrievedChunk
from rag.rerank import RERANK_TOP_N, RerankError, blend, normalise
from rag.searches import OTHER_LANGUAGE_COSINE, merge_dense, run_now, search_all, search_texts  # noqa: F401
from rag.store import Hit, VectorStore

log = logging.getLogger(__name__)

FORUM_FREE_INTENTS = {"synergy", "deckbuilding", "meta"}  # the intents whose answers leave the forum out

__all__ = [
    "BookletRef", "FORUM_FREE_INTENTS", "OTHER_LANGUAGE_COSINE", "Retrieval", "RetrievedChunk", "merge_dense",
    "retrieve", "rule_numbers_in", "statements_before_examples", "states_rule",
]


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
    drop_forum: bool = False,
    reranker=None,
    top_k: int = 8,
    modes: tuple[str, ...] = ("dense", "bm25"),
    fusion_v2: bool = True,
    executor: Executor | None = None,
    rerank_query: str | None = None,
) -> Retrieval:
    """The best `top_k` chunks of `booklets` for `question`, best first.

    `context_text`: a follow-up's previous question with it (rag.followup), at a lower weight.
    `drop_forum`: no forum chunk (a synergy, deckbuilding or meta question). `modes` restricts
    the searches (bm25 only, dense only, hybrid). `fusion_v2`: RRF v2 or plain RRF. The searches
    run in `executor`, else one after another. `rerank_query`: what the reranker reads the
    passages for (a follow-up's standalone question), the question by default."""
    timer, start = _Timer(), time.perf_counter()
    queries = search_texts(question, booklets, hyde_passage, context_text)
    dense_vectors = {name: embedder.embed_query(text) for name, text in queries.items()} if "dense" in modes else {}
    start = timer.mark("embed", start)
    submit = executor.submit if executor is not None else run_now
    lists, dense_scores, rule_hits = search_all(store, booklets, queries, dense_vectors, modes, question, submit)
    start, numbers = timer.mark("search", start), rule_numbers_in(question)
    fused = _fuse(lists, rule_hits, numbers, drop_forum, fusion_v2)
    by_collection = {b.collection: b for b in booklets}
    chunks = [_to_chunk(f, by_collection, dense_scores, numbers) for f in fused]
    start = timer.mark("fusion", start)
    chunks, reranked = _reranked(rerank_query or question, chunks, reranker, timer, start)
    chunks = statements_before_examples(chunks)  # after the reranker, which would undo it
    chunks = overrides_first(chunks, question)  # an expansion's change that applies, right after the base rule it changes
    return Retrieval(
        chunks=chunks[:top_k], timings_ms=timer.timings, rule_numbers=numbers, candidates=len(fused), reranked=reranked
    )


def _fuse(lists: list[RankedList], rule_hits: list[Hit], numbers: list[str], drop_forum: bool, v2: bool) -> list:
    """RRF v2 (or plain RRF) of the lists, rules the question names first, no unwanted forum."""
    fused = rule_numbers_first(fuse(lists, v2), rule_hits, numbers)
    if drop_forum:
        fused = [f for f in fused if not f.hit.payload.get("is_forum_chunk")]
    return fused


def _reranked(question: str, chunks: list[RetrievedChunk], reranker, timer: "_Timer", start: float):
    """The chunks reranked when a reranker is given; a failed rerank keeps the fused order."""
    if reranker is None or not chunks:
        return chunks, False
    try:
        return _rerank(question, chunks, reranker, timer, start), True
    except RerankError as exc:  # the fused order is a full answer: keep it
        log.warning("rerank unavailable, fusion order kept: %s", exc)
        return chunks, False


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
    context = chunk.content.contextual_text or chunk.hierarchy_path
    return f"{context}\n{chunk.text}" if context else chunk.text
