"""The backend the settings choose, and what `/api/health` says about it."""

import pytest

from rag.llm import NoLLM
from rag.llm.claude_cli import ClaudeCLIBackend
from rag.llm.claude_ssh import ClaudeSSHBackend
from rag.llm.factory import forget_backends
from rag.llm.openai import OpenAIBackend
from runtime import components


@pytest.fixture(autouse=True)
def fresh_backends():
    forget_backends()
    yield
    forget_backends()


def test_none_gives_the_offline_paths(settings):
    settings.LLM_BACKEND = "none"
    backend = components.llm_backend()
    assert isinstance(backend, NoLLM) and backend.available is False


def test_openai_backend_is_built_with_tier_models_and_reused(settings):
    settings.LLM_BACKEND = "openai"
    settings.OPENAI_BASE_URL = "http://127.0.0.1:11434/v1"
    settings.OPENAI_MODEL = "gemma3:4b"
    settings.LLM_MODEL_OPUS = "qwen3:32b"

    backend = components.llm_backend()

    assert isinstance(backend.backend, OpenAIBackend)
    assert backend.resolve_model("opus") == "qwen3:32b"
    assert backend.resolve_model("haiku") == "gemma3:4b"
    assert components.llm_backend() is backend


def test_claude_cli_backend_uses_the_cli_aliases_by_default(settings, tmp_path):
    settings.LLM_BACKEND = "claude-cli"
    settings.CLAUDE_CLI_WORKDIR = tmp_path / "work"
    settings.LLM_MODEL_SONNET = "claude-sonnet-4-5"
    backend = components.llm_backend()
    assert isinstance(backend.backend, ClaudeCLIBackend)
    assert backend.resolve_model("haiku") == "haiku"
    assert backend.resolve_model("sonnet") == "claude-sonnet-4-5"
    assert backend.resolve_model("claude-opus-4-1") == "claude-opus-4-1"


def test_claude_ssh_settings_reach_the_connection(settings):
    settings.LLM_BACKEND = "claude-ssh"
    settings.CLAUDE_SSH_HOST = "claude-vm.lan"
    settings.CLAUDE_SSH_MAX_CONCURRENT = 4
    settings.QUOTA_TIME_ZONE = "America/Bogota"
    backend = components.llm_backend()
    assert isinstance(backend.backend, ClaudeSSHBackend)
    assert backend.backend.ssh.host == "claude-vm.lan" and backend.backend.ssh.user == "oracle"
    assert backend.backend.connection.slots._value == 4
    assert backend.backend.config.quota_time_zone == "America/Bogota"


def use_test_sshd(settings, server, tmp_path):
    settings.LLM_BACKEND = "claude-ssh"
    settings.CLAUDE_SSH_HOST = server.host
    settings.CLAUDE_SSH_PORT = server.port
    settings.CLAUDE_SSH_USER = server.user
    settings.CLAUDE_SSH_KEY_PATH = str(server.key_path)
    settings.CLAUDE_SSH_KNOWN_HOSTS = str(server.known_hosts_path)
    settings.VISION_SSH_IMAGES_PATH = str(tmp_path / "vm-images")


@pytest.mark.slow
@pytest.mark.django_db
def test_health_shows_the_ssh_backend_answering(client, alice, settings, sshd_servers, messages_api, tmp_path):
    use_test_sshd(settings, sshd_servers("api_key"), tmp_path)
    client.force_login(alice)  # the details are for staff

    llm = client.get("/api/health").json()["components"]["llm"]

    assert llm["status"] == "ok"
    assert llm["backend"] == "claude-ssh"
    assert f"@{settings.CLAUDE_SSH_HOST}" in llm["detail"]


@pytest.mark.slow
@pytest.mark.django_db
def test_health_says_plainly_when_the_vm_is_not_logged_in(client, alice, settings, sshd_servers, messages_api, tmp_path):
    use_test_sshd(settings, sshd_servers("none"), tmp_path)
    client.force_login(alice)  # the details are for staff

    response = client.get("/api/health")

    llm = response.json()["components"]["llm"]
    assert response.status_code == 503
    assert llm["status"] == "down"
    assert "not logged in: run `claude /login`" in llm["detail"]
