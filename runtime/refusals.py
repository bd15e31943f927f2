"""Why a request is refused, said by the code that knows (a service, a check), without an
HTTP status: `runtime/api_errors.py` holds the one table from these to the status the API
and the pages answer, so a service never chooses a status code."""

from __future__ import annotations

from django.utils.translation import gettext as _

from runtime.ratelimit import too_many_requests_message


def first_line(exc: BaseException) -> str:
    """An error as the one line a person reads (httpx's add a « For more information » line)."""
    return (str(exc).strip().splitlines() or [repr(exc)])[0]


class Refused(Exception):
    """A request the application refuses; `message` is a sentence a person reads."""

    default_message = ""

    def __init__(self, message: str = ""):
        self.message = str(message or self.default_message)
        super().__init__(self.message)


def nul_refused() -> str:
    """Why a text holding NUL is refused (PostgreSQL's text columns refuse it: a 500), the same
    words for the API's input (runtime/api_input.py) and the chat's forms (questions.services)."""
    return _("le caractère nul (U+0000) n'est pas admis")


class Invalid(Refused):
    """Input that cannot be used; `field` names it (the API's field path: `question`,
    `extensions`, `conversationId`…)."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


class NotFound(Refused):
    """Unknown, or not the caller's to see: the same answer, never a hint that it exists."""

    def __init__(self, message: str = ""):
        super().__init__(message or _("Introuvable."))


class SignInRequired(Refused):
    """Nobody is signed in where the site asks for a signed-in user."""

    def __init__(self, message: str = ""):
        super().__init__(message or _("Identifiez-vous : session ou jeton d'API."))


class NotYours(Refused):
    """The caller sees it but may not act on it (staff reading a player's answer)."""


class NotReady(Refused):
    """Not in the state the action needs yet (feedback on an answer still being written)."""


class TooManyRequests(Refused):
    """A rate limit is exceeded; `wait` is the seconds to wait when known."""

    def __init__(self, wait: float | None):
        self.wait = wait
        super().__init__(too_many_requests_message(wait))
