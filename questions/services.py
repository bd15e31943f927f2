"""The ask flow (spec, « Flux d'une question », steps 2–9): from a stored Question to its
persisted answer, reporting each step through `emit(event, data)`.

`answer_question` never raises: a failure marks the Question `error` with a readable
message, so a poller never waits on a question that is pending forever. It runs in a
background pool (`start_answering`) so the answer is generated and saved even when the
client that asked has gone.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.indexing import sync_if_changed
from games.models import Extension, Game
from games.terms import game_terms, rule_keywords
from oracle_site import components
from oracle_site.recovery import answering, forget, vouch
from rag import prompts
from rag.answer import best_page_image, build_user_prompt, extractive_answer
from rag.classify import classify
from rag.hyde import hypothetical_passage
from rag.llm.base import ClaudeQuotaError, LLMError
from rag.rerank import RerankError, TeiReranker
from rag.retrieve import FORUM_FREE_INTENTS, BookletRef, Retrieval, RetrievedChunk, retrieve

from .models import Question
from .pools import answer_pool, save_pool

log = logging.getLogger(__name__)

Emit = Callable[[str, dict], None]
EXCERPT_CHARS = 600
_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="ask")
_reranker_lock = threading.Lock()
_rerankers: dict[str, TeiReranker] = {}


# --- inputs -----------------------------------------------------------------------------------


def booklet_ref(booklet) -> BookletRef:
    return BookletRef(
        collection=booklet.collection,
        slug=booklet.slug,
        name=booklet.name,
        kind=booklet.kind,
        images_dir=booklet.images_dir,
        language=booklet.language,
        rule_keywords=rule_keywords(booklet.collection),
        terms=game_terms(booklet.game),
    )


def booklets_of(game: Game, extensions) -> list[BookletRef]:
    """The base booklet and the checked ones, in that order."""
    return [booklet_ref(game.base_booklet)] + [booklet_ref(ext.booklet) for ext in extensions]


def new_question(
    *, game: Game, text: str, extensions=(), history=(), card_mentions=(), sticky_card_mentions=(), user=None
) -> tuple[Question, list]:
    """An unsaved Question (its id already set) and its booklets, for `save_question`."""
    question = Question(
        game=game,
        text=text,
        history=list(history),
        card_mentions=list(card_mentions),
        sticky_card_mentions=list(sticky_card_mentions),
        user=user,
    )
    return question, list(extensions)


def save_question(question: Question, extensions) -> Question:
    with transaction.atomic():
        question.save(force_insert=True)
        if extensions:
            question.extensions.set(extensions)
    return question


def create_question(**fields) -> Question:
    return save_question(*new_question(**fields))


def resolve_mentions(game: Game, names) -> list[dict]:
    """Card dicts for @-mentioned names; [] until the game has a card catalog."""
    if not names:
        return []
    try:
        from games.cards import resolve_mentions as resolve
    except ImportError:
        return []
    return resolve(game, names)


def _capped_sticky(question: Question) -> list[str]:
    """Earlier turns' cards, FIFO capped at 20 (80 while a deck is discussed)."""
    from rag.cards import capped_sticky

    return capped_sticky(question.sticky_card_mentions, question.text, question.history)


def _cards_block(fresh: list[dict], sticky: list[dict]) -> str:
    try:
        from rag.cards import mention_blocks
    except ImportError:
        return ""
    return mention_blocks(fresh, sticky)


def _deckbuilding_hook():
    try:
        from rag.deckbuilding import ask_deckbuilding
    except ImportError:
        return None
    return ask_deckbuilding


def reranker():
    """The configured cross-encoder (RERANK_URL), or None: fusion order is kept."""
    if not settings.RERANK_URL:
        return None
    with _reranker_lock:
        if settings.RERANK_URL not in _rerankers:
            _rerankers[settings.RERANK_URL] = TeiReranker(
                url=settings.RERANK_URL, api_key=settings.RERANK_API_KEY, timeout=settings.RERANK_TIMEOUT_S
            )
        return _rerankers[settings.RERANK_URL]


# --- event payloads ---------------------------------------------------------------------------


def phase(key: str) -> dict:
    return {"key": key, "label": prompts.PHASES[key]}


def chunk_summary(chunk: RetrievedChunk) -> dict:
    return {
        "booklet": chunk.booklet.name,
        "booklet_slug": chunk.booklet.slug,
        "collection": chunk.booklet.collection,
        "kind": chunk.booklet.kind,
        "pages": chunk.pages,
        "page_start": chunk.page_start,
        "page_end": chunk.page_end,
        "hierarchy_path": chunk.hierarchy_path,
        "score": chunk.score,
        "dense_score": chunk.dense_score,
        "rerank_score": chunk.rerank_score,
        "text": chunk.text[:EXCERPT_CHARS],
        "chunk_id": chunk.payload.get("chunk_id", chunk.id),
        "is_extension": chunk.booklet.is_extension,
        "is_forum": chunk.is_forum,
        "conflict": chunk.conflict,
    }


# --- the flow ---------------------------------------------------------------------------------


class _Steps:
    """Wall-clock time of each step, for the `diagnostics` event."""

    def __init__(self):
        self.timings: dict[str, float] = {}
        self._last = time.perf_counter()

    def done(self, name: str) -> None:
        now = time.perf_counter()
        self.timings[name] = round((now - self._last) * 1000, 1)
        self._last = now


def answer_question(question_id, emit: Emit) -> None:
    """Answer a stored question, emitting phase/context/token/diagnostics/done (or error)."""
    try:
        _answer(Question.objects.select_related("game").get(pk=question_id), emit)
    except Exception as exc:  # turned into a readable, persisted failure
        log.exception("question %s failed", question_id)
        message = f"L'Oracle n'a pas pu répondre : {exc}"
        Question.objects.filter(pk=question_id).update(
            status=Question.Status.ERROR, error=message, answered_at=timezone.now()
        )
        emit("error", {"message": message, "questionId": str(question_id)})


def _answer(question: Question, emit: Emit) -> None:
    steps = _Steps()
    emit("phase", phase("weigh"))
    game = question.game
    extensions = list(Extension.objects.filter(questions=question).order_by("name"))
    booklets = booklets_of(game, extensions)
    fresh = resolve_mentions(game, question.card_mentions)
    sticky = resolve_mentions(game, _capped_sticky(question))
    llm = components.llm_backend()
    intent_future = _pool.submit(classify, question.text, llm, settings.ASK_CLASSIFY_TIMEOUT_S)
    hyde_future = _pool.submit(hypothetical_passage, question.text, llm, game.name, settings.ASK_HYDE_TIMEOUT_S)
    steps.done("resolve")

    emit("phase", phase("dive"))
    store = components.vector_store()
    sync_if_changed(store, [b.collection for b in booklets])
    steps.done("index_sync")
    hyde = hyde_future.result()
    steps.done("hyde")
    retrieval = _retrieve(question.text, store, booklets, hyde)
    steps.done("retrieval")
    intent = intent_future.result()
    steps.done("classify")
    chunks = _chunks_for_intent(retrieval, intent, game, question.text, store)

    # Only card games have a catalog to build from; elsewhere the rulebooks answer.
    wants_deck = intent == Question.Intent.DECKBUILDING and game.card_game
    deckbuilding = _deckbuilding_hook() if wants_deck else None
    emit("context", {
        "chunks": [chunk_summary(c) for c in chunks],
        "mentionedCards": fresh,
        "stickyMentionedCards": sticky,
        "intent": intent,
    })
    emit("phase", phase("write"))
    if deckbuilding is not None:
        answer = deckbuilding(
            game=game, question=question.text, mentioned_cards=fresh, sticky_cards=sticky,
            history=question.history, emit=emit,
        )
    else:
        answer = _generate(question, game, chunks, retrieval, llm, _cards_block(fresh, sticky), emit)
        if game.card_game:  # card names become [[card:Name]]: the page previews the card
            from games.cards import cards_named_in
            from rag.cards import wrap_card_names

            answer = wrap_card_names(answer, [*fresh, *sticky, *cards_named_in(game, answer)])
    steps.done("answer")

    diagnostics = {
        "chunks": [{k: v for k, v in chunk_summary(c).items() if k != "text"} for c in chunks],
        "hyde": hyde,
        "timings": {**steps.timings, **{f"retrieval.{k}": v for k, v in retrieval.timings_ms.items()}},
        "bestScore": retrieval.best_score,
        "intent": intent,
        "ruleNumbers": retrieval.rule_numbers,
        "reranked": retrieval.reranked,
        "llm": llm.name,
    }
    deck_extra = getattr(answer, "done_extra", {})  # deckbuilding: validation verdict and exports
    if "deck" in deck_extra:
        diagnostics["deck"] = {k: deck_extra["deck"][k] for k in ("validation", "spec", "attempts", "builder")}
    Question.objects.filter(pk=question.pk).update(
        answer=answer,
        intent=intent,
        best_score=retrieval.best_score,
        diagnostics=diagnostics,
        status=Question.Status.DONE,
        error="",
        answered_at=timezone.now(),
    )
    emit("diagnostics", diagnostics)
    emit("done", {"fullAnswer": str(answer), "questionId": str(question.pk), "bestScore": retrieval.best_score,
                  **deck_extra})


def _retrieve(text: str, store, booklets: list[BookletRef], hyde: str | None) -> Retrieval:
    kwargs = dict(store=store, embedder=components.embedder(), booklets=booklets, hyde_passage=hyde,
                  top_k=settings.ASK_TOP_K * 2)
    try:
        return retrieve(text, reranker=reranker(), **kwargs)
    except RerankError as exc:
        log.warning("rerank unavailable, fusion order kept: %s", exc)
        return retrieve(text, **kwargs)


def _chunks_for_intent(retrieval: Retrieval, intent: str, game: Game, text: str, store) -> list[RetrievedChunk]:
    chunks = retrieval.chunks
    if intent in FORUM_FREE_INTENTS:
        chunks = [c for c in chunks if not c.is_forum]
    chunks = chunks[: settings.ASK_TOP_K]
    if intent in FORUM_FREE_INTENTS and game.card_game:
        chunks = chunks + _card_chunks(game, text, store, intent)
    return chunks


def _card_chunks(game: Game, text: str, store, intent: str = "synergy") -> list[RetrievedChunk]:
    """Cards and tournament decks of a card game, for synergy/meta/deckbuilding questions."""
    try:
        from games.card_indexing import card_collection, meta_collection
    except ImportError:
        return []
    refs = [
        BookletRef(collection=card_collection(game), slug=card_collection(game), name="Cartes", kind="cards"),
        BookletRef(collection=meta_collection(game), slug=meta_collection(game), name="Méta", kind="meta"),
    ]
    sync_if_changed(store, [r.collection for r in refs])
    from games.card_search import card_game_hits  # synergy expansion; meta lists of the asked format

    by_collection = {r.collection: r for r in refs}
    hits = card_game_hits(store, components.embedder(), components.llm_backend(), game, text, intent, settings.ASK_TOP_K)
    return [RetrievedChunk(id=h.id, booklet=by_collection[h.collection], payload=h.payload, score=h.score,
                           fusion_score=h.score) for h in hits]  # fmt: skip


def _generate(question, game, chunks, retrieval, llm, cards_block, emit) -> str:
    def extractive() -> str:
        return extractive_answer(
            question.text, chunks, best_score=retrieval.best_score, min_score=settings.ASK_MIN_SCORE,
            embedder=components.embedder(),
        )

    if not llm.available:
        return _emit_text(extractive(), emit)
    image = best_page_image(chunks, remote_root=_remote_images_root())
    prompt = build_user_prompt(
        question.text, chunks, game_name=game.name, bgg_metadata=game.bgg_metadata,
        history=question.history, image=image, cards_block=cards_block,
    )
    parts: list[str] = []
    try:
        for delta in llm.stream(
            prompts.SYSTEM_PROMPT, prompt, model=settings.ASK_ANSWER_MODEL,
            timeout=settings.ASK_ANSWER_TIMEOUT_S, images=[image.path] if image else [],
        ):
            if delta:
                parts.append(delta)
                emit("token", {"text": delta})
    except ClaudeQuotaError as exc:
        reset = timezone.localtime(exc.reset_at).strftime("%H:%M") if exc.reset_at else "?"
        return _fallback(parts, prompts.QUOTA_MESSAGE.format(reset=reset), extractive, emit)
    except LLMError as exc:
        log.warning("answer by LLM failed: %s", exc)
        return _fallback(parts, prompts.LLM_FAILED_MESSAGE.format(error=exc), extractive, emit)
    answer = "".join(parts)
    if not answer.strip():
        return _fallback(parts, prompts.LLM_FAILED_MESSAGE.format(error="réponse vide"), extractive, emit)
    return answer


def _fallback(parts: list[str], message: str, extractive, emit) -> str:
    """After a failed LLM answer: say so plainly, then quote the booklets (when allowed)."""
    text = ("\n\n" if parts else "") + message + "\n\n"
    if settings.ASK_QUOTA_FALLBACK_EXTRACTIVE:
        text += prompts.EXTRACTIVE_FALLBACK_INTRO + "\n\n" + extractive()
    return "".join(parts) + _emit_text(text, emit)


def _emit_text(text: str, emit: Emit) -> str:
    """Stream a ready answer line by line, as an LLM would stream it."""
    for line in text.splitlines(keepends=True):
        emit("token", {"text": line})
    return text


def _remote_images_root() -> str:
    if settings.LLM_BACKEND != "claude-ssh":
        return ""
    return getattr(settings, "VISION_SSH_IMAGES_PATH", "/projet/boardgame-pdfs")


# --- background --------------------------------------------------------------------------------


def start_answering(question_id, emit: Emit, unsaved: tuple[Question, list] | None = None) -> Future:
    """Answer in the background; returns a future that completes once the answer is stored
    (or has failed). The answer goes on when nobody listens any more.

    `unsaved` (from `new_question`) is saved first, in the ask save pool, so the stream's
    `meta` event never waits for a database write (SQLite may be busy with an ingestion). The
    answer itself then waits for one of ASK_MAX_CONCURRENT_ANSWERS threads of the answer pool;
    the question is vouched for meanwhile, so no recovery sweep fails it while it queues."""
    finished: Future = Future()

    def answer() -> None:
        try:
            with answering(question_id):
                answer_question(question_id, emit)
        finally:
            finished.set_result(None)

    def save_then_queue() -> None:
        try:
            vouch(question_id)
            if unsaved is not None:
                save_question(*unsaved)
        except Exception as exc:  # nothing stored: only the listener can be told
            log.exception("question %s could not be saved", question_id)
            forget(question_id)
            emit("error", {"message": f"L'Oracle n'a pas pu enregistrer la question : {exc}",
                           "questionId": str(question_id)})
            finished.set_result(None)
            return
        answer_pool().submit(answer)

    save_pool().submit(save_then_queue)
    return finished
