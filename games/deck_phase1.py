"""The Django edge of « Phase 1 » (rag.deckbuilding.phase1): a deckbuilding question about a game
without a card catalog. Same call as `games.deck_requests.ask_deckbuilding`, so the ask flow
picks one or the other by `game.card_game`."""

from __future__ import annotations

import logging

from django.conf import settings
from django.utils import translation

from runtime import components
from rag.deckbuilding import wording
from rag.deckbuilding.phase1 import PHASE1_SYSTEM_PROMPT, phase1_offline_answer, phase1_user_prompt
from rag.llm import failure_words
from rag.llm.base import LLMError
from rag.retrieve import BookletRef, retrieve

from .indexing import sync_if_changed
from .models import Game

log = logging.getLogger(__name__)


def booklet_refs(game: Game) -> list[BookletRef]:
    """The base booklet and every other booklet of the game (a deck is built from all of them)."""
    booklets = [game.base_booklet] + [ext.booklet for ext in game.extensions.all()]
    return [BookletRef(collection=b.collection, slug=b.slug, name=b.name, kind=b.kind, images_dir=b.images_dir,
                       language=b.language, lexicon=components.lexicon()) for b in booklets]  # fmt: skip


def ask_phase1(*, game: Game, question: str, mentioned_cards=(), sticky_cards=(), history=(), emit=None,
               booklets: list[BookletRef] | None = None, llm=None) -> str:  # fmt: skip
    """The answer text, exactly as it was streamed (`emit("token", {"text": …})`): an LLM that
    fails on the way (a timeout, the quota) leaves its text, a note saying why
    (`wording.llm_failure`, the rules answer's words) and then the offline answer.
    `llm`: the backend to stream with (the ask flow passes one the player can stop)."""
    emit = emit or (lambda event, data: None)
    refs = booklets or booklet_refs(game)
    store = components.vector_store()
    sync_if_changed(store, [r.collection for r in refs])
    embedder = components.embedder()
    # the forum threads are left out, as for every deck question
    found = retrieve(question, store=store, embedder=embedder, booklets=refs, drop_forum=True, top_k=settings.ASK_TOP_K,
                     fusion_v2=components.current().fusion_v2)
    names = [c.get("card_name") or c.get("name", "") for c in [*mentioned_cards, *sticky_cards]]
    llm = components.llm_backend() if llm is None else llm
    shown = ""
    if llm.available:
        prompt = phase1_user_prompt(question, found.chunks, game_name=game.name, mentioned=[n for n in names if n],
                                    history=list(history))
        parts: list[str] = []
        lang = wording.reader(translation.get_language())
        try:
            answer = _stream(llm, prompt, emit, parts)
            if answer.strip():
                return answer
            log.warning("phase 1 deck answer by LLM was empty")  # said, then the quoted passages answer
            note = failure_words.sentence("empty", lang) + "\n\n"
            emit("token", {"text": note})
            shown = answer + note
        except LLMError as exc:  # what was streamed stays, the failure is said, the quoted passages answer
            log.warning("phase 1 deck answer by LLM failed: %s", exc)
            shown = wording.failed_on_the_way(exc, "".join(parts), lang, emit)
    text = phase1_offline_answer(question, found.chunks, game_name=game.name, best_score=found.best_score,
                                 min_score=settings.ASK_MIN_SCORE, embedder=embedder)
    emit("token", {"text": text})
    return shown + text  # the answer kept is the one the player saw


def _stream(llm, prompt: str, emit, parts: list[str]) -> str:
    """The LLM's answer, streamed; `parts` holds what was streamed if it fails on the way."""
    for delta in llm.stream(PHASE1_SYSTEM_PROMPT, prompt, model=settings.DECK_ANSWER_MODEL,
                            timeout=settings.ASK_ANSWER_TIMEOUT_S):
        if delta:
            parts.append(delta)
            emit("token", {"text": delta})
    return "".join(parts)
