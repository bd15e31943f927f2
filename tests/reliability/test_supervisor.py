"""Issue 19, defect 7: `make run` died with its worker — kill -9 of qcluster made run.sh stop
daphne too, and four qcluster children (one 2.4 GB) stayed orphaned under PID 1. The
supervisor (scripts/supervise.py, what run.sh runs) restarts the worker, keeps the site up
and leaves no orphan."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.support.daphne import BASE_DIR, free_port

from .processes import server_env, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def group_members(pgid: int) -> list[int]:
    """Live processes whose process group is `pgid` (zombies excluded)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members


def serving(base_url: str) -> bool:
    try:
        return httpx.get(f"{base_url}/login/", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def started(log: Path, name: str) -> list[int]:
    return [int(pid) for pid in re.findall(rf"{name} started: pid (\d+)", log.read_text())]


def test_a_killed_worker_is_restarted_the_site_stays_up_and_nothing_is_orphaned(settings, tmp_path):
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    log = tmp_path / "supervise.log"
    with open(log, "wb") as out:
        supervisor = subprocess.Popen([sys.executable, "-m", "scripts.supervise", "--port", str(port)],
                                      cwd=BASE_DIR, env=server_env(settings, tmp_path / "var"), stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: serving(base_url), timeout=90, what="the site")
        [worker] = started(log, "worker")
        wait_for(lambda: len(group_members(worker)) > 1, timeout=60, what="qcluster's children")
        children_before = len(group_members(worker))

        os.kill(worker, signal.SIGKILL)  # as the OOM killer does
        killed_at = time.monotonic()
        new_worker = wait_for(lambda: (pids := started(log, "worker")) and len(pids) == 2 and pids[1], timeout=60, what="a new worker")
        restarted_after = time.monotonic() - killed_at

        # SIGKILL is delivered asynchronously: a child busy in the kernel (loading the model) dies a moment later.
        wait_for(lambda: group_members(worker) == [], timeout=20, what="the dead worker's children to be killed with it")
        assert httpx.get(f"{base_url}/login/", timeout=10).status_code == 200, "the site stayed up"
        assert started(log, "web") and len(started(log, "web")) == 1, "daphne was not restarted: it never stopped"
        wait_for(lambda: len(group_members(new_worker)) > 1, timeout=60, what="the new qcluster's children")
        print(f"\nqcluster (group of {children_before}) killed: restarted after {restarted_after:.1f} s, no orphan, site up")

        supervisor.send_signal(signal.SIGTERM)
        supervisor.wait(timeout=30)
        [web] = started(log, "web")
        wait_for(lambda: group_members(web) == [] and group_members(new_worker) == [], timeout=20,
                 what="Ctrl-C to leave nothing behind")
    finally:
        if supervisor.poll() is None:
            supervisor.kill()
        for pid in started(log, "web") + started(log, "worker"):
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
