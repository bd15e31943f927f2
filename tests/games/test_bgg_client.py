"""The BGG XML API2 client against recorded responses served over real HTTP."""

import subprocess
import sys
from pathlib import Path

import pytest

from games.bgg_client import BggAuthError, BggClient, BggError, BggNotFound, markup_to_text
from tests.games.bgg_replay import UNAUTHORIZED, FakeBgg, serve

SCYTHE = 169786


@pytest.fixture
def bgg():
    fake = FakeBgg()
    base_url, stop = serve(fake)
    fake.base_url = base_url
    yield fake
    stop()


def client_for(fake, token="test-bgg-token", min_interval=0.01, **kwargs):
    return BggClient(token=token, base_url=fake.base_url, min_interval=min_interval, **kwargs)


def test_thing_gives_mechanics_categories_and_player_counts(bgg):
    thing = client_for(bgg).thing(SCYTHE)

    assert thing.name == "Scythe"
    assert (thing.min_players, thing.max_players, thing.playing_time, thing.min_age) == (1, 5, 115, 14)
    assert "Area Majority / Influence" in thing.mechanics
    assert "Variable Player Powers" in thing.mechanics
    assert thing.categories == ("Economic", "Fighting", "Science Fiction", "Territory Building")
    assert thing.designers == ("Jamey Stegmaier",)


def test_every_call_carries_the_bearer_token(bgg):
    client_for(bgg).forums(SCYTHE)

    assert bgg.requests[0].authorization == "Bearer test-bgg-token"
    assert bgg.requests[0].params == {"id": str(SCYTHE), "type": "thing"}


def test_rules_forum_is_found_among_the_game_forums(bgg):
    forum = client_for(bgg).rules_forum(SCYTHE)

    assert (forum.id, forum.title, forum.num_threads) == (1565739, "Rules", 1520)


def test_forum_page_lists_threads_and_an_empty_page_past_the_end(bgg):
    client = client_for(bgg)

    threads = client.forum_threads(1565739, page=1)
    assert [t.id for t in threads] == [3270001, 3269876]
    assert threads[1].subject == "Hand limit at end of round"
    assert threads[1].last_post_date == "Sun, 05 May 2024 21:44:10 +0000"
    assert client.forum_threads(1565739, page=2) == []


def test_thread_articles_come_back_as_plain_text(bgg):
    thread = client_for(bgg).thread(3269876)

    assert thread.subject == "Hand limit at end of round"
    assert [a.username for a in thread.articles] == ["otheruser", "designer_x"]
    assert thread.articles[1].body == "End of your own turn (rulebook p. 12).\nOfficial answer"


def test_markup_to_text_drops_tags_and_keeps_line_breaks():
    assert markup_to_text('<div class="quote">Quoted</div>No &amp; never<br/><b>bold</b>') == "Quoted\nNo & never\nbold"


def test_a_202_try_later_is_polled_until_the_answer_is_ready(bgg):
    bgg.hiccups["thing"] = [202, 202]

    thing = client_for(bgg).thing(SCYTHE)

    assert thing.name == "Scythe"
    assert len(bgg.calls("thing")) == 3


def test_a_429_backs_off_longer_each_time_then_succeeds(bgg):
    bgg.hiccups["forumlist"] = [429, 429]
    waits = []
    client = client_for(bgg, min_interval=0.01, sleep=lambda s: waits.append(s))

    forums = client.forums(SCYTHE)

    assert [f.title for f in forums] == ["Reviews", "Sessions", "General", "Rules"]
    backoffs = [w for w in waits if w >= 0.01]
    assert backoffs[:2] == [0.01, 0.02]  # min_interval, then doubled
    assert len(bgg.calls("forumlist")) == 3


def test_bgg_that_keeps_refusing_gives_up_with_a_clear_error(bgg):
    bgg.hiccups["thread"] = [503] * 10

    with pytest.raises(BggError, match="503 after 3 tries"):
        client_for(bgg, max_attempts=3).thread(3269876)
    assert len(bgg.calls("thread")) == 3


def test_missing_token_is_a_401_and_is_not_retried(bgg):
    with pytest.raises(BggAuthError, match="401") as caught:
        client_for(bgg, token="").thing(SCYTHE)

    assert UNAUTHORIZED in str(caught.value)
    assert len(bgg.requests) == 1


def test_unknown_thing_is_not_found(bgg):
    bgg.overrides["thing-1.xml"] = '<?xml version="1.0" encoding="utf-8"?><items termsofuse="x"/>'

    with pytest.raises(BggNotFound):
        client_for(bgg).thing(1)


def test_calls_are_spaced_by_the_minimum_interval(bgg):
    client = client_for(bgg, min_interval=0.2)

    client.forums(SCYTHE)
    client.forum_threads(1565739)
    client.thread(3269876)

    times = [r.at for r in bgg.requests]
    assert all(later - earlier >= 0.19 for earlier, later in zip(times, times[1:]))


PACED_CALLS = """
import sys
from pathlib import Path
from games.bgg_client import BggClient
client = BggClient(token="test-bgg-token", base_url=sys.argv[1], min_interval=0.3, pace_file=Path(sys.argv[2]))
for _ in range(3):
    client.thing(int(sys.argv[3]))
"""


def test_two_processes_calling_bgg_at_once_keep_the_interval_between_all_their_calls(bgg, tmp_path):
    """The nightly sync in the worker and a `sync_bgg` typed meanwhile share one pace."""
    project = Path(__file__).resolve().parents[2]
    command = [sys.executable, "-c", PACED_CALLS, bgg.base_url, str(tmp_path / "bgg-pace"), str(SCYTHE)]
    processes = [subprocess.Popen(command, cwd=project) for _ in range(2)]
    assert [process.wait(timeout=60) for process in processes] == [0, 0]

    times = sorted(r.at for r in bgg.calls("thing"))
    assert len(times) == 6
    assert all(later - earlier >= 0.29 for earlier, later in zip(times, times[1:])), times
