"""Quota and login problems as the real CLI reports them over SSH, and older CLI wordings
replayed by a stand-in `claude` script on the same SSH path."""

import json
import time
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from rag.llm.base import ClaudeQuotaError, LLMConfigError

pytestmark = pytest.mark.slow

RESET = datetime.fromtimestamp(1767225600, tz=timezone.utc)


def result_line(text: str, is_error: bool, status=None) -> str:
    return json.dumps({"type": "result", "subtype": "success", "is_error": is_error,
                       "api_error_status": status, "result": text})


def assistant_line(text: str) -> str:
    return json.dumps({"type": "assistant", "message": {"id": "msg_old", "model": "claude-sonnet-4",
                                                        "role": "assistant", "content": [{"type": "text", "text": text}]}})


def test_subscription_quota_pauses_until_the_rate_limit_event_reset(ssh_backend, messages_api):
    messages_api.mode = "quota"

    with pytest.raises(ClaudeQuotaError) as caught:
        ssh_backend("oauth").complete("Système", "Question", model="sonnet", timeout=60)

    assert caught.value.reset_at == RESET
    assert len(messages_api.conversation_requests()) == 1  # a quota is not retried


def test_a_normal_answer_under_a_subscription_login_is_no_quota(ssh_backend, messages_api):
    answer = ssh_backend("oauth").complete("Système", "Question", model="sonnet", timeout=60)
    assert answer == "".join(messages_api.answer)


def test_plain_429_is_retried_with_backoff_then_becomes_a_quota_pause(ssh_backend, messages_api):
    messages_api.mode = "rate_limit"
    backend = ssh_backend(rate_limit_retries=2, rate_limit_backoff_s=0.2)

    with pytest.raises(ClaudeQuotaError, match="rate limited after 3 attempts"):
        backend.complete("Système", "Question", model="haiku", timeout=90)

    assert len(messages_api.conversation_requests()) == 3


def test_429_then_success_answers_normally(ssh_backend, messages_api, monkeypatch):
    messages_api.mode = "rate_limit"
    backend = ssh_backend(rate_limit_retries=2, rate_limit_backoff_s=0.2)
    real_sleep = time.sleep

    def limit_lifts_while_we_wait(seconds):
        messages_api.mode = "normal"
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", limit_lifts_while_we_wait)

    answer = backend.complete("Système", "Question", model="haiku", timeout=90)

    assert answer == "".join(messages_api.answer)
    assert len(messages_api.conversation_requests()) == 2


def test_not_logged_in_is_a_configuration_error_shown_by_health(ssh_backend, messages_api):
    backend = ssh_backend("none")

    with pytest.raises(LLMConfigError, match="not logged in"):
        backend.complete("Système", "Question", model="haiku", timeout=60)

    report = backend.health()
    assert report.status == "down"
    assert "run `claude /login`" in report.detail


def test_invalid_api_key_is_a_configuration_error(ssh_backend, messages_api):
    messages_api.mode = "unauthorized"
    with pytest.raises(LLMConfigError):
        ssh_backend().complete("Système", "Question", model="haiku", timeout=60)


def test_health_makes_a_real_call_and_reports_ok(ssh_backend, messages_api):
    report = ssh_backend().health()
    assert report.status == "ok"
    assert report.latency_ms > 0
    (request,) = messages_api.conversation_requests()
    assert request.model.startswith("claude-haiku")


@pytest.mark.parametrize(
    "lines, stderr, expected_reset",
    [
        ([assistant_line("Claude AI usage limit reached|1767225600"),
          result_line("Claude AI usage limit reached|1767225600", True)], "", RESET),
        ([], "Claude AI usage limit reached|1767225600\n", RESET),
        ([assistant_line("5-hour limit reached ∙ resets 12pm"), result_line("5-hour limit reached ∙ resets 12pm", True)],
         "", (12, 0)),
        (["Claude usage limit reached. Your limit will reset at 3pm (America/Bogota)."], "", (15, 0, "America/Bogota")),
    ],
    ids=["pipe-unix-seconds", "stderr-only", "five-hour-resets-12pm", "plain-text-with-zone"],
)
def test_older_cli_quota_wordings_over_ssh(ssh_backend, replay_cli, lines, stderr, expected_reset):
    backend = ssh_backend(executable=replay_cli(lines, exit_status=1, stderr=stderr))

    with pytest.raises(ClaudeQuotaError) as caught:
        backend.complete("Système", "Question", model="haiku", timeout=30)

    if isinstance(expected_reset, datetime):
        assert caught.value.reset_at == expected_reset
    else:
        hour, minute, *zone = expected_reset
        reset = caught.value.reset_at.astimezone(ZoneInfo(zone[0] if zone else "Europe/Paris"))
        assert (reset.hour, reset.minute) == (hour, minute)


def test_a_quota_message_printed_as_the_answer_of_a_failed_run_raises_after_the_text(ssh_backend, replay_cli):
    quota_answer = "You've hit your session limit · resets 3:30pm (Europe/Paris)"
    backend = ssh_backend(executable=replay_cli([assistant_line(quota_answer), result_line(quota_answer, True)], 1))
    received = []

    with pytest.raises(ClaudeQuotaError) as caught:
        for text in backend.stream("Système", "Question", model="haiku", timeout=30):
            received.append(text)

    assert received == [quota_answer]
    reset = caught.value.reset_at.astimezone(ZoneInfo("Europe/Paris"))
    assert (reset.hour, reset.minute) == (15, 30)


SHORT_RULES_ANSWER = ["Once you've hit the speed limit in a corner, you pay the excess in Heat cards ",
                      "[HEAT, p.4 : \"For each Speed above the Corner's Speed Limit, pay 1 Heat.\"]"]


@pytest.mark.parametrize("credentials", ["api_key", "oauth"])
def test_a_short_rules_answer_with_quota_words_is_an_answer_not_a_quota(ssh_backend, messages_api, credentials):
    """The model's answer is never searched for quota wording: only what the CLI reports."""
    messages_api.answer = list(SHORT_RULES_ANSWER)
    backend = ssh_backend(credentials)

    answer = backend.complete("Système", "What if I exceed the corner speed?", model="sonnet", timeout=60)

    assert answer == "".join(SHORT_RULES_ANSWER)
    assert len(answer) < 400  # the size the old rule took for a quota notice
    assert backend.health().status == "ok"


def test_a_successful_run_whose_answer_reads_like_a_quota_notice_is_an_answer(ssh_backend, replay_cli):
    text = "You've hit the speed limit: pay 1 Heat per extra Speed."
    backend = ssh_backend(executable=replay_cli([assistant_line(text), result_line(text, False)], 0))
    assert backend.complete("Système", "Question", model="haiku", timeout=30) == text


def test_empty_answer_with_a_quota_marker_is_a_quota_not_an_empty_answer(ssh_backend, replay_cli):
    backend = ssh_backend(executable=replay_cli([result_line("", False)], 0, stderr="Claude usage limit reached.\n"))
    with pytest.raises(ClaudeQuotaError):
        backend.complete("Système", "Question", model="haiku", timeout=30)


def test_a_malformed_line_between_valid_ones_is_tolerated(ssh_backend, replay_cli):
    lines = [assistant_line("Réponse complète."), "{not json at all", "Warning: something odd", result_line("Réponse complète.", False)]
    backend = ssh_backend(executable=replay_cli(lines, 0))
    assert backend.complete("Système", "Question", model="haiku", timeout=30) == "Réponse complète."


def test_health_shows_a_quota_met_by_a_real_call(ssh_backend, messages_api):
    messages_api.mode = "quota"
    backend = ssh_backend("oauth")
    with pytest.raises(ClaudeQuotaError):
        backend.complete("Système", "Question", model="sonnet", timeout=60)

    report = backend.health()

    assert report.status == "down"
    assert report.detail == "quota reached, resets at 2026-01-01T00:00+00:00"
    assert len(messages_api.conversation_requests()) == 1  # health reused what the call learnt
