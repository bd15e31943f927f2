"""Parsing of stream-json lines recorded from the real CLI (tests/rag/llm/recorded/)."""

from datetime import datetime, timezone
from pathlib import Path

import pytest

from rag.llm.base import ClaudeQuotaError, LLMConfigError, LLMError
from rag.llm.stream_json import RateLimited, StreamJsonParser

RECORDED = Path(__file__).parent / "recorded"


def replay(name: str):
    parser = StreamJsonParser()
    texts = []
    for line in (RECORDED / name).read_text(encoding="utf-8").splitlines():
        texts.extend(parser.feed(line))
    return parser, texts


def test_partial_messages_give_each_delta_once():
    parser, texts = replay("stream-json-success-partial.jsonl")
    assert texts == ["Selon ", "les règles, ", "on pioche ", "deux cartes."]
    assert parser.error("", 0) is None


def test_whole_assistant_messages_give_text_without_partials():
    parser, texts = replay("stream-json-ok-oauth.jsonl")
    assert "".join(texts).startswith("Yes. Per the rulebook (p. 12, §4.2)")
    assert parser.error("", 0) is None


def test_tool_use_turn_yields_the_answer_after_reading_the_page():
    parser, texts = replay("stream-json-tool-read.jsonl")
    assert texts[-1].startswith("Yes. Per the rulebook")
    assert parser.error("", 0) is None


def test_subscription_quota_is_a_quota_with_the_event_reset():
    parser, texts = replay("stream-json-limit-oauth.jsonl")
    assert texts == []  # the synthetic notice is not an answer
    error = parser.error("", 1)
    assert isinstance(error, ClaudeQuotaError)
    assert error.reset_at == datetime.fromtimestamp(1767225600, tz=timezone.utc)


def test_plain_429_is_a_rate_limit_to_retry():
    parser, texts = replay("stream-json-api-429.jsonl")
    assert texts == []
    assert isinstance(parser.error("", 1), RateLimited)


def test_not_logged_in_is_a_configuration_error():
    parser, _ = replay("stream-json-not-logged-in.jsonl")
    error = parser.error("", 1)
    assert isinstance(error, LLMConfigError)
    assert "claude /login" in str(error)


@pytest.mark.parametrize("name", ["stream-json-overloaded.jsonl", "stream-json-maxturns.jsonl"])
def test_other_errors_are_plain_failures(name):
    parser, _ = replay(name)
    error = parser.error("", 1)
    assert type(error) is LLMError


def test_a_malformed_line_is_skipped_and_counted():
    parser = StreamJsonParser()
    lines = (RECORDED / "stream-json-success-partial.jsonl").read_text(encoding="utf-8").splitlines()
    lines.insert(4, '{"type":"stream_event","event":{"type":"content_blo')
    texts = [t for line in lines for t in parser.feed(line)]
    assert "".join(texts) == "Selon les règles, on pioche deux cartes."
    assert parser.malformed_lines == 1
    assert parser.error("", 0) is None


def test_no_result_and_a_failed_exit_reports_stderr():
    parser = StreamJsonParser()
    error = parser.error("bash: claude: command not found\n", 127)
    assert isinstance(error, LLMError) and "command not found" in str(error)


def test_quota_printed_on_stderr_only_is_a_quota():
    parser = StreamJsonParser()
    assert isinstance(parser.error("Claude AI usage limit reached|1767225600", 1), ClaudeQuotaError)


def success_lines(answer: str, is_error: bool = False) -> list[str]:
    import json

    return [
        json.dumps({"type": "assistant", "message": {"id": "m1", "model": "claude-sonnet-4", "content": [{"type": "text", "text": answer}]}}),
        json.dumps({"type": "result", "subtype": "success", "is_error": is_error, "result": answer}),
    ]


def test_a_quota_message_the_cli_reports_as_its_failed_result_is_a_quota():
    parser = StreamJsonParser()
    texts = [t for line in success_lines("Claude AI usage limit reached|1767225600", is_error=True) for t in parser.feed(line)]
    assert texts == ["Claude AI usage limit reached|1767225600"]
    assert isinstance(parser.error("", 1), ClaudeQuotaError)


@pytest.mark.parametrize("answer", [
    "Once you've hit the speed limit in a corner, you pay the excess in Heat cards.",  # short: a quota notice's size
    ("Once you've hit the speed limit of the corner, each extra point of speed costs one heat card. "
     "Discard the heat cards to your discard pile at the end of the turn; ") * 4,
    "Rate limit reached? No: the usage limit reached in Heat is the corner's speed.",
], ids=["short", "long", "quota-words"])
def test_a_successful_answer_is_never_a_quota_whatever_it_says(answer):
    parser = StreamJsonParser()
    texts = [t for line in success_lines(answer) for t in parser.feed(line)]
    assert "".join(texts) == answer
    assert parser.error("", 0) is None
