"""What builds an LLM backend: one frozen, hashable value (the caller builds it from its
settings, runtime/llm_config.py), so the process keeps one backend per configuration."""

from __future__ import annotations

from dataclasses import dataclass

from .claude_ssh import SSHConfig


@dataclass(frozen=True)
class LLMConfig:
    backend: str = "none"  # none | claude-ssh | claude-cli | openai
    # the models named for the tiers ("" = the backend's default for that tier)
    model_haiku: str = ""
    model_sonnet: str = ""
    model_opus: str = ""
    fallback_model: str = ""
    timeout_s: float = 180.0
    fallback_timeout_s: float = 60.0
    rate_limit_retries: int = 0
    rate_limit_backoff_s: float = 0.0
    health_timeout_s: float = 10.0
    health_cache_s: float = 30.0
    quota_time_zone: str = "UTC"
    # claude-ssh
    ssh: SSHConfig = SSHConfig(host="")
    ssh_command: str = "claude"
    # claude-cli
    cli_command: str = "claude"
    cli_workdir: str = ""
    # openai (any OpenAI-compatible server)
    openai_base_url: str = ""
    openai_model: str = ""
    openai_api_key: str = ""

    def tier_models(self, default: dict) -> dict:
        configured = {"haiku": self.model_haiku, "sonnet": self.model_sonnet, "opus": self.model_opus}
        return {tier: configured[tier] or default.get(tier, "") for tier in configured}
