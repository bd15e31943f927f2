"""The LLM backend's configuration, read from Django settings into one hashable value
(rag.llm.config.LLMConfig): the backends are cached by it (rag.llm.factory)."""

from __future__ import annotations

from rag.llm.claude_ssh import SSHConfig
from rag.llm.config import LLMConfig


def llm_config(settings) -> LLMConfig:
    return LLMConfig(
        backend=settings.LLM_BACKEND,
        model_haiku=settings.LLM_MODEL_HAIKU,
        model_sonnet=settings.LLM_MODEL_SONNET,
        model_opus=settings.LLM_MODEL_OPUS,
        fallback_model=settings.LLM_FALLBACK_MODEL,
        timeout_s=settings.LLM_TIMEOUT_S,
        fallback_timeout_s=settings.LLM_FALLBACK_TIMEOUT_S,
        rate_limit_retries=settings.LLM_RATE_LIMIT_RETRIES,
        rate_limit_backoff_s=settings.LLM_RATE_LIMIT_BACKOFF_S,
        health_timeout_s=settings.LLM_HEALTH_TIMEOUT_S,
        health_cache_s=settings.LLM_HEALTH_CACHE_S,
        quota_time_zone=settings.QUOTA_TIME_ZONE,
        ssh=_ssh_config(settings),
        ssh_command=settings.CLAUDE_SSH_COMMAND,
        cli_command=settings.CLAUDE_CLI_COMMAND,
        cli_workdir=str(settings.CLAUDE_CLI_WORKDIR),
        openai_base_url=settings.OPENAI_BASE_URL,
        openai_model=settings.OPENAI_MODEL,
        openai_api_key=settings.OPENAI_API_KEY,
    )


def _ssh_config(settings) -> SSHConfig:
    return SSHConfig(
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
