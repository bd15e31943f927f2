"""The chat's answer events (GET /jeux/<slug>/questions/<id>/events): server-sent events whose
data are server-rendered partials the htmx SSE extension swaps into the turn.

Subscribes to the answer's live group FIRST (runtime/broadcast.py), then reads the stored
Question: already answered, it sends the final turn at once; otherwise it catches up with
the phase, the passages found and the text written so far (this process's own record, or —
the answer being written by another web process — the group's next `snapshot`) and relays
each event of the ask flow: `phase` (the line saying what the Oracle does), `context` (the
passages found), `token` (the answer's text, escaped), `done` (the final turn, also on
error), with a comment as heartbeat while nothing happens, and ends after `done`."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import StreamingHttpResponse
from django.template.loader import render_to_string
from django.utils.html import escape, format_html, format_html_join
from django.utils.translation import gettext as _

from runtime import broadcast, executors

from .access import visible_question
from .ask_flow.background import SNAPSHOT, streamed_so_far
from .chat_turns import turn_context
from .models import Question

FINAL_EVENTS = ("done", "error")
RECHECK_EVERY = 3  # heartbeats: the stored question is read again (a missed `done`)


def sse(name: str, html: str) -> str:
    """One event; every line of the partial gets its own `data:` field."""
    lines = html.splitlines() or [""]
    return f"event: {name}\n" + "".join(f"data: {line}\n" for line in lines) + "\n"


def token_html(text: str) -> str:
    return f"<span>{escape(text)}</span>"


def context_html(data: dict) -> str:
    """The passages the answer is written from, as « Booklet p.N » tags."""
    seen, tags = set(), []
    for chunk in data.get("chunks") or []:
        label = f"{chunk.get('booklet', '')} p.{chunk.get('page_start')}"
        if label not in seen:
            seen.add(label)
            tags.append((label,))
    if not tags:
        return ""
    return format_html(
        '<span class="context-label">{}</span> {}',
        _("D'après :"), format_html_join(" ", '<span class="context-tag">{}</span>', tags[:6]),
    )


def _stored_question(question_id) -> Question | None:
    """The question as stored, or None once it is deleted: either way its stream can end."""
    return Question.objects.select_related("game").filter(pk=question_id).first()


def _final_html(question_id, question: Question | None = None) -> str:
    """The finished turn (`question` when just loaded); a short notice in its place when the
    question was deleted while it was answered (its conversation or its game deleted): the page
    then stops waiting for it."""
    question = question or _stored_question(question_id)
    if question is None:
        return format_html(
            '<li class="turn" id="turn-{}" data-state="error"><div class="bubble answer-bubble">'
            '<span class="who">{}</span><p class="error-text" role="alert">{}</p></div></li>',
            question_id, _("L'Oracle"), _("Cette question a été supprimée."),
        )  # fmt: skip
    return render_to_string("questions/_turn.html", turn_context(question))


def _event_sse(event) -> str | None:
    if event.name == "phase":
        return sse("phase", phase_html(event.data.get("label", ""), event.data.get("key", "")))
    if event.name == "token":
        return sse("token", token_html(event.data.get("text", "")))
    if event.name == "context":
        return sse("context", context_html(event.data))
    return None


def phase_html(label: str, key: str = "") -> str:
    """The phase line: its words, tagged with its key (oracle.css offers « Arrêter » from the
    « write » phase on, while the model is still silent)."""
    return format_html('<span data-phase="{}">{}</span>', key, label) if key else escape(label)


def _catch_up(phase: str, text: str, context: dict | None = None, phase_key: str = "") -> list[str]:
    """What a late listener gets at once: the last phase, the passages of the last `context`
    event (sent before it listened: it would only see them at `done`), the text so far."""
    return (
        ([sse("phase", phase_html(phase, phase_key))] if phase else [])
        + ([sse("context", context_html(context))] if context else [])
        + ([sse("token", token_html(text))] if text else [])
    )


class Follower:
    """What a relay sends for each live event of an answer. `seen`: the id of the last event
    the text already sent covers. A listener in another web process than the one writing the
    answer, arriving after its first event, holds the events back until the next `snapshot`
    gives the text so far, the last phase and the passages (ask_flow/background.py)."""

    def __init__(self, seen: int):
        self.seen = seen
        self.held: list | None = None if seen else []

    def send(self, event) -> list[str]:
        if self.held is not None and event.id is not None:  # (an event without id is relayed as it is)
            if event.name == SNAPSHOT:  # everything up to its id, then what came after it
                later, self.held, self.seen = self.held, None, int(event.id)
                data = event.data
                caught_up = _catch_up(data.get("phase", ""), data.get("text", ""), data.get("context"), data.get("phase_key", ""))
                return caught_up + self._relayed(later)
            if int(event.id) != 1:
                self.held.append(event)
                return []
            self.held = None  # listening since the first event: nothing missed
        return self._relayed([event])

    def _relayed(self, events) -> list[str]:
        sent = []
        for event in events:
            if event.name == SNAPSHOT or (event.id is not None and int(event.id) <= self.seen):
                continue  # already in the text sent
            if event.id is not None:
                self.seen = int(event.id)
            html = _event_sse(event)
            if html:
                sent.append(html)
        return sent


async def relay(question_id, heartbeat_s: float):
    async with broadcast.subscribe(broadcast.answer_group(question_id)) as events:
        question = await executors.setup_async(_stored_question)(question_id)
        if question is None or question.is_answered:
            yield sse("done", await executors.setup_async(_final_html)(question_id, question))
            return
        yield ": listening\n\n"
        so_far = streamed_so_far(question_id)  # a late listener (a reload) starts from there
        for chunk in _catch_up(so_far.phase, so_far.text, so_far.context, so_far.phase_key):
            yield chunk
        follower, quiet = Follower(so_far.last_id), 0
        while True:
            event = await events.receive(heartbeat_s)
            if event is None:
                quiet += 1
                if quiet % RECHECK_EVERY == 0:
                    question = await executors.setup_async(_stored_question)(question_id)
                    if question is None or question.is_answered:
                        yield sse("done", await executors.setup_async(_final_html)(question_id, question))
                        return
                yield ": heartbeat\n\n"
                continue
            quiet = 0
            if event.name in FINAL_EVENTS:
                yield sse("done", await executors.setup_async(_final_html)(question_id))
                return
            for chunk in follower.send(event):
                yield chunk


async def answer_events(request, slug: str, question_id):
    user = await request.auser()
    if not (user.is_authenticated or settings.ASK_ALLOW_ANONYMOUS):
        return redirect_to_login(request.get_full_path())
    asker = user if user.is_authenticated else None
    question = await executors.setup_async(visible_question)(asker, question_id, game__slug=slug)
    response = StreamingHttpResponse(
        relay(question.pk, settings.ASK_HEARTBEAT_S), content_type="text/event-stream; charset=utf-8"
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
