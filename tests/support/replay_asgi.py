"""ASGI entry point for `live_daphne` tests that need an LLM: Oracle with its LLM backend
replaced by the recorded-answer double (tests/support/replay_llm.py)."""

from runtime import components
from tests.support.replay_llm import ReplayLLM

_llm = ReplayLLM.from_env()
components.llm_backend = lambda: _llm

from oracle_site.asgi import application  # noqa: E402,F401
