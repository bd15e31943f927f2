"""`openai`: an OpenAI-compatible chat completions server, streamed over real HTTP."""

import base64
import time
from datetime import datetime, timedelta, timezone

import pytest

from rag.llm.base import ClaudeQuotaError, LLMConfigError, LLMError, LLMTimeout
from rag.llm.fallback import WithFallback
from rag.llm.openai import OpenAIBackend, OpenAIConfig
from tests.support.chat_completions import start_chat_server


@pytest.fixture(scope="module")
def chat_server_module():
    chat, server = start_chat_server()
    yield chat
    server.shutdown()
    server.server_close()


@pytest.fixture
def chat(chat_server_module):
    chat_server_module.mode = "normal"
    chat_server_module.api_key = ""
    chat_server_module.models = ["gemma3:4b"]
    chat_server_module.requests.clear()
    chat_server_module.streams_finished = 0
    chat_server_module.reply = None
    chat_server_module.rate_limited_next, chat_server_module.retry_after = 0, ""
    return chat_server_module


def backend_for(chat, **overrides) -> OpenAIBackend:
    values = {"base_url": chat.url, "model": "gemma3:4b", "timeout_s": 30}
    values.update(overrides)
    return OpenAIBackend(OpenAIConfig(**values))


def test_answer_streams_delta_by_delta(chat):
    deltas = list(backend_for(chat).stream("Tu es l'Oracle.", "Combien de cartes « Boost » ?", model="sonnet", timeout=10))

    assert deltas == chat.answer
    (request,) = chat.requests
    assert request["stream"] is True
    assert request["messages"] == [
        {"role": "system", "content": "Tu es l'Oracle."},
        {"role": "user", "content": "Combien de cartes « Boost » ?"},
    ]


def test_first_delta_arrives_before_the_answer_ends(chat):
    chat.mode = "slow"
    finished_before = chat.streams_finished
    stream = backend_for(chat).stream("Système", "Question", model="haiku", timeout=10)

    first = next(stream)
    finished_at_first_token = chat.streams_finished - finished_before
    rest = list(stream)

    assert first == chat.answer[0]
    assert finished_at_first_token == 0
    assert [first, *rest] == chat.answer


def test_tier_models_map_to_configured_names(chat):
    chat.models = ["gemma3:4b", "qwen3:32b"]
    backend = backend_for(chat, tier_models={"opus": "qwen3:32b"})

    backend.complete("Système", "Question", model="opus", timeout=10)
    backend.complete("Système", "Question", model="haiku", timeout=10)

    assert [r["model"] for r in chat.requests] == ["qwen3:32b", "gemma3:4b"]


def test_api_key_is_sent_and_a_refusal_is_a_configuration_error(chat):
    chat.api_key = "secret"
    assert backend_for(chat, api_key="secret").complete("S", "Q", timeout=10) == "".join(chat.answer)
    with pytest.raises(LLMConfigError, match="API key"):
        backend_for(chat, api_key="wrong").complete("S", "Q", timeout=10)
    assert backend_for(chat, api_key="wrong").health().status == "down"


def test_unknown_model_is_a_configuration_error(chat):
    with pytest.raises(LLMConfigError, match="not found"):
        backend_for(chat, model="llama3.1").complete("S", "Q", timeout=10)


def test_a_hung_server_times_out(chat):
    chat.mode = "hang"
    with pytest.raises(LLMTimeout):
        backend_for(chat).complete("S", "Q", timeout=2)


def test_an_error_in_the_middle_of_the_stream_is_an_error(chat):
    chat.mode = "error_mid_stream"
    received = []
    with pytest.raises(LLMError, match="unexpectedly stopped"):
        for text in backend_for(chat).stream("S", "Q", timeout=10):
            received.append(text)
    assert received == chat.answer[:2]


def test_unreachable_server_is_an_error_and_health_says_down():
    backend = OpenAIBackend(OpenAIConfig(base_url="http://127.0.0.1:9/v1", model="m", timeout_s=5))
    with pytest.raises(LLMError, match="unreachable"):
        backend.complete("S", "Q", timeout=5)
    assert backend.health().status == "down"


def test_health_lists_the_served_model(chat):
    report = backend_for(chat).health()
    assert report.status == "ok" and "gemma3:4b" in report.detail
    assert backend_for(chat, model="absent").health().status == "down"


def test_fallback_model_answers_when_the_primary_times_out(chat):
    chat.models = ["gemma3:4b", "big:70b"]
    backend = WithFallback(backend_for(chat, tier_models={"opus": "big:70b"}), fallback_model="haiku",
                           timeout_s=10, fallback_timeout_s=10)
    original = chat.mode

    def hang_for_big_model(system, prompt, *, model, timeout, images):
        chat.mode = "hang" if model == "opus" else original
        return OpenAIBackend.stream(backend.backend, system, prompt, model=model, timeout=timeout, images=images)

    backend.backend.stream = hang_for_big_model

    assert backend.complete("S", "Q", model="opus", timeout=2) == "".join(chat.answer)
    assert [r["model"] for r in chat.requests] == ["big:70b", "gemma3:4b"]


def test_page_image_is_sent_inline(chat, tmp_path):
    image = tmp_path / "page-04.png"
    image.write_bytes(b"\x89PNG page")

    backend_for(chat).complete("S", "Q", timeout=10, images=[image])

    content = chat.requests[0]["messages"][1]["content"]
    assert content[0] == {"type": "text", "text": "Q"}
    assert content[1]["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(b"\x89PNG page").decode()


def test_a_body_cut_before_done_is_an_error_after_the_text_streamed(chat):
    def runner_crashes(body):
        yield "Selon "
        yield "le livret, "
        raise RuntimeError("runner crashed")  # the server closes the connection: no [DONE]

    chat.reply = runner_crashes
    backend = WithFallback(backend_for(chat), fallback_model="haiku", timeout_s=10)
    received = []

    with pytest.raises(LLMError, match="without \\[DONE\\]"):
        for text in backend.stream("S", "Q", model="sonnet", timeout=10):
            received.append(text)

    assert received == ["Selon ", "le livret, "]  # the caller keeps them, then falls back
    assert len(chat.requests) == 1  # text was given: no fall-back model repeats it


def test_the_timeout_bounds_the_whole_call_even_when_the_model_stalls_late(chat):
    def stalls_late(body):
        for i in range(7):
            time.sleep(0.5)
            yield f"m{i} "
        time.sleep(30)
        yield "fin"

    chat.reply = stalls_late
    started = time.monotonic()

    with pytest.raises(LLMTimeout):
        backend_for(chat).complete("S", "Q", model="sonnet", timeout=4)

    assert time.monotonic() - started < 4.8  # not the deadline plus another read timeout


def test_429_is_retried_after_retry_after_then_answers(chat):
    chat.rate_limited_next, chat.retry_after = 1, "1"
    backend = backend_for(chat, rate_limit_retries=2, rate_limit_backoff_s=0.1)
    started = time.monotonic()

    assert backend.complete("S", "Q", timeout=30) == "".join(chat.answer)

    assert len(chat.requests) == 2
    assert time.monotonic() - started >= 1.0  # the server's Retry-After, not the 0.1 s backoff


def test_429_without_retry_after_backs_off_then_becomes_a_quota_pause(chat):
    chat.mode = "rate_limit"
    backend = WithFallback(backend_for(chat, rate_limit_retries=2, rate_limit_backoff_s=0.1), fallback_model="haiku")

    with pytest.raises(ClaudeQuotaError, match="rate limited after 3 attempts"):
        backend.complete("S", "Q", model="sonnet", timeout=30)

    assert len(chat.requests) == 3  # a quota pause is not retried on the fall-back model


def test_a_retry_after_beyond_the_deadline_pauses_until_then_at_once(chat):
    chat.mode, chat.retry_after = "rate_limit", "600"
    backend = backend_for(chat, rate_limit_retries=3, rate_limit_backoff_s=0.1)

    with pytest.raises(ClaudeQuotaError) as caught:
        backend.complete("S", "Q", timeout=30)

    assert len(chat.requests) == 1
    expected = datetime.now(timezone.utc) + timedelta(seconds=600)
    assert abs((caught.value.reset_at - expected).total_seconds()) < 5


def test_ingestion_pauses_on_429_instead_of_losing_the_calls(chat, tmp_path):
    from ingest.stages.cache import JsonCache
    from ingest.stages.llm_pool import map_cached

    chat.mode, chat.retry_after = "rate_limit", "20"  # longer than the call's timeout: no retry, a pause
    backend = WithFallback(backend_for(chat), fallback_model="haiku")

    with pytest.raises(ClaudeQuotaError):  # the job pauses (ingest.quota_pause) and resumes after reset_at
        map_cached(list(range(4)), key=str, call=lambda i: backend.complete("S", f"passage {i}", timeout=10),
                   cache=JsonCache(tmp_path / "contexts.json"), concurrency=2)
