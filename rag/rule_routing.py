"""Questions that name a game's terms: the words the rules use, and the rules that define them.

Two things the booklets' own data gives (the app passes them on each `BookletRef`):
- `search_text`: a question naming a game term in the other language than a booklet gets
  that booklet's word appended (« Que fait la défense talismanique ? (hexproof) »), for the
  dense and the BM25 side alike (`rag.terms`).
- `keyword_lists`: a numbered-rules booklet defines keywords (« 702.19. Trample », its
  glossary); a question naming one gets the chunks of that rule as one more ranked list for
  RRF, as strong as the question's own dense list. A boost, not a verdict: the rule comes
  first when the searches also find it relevant, and a question about something else that
  merely mentions a keyword keeps its best passage.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rag import language
from rag.fusion import QUESTION_WEIGHT, RankedList
from rag.sparse import query_vector
from rag.terms import expand_question, fold

KEYWORD_LIST = "keyword:rules"
CHUNKS_PER_RULE = 2  # a long rule is several chunks: its two best for this question
MAX_ROUTED_RULES = 3
RULE_CHUNKS_READ = 8  # every chunk of a long rule (702.19 is five)
LIST_MISS_RANK = 1_000


def search_text(question: str, booklets) -> str:
    """The question with the game's terms in the booklets' other language appended."""
    terms = next((b.terms for b in booklets if getattr(b, "terms", None)), None)
    if terms is None:
        return question
    targets = {language.normalise(b.language) for b in booklets} - {None}
    return expand_question(question, terms, language.detect(question), targets)


def named_rules(text: str, keywords: dict[str, str]) -> list[str]:
    """Rule numbers of the keywords `text` names, in the order they appear, longest names
    first ("trample over planeswalkers" before "trample")."""
    if not keywords:
        return []
    pattern = _pattern(tuple(sorted(keywords)))
    numbers: list[str] = []
    folded = {fold(k): n for k, n in keywords.items()}
    for match in pattern.finditer(fold(text)):
        number = folded.get(match.group(0))
        if number and number not in numbers:
            numbers.append(number)
    return numbers[:MAX_ROUTED_RULES]


@lru_cache(maxsize=32)
def _pattern(keywords: tuple[str, ...]) -> re.Pattern:
    names = sorted({fold(k) for k in keywords if fold(k)}, key=len, reverse=True)
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(re.escape(n) for n in names) + r")(?![a-z0-9])")


def keyword_lists(store, booklets, text: str, lists: list[RankedList] = ()) -> list[RankedList]:
    """One ranked list of the chunks stating the rules of the keywords `text` names.

    A long rule is several chunks: its CHUNKS_PER_RULE best are the ones the question's other
    searches (`lists`: dense understands a French question about an English rule) rank
    highest, then the rule's first chunks (its heading and first sub-rules).
    """
    hits = []
    for booklet in booklets:
        numbers = named_rules(text, getattr(booklet, "rule_keywords", None) or {})
        for number in numbers:
            found = store.search_sparse(booklet.collection, query_vector(number), RULE_CHUNKS_READ, filter={"rule": number})
            hits += sorted(found, key=lambda hit: _rank_elsewhere(hit, lists))[:CHUNKS_PER_RULE]
    return [RankedList(KEYWORD_LIST, QUESTION_WEIGHT, hits)] if hits else []


def _rank_elsewhere(routed, lists) -> tuple[int, int]:
    """(best rank in the other lists, position in the booklet) of a chunk of a named rule."""
    ranks = [rank for ranked in lists for rank, hit in enumerate(ranked.hits) if hit.id == routed.id]
    return (min(ranks) if ranks else LIST_MISS_RANK, int(routed.payload.get("ordinal") or 0))
