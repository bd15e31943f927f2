"""Answer building: the LLM prompt (context blocks, history, page image) and the extractive
answerer used without an LLM (or when its quota is spent).

Citations read `[Livret, p.N : "citation"]`, N being the page on which the quoted words
stand: a chunk spanning pages 3–4 carries `page_offsets` ([[page, offset], …]) so a quote
can be placed on its page, and quotes never straddle a page break.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np

from rag import language, prompts
from rag.lexicon import lexicon
from rag.limits import MAX_HISTORY_TURNS
from rag.page_images import resolve_page_image
from rag.retrieve import RetrievedChunk
from rag.sparse import tokenize, translated_query

MAX_QUOTE_CHARS = 320
MAX_PASSAGES = 4
RELATED_MARGIN = 0.04  # a passage this close to the best one in cosine is worth quoting too
OVERRIDING = {"replaces", "modifies"}
BGG_LABELS = {
    "mechanics": "Mécaniques",
    "categories": "Catégories",
    "min_players": "Joueurs min.",
    "max_players": "Joueurs max.",
    "playing_time": "Durée (min)",
    "year_published": "Année",
}

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n\s*\n|\n(?=\s*(?:[-•*–]|\d+[.)]|\d{3}\.\d))")


# --- pages and quotes -------------------------------------------------------------------------


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


@dataclass(frozen=True)
class Quote:
    text: str
    page: int
    start: int


def clip(text: str, limit: int = MAX_QUOTE_CHARS) -> str:
    """A verbatim prefix of `text`, cut at a word boundary (no ellipsis inside the quote)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip(" ,;:")


def best_quote(question: str, chunk: RetrievedChunk, embedder=None) -> Quote | None:
    spans = sentences(chunk)
    if not spans:
        return None
    scores = _shared_words(question, chunk, [s.text for s in spans])
    if max(scores) == 0 and embedder is not None and len(spans) > 1:
        # Cross-lingual question: no shared words, so compare meanings.
        candidates = spans[:16]
        vectors = embedder.embed_passages([s.text for s in candidates])
        sims = vectors @ np.asarray(embedder.embed_query(question))
        scores = [float(x) for x in sims] + [0.0] * (len(spans) - len(candidates))
    best = max(range(len(spans)), key=lambda i: (scores[i], -i))
    span = spans[best]
    page = page_of_offset(chunk, span.start)
    text = span.text
    following = spans[best + 1] if best + 1 < len(spans) else None
    if (
        following is not None
        and len(text) < 120
        and page_of_offset(chunk, following.start) == page
    ):
        text = chunk.text[span.start : following.end].strip()
    return Quote(text=clip(text), page=page, start=span.start)


def _shared_words(question: str, chunk: RetrievedChunk, texts: list[str]) -> list[int]:
    """How many of the question's words each text holds; for a booklet in the other language,
    a word counts through its translations too (as in the BM25 search, rag.retrieve)."""
    asked_in = language.detect(question)
    if language.is_other_language(asked_in, chunk.booklet.language):
        query = translated_query(question, asked_in, language.normalise(chunk.booklet.language), lexicon())
        return [sum(1 for group in query.groups if group & set(tokenize(text))) for text in texts]
    wanted = set(tokenize(question))
    return [len(wanted & set(tokenize(text))) for text in texts]


def citation(booklet_name: str, page: int, quote: str) -> str:
    return f'[{booklet_name}, p.{page} : "{quote}"]'


# --- extractive answer ------------------------------------------------------------------------


def passages_to_quote(chunks: list[RetrievedChunk]) -> list[RetrievedChunk]:
    rules = [c for c in chunks if not c.is_forum]
    if not rules:
        return chunks[:1]
    best = max((c.dense_score or 0.0) for c in rules[:3])
    picked = [c for c in rules[:2]]
    for chunk in rules[2:]:
        if chunk.rule_match or (chunk.dense_score or 0.0) >= best - RELATED_MARGIN:
            picked.append(chunk)
    overriding = [c for c in rules if c.conflict and c.conflict["type"] in OVERRIDING and c not in picked]
    return (picked + overriding)[:MAX_PASSAGES]


def _ordered_groups(chunks: list[RetrievedChunk]) -> list[list[RetrievedChunk]]:
    """Chunks grouped by booklet, best group first; an overriding extension before the base."""
    groups: dict[str, list[RetrievedChunk]] = {}
    for chunk in chunks:
        groups.setdefault(chunk.booklet.collection, []).append(chunk)
    ordered = list(groups.values())
    overriding = [g for g in ordered if any(c.conflict and c.conflict["type"] in OVERRIDING for c in g)]
    return overriding + [g for g in ordered if g not in overriding]


def extractive_answer(
    question: str,
    chunks: list[RetrievedChunk],
    *,
    best_score: float,
    min_score: float,
    embedder=None,
) -> str:
    """The best passages quoted verbatim with their citations, or a plain statement that the
    booklets do not seem to cover the question (instead of quoting noise)."""
    if not chunks or best_score < min_score:
        return prompts.NO_ANSWER
    chosen = passages_to_quote(chunks)
    forum = [c for c in chunks[:MAX_PASSAGES] if c.is_forum and c not in chosen][:1]
    lines = [prompts.EXTRACTIVE_INTRO, ""]
    for group in _ordered_groups(chosen):
        lines.append(f"**{group[0].booklet.name}**")
        for chunk in group:
            lines.extend(_passage_lines(question, chunk, embedder))
        lines.append("")
    if forum:
        lines.append(prompts.EXTRACTIVE_FORUM_NOTE)
        lines.extend(_passage_lines(question, forum[0], embedder))
    return "\n".join(lines).strip() + "\n"


def _passage_lines(question: str, chunk: RetrievedChunk, embedder) -> list[str]:
    quote = best_quote(question, chunk, embedder)
    if quote is None:
        return []
    lines = []
    if chunk.conflict and chunk.conflict["type"] in OVERRIDING:
        lines.append("- " + prompts.EXTRACTIVE_OVERRIDE_NOTE.format(page=chunk.conflict.get("base_page") or "?"))
    where = f" _({chunk.hierarchy_path})_" if chunk.hierarchy_path else ""
    lines.append(f"- {citation(chunk.booklet.name, quote.page, quote.text)}{where}")
    return lines


# --- LLM prompt -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PageImage:
    booklet_name: str
    page: int
    path: Path  # on this machine
    prompt_path: str  # as the model sees it (the VM's mount for claude-ssh)


def best_page_image(chunks: list[RetrievedChunk], remote_root: str = "") -> PageImage | None:
    """The single image worth showing: best non-forum chunk per (booklet, page), best first.

    Grouping by page alone would mix booklets: page 4 of the base game and page 4 of an
    expansion are two different images in two folders."""
    best: dict[tuple[str, int], RetrievedChunk] = {}
    for chunk in chunks:
        if chunk.is_forum or not chunk.page_start or chunk.booklet.images_dir is None:
            continue
        key = (chunk.booklet.collection, chunk.page_start)
        if key not in best or chunk.score > best[key].score:
            best[key] = chunk
    for chunk in sorted(best.values(), key=lambda c: c.score, reverse=True):
        path = resolve_page_image(chunk.booklet.images_dir, chunk.page_start)
        if path is None:
            continue
        prompt_path = str(PurePosixPath(remote_root) / chunk.booklet.slug / path.name) if remote_root else str(path)
        return PageImage(chunk.booklet.name, chunk.page_start, path, prompt_path)
    return None


def booklet_tag(chunk: RetrievedChunk) -> str:
    if chunk.is_forum:
        return prompts.FORUM_TAG
    if chunk.payload.get("tag"):  # cards and tournament decks carry their own ([CARD], [META])
        return chunk.payload["tag"].strip("[]")
    return prompts.BOOKLET_TAGS.get(chunk.booklet.kind, "EXT")


def text_with_page_marks(chunk: RetrievedChunk) -> str:
    """The chunk's text with « [p.N] » where each later page begins, so quotes get their page."""
    text = chunk.text
    marks = sorted(((int(o), int(p)) for p, o in chunk.page_offsets if int(o) > 0), reverse=True)
    for offset, page in marks:
        text = f"{text[:offset]}[p.{page}] {text[offset:]}"
    return text


def context_block(chunk: RetrievedChunk) -> str:
    pages = f"p.{chunk.pages}" if chunk.page_start else "forum"
    header = f"[{booklet_tag(chunk)}] {chunk.booklet.name} — {pages}"
    if chunk.hierarchy_path:
        header += f" — {chunk.hierarchy_path}"
    lines = [header]
    if chunk.conflict:
        conflict = chunk.conflict
        lines.append(
            f"Conflit avec le livret de base ({conflict['type']}, p.{conflict.get('base_page') or '?'}) : "
            f"{conflict.get('summary', '')}".rstrip(" :")
        )
    if chunk.payload.get("contextual_text"):
        lines.append(f"Contexte : {chunk.payload['contextual_text']}")
    lines.append(text_with_page_marks(chunk))
    return "\n".join(lines)


def _bgg_block(game_name: str, metadata: dict) -> str:
    lines = []
    for key, label in BGG_LABELS.items():
        value = metadata.get(key)
        if value in (None, "", []):
            continue
        if isinstance(value, (list, tuple)):
            value = ", ".join(str(v) for v in value)
        lines.append(f"- {label} : {value}")
    return f"JEU : {game_name} (BoardGameGeek)\n" + "\n".join(lines) if lines else ""


def _history_block(history: list[dict]) -> str:
    turns = []
    for turn in history[-MAX_HISTORY_TURNS:]:
        question = turn.get("question") or (turn.get("content") if turn.get("role") == "user" else "")
        answer = turn.get("answer") or (turn.get("content") if turn.get("role") == "assistant" else "")
        if question:
            turns.append(f"Joueur : {question}")
        if answer:
            turns.append(f"Oracle : {answer}")
    return "HISTORIQUE DE LA CONVERSATION :\n" + "\n".join(turns) if turns else ""


def build_user_prompt(
    question: str,
    chunks: list[RetrievedChunk],
    *,
    game_name: str,
    bgg_metadata: dict | None = None,
    history: list[dict] | None = None,
    image: PageImage | None = None,
    cards_block: str = "",
) -> str:
    """`cards_block`: the @-mentioned cards, already rendered (rag.cards.mention_blocks)."""
    blocks = [
        _bgg_block(game_name, bgg_metadata or {}),
        cards_block,
        "CONTEXTE :\n\n" + "\n\n".join(context_block(c) for c in chunks) if chunks else "CONTEXTE : (aucun extrait trouvé)",
    ]
    if image is not None:
        blocks.append(f"{prompts.IMAGES_HEADER}\n- {image.booklet_name}, page {image.page} : {image.prompt_path}")
    blocks.append(_history_block(history or []))
    blocks.append(f"QUESTION : {question}")
    return "\n\n".join(b for b in blocks if b)
