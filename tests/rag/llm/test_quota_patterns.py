"""Every quota wording the Claude CLI has printed, and the reset time read from it."""

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from rag.llm.quota import QUOTA_MARKERS, has_quota_marker, quota_error_from_rate_limit, quota_error_from_text, reset_time_from_text

PARIS = ZoneInfo("Europe/Paris")
# 2026-11-29 10:00 in Paris (UTC+1 in winter).
NOW = datetime(2026, 11, 29, 9, 0, tzinfo=timezone.utc)


def reset(text, tz="Europe/Paris"):
    return reset_time_from_text(text, now=NOW, tz=tz)


@pytest.mark.parametrize("marker", QUOTA_MARKERS)
def test_every_marker_is_detected_whatever_the_case(marker):
    assert has_quota_marker(f"Error: {marker.upper()} for now")


def test_an_ordinary_answer_is_not_a_quota():
    assert quota_error_from_text("Selon les règles, on pioche deux cartes.", now=NOW) is None


def test_unix_seconds_after_a_pipe_is_the_exact_reset():
    assert reset("Claude AI usage limit reached|1767225600") == datetime(2026, 1, 1, tzinfo=timezone.utc)


def test_unix_seconds_win_over_a_time_of_day():
    assert reset("usage limit reached|1767225600, reset at 3pm") == datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "text, hour, minute",
    [
        ("Your limit will reset at 3pm", 15, 0),
        ("usage limit reached, reset at 3:30 PM", 15, 30),
        ("usage limit reached. Your limit resets at 11:15 am", 11, 15),
        ("rate limit reached, try again at 4pm", 16, 0),
        ("usage limit reached: available again at 5:45 p.m.", 17, 45),
        ("usage limit reached, reset at 14:30", 14, 30),
        ("You've hit your session limit · resets 3pm", 15, 0),
        ("You've hit your session limit · resets 3:30pm", 15, 30),
    ],
)
def test_time_of_day_is_the_next_such_time_in_the_configured_zone(text, hour, minute):
    expected = datetime(2026, 11, 29, hour, minute, tzinfo=PARIS)
    assert reset(text) == expected


def test_a_time_already_past_today_is_tomorrow():
    assert reset("usage limit reached, reset at 9am") == datetime(2026, 11, 30, 9, 0, tzinfo=PARIS)


def test_midnight_am_is_the_coming_midnight():
    assert reset("You've hit your session limit · resets 12am") == datetime(2026, 11, 30, 0, 0, tzinfo=PARIS)


def test_a_zone_in_parentheses_wins_over_the_configured_zone():
    expected = datetime(2026, 11, 29, 15, 30, tzinfo=ZoneInfo("America/Bogota"))
    assert reset("You've hit your session limit · resets 3:30pm (America/Bogota)") == expected
    assert reset("resets 3:30pm (Europe/Paris)", tz="UTC") == datetime(2026, 11, 29, 15, 30, tzinfo=PARIS)


def test_current_cli_wording_with_utc_zone():
    # What the real CLI 2.1.197 printed with the subscription login.
    assert reset("You've hit your session limit · resets 12am (UTC)") == datetime(2026, 11, 30, tzinfo=timezone.utc)


def test_older_wording_with_zone():
    text = "Claude usage limit reached. Your limit will reset at 3pm (America/Bogota)."
    assert reset(text) == datetime(2026, 11, 29, 15, 0, tzinfo=ZoneInfo("America/Bogota"))


def test_five_hour_wording_without_zone_uses_the_configured_zone():
    assert reset("5-hour limit reached ∙ resets 12pm") == datetime(2026, 11, 29, 12, 0, tzinfo=PARIS)


def test_priority_reset_at_comes_before_try_again_at():
    assert reset("usage limit reached; try again at 4pm; reset at 2pm") == datetime(2026, 11, 29, 14, 0, tzinfo=PARIS)


def test_no_time_at_all_waits_one_hour():
    assert reset("You've hit your usage limit.") == NOW + timedelta(hours=1)


def test_nonsense_clock_falls_back_to_one_hour():
    assert reset("usage limit reached, reset at 27:99") == NOW + timedelta(hours=1)


def test_answer_text_that_is_really_a_quota_message_is_a_quota():
    answer = "Claude AI usage limit reached|1767225600"
    error = quota_error_from_text(answer, now=NOW)
    assert error is not None and error.reset_at == datetime(2026, 1, 1, tzinfo=timezone.utc)


def test_rejected_rate_limit_event_gives_its_exact_reset():
    error = quota_error_from_rate_limit({"status": "rejected", "resetsAt": 1767225600, "rateLimitType": "five_hour"})
    assert error.reset_at == datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert "five_hour" in str(error)


@pytest.mark.parametrize("status", ["allowed", "allowed_warning"])
def test_allowed_rate_limit_event_is_no_quota(status):
    assert quota_error_from_rate_limit({"status": status, "resetsAt": 1767225600}) is None


def test_rejected_without_reset_waits_one_hour():
    assert quota_error_from_rate_limit({"status": "rejected"}, now=NOW).reset_at == NOW + timedelta(hours=1)
