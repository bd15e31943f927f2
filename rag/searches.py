"""The searches of one question: the texts searched (the question, a follow-up's context, the
HyDE passage), a dense and a BM25 search per booklet collection and text, run concurrently,
and the ranked lists they give, merged across the booklets, ready to fuse (rag.fusion)."""

from __future__ import annotations

from concurrent.futures import Future

from rag import language, rule_routing
from rag.fusion import CONTEXT_WEIGHT, HYDE_WEIGHT, QUESTION_WEIGHT, RankedList, merge_by_score
from rag.lexical import by_coverage, keep_lexical_matches, translations
from rag.numbered_rules import rule_numbers_in
from rag.passages import BookletRef
from rag.sparse import query_vector
from rag.store import Hit

LIST_LIMIT = 30
# A multilingual embedder scores a passage in the question's language higher than the same
# rule in the other language; merging the booklets' dense hits, the other language's cosines
# get this much more (the reported cosine is left as it is). Dev split: rulebooks R@1 0.681 →
# 0.736 with 0.02, first citation 0.625 → 0.681 (0.04 did no better).
OTHER_LANGUAGE_COSINE = 0.02


def search_texts(question: str, booklets: list[BookletRef], hyde_passage: str | None, context_text: str | None) -> dict:
    """The texts searched: the question and a follow-up's context with the game's terms in the
    booklets' other language (rag.rule_routing), the HyDE passage as it is."""
    queries = {"question": rule_routing.search_text(question, booklets)}
    queries.update({"hyde": hyde_passage} if hyde_passage else {})
    if context_text:
        queries["context"] = rule_routing.search_text(context_text, booklets)
    return queries


def run_now(fn, *args) -> Future:
    future: Future = Future()
    future.set_result(fn(*args))
    return future


def search_all(store, booklets, queries, dense_vectors, modes, question, submit):
    """Every search of the question, concurrently; returns the ranked lists to fuse."""
    translated = {name: translations(text, booklets) for name, text in queries.items()} if "bm25" in modes else {}
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
