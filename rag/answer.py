"""The LLM prompt of an answer: context blocks (booklet tag, pages, the change an extension
makes to the base, text with `[p.N]` page marks), BGG metadata, the mentioned cards, the
single page image, the history and the question. The model reads every passage retrieved
(the flow's top ASK_TOP_K) in retrieval's final order, after any rerank: measured by
recording the prompts, the passages it needed to answer were often ranked 4–8, which the
extractive answer's ≤ 3 quoted passages (rag.extractive.answer_passages) would leave out.
The extractive answer itself is in rag.extractive; quotes and their pages in rag.quotes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from rag import prompts
from rag.limits import MAX_HISTORY_TURNS
from rag.page_render import LazyRenderer, ensure_page_image
from rag.retrieve import RetrievedChunk

BGG_LABELS = {
    "mechanics": "Mécaniques",
    "categories": "Catégories",
    "min_players": "Joueurs min.",
    "max_players": "Joueurs max.",
    "playing_time": "Durée (min)",
    "year_published": "Année",
}


# --- LLM prompt -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PageImage:
    booklet_name: str
    page: int
    path: Path  # on this machine
    prompt_path: str  # as the model sees it (the VM's mount for claude-ssh)


def best_page_image(
    chunks: list[RetrievedChunk], remote_root: str = "", renderer: LazyRenderer = LazyRenderer()
) -> PageImage | None:
    """The single image worth showing: best non-forum chunk per (booklet, page), best first.

    Grouping by page alone would mix booklets: page 4 of the base game and page 4 of an
    expansion are two different images in two folders. `renderer`: how a page never rendered
    is (without a source, only the images already there are shown)."""
    best: dict[tuple[str, int], RetrievedChunk] = {}
    for chunk in chunks:
        if chunk.is_forum or not chunk.page_start or chunk.booklet.images_dir is None:
            continue
        key = (chunk.booklet.collection, chunk.page_start)
        if key not in best or chunk.score > best[key].score:
            best[key] = chunk
    for chunk in sorted(best.values(), key=lambda c: c.score, reverse=True):
        path = ensure_page_image(chunk.booklet.images_dir, chunk.page_start, renderer)  # rendered on first need
        if path is None:
            continue
        prompt_path = str(PurePosixPath(remote_root) / chunk.booklet.slug / path.name) if remote_root else str(path)
        return PageImage(chunk.booklet.name, chunk.page_start, path, prompt_path)
    return None


def booklet_tag(chunk: RetrievedChunk) -> str:
    if chunk.is_forum:
        return prompts.FORUM_TAG
    tag = chunk.content.other.get("tag")
    if tag:  # cards and tournament decks carry their own ([CARD], [META])
        return tag.strip("[]")
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
    elif getattr(chunk, "overrides", None) is not None:  # found offline (rag.overrides), without a type
        base = chunk.overrides
        lines.append(f"Modifie une règle du livret de base ({base.booklet.name}, p.{base.pages})")
    if chunk.content.contextual_text:
        lines.append(f"Contexte : {chunk.content.contextual_text}")
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
