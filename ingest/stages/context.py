"""Step 6: one or two sentences that situate each chunk, prefixed to it before embedding.

With an LLM: one call per chunk, INGEST_LLM_CONCURRENCY in parallel, cached in
`contexts-v2-<slug>.json`. Without: "<game> / <booklet> / <hierarchy path>".

The reference gives the LLM the whole document with each passage (Anthropic's contextual
retrieval). So does this stage when the booklet fits the model's context
(`whole_document_max_chars`, CONTEXT_WHOLE_DOCUMENT_MAX_CHARS); a longer one gets the outline,
the passage's position and the text just before it. The cache key is the passage (path and
text) whichever prompt produced the answer: changing the setting never repeats finished work.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from .cache import JsonCache, text_key
from .chunk import ChunkDraft
from .llm_pool import map_cached

CACHE_VERSION = "contexts-v2"
NEIGHBOUR_CHARS = 1500

CONTEXT_SYSTEM = (
    "Tu aides à indexer un livret de règles de jeu. Pour le passage donné, écris une ou deux "
    "phrases, dans la langue du passage, qui le situent dans le livret (de quelle partie des "
    "règles il s'agit, à quoi il sert). Réponds uniquement par ces phrases."
)


def offline_context(game: str, booklet: str, path: str) -> str:
    parts = [game] + ([booklet] if booklet and booklet != game else []) + ([path] if path else [])
    return " / ".join(parts)


def whole_document(drafts: list[ChunkDraft]) -> str:
    return "\n\n".join(d.text for d in drafts)


def whole_document_prompt(drafts: list[ChunkDraft], index: int, document: str) -> str:
    return f"<document>\n{document}\n</document>\n\nPassage à situer dans ce document :\n{drafts[index].text}"


def context_prompt(drafts: list[ChunkDraft], index: int, outline: str) -> str:
    draft = drafts[index]
    before = drafts[index - 1].text[-NEIGHBOUR_CHARS:] if index else ""
    return (
        f"Plan du livret :\n{outline}\n\n"
        f"Position : {draft.hierarchy_path or '(début du livret)'}\n\n"
        f"Texte qui précède :\n{before}\n\n"
        f"Passage à situer :\n{draft.text}"
    )


def contextualise(
    drafts: list[ChunkDraft],
    *,
    game: str,
    booklet: str,
    slug: str,
    llm,
    cache_dir: Path,
    concurrency: int,
    on_progress: Callable[[int, int], None] = lambda done, total: None,
    whole_document_max_chars: int = 0,
) -> int:
    """Fill `draft.context` for every chunk; returns how many contexts came from the LLM."""
    for draft in drafts:
        draft.context = offline_context(game, booklet, draft.hierarchy_path)
    if not getattr(llm, "available", False):
        on_progress(len(drafts), len(drafts))
        return 0
    outline = "\n".join(sorted({d.hierarchy_path for d in drafts if d.hierarchy_path}))[:6000]
    document = whole_document(drafts)
    whole = 0 < len(document) <= whole_document_max_chars
    cache = JsonCache(Path(cache_dir) / f"{CACHE_VERSION}-{slug}.json")
    indexed = list(range(len(drafts)))

    def key(i: int) -> str:
        return text_key(drafts[i].hierarchy_path, drafts[i].text)

    def call(i: int) -> str | None:
        prompt = whole_document_prompt(drafts, i, document) if whole else context_prompt(drafts, i, outline)
        answer = llm.complete(CONTEXT_SYSTEM, prompt, model="haiku", timeout=120)
        return answer.strip() or None

    answers = map_cached(indexed, key=key, call=call, cache=cache, concurrency=concurrency, on_progress=on_progress)
    for i in indexed:
        if answers.get(key(i)):
            drafts[i].context = f"{drafts[i].context}. {answers[key(i)]}"
    return sum(1 for i in indexed if answers.get(key(i)))
