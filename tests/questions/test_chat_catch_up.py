"""What the chat's relay sends a listener that arrives mid-answer in another web process than
the one writing it (questions.chat_events.Follower): nothing until the answer's next
`snapshot`, then the text so far and the events after it, each word once."""

from django.utils.html import escape

from questions.chat_events import Follower, sse, token_html
from runtime.live_events import LiveEvent

WRITE = "L'Oracle rédige sa réponse"


def token(event_id: int, text: str) -> LiveEvent:
    return LiveEvent("token", {"text": text}, str(event_id))


def snapshot(event_id: int, text: str) -> LiveEvent:
    return LiveEvent("snapshot", {"text": text, "phase": WRITE}, str(event_id))


def test_a_late_listener_waits_for_the_snapshot_then_gets_the_text_so_far_and_what_follows():
    follower = Follower(seen=0)
    assert follower.send(token(7, "deux ")) == []
    assert follower.send(token(8, "cartes ")) == []

    sent = follower.send(snapshot(7, "On pioche deux "))

    assert sent == [sse("phase", escape(WRITE)), sse("token", token_html("On pioche deux ")), sse("token", token_html("cartes "))]
    assert follower.send(snapshot(9, "On pioche deux cartes et ")) == []  # already sent
    assert follower.send(token(9, "et ")) == [sse("token", token_html("et "))]


def test_a_listener_there_from_the_first_event_needs_no_snapshot():
    follower = Follower(seen=0)
    phase = LiveEvent("phase", {"label": "L'Oracle pèse votre question"}, "1")
    assert follower.send(phase) == [sse("phase", "L&#x27;Oracle pèse votre question")]
    assert follower.send(snapshot(1, "")) == []
    assert follower.send(token(2, "Oui")) == [sse("token", token_html("Oui"))]


def test_a_listener_of_the_writing_process_skips_what_its_record_already_gave():
    follower = Follower(seen=5)  # streamed_so_far: events 1–5 are in the text sent
    assert follower.send(token(5, "deux ")) == []
    assert follower.send(token(6, "cartes")) == [sse("token", token_html("cartes"))]
