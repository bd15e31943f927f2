"""What a reader is told when the LLM fails, in the reader's language ("fr", the default, or
"en"): one sentence by kind of failure, the same for a rules answer and a deck answer. Never
the error's own text (English, a CLI's stack trace, an address): the caller logs that, and
/api/health shows staff the backend's last configuration error. `rag` stays free of Django:
the caller passes the language and the quota's resume time, already in the site's time zone."""

from __future__ import annotations

from rag import language
from rag.llm.base import ClaudeQuotaError, LLMConfigError, LLMNotSignedIn, LLMTimeout, LLMUnreachable

SENTENCES = {
    "quota": {
        "fr": "Le quota du modèle de langage est atteint (reprise vers {reset}).",
        "en": "The language model's quota is reached (back around {reset}).",
    },
    "timeout": {"fr": "Le modèle de langage n'a pas répondu à temps.", "en": "The language model did not answer in time."},
    "not_signed_in": {
        "fr": "Le modèle de langage n'est plus connecté à son compte : un administrateur doit s'y reconnecter.",
        "en": "The language model is no longer signed in to its account: an administrator must sign it in again.",
    },
    "config": {
        "fr": "Le modèle de langage est mal configuré : un administrateur doit vérifier ses réglages.",
        "en": "The language model is misconfigured: an administrator must check its settings.",
    },
    "unreachable": {
        "fr": "Le service du modèle de langage est injoignable pour le moment.",
        "en": "The language model's service cannot be reached at the moment.",
    },
    "failed": {"fr": "Le modèle de langage n'a pas pu répondre.", "en": "The language model could not answer."},
    "empty": {"fr": "Le modèle de langage a rendu une réponse vide.", "en": "The language model returned an empty answer."},
}

# the most specific first: LLMNotSignedIn is an LLMConfigError
KINDS = ((LLMTimeout, "timeout"), (LLMNotSignedIn, "not_signed_in"), (LLMConfigError, "config"), (LLMUnreachable, "unreachable"))


def reader(lang: str | None) -> str:
    """"en" for an English reader ("en", "en-GB"…), "fr" otherwise (the site's first language)."""
    return "en" if language.normalise(lang) == language.ENGLISH else "fr"


def sentence(key: str, lang: str | None = "fr", **params) -> str:
    return SENTENCES[key][reader(lang)].format(**params)


def failure(error: Exception, lang: str | None = "fr", *, reset: str = "?") -> str:
    """The sentence for `error`; `reset`: a quota's resume time (« 14:05 »), formatted by the
    caller in the site's time zone."""
    if isinstance(error, ClaudeQuotaError):
        return sentence("quota", lang, reset=reset)
    kind = next((kind for cls, kind in KINDS if isinstance(error, cls)), "failed")
    return sentence(kind, lang)
