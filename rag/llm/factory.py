"""The configured backend, built once per configuration (`LLMConfig`, hashable): the SSH backend keeps its connection
(and its cap on concurrent commands) for the life of the process."""

from __future__ import annotations

import threading
from pathlib import Path

from .base import NoLLM
from .claude_code import DEFAULT_TIER_MODELS, ClaudeCommandConfig
from .config import LLMConfig
from .fallback import WithFallback

_built: dict[LLMConfig, object] = {}
_lock = threading.Lock()


def backend_for(config: LLMConfig):
    """The backend `config.backend` names, wrapped with default timeout and fall-back; one per
    configuration for the life of the process."""
    with _lock:
        if config not in _built:
            _built[config] = _build(config)
        return _built[config]


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


def _build(config: LLMConfig):
    kind = config.backend
    if kind == "none":
        return NoLLM()
    if kind == "claude-ssh":
        backend = _claude_ssh(config)
    elif kind == "claude-cli":
        backend = _claude_cli(config)
    elif kind == "openai":
        backend = _openai(config)
    else:
        raise ValueError(f"unknown LLM_BACKEND {kind!r}")
    return WithFallback(
        backend,
        fallback_model=config.fallback_model,
        timeout_s=config.timeout_s,
        fallback_timeout_s=config.fallback_timeout_s,
    )


def _command_config(config: LLMConfig, executable: str) -> ClaudeCommandConfig:
    return ClaudeCommandConfig(
        executable=executable,
        tier_models=config.tier_models(DEFAULT_TIER_MODELS),
        timeout_s=config.timeout_s,
        quota_time_zone=config.quota_time_zone,
        rate_limit_retries=config.rate_limit_retries,
        rate_limit_backoff_s=config.rate_limit_backoff_s,
        health_timeout_s=config.health_timeout_s,
        health_cache_s=config.health_cache_s,
    )


def _claude_ssh(config: LLMConfig):
    from .claude_ssh import ClaudeSSHBackend

    return ClaudeSSHBackend(_command_config(config, config.ssh_command), config.ssh)


def _claude_cli(config: LLMConfig):
    from .claude_cli import ClaudeCLIBackend

    return ClaudeCLIBackend(_command_config(config, config.cli_command), workdir=Path(config.cli_workdir))


def _openai(config: LLMConfig):
    from .openai import OpenAIBackend, OpenAIConfig

    return OpenAIBackend(OpenAIConfig(
        base_url=config.openai_base_url,
        model=config.openai_model,
        api_key=config.openai_api_key,
        tier_models={k: v for k, v in config.tier_models({}).items() if v},
        timeout_s=config.timeout_s,
        rate_limit_retries=config.rate_limit_retries,
        rate_limit_backoff_s=config.rate_limit_backoff_s,
    ))
