from .base import (  # noqa: F401
    AnswerStopped,
    ClaudeQuotaError,
    HealthReport,
    LLMBackend,
    LLMConfigError,
    LLMError,
    LLMNotSignedIn,
    LLMTimeout,
    LLMUnavailable,
    LLMUnreachable,
    NoLLM,
)
