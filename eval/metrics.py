"""What counts as a hit, per question, and the figures summed over a set of questions.

Retrieval: a hit is a chunk of a gold booklet whose pages include a gold page (1-based PDF
page numbers, as pdftotext's -f counts them and as the ingestion stores `page_start`), or,
when the gold names a rule ("702.19"), a chunk that states that rule at a line start, or,
for a glossary entry ("glossary:Mana Burn (Obsolete)"), a chunk of the glossary holding it.
Answer: the extractive answer's citations `[Booklet, p.N : "quote"]`, the first of which
must be on a gold page, and whose quotes must hold the question's expected fact.
"""

from __future__ import annotations

import re
import unicodedata

from rag.retrieve import states_rule

DEPTH = 10
_CITATION = re.compile(r'\[([^\[\]]+?), p\.(\d+) : "(.*?)"\]', re.DOTALL)
# Dashes and soft hyphens vanish (« counter­clockwise » = "counter-clockwise" = "counterclockwise");
# quotes and brackets too: a quoted answer and a page differ on them, not on the words.
_DROP = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\ufeff-\u2010\u2011\u2012\u2013\u2014\u2212\"“”«»„[]"), None)
_LINE_BREAK_HYPHEN = re.compile(r"[\u00ad-]\s*\n\s*")  # "counter-\nclockwise": one word
_SAME = str.maketrans({"’": "'", "‘": "'", "`": "'", "\u00a0": " ", "\u202f": " "})


def fold(text: str) -> str:
    """Case-, accent-, hyphen- and quote-insensitive form used to look for a fact in a text."""
    text = _LINE_BREAK_HYPHEN.sub("", text.translate(_SAME))
    text = unicodedata.normalize("NFKD", text).translate(_DROP)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return re.sub(r"\s+", " ", text).strip().casefold()


def holds_fact(fact: str, texts) -> bool:
    wanted = fold(fact)
    return any(wanted in fold(text) for text in texts)


def citations(answer: str) -> list[tuple[str, int, str]]:
    """(booklet name, page, quote) of each citation of an answer, in order."""
    return [(m.group(1).strip(), int(m.group(2)), m.group(3)) for m in _CITATION.finditer(answer)]


def _covers(chunk, wanted: dict) -> bool:
    if "rule" in wanted:
        return _states(chunk, wanted["rule"])
    if chunk.booklet.slug != wanted["booklet"]:
        return False
    return chunk.page_start <= wanted["page"] <= max(chunk.page_end, chunk.page_start)


GLOSSARY = "glossary:"


def _states(chunk, rule: str) -> bool:
    if rule.startswith(GLOSSARY):
        return defines(chunk, rule[len(GLOSSARY):])
    numbers = chunk.payload.get("rule_numbers") or []
    return rule.lower() in (str(n).lower() for n in numbers) or states_rule(chunk.text, rule)


def defines(chunk, term: str) -> bool:
    """Is `chunk` the part of the glossary with the entry `term` (a paragraph opening with it)?
    A gold « glossary:Copiable Values » was never found by rule before: no line states it."""
    if "glossary" not in chunk.hierarchy_path.casefold():
        return False
    entry = re.compile(rf"(?:^|\n){re.escape(term)}(?=\s|$)", re.IGNORECASE)
    return entry.search(chunk.text) is not None


def rank_of_gold(chunks, gold: list[dict]) -> int | None:
    """1-based rank of the first chunk on a gold (booklet, page), None beyond DEPTH."""
    pages = [{k: v for k, v in g.items() if k != "rule"} for g in gold if "page" in g]
    return _first(chunks, pages)


def rank_by_rule(chunks, gold: list[dict]) -> int | None:
    """1-based rank of the first chunk stating a gold rule; None when no gold names a rule."""
    rules = [{"rule": g["rule"]} for g in gold if g.get("rule")]
    return _first(chunks, rules) if rules else None


def _first(chunks, gold: list[dict]) -> int | None:
    for rank, chunk in enumerate(chunks[:DEPTH], start=1):
        if any(_covers(chunk, wanted) for wanted in gold):
            return rank
    return None


def citation_right(cited: tuple[str, int, str] | None, gold: list[dict], slug_of: dict[str, str]) -> bool:
    """Is a citation (booklet name, page, quote) on a gold page?"""
    if cited is None:
        return False
    name, page, _quote = cited
    slug = slug_of.get(name)
    return any(g.get("booklet") == slug and g.get("page") == page for g in gold)


def ratio(hits: int, total: int) -> float | None:
    return round(hits / total, 3) if total else None


def summarise(rows: list[dict]) -> dict:
    """The figures of one group of evaluated questions (see eval.run.evaluate_one)."""
    answerable = [r for r in rows if r["answerable"]]
    ranks = [r["rank"] for r in answerable]
    n = len(answerable)
    summary = {
        "n": len(rows),
        "answerable": n,
        "recall@1": ratio(sum(1 for r in ranks if r == 1), n),
        "recall@5": ratio(sum(1 for r in ranks if r and r <= 5), n),
        "mrr": round(sum(1 / r for r in ranks if r) / n, 3) if n else None,
        "top_chunk_right": ratio(sum(1 for r in answerable if r["rank"] == 1), n),
    }
    summary.update(_answer_figures(answerable))
    summary.update(_rule_figures(answerable))
    summary.update(abstention_figures(rows))
    summary["confidence"] = confidence_table(rows)
    return summary


def _answer_figures(rows: list[dict]) -> dict:
    with_answer = [r for r in rows if "first_citation_right" in r]
    with_fact = [r for r in with_answer if r.get("fact_found") is not None]
    return {
        "first_citation_right": ratio(sum(1 for r in with_answer if r["first_citation_right"]), len(with_answer)),
        "fact_in_quotes": ratio(sum(1 for r in with_fact if r["fact_found"]), len(with_fact)),
        "fact_in_lead_quote": ratio(sum(1 for r in with_fact if r.get("fact_in_lead")), len(with_fact)),
        "n_fact": len(with_fact),
    }


def abstention_figures(rows: list[dict]) -> dict:
    """How often the answer says the booklets do not say it (or found nothing): the share of
    the unanswerable questions (wanted ≥ 0.80) and of the answerable ones (wanted ≤ 0.05)."""
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    return {
        "n_unanswerable": len(unanswerable),
        "abstained_unanswerable": ratio(sum(1 for r in unanswerable if r.get("abstained")), len(unanswerable)),
        "abstained_answerable": ratio(sum(1 for r in answerable if r.get("abstained")), len(answerable)),
    }


def _rule_figures(rows: list[dict]) -> dict:
    ranks = [r["rule_rank"] for r in rows if r.get("has_rule")]
    if not ranks:
        return {}
    n = len(ranks)
    return {
        "n_rule": n,
        "rule_recall@1": ratio(sum(1 for r in ranks if r == 1), n),
        "rule_recall@5": ratio(sum(1 for r in ranks if r and r <= 5), n),
    }


def confidence_table(rows: list[dict]) -> dict:
    """Per UI confidence level: how often it is shown (coverage, over answerable questions) and
    how often the first citation is right when it is (precision); unanswerable questions that
    still got that label are counted apart."""
    answerable = [r for r in rows if r["answerable"]]
    table = {}
    for level in ("high", "medium", "low"):
        shown = [r for r in answerable if r.get("confidence") == level]
        right = sum(1 for r in shown if r.get("first_citation_right"))
        table[level] = {
            "shown": len(shown),
            "coverage": ratio(len(shown), len(answerable)),
            "precision": ratio(right, len(shown)),
            "unanswerable_shown": sum(1 for r in rows if not r["answerable"] and r.get("confidence") == level),
        }
    return table
