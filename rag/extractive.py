"""The answer without an LLM: the passages quoted verbatim, the sentence that answers first.

What the player reads (docs/asking.md, « Answers »): an opening line in the question's
language — « Storm Front modifie cette règle : » when an expansion or FAQ passage changes a
base passage retrieved for the question (rag.overrides) —, the one sentence that answers,
quoted whole with its citation, then at most two supporting quotes as a markdown list.
An LLM reads more: every retrieved passage, in retrieval's order (rag.answer).
"""

from __future__ import annotations

from dataclasses import dataclass

from rag import language, prompts
from rag import overrides
from rag.abstain import booklets_silent
from rag.overrides import change_kind
from rag.quotes import Quote, best_quote, citation
from rag.retrieve import RetrievedChunk

LEAD_DEPTH = 1  # retrieval's first passage leads: choosing among the first 2, 3 or 5 by the words
# their best sentence shares with the question put a right first citation 0.756 → 0.699–0.715
# on the eval sets (123 questions), so `lead_passage` only breaks no tie for now
CHANGE_DEPTH = 5  # an expansion / FAQ passage among the first five that changes the lead goes first
MAX_SUPPORT = 2  # supporting quotes after the one that answers
RELATED_MARGIN = 0.04  # a passage this close to the best one in cosine is worth quoting too


@dataclass(frozen=True)
class Quoted:
    chunk: RetrievedChunk
    quote: Quote


def answer_passages(question: str, chunks: list[RetrievedChunk]) -> list[RetrievedChunk]:
    """The passages an answer rests on, in the order it quotes them, three at most, no forum:
    the one that answers (`lead_passage`) — or the expansion / FAQ passage that changes it —,
    then the base rule it changes, then the next best related ones (close in cosine, or
    stating the asked rule)."""
    rules = [c for c in chunks if not c.is_forum]
    if not rules:
        return chunks[:1]
    lead = lead_passage(question, rules[:LEAD_DEPTH])
    changer = next((c for c in rules[:CHANGE_DEPTH] if getattr(c, "overrides", None) is lead), None)
    picked = [changer, lead] if changer is not None else [lead]
    if getattr(picked[0], "overrides", None) is not None and picked[0].overrides in rules and len(picked) == 1:
        picked.append(picked[0].overrides)
    best = max((c.dense_score or 0.0) for c in rules[:3])
    for chunk in rules:
        if len(picked) > MAX_SUPPORT:
            break
        related = chunk.rule_match or (chunk.dense_score or 0.0) >= best - RELATED_MARGIN
        if chunk not in picked and (related or chunk is rules[0] or chunk is rules[1]):
            picked.append(chunk)
    return picked


def lead_passage(question: str, candidates: list[RetrievedChunk]) -> RetrievedChunk:
    """The passage whose best sentence holds most of the question's words (or their
    translations); the better ranked on a tie. Retrieval ranks passages as a whole; the
    answer needs the sentence: measured on the demo, the sentence that answers « Que se
    passe-t-il quand un ballon entre dans une tempête ? » stands in the fourth passage."""
    scores = []
    for rank, chunk in enumerate(candidates):
        quote = best_quote(question, chunk)
        scores.append(((quote.score if quote else 0.0), -rank))
    return candidates[max(range(len(candidates)), key=lambda i: scores[i])]


def extractive_answer(
    question: str,
    chunks: list[RetrievedChunk],
    *,
    best_score: float,
    min_score: float,
    embedder=None,
    search_text: str | None = None,
    words_in: str | None = None,
    abstain_below: float = 0.0,
) -> str:
    """The quotes with their citations, or a plain statement that the booklets do not seem to
    cover the question (instead of quoting noise). `search_text`: what the quotes are chosen
    for (a follow-up with its previous question), the question itself by default.
    `words_in`: the language of the Oracle's own words (the reader's interface, "en"), the
    question's by default; the quotes stay in the booklets' language. `abstain_below`: open
    with « Les livrets ne le disent pas » when no passage holds that share of the question's
    key terms (rag.abstain; 0 never does — the setting ASK_ABSTAIN_BELOW)."""
    if not chunks or best_score < min_score:
        return prompts.no_answer(words_in)
    quoted = quote_passages(search_text or question, answer_passages(search_text or question, chunks), embedder)
    if not quoted:
        return prompts.no_answer(words_in)
    asked_in = words_in or language.detect(question) or language.FRENCH
    if booklets_silent(search_text or question, chunks, abstain_below):  # no passage states it: say so
        lines = [prompts.extractive_text("silent", asked_in), ""] + [f"- {quote_line(q)}" for q in quoted]
    else:
        lines = _answer_lines(search_text or question, quoted, chunks, embedder, asked_in)
    forum = [c for c in chunks[:4] if c.is_forum][:1]
    forum_quotes = quote_passages(search_text or question, forum, embedder)
    if forum_quotes:
        lines += ["", prompts.extractive_text("forum", asked_in), "", f"- {quote_line(forum_quotes[0])}"]
    return "\n".join(lines).strip() + "\n"


def _answer_lines(text: str, quoted: list, chunks: list[RetrievedChunk], embedder, asked_in: str) -> list[str]:
    """The opening, the lead quote, the supporting quotes, and a variant the question does not
    name offered after them (« En variante … »)."""
    lead, support = quoted[0], quoted[1:]
    lines = [opening_line(lead.chunk, asked_in), "", quote_line(lead)]
    if support:
        lines += ["", prompts.extractive_text("support", asked_in), ""]
        lines += [f"- {quote_line(q)}" for q in support]
    variant = overrides.variant_for(lead.chunk, chunks)
    variant_quotes = quote_passages(text, [variant], embedder) if variant is not None else []
    if variant_quotes and all(q.quote.text != variant_quotes[0].quote.text for q in quoted):
        lines += ["", overrides.variant_intro(asked_in), "", f"- {quote_line(variant_quotes[0])}"]
    return lines


def quote_passages(question: str, chunks: list[RetrievedChunk], embedder) -> list[Quoted]:
    quoted = []
    for chunk in chunks:
        quote = best_quote(question, chunk, embedder)
        if quote is not None and all(q.quote.text != quote.text for q in quoted):
            quoted.append(Quoted(chunk, quote))
    return quoted


def opening_line(lead: RetrievedChunk, asked_in: str) -> str:
    """« Storm Front modifie cette règle : » when the lead passage changes a base rule, else
    the plain opening, in the question's language."""
    base = getattr(lead, "overrides", None)
    kind = change_kind(lead.content, lead.booklet.kind) if base is not None else None
    if kind is None:
        return prompts.extractive_text("intro", asked_in)
    key = "clarifies" if kind == "clarifies" else "changes"
    return prompts.extractive_text(key, asked_in).format(booklet=lead.booklet.name, page=base.page_start)


def quote_line(quoted: Quoted) -> str:
    chunk, quote = quoted.chunk, quoted.quote
    where = section_of(chunk)
    return citation(chunk.booklet.name, quote.page, quote.text) + (f" _({where})_" if where else "")


def section_of(chunk: RetrievedChunk) -> str:
    """The passage's section path without the booklet's own name (already in the citation)."""
    parts = [p.strip() for p in chunk.hierarchy_path.replace("›", ">").split(">") if p.strip()]
    names = {chunk.booklet.name.casefold(), chunk.booklet.slug.casefold()}
    while parts and parts[0].casefold() in names:
        parts.pop(0)
    return " › ".join(dict.fromkeys(parts))
