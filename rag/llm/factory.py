"""The configured backend, built once per configuration: the SSH backend keeps its connection
(and its cap on concurrent commands) for the life of the process."""

from __future__ import annotations

import threading
from pathlib import Path

from .base import NoLLM
from .claude_code import DEFAULT_TIER_MODELS, ClaudeCommandConfig
from .fallback import WithFallback

_built: dict[tuple, object] = {}
_lock = threading.Lock()

_SETTING_NAMES = (
    "LLM_BACKEND", "LLM_MODEL_HAIKU", "LLM_MODEL_SONNET", "LLM_MODEL_OPUS", "LLM_FALLBACK_MODEL",
    "LLM_TIMEOUT_S", "LLM_FALLBACK_TIMEOUT_S", "LLM_RATE_LIMIT_RETRIES", "LLM_RATE_LIMIT_BACKOFF_S",
    "LLM_HEALTH_TIMEOUT_S", "LLM_HEALTH_CACHE_S", "QUOTA_TIME_ZONE",
    "CLAUDE_SSH_HOST", "CLAUDE_SSH_PORT", "CLAUDE_SSH_USER", "CLAUDE_SSH_KEY_PATH", "CLAUDE_SSH_KNOWN_HOSTS",
    "CLAUDE_SSH_ACCEPT_UNKNOWN_HOST", "CLAUDE_SSH_COMMAND", "CLAUDE_SSH_MAX_CONCURRENT",
    "CLAUDE_SSH_CONNECT_TIMEOUT_S", "VISION_SSH_IMAGES_PATH", "VISION_SSH_IMAGES_SHARED", "PAGE_IMAGES_DIR",
    "CLAUDE_CLI_COMMAND", "CLAUDE_CLI_WORKDIR", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL",
)


def backend_from_settings(settings):
    """The backend `settings.LLM_BACKEND` names, wrapped with default timeout and fall-back."""
    key = tuple(str(getattr(settings, name, "")) for name in _SETTING_NAMES)
    with _lock:
        if key not in _built:
            _built[key] = _build(settings)
        return _built[key]


def forget_backends() -> None:
    """Close and drop every built backend (tests, configuration reloads)."""
    with _lock:
        for backend in _built.values():
            inner = getattr(backend, "backend", backend)
            if hasattr(inner, "connection"):
                inner.connection.close()
            elif hasattr(inner, "close"):
                inner.close()
        _built.clear()


def _build(settings):
    kind = settings.LLM_BACKEND
    if kind == "none":
        return NoLLM()
    if kind == "claude-ssh":
        backend = _claude_ssh(settings)
    elif kind == "claude-cli":
        backend = _claude_cli(settings)
    elif kind == "openai":
        backend = _openai(settings)
    else:
        raise ValueError(f"unknown LLM_BACKEND {kind!r}")
    return WithFallback(
        backend,
        fallback_model=settings.LLM_FALLBACK_MODEL,
        timeout_s=settings.LLM_TIMEOUT_S,
        fallback_timeout_s=settings.LLM_FALLBACK_TIMEOUT_S,
    )


def _tier_models(settings, default: dict) -> dict:
    configured = {"haiku": settings.LLM_MODEL_HAIKU, "sonnet": settings.LLM_MODEL_SONNET, "opus": settings.LLM_MODEL_OPUS}
    return {tier: configured[tier] or default.get(tier, "") for tier in configured}


def _command_config(settings, executable: str) -> ClaudeCommandConfig:
    return ClaudeCommandConfig(
        executable=executable,
        tier_models=_tier_models(settings, DEFAULT_TIER_MODELS),
        timeout_s=settings.LLM_TIMEOUT_S,
        quota_time_zone=settings.QUOTA_TIME_ZONE,
        rate_limit_retries=settings.LLM_RATE_LIMIT_RETRIES,
        rate_limit_backoff_s=settings.LLM_RATE_LIMIT_BACKOFF_S,
        health_timeout_s=settings.LLM_HEALTH_TIMEOUT_S,
        health_cache_s=settings.LLM_HEALTH_CACHE_S,
    )


def _claude_ssh(settings):
    from .claude_ssh import ClaudeSSHBackend, SSHConfig

    ssh = SSHConfig(
        host=settings.CLAUDE_SSH_HOST,
        port=settings.CLAUDE_SSH_PORT,
        user=settings.CLAUDE_SSH_USER,
        key_path=settings.CLAUDE_SSH_KEY_PATH,
        known_hosts_path=settings.CLAUDE_SSH_KNOWN_HOSTS,
        accept_unknown_host=settings.CLAUDE_SSH_ACCEPT_UNKNOWN_HOST,
        connect_timeout_s=settings.CLAUDE_SSH_CONNECT_TIMEOUT_S,
        max_concurrent=settings.CLAUDE_SSH_MAX_CONCURRENT,
        images_path=settings.VISION_SSH_IMAGES_PATH,
        images_shared=settings.VISION_SSH_IMAGES_SHARED,
        local_images_root=str(settings.PAGE_IMAGES_DIR),
    )
    return ClaudeSSHBackend(_command_config(settings, settings.CLAUDE_SSH_COMMAND), ssh)


def _claude_cli(settings):
    from .claude_cli import ClaudeCLIBackend

    return ClaudeCLIBackend(_command_config(settings, settings.CLAUDE_CLI_COMMAND), workdir=Path(settings.CLAUDE_CLI_WORKDIR))


def _openai(settings):
    from .openai import OpenAIBackend, OpenAIConfig

    return OpenAIBackend(OpenAIConfig(
        base_url=settings.OPENAI_BASE_URL,
        model=settings.OPENAI_MODEL,
        api_key=settings.OPENAI_API_KEY,
        tier_models={k: v for k, v in _tier_models(settings, {}).items() if v},
        timeout_s=settings.LLM_TIMEOUT_S,
    ))
