"""Issue 19, defect 5: daphne did not exit on SIGTERM while it answered a question, and kept the
Qdrant Edge folder: the restarted web process answered every question with « folder … is in
use by another process » until the old one was killed by hand. It now shuts down within a few
seconds; a lock left by a dead process is taken over safely."""

import os
import re
import signal
import subprocess
import sys
import time

import httpx
import pytest

from questions.models import ApiToken

from tests.support.daphne import _wait_until_serving, free_port

from .processes import Process, SlowOpenAI, server_env, start_daphne


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_sigterm_while_answering_exits_quickly_and_the_next_process_opens_the_store(settings, tmp_path, bob):
    from tests.factories import ExtensionFactory, GameFactory
    from tests.rag.corpus import create_chunk_rows

    game = GameFactory(name="Course Folle", slug="course-folle")
    create_chunk_rows(game, ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain"))
    _token, key = ApiToken.issue(bob)
    llm = SlowOpenAI(slow_model="slow-answer", words=600, delay_s=0.5)  # a 5-minute answer
    env = server_env(settings, tmp_path / "var", LLM_BACKEND="openai", OPENAI_BASE_URL=llm.url,
                     LLM_MODEL_SONNET="slow-answer", LLM_MODEL_HAIKU="fast", LLM_FALLBACK_MODEL="")
    web, base_url = start_daphne(env, tmp_path / "daphne-1.log")
    headers = {"Authorization": f"Bearer {key}"}
    body = {"gameId": str(game.pk), "question": "Peut-on jouer une carte Boost ?"}
    try:
        with httpx.stream("POST", f"{base_url}/api/ask/stream", json=body, headers=headers, timeout=60) as stream:
            seen = ""
            for chunk in stream.iter_text():
                seen += chunk
                if "event: token" in seen:
                    break
            started = time.monotonic()
            os.kill(web.pid, signal.SIGTERM)  # what a supervisor (or run.sh's Ctrl-C) sends
            try:
                web.popen.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
            exited_after = time.monotonic() - started
        print(f"\nSIGTERM while answering: daphne exited after {exited_after:.1f} s (returncode {web.popen.returncode})")
        assert web.popen.returncode is not None, "daphne still running 30 s after SIGTERM"

        web, base_url = start_daphne(env, tmp_path / "daphne-2.log")
        store = httpx.get(f"{base_url}/api/health", timeout=60).json()["components"]["vector_store"]
        assert store["status"] == "ok", store  # the new process opened the folder
    finally:
        web.kill()
        llm.close()
    assert "questionId" in re.sub(r"\s", "", seen)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_sigterm_stops_daphne_even_when_a_thread_never_ends(settings, tmp_path):
    port = free_port()
    env = server_env(settings, tmp_path / "var", SHUTDOWN_GRACE_S=3)
    web = Process([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "tests.support.stuck_asgi:application"],
                  env, tmp_path / "daphne.log")
    try:
        _wait_until_serving(web.popen, f"http://127.0.0.1:{port}", tmp_path / "daphne.log")
        started = time.monotonic()
        os.kill(web.pid, signal.SIGTERM)
        try:
            web.popen.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        exited_after = time.monotonic() - started
        print(f"\nSIGTERM with a thread that never ends: exited after {exited_after:.1f} s")
        assert web.popen.returncode is not None, "daphne still running 30 s after SIGTERM"
        assert "exiting now" in (tmp_path / "daphne.log").read_text()
    finally:
        web.kill()


def test_a_lock_left_by_a_dead_process_is_taken_over(tmp_path):
    """The folder's lock file names a pid that is gone while its lock is still held (by a child
    that inherited the descriptor): the next owner takes over instead of refusing forever."""
    from rag.edge_store import LOCK_FILE, _lock_folder

    root = tmp_path / "edge"
    root.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", f"""
import fcntl, os, sys, time
handle = open({str(root / LOCK_FILE)!r}, "a+")
fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
handle.seek(0); handle.truncate(); handle.write("999999999\\n"); handle.flush()  # a pid that does not exist
print("locked", flush=True)
time.sleep(60)
"""], stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"locked"

        handle = _lock_folder(root)  # takes over: no VectorStoreError

        assert (root / LOCK_FILE).read_text().strip() == str(os.getpid())
        handle.close()
    finally:
        holder.kill()
        holder.wait()


def test_a_lock_held_by_a_live_process_is_still_refused(tmp_path):
    from rag.edge_store import VectorStoreError, _lock_folder

    root = tmp_path / "edge"
    root.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", f"""
import sys; sys.path.insert(0, {str(os.getcwd())!r})
from pathlib import Path
from rag.edge_store import _lock_folder
handle = _lock_folder(Path({str(root)!r}))
print("locked", flush=True)
import time; time.sleep(60)
"""], stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"locked"
        with pytest.raises(VectorStoreError, match="in use by another process"):
            _lock_folder(root)
    finally:
        holder.kill()
        holder.wait()
