"""Ingest events through channels-redis, in the scaled setup: a job uploaded through web
process A and run by a django-q2 worker process is followed through web process B, live, by
an SSE client and by Chromium on B's job page.

B's relay reads the stored events once (the replay) and would otherwise read them again only
after a heartbeat's silence or a fallback interval — both set to 10 minutes here: every event
that arrives within seconds of being stored came through Redis, not from a database poll.
"""

import json
import re
import statistics
import time

import httpx
import psycopg
import pytest

from tests.e2e.conftest import browser  # noqa: F401 (fixture)

from .processes import Process, start_daphne, start_qcluster
from .test_scaled_configuration import CREATE_ACTORS, CSRF, DEMO, manage, scaled_env, upload  # noqa: F401 (fixture)

pytestmark = pytest.mark.slow
NO_POLL_S = "600"


def timed_events(base_url: str, headers: dict, job_id: str) -> tuple[float, list[dict]]:
    """(when the stream answered, [{id, event, data, at}]) until `done` or `error`."""
    events, current = [], {}
    with httpx.stream("GET", f"{base_url}/api/ingest/{job_id}/events", headers=headers, timeout=httpx.Timeout(300, connect=10)) as response:  # a busy CI core may leave a stage silent for minutes
        assert response.status_code == 200
        connected = time.time()
        for line in response.iter_lines():
            if line.startswith("id: "):
                current = {"id": int(line[4:])}
            elif line.startswith("event: "):
                current["event"] = line[7:].strip()
            elif line.startswith("data: ") and "event" in current:
                events.append({**current, "data": json.loads(line[6:]), "at": time.time()})
                if current["event"] in ("done", "error"):
                    break
    return connected, events


def stored_at(database_url: str, ids: list[int]) -> dict[int, float]:
    with psycopg.connect(database_url) as connection:
        rows = connection.execute("SELECT id, created_at FROM ingest_ingestevent WHERE id = ANY(%s)", (ids,)).fetchall()
    return {pk: created.timestamp() for pk, created in rows}


def open_job_page(browser, base_url: str, session: str, job_id: str):  # noqa: F811
    context = browser.new_context(base_url=base_url, locale="fr-FR")
    context.add_cookies([{"name": "sessionid", "value": session, "url": base_url}])
    page = context.new_page()
    page.on("console", lambda message: print(f"[browser {message.type}] {message.text}"))
    page.goto(f"/ingestion/{job_id}/")
    page.evaluate("window.openedOnce = true")  # gone if the page were reloaded
    return page


def test_an_ingest_run_by_the_worker_reaches_another_web_process_live_through_redis(scaled_env, tmp_path, browser):  # noqa: F811
    env = {**scaled_env, "INGEST_SSE_HEARTBEAT_S": NO_POLL_S, "INGEST_SSE_FALLBACK_POLL_S": NO_POLL_S,
           "WHITENOISE_USE_FINDERS": "true"}  # the page's scripts, from static/
    actors = json.loads(manage(env, "shell", "-c", CREATE_ACTORS).strip().splitlines()[-1])
    staff = {"Cookie": f"sessionid={actors['session']}; csrftoken={CSRF}", "X-CSRFToken": CSRF}
    processes: list[Process] = []

    def web(label: str) -> str:
        process, url = start_daphne({**env, "QDRANT_PATH": str(tmp_path / f"qdrant-{label}")}, tmp_path / f"daphne-{label}.log")
        processes.append(process)
        return url

    try:
        web_a, web_b = web("a"), web("b")
        processes.append(start_qcluster(env, tmp_path / "qcluster.log"))
        job = upload(web_a, staff, DEMO / "les-aeronautes-regles.pdf", new_game_name="Les Aéronautes")
        page = open_job_page(browser, web_b, actors["session"], job["job_id"])
        finished_at_open = page.is_visible("#job-done")
        connected, events = timed_events(web_b, staff, job["job_id"])
        # Chromium on B's job page saw the acts complete through B's relay, without a reload
        page.locator("#job-done").wait_for(state="visible", timeout=30_000)
        acts_shown = page.locator(".act:not([hidden])").count()
        acts_done = page.locator(".act:not([hidden])[data-state=done]").count()
        # each act's own `done` event writes its time (the final `done` alone would not)
        act_times = page.locator(".act:not([hidden]) .act-elapsed").all_inner_texts()
        reloaded = not page.evaluate("window.openedOnce === true")
    finally:
        for process in processes:
            process.stop()

    assert events[-1]["event"] == "done", events[-3:]
    assert [e["id"] for e in events] == sorted({e["id"] for e in events})  # in order, no duplicate
    created = stored_at(env["DATABASE_URL"], [e["id"] for e in events])
    live = [e for e in events if created[e["id"]] > connected + 0.2]  # stored after B had replayed
    assert len(live) >= 6 and {"act", "done"} <= {e["event"] for e in live}
    delays = sorted(e["at"] - created[e["id"]] for e in live)
    print(f"\n{len(live)} live events through Redis: median {statistics.median(delays) * 1000:.0f} ms, "
          f"max {delays[-1] * 1000:.0f} ms; stream open {events[-1]['at'] - connected:.1f} s")
    assert delays[-1] < 10, delays  # a poll would take 600 s
    assert not finished_at_open and not reloaded
    assert acts_done == acts_shown >= 5, (acts_done, acts_shown)
    assert all(re.fullmatch(r"[\d.]+ s|\d+ min \d+ s", time) for time in act_times), act_times
