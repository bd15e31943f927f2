"""What the chat's relay sends a listener that arrives mid-answer in another web process than
the one writing it (questions.chat_stream.Follower): nothing until the answer's next
`snapshot`, then the phase, the passages and the text so far and the events after it, each
word once."""

from django.utils.html import escape

from questions.ask_flow.background import publishing, streamed_so_far
from questions.chat_stream import Follower, context_html, sse, token_html
from runtime import broadcast
from runtime.broadcast import LiveEvent

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


PASSAGES = {"chunks": [{"booklet": "Règles", "page_start": 4}, {"booklet": "Règles", "page_start": 7}]}


def test_a_late_listener_gets_the_passages_sent_before_it_listened_from_the_snapshot():
    follower = Follower(seen=0)
    assert follower.send(token(9, "Oui")) == []
    late = LiveEvent("snapshot", {"text": "On pioche ", "phase": WRITE, "context": PASSAGES}, "8")

    sent = follower.send(late)

    assert sent == [sse("phase", escape(WRITE)), sse("context", context_html(PASSAGES)),
                    sse("token", token_html("On pioche ")), sse("token", token_html("Oui"))]  # fmt: skip
    assert "D&#x27;après :" in context_html(PASSAGES) and "Règles p.4" in context_html(PASSAGES)


def test_the_answering_process_records_the_passages_and_its_snapshots_carry_them(monkeypatch):
    published = []

    def publish(group, name, data, event_id=None):
        published.append((name, data, event_id))

    monkeypatch.setattr(broadcast, "publish", publish)
    emit = publishing("q-passages")
    emit("phase", {"label": "L'Oracle plonge dans le grimoire"})
    emit("context", PASSAGES)
    emit("phase", {"label": WRITE, "key": "write"})
    emit("token", {"text": "Oui"})

    assert streamed_so_far("q-passages") == (4, "Oui", WRITE, PASSAGES, "write")  # what a reload in this process gets
    snapshots = [(data, event_id) for name, data, event_id in published if name == "snapshot"]
    assert snapshots[-1] == ({"text": "", "phase": WRITE, "phase_key": "write", "context": PASSAGES}, 3)  # after the `write` phase
    emit("done", {})
    assert streamed_so_far("q-passages") == (0, "", "", None, "")


def test_a_snapshot_before_any_passage_sends_no_context():
    follower = Follower(seen=0)
    early = LiveEvent("snapshot", {"text": "", "phase": WRITE, "context": None}, "2")
    assert follower.send(early) == [sse("phase", escape(WRITE))]
