"""A late listener on another web process gets the whole answer, through channels-redis: a
question asked through daphne A (the JSON API) is answered there, slowly; the chat's event
stream opened on daphne B after A has streamed several words shows the answer from its first
word, then every word after, then the final turn. B holds no record of the answer: it
catches up from the `snapshot` events A publishes to the answer's group."""

import html
import re

import httpx
import pytest
import redis
from django.test import Client

from questions.models import ApiToken, Question

from .processes import SlowOpenAI, redis_test_db, server_env, start_daphne

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
WORDS = 40
FULL = "".join(f"mot{i} " for i in range(WORDS))


def chat_events(response):
    """(event, data) of the chat's relay, the data lines joined as EventSource joins them."""
    name, data = None, []
    for line in response.iter_lines():
        if line == "":
            if name:
                yield name, "\n".join(data)
            name, data = None, []
        elif line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data.append(line[6:])


def text_of(token_html: str) -> str:
    return html.unescape(re.fullmatch(r"<span>(.*)</span>", token_html, re.S).group(1))


@pytest.fixture
def redis_url():
    url = f"redis://127.0.0.1:6379/{redis_test_db()}"
    redis.Redis.from_url(url).flushdb()
    yield url
    redis.Redis.from_url(url).flushdb()


def test_a_listener_on_another_daphne_arriving_mid_answer_gets_the_whole_answer(settings, tmp_path, bob, redis_url):
    from tests.factories import ExtensionFactory, GameFactory
    from tests.rag.corpus import create_chunk_rows

    game = GameFactory(name="Course Folle", slug="course-folle")
    create_chunk_rows(game, ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain"))
    _token, key = ApiToken.issue(bob)
    browser = Client()
    browser.force_login(bob)
    llm = SlowOpenAI(slow_model="slow-answer", words=WORDS, delay_s=0.15)
    env = server_env(
        settings, tmp_path / "var", REDIS_URL=redis_url,
        LLM_BACKEND="openai", OPENAI_BASE_URL=llm.url, LLM_MODEL_SONNET="slow-answer", LLM_MODEL_HAIKU="fast",
        LLM_FALLBACK_MODEL="",
    )  # fmt: skip
    processes = []
    try:
        for label in ("a", "b"):  # each web process owns its Qdrant folder, built from the rows
            processes.append(start_daphne({**env, "QDRANT_PATH": str(tmp_path / f"qdrant-{label}")}, tmp_path / f"daphne-{label}.log"))
        (_, web_a), (_, web_b) = processes
        body = {"gameId": str(game.pk), "question": "Peut-on jouer une carte Boost ?"}
        with httpx.stream("POST", f"{web_a}/api/ask/stream", json=body, headers={"Authorization": f"Bearer {key}"}, timeout=60) as asked:
            seen = ""
            for chunk in asked.iter_text():
                seen += chunk
                if seen.count("event: token") >= 5:
                    break
        question_id = re.search(r'"questionId": "([0-9a-f-]+)"', seen).group(1)
        streamed_on_a = "".join(re.findall(r'event: token\ndata: \{"text": "([^"]*)"\}', seen))
        assert streamed_on_a.startswith("mot0 mot1 mot2 mot3 mot4 ")

        url = f"{web_b}/jeux/{game.slug}/questions/{question_id}/events"
        with httpx.stream("GET", url, cookies={"sessionid": browser.cookies["sessionid"].value}, timeout=60) as listened:
            assert listened.status_code == 200
            events = []
            for name, data in chat_events(listened):
                events.append((name, data))
                if name == "done":
                    break
    finally:
        for process, _ in processes:
            process.stop()
        llm.close()

    tokens = [text_of(data) for name, data in events if name == "token"]
    assert tokens[0].startswith(streamed_on_a)  # B started from the first word, not from when it listened
    assert "".join(tokens) == FULL  # then every word once, in order
    assert Question.objects.get(pk=question_id).answer == FULL
    final = events[-1][1]
    assert 'data-state="done"' in final and "mot39" in final
