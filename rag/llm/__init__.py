from .base import (  # noqa: F401
    ClaudeQuotaError,
    HealthReport,
    LLMBackend,
    LLMConfigError,
    LLMError,
    LLMTimeout,
    LLMUnavailable,
    NoLLM,
)
