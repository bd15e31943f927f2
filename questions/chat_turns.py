"""What the chat page shows of one turn (a question and its answer), live, polled or done:
the context of templates/questions/_turn.html, shared by the page, the ask view, the
event relay and the polling fallback."""

from __future__ import annotations

from django.urls import reverse

from .ask_flow.background import streamed_so_far
from .booklets import booklets_of
from .confidence import confidence_of
from .models import Question
from .rendering import render_answer

POLL_EVERY_S = 3
POLL_MAX_TRIES = 15


def answer_context(question: Question) -> dict:
    """The stored answer as safe HTML with its confidence badge (templates/questions/_answer.html)."""
    # bestScore rates rulebook passages; a decklist is judged by its verdict (diagnostics.deck)
    score = None if "deck" in question.diagnostics else question.best_score
    extensions = question.game.extensions.all()
    cited = {c.get("booklet"): c.get("booklet_slug") for c in question.diagnostics.get("chunks") or []}
    return {
        "answer_html": render_answer(question.answer, booklets_of(question.game, extensions, for_search=False), cited)
        if question.answer else "",
        "confidence": confidence_of(score, question.diagnostics.get("confidence"), question.answer) if not question.stopped else None,
        "error": question.error_message,
    }


def diagnostics_of(question: Question) -> dict | None:
    found = question.diagnostics or {}
    if not found:
        return None
    return {
        "best_score": found.get("bestScore"),
        "timings": found.get("timings") or {},
        "chunks": [
            {"booklet": c.get("booklet", ""), "page": c.get("page_start"), "path": c.get("hierarchy_path", ""),
             "score": c.get("score")}
            for c in found.get("chunks") or []
        ],
        "hyde": found.get("hyde"),
    }


def urls_of(question: Question) -> dict:
    args = [question.game.slug, question.pk]
    return {
        "events": reverse("oracle-chat-events", args=args),
        "poll": reverse("oracle-chat-turn", args=args),
        "stop": reverse("oracle-chat-stop", args=args),
        "regenerate": reverse("oracle-chat-regenerate", args=args),
        "feedback": reverse("oracle-chat-feedback", args=args),
    }


def deck_tools(question: Question) -> dict | None:
    """The verdict badge and export buttons under a deck answer (templates/questions/_deck_tools.html),
    from what the answer stored (`diagnostics.deck`): the same live, reloaded or reopened."""
    deck = (question.diagnostics or {}).get("deck")
    if not deck:
        return None
    validation = deck.get("validation") or {}
    issues = list(validation.get("issues") or [])
    return {
        "valid": bool(validation.get("valid")),
        "totals": " + ".join(str(n) for n in (validation.get("totals") or {}).values()),
        "notes": "\n".join([*issues, *(validation.get("warnings") or [])]),
        "issues": issues,
        "exports": deck.get("exports") or {},
    }


def turn_context(question: Question, *, poll_try: int | None = None) -> dict:
    """`state`: live (the page listens to its events), polling (the event stream failed: the
    page asks for the stored answer every POLL_EVERY_S), done or error."""
    if question.is_answered:
        state = "error" if question.status == Question.Status.ERROR else "done"
    elif poll_try is None:
        state = "live"
    else:
        state = "polling"
    context = {"question": question, "state": state, "urls": urls_of(question), "deck": None}
    if state == "polling":
        context["next_poll"] = f"{context['urls']['poll']}?try={poll_try + 1}"
        context["streamed"] = streamed_so_far(question.pk)[1]  # written so far (answered in this process)
    if question.is_answered:
        context.update(answer_context(question))
        context["diagnostics"] = diagnostics_of(question)
        context["deck"] = deck_tools(question)
    return context
