"""The scaled configuration end to end, on what this machine provides of it: PostgreSQL
(127.0.0.1:5432), Redis (127.0.0.1:6379) as django-q2 broker, channel layer and cache, two
daphne web processes and two qcluster worker processes.

An ingest started through web A is followed live through web B; an ingest scheduled through
A is started by whichever cluster's scheduler fires and followed through B; a question asked
through B is answered from the rows the workers wrote; the rate limit counted by B holds on A.

Vectors: with a Qdrant server on 127.0.0.1:6333 every process uses it (QDRANT_URL). Without
one (the CI machine), each web process owns a local Qdrant folder that it builds from the
database rows (docs/architecture.md, decisions 1 and 2): that is the documented limit of local mode.
"""

import json
import os
import secrets
import socket
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import httpx
import psycopg
import pytest
from django.utils import timezone

from tests.support.daphne import BASE_DIR

from .processes import Process, redis_test_db, start_daphne, start_qcluster, wait_for

pytestmark = pytest.mark.slow
DEMO = BASE_DIR / "games" / "demo"
PG = "postgres://postgres@127.0.0.1:5432"
CSRF = "c" * 32


def reachable(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def scaled_env(tmp_path):
    """A fresh PostgreSQL database and Redis database, migrated; yields the shared environment."""
    name = f"oracle_scaled_{os.getpid()}_{secrets.token_hex(3)}"
    with psycopg.connect(f"{PG}/postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    redis_db = redis_test_db()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "oracle_site.settings",
        "DATABASE_URL": f"{PG}/{name}",
        "REDIS_URL": f"redis://127.0.0.1:6379/{redis_db}",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ORACLE_VAR_DIR": str(tmp_path / "var"),
        "MEDIA_ROOT": str(tmp_path / "media"),  # one machine: the workers read the uploads here
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "STATIC_MANIFEST": "false",
        "PYTHONPATH": str(BASE_DIR),
        "OMP_WAIT_POLICY": "PASSIVE",
        "Q_SYNC": "false",
        "RATE_LIMIT_ASK_USER": "1/m",
        "QDRANT_URL": "http://127.0.0.1:6333" if reachable(6333) else "",
    }
    import redis

    redis.Redis.from_url(env["REDIS_URL"]).flushdb()
    manage(env, "migrate", "--no-input", "-v", "0")
    try:
        yield env
    finally:
        redis.Redis.from_url(env["REDIS_URL"]).flushdb()
        with psycopg.connect(f"{PG}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def manage(env, *args) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


CREATE_ACTORS = """
import json
from django.contrib.auth import get_user_model
from django.test import Client
from questions.models import ApiToken
User = get_user_model()
alice = User.objects.create_user("alice", is_staff=True, is_superuser=True)
bob = User.objects.create_user("bob")
client = Client(); client.force_login(alice)
print(json.dumps({"session": client.cookies["sessionid"].value, "token": ApiToken.issue(bob)[1]}))
"""


def sse_events(response) -> list[tuple[str, dict]]:
    events, name = [], None
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line[7:].strip()
        elif line.startswith("data: ") and name:
            events.append((name, json.loads(line[6:])))
            if name in ("done", "error"):
                return events
    return events


def follow_job(base_url: str, headers: dict, job_id: str) -> list[tuple[str, dict]]:
    with httpx.stream("GET", f"{base_url}/api/ingest/{job_id}/events", headers=headers, timeout=httpx.Timeout(600, connect=10)) as response:
        assert response.status_code == 200
        return sse_events(response)


def upload(base_url, headers, pdf: Path, **data) -> dict:
    with open(pdf, "rb") as handle:
        response = httpx.post(f"{base_url}/api/games/ingest", headers=headers, files={"pdf": (pdf.name, handle, "application/pdf")}, data=data, timeout=60)
    assert response.status_code == 202, response.text
    return response.json()


def test_two_web_and_two_worker_processes_on_postgres_and_redis(scaled_env, tmp_path):
    actors = json.loads(manage(scaled_env, "shell", "-c", CREATE_ACTORS).strip().splitlines()[-1])
    staff = {"Cookie": f"sessionid={actors['session']}; csrftoken={CSRF}", "X-CSRFToken": CSRF}
    player = {"Authorization": f"Bearer {actors['token']}"}
    processes: list[Process] = []

    def web(label: str):
        env = {**scaled_env, "QDRANT_PATH": str(tmp_path / f"qdrant-{label}")}  # local mode: one folder per owner
        process, url = start_daphne(env, tmp_path / f"daphne-{label}.log")
        processes.append(process)
        return url

    try:
        web_a, web_b = web("a"), web("b")
        processes += [start_qcluster(scaled_env, tmp_path / f"qcluster-{n}.log") for n in (1, 2)]
        wait_for(lambda: "2 cluster" in httpx.get(f"{web_a}/api/health", headers=staff).json()["components"]["job_queue"]["detail"],
                 timeout=60, what="both clusters to report to Redis")

        base = upload(web_a, staff, DEMO / "les-aeronautes-regles.pdf", new_game_name="Les Aéronautes")
        events = follow_job(web_b, staff, base["job_id"])  # live, through the other web process

        names = [name for name, _ in events]
        assert names[-1] == "done", events[-3:]
        assert {"act"} <= set(names) and sum(1 for n, d in events if n == "act" and d.get("state") == "done") >= 4

        start_at = (timezone.now() + timedelta(seconds=3)).isoformat()
        scheduled = upload(web_a, staff, DEMO / "les-aeronautes-storm-front.pdf", game_id=base["game_id"],
                           kind="extension", name="Storm Front", scheduled_start_at=start_at)
        assert scheduled["status"] == "scheduled"
        assert follow_job(web_b, staff, scheduled["job_id"])[-1][0] == "done"  # a cluster's scheduler started it

        body = {"gameId": base["game_id"], "question": "Combien de jetons Flamme reçoit chaque joueur au début de la partie ?"}
        with httpx.stream("POST", f"{web_b}/api/ask/stream", json=body, headers=player, timeout=120) as response:
            answer = sse_events(response)
        assert answer[0][0] == "meta" and answer[-1][0] == "done", answer[-2:]
        context = next(data for name, data in answer if name == "context")
        assert any("Flamme" in chunk["text"] for chunk in context["chunks"])
        polled = httpx.get(f"{web_a}/api/ask/{answer[0][1]['questionId']}", headers=player)
        assert polled.status_code == 200 and polled.json()["status"] == "done"

        limited = httpx.post(f"{web_a}/api/ask/stream", json=body, headers=player, timeout=30)
        assert limited.status_code == 429 and int(limited.headers["Retry-After"]) > 0  # counted by B, in Redis
    finally:
        for process in processes:
            process.stop()
