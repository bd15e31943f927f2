"""Runs Oracle's web server (daphne) and job cluster (qcluster) and keeps them running.

`make run` used to start both from bash and stop everything when either exited: a worker
killed by the OOM killer took the site down with it, and its own children (django-q2's
sentinel, pusher, monitor and workers, one holding 2.4 GB) were left orphaned under PID 1.
Here each process runs in its own process group: when one dies, its whole group is killed
(no orphan survives it) and it is started again, after a pause that grows if it keeps dying;
the other keeps running. SIGTERM or Ctrl-C stops both groups (SIGTERM, then SIGKILL after
STOP_TIMEOUT_S).

    python -m scripts.supervise --host 127.0.0.1 --port 8000

Environment as for the processes themselves; WORKER_EMBEDDINGS_THREADS gives the worker's
embedder its thread count (EMBEDDINGS_THREADS in the worker only).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time

STOP_TIMEOUT_S = 10.0
MAX_BACKOFF_S = 30.0
STABLE_AFTER_S = 60.0  # a process that ran this long restarts at once


def log(message: str) -> None:
    print(f"[supervise] {message}", flush=True)


class Child:
    def __init__(self, name: str, command: list[str], env: dict[str, str]):
        self.name, self.command, self.env = name, command, env
        self.popen: subprocess.Popen | None = None
        self.started = 0.0
        self.backoff = 1.0
        self.restart_at = 0.0

    def start(self) -> None:
        self.popen = subprocess.Popen(self.command, env=self.env, start_new_session=True)
        self.started = time.monotonic()
        log(f"{self.name} started: pid {self.popen.pid} (process group {self.popen.pid})")

    def reap_if_dead(self) -> bool:
        """True when the process has exited: its group is killed and a restart is planned."""
        if self.popen is None or self.popen.poll() is None:
            return False
        code = self.popen.returncode
        kill_group(self.popen.pid, signal.SIGKILL)  # its children must not outlive it
        ran = time.monotonic() - self.started
        self.backoff = 1.0 if ran > STABLE_AFTER_S else min(self.backoff * 2, MAX_BACKOFF_S)
        self.restart_at = time.monotonic() + self.backoff
        log(f"{self.name} exited with {code} after {ran:.0f} s: its process group is killed, restart in {self.backoff:.0f} s")
        self.popen = None
        return True

    def due(self) -> bool:
        return self.popen is None and time.monotonic() >= self.restart_at


def kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def children(host: str, port: int) -> list[Child]:
    python = sys.executable
    worker_env = dict(os.environ)
    if os.environ.get("WORKER_EMBEDDINGS_THREADS"):
        worker_env["EMBEDDINGS_THREADS"] = os.environ["WORKER_EMBEDDINGS_THREADS"]
    return [
        Child("web", [python, "-m", "daphne", "-b", host, "-p", str(port), "oracle_site.asgi:application"], dict(os.environ)),
        Child("worker", [python, "manage.py", "qcluster"], worker_env),
    ]


def stop_all(running: list[Child]) -> None:
    live = [child for child in running if child.popen is not None]
    for child in live:
        # To the leader only: it stops its own children. A SIGTERM to the whole group kills
        # django-q's sentinel (SIG_DFL) while it sleeps on the cluster's stop event, and the
        # qcluster then waits forever in that event's set() for the dead sleeper: an idle
        # cluster was SIGKILLed after STOP_TIMEOUT_S, every time. The group is killed below.
        try:
            os.kill(child.popen.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + STOP_TIMEOUT_S
    for child in live:
        try:
            child.popen.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            log(f"{child.name} still running {STOP_TIMEOUT_S:.0f} s after SIGTERM: killed")
        kill_group(child.popen.pid, signal.SIGKILL)  # the leader and whatever it left behind


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    running = children(args.host, args.port)
    stopping = []
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda number, _frame: stopping.append(number))
    for child in running:
        child.start()
    while not stopping:
        for child in running:
            child.reap_if_dead()
            if child.due():
                child.start()
        time.sleep(0.5)
    log("stopping")
    stop_all(running)
    return 0


if __name__ == "__main__":
    sys.exit(main())
