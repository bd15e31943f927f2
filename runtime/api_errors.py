"""The one shape of every 4xx the API answers, and the access rules its routers share.

    {"detail": "<a sentence a person reads>", "errors": [{"field": "language", "message": "…"}]}

`errors` is empty when the refusal is not about a field; `field` is the dotted path of the
input without its location (`body`, `query`, `form`…) or the parameter's name (`payload`).
Routers and services raise a refusal of runtime/refusals.py (or `Http404`, `PermissionDenied`,
ninja's `ValidationError`); REFUSAL_STATUS below is the one table from a refusal to the status
the API and the pages answer; the handlers of `oracle_site/api.py` build the body here."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

from django.http import HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from ninja import Field, Schema
from ninja.pagination import LimitOffsetPagination
from ninja.errors import ValidationError

from runtime.refusals import Invalid, NotFound, NotReady, NotYours, Refused, SignInRequired, TooManyRequests

LOCATIONS = {"body", "query", "path", "form", "file", "header", "cookie"}
PARAMETER_NAMES = {"payload", "data", "filters", "pagination", "params"}


class FieldError(Schema):
    field: str
    message: str


class ErrorOut(Schema):
    model_config = {"json_schema_extra": {"examples": [
        {"detail": "Requête invalide : « language » : String should match pattern '^[a-z]{2,3}(-[A-Za-z0-9]{2,4})?$'",
         "errors": [{"field": "language", "message": "String should match pattern '^[a-z]{2,3}(-[A-Za-z0-9]{2,4})?$'"}]},
        {"detail": "Introuvable.", "errors": []},
    ]}}

    detail: str
    errors: list[FieldError] = []


# The refusals an operation declares in the OpenAPI schema (every one answers in ErrorOut's shape).
READ_ERRORS = {401: ErrorOut, 404: ErrorOut, 422: ErrorOut}
STAFF_ERRORS = {400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut}


def error_body(detail: str, errors: list[dict] | None = None) -> dict:
    return {"detail": str(detail), "errors": errors or []}


def field_path(loc) -> str:
    """`["body", "payload", "history", 0, "text"]` → `history.0.text`."""
    parts = [str(part) for part in loc]
    while parts and (parts[0] in LOCATIONS or parts[0] in PARAMETER_NAMES):
        parts = parts[1:]
    return ".".join(parts)


def field_errors(errors: list[dict]) -> list[dict]:
    """Ninja's (pydantic's) errors as `{field, message}`."""
    return [{"field": field_path(error.get("loc", ())), "message": str(error.get("msg", ""))} for error in errors]


def validation_body(errors: list[dict]) -> dict:
    found = field_errors(errors)
    first = found[0] if found else None
    if first and first["field"]:
        detail = _("Requête invalide : « %(field)s » : %(message)s") % first
    else:
        detail = _("Requête invalide.")
    return error_body(detail, found)


def invalid_field(field: str, message: str) -> ValidationError:
    """A ValidationError naming one field (422), for checks made after parsing."""
    return ValidationError([{"loc": ["body", field], "msg": message, "type": "value_error"}])


class MappedPage(Sequence):
    """A queryset as ninja's `LimitOffsetPagination` pages it, each row turned into its output
    by `out` only for the page asked: `count()` for the total, one slice for the rows."""

    def __init__(self, queryset, out: Callable):
        self.queryset, self.out = queryset, out

    def __len__(self) -> int:
        return self.queryset.count()

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self.out(row) for row in self.queryset[index]]
        return self.out(self.queryset[index])


class Pagination(LimitOffsetPagination):
    """`?limit=&offset=` → `{"items": […], "count": total}`: 20 rows by default, 100 at most,
    and an offset a database can take (SQLite refuses integers past 2^63)."""

    class Input(Schema):
        limit: int = Field(20, ge=1, le=100, description="Rows per page (at most 100).")
        offset: int = Field(0, ge=0, le=10**9, description="Rows to skip.")


# The one table from a refusal (runtime/refusals.py) to HTTP: the status the API answers (in
# ErrorOut's shape) and the one the pages answer (the message as text, shown by the chat's
# script). The first class an exception is an instance of wins.
REFUSAL_STATUS: dict[type[Refused], tuple[int, int]] = {
    Invalid: (422, 400),
    SignInRequired: (401, 403),
    NotYours: (403, 403),
    NotFound: (404, 404),
    NotReady: (409, 409),
    TooManyRequests: (429, 429),
    Refused: (400, 400),
}


def refusal_status(exc: Refused, *, api: bool) -> int:
    for kind, (api_status, page_status) in REFUSAL_STATUS.items():
        if isinstance(exc, kind):
            return api_status if api else page_status
    return 400


def refusal_body(exc: Refused) -> dict:
    """The API's body for a refusal: an invalid field is named as a validation error is."""
    if isinstance(exc, Invalid):
        return validation_body([{"loc": ["body", exc.field], "msg": exc.message}])
    return error_body(exc.message)


def with_retry_after(response, exc: Refused):
    wait = getattr(exc, "wait", None)
    if wait is not None:
        response["Retry-After"] = str(math.ceil(wait))
    return response


def api_refusal(exc: Refused) -> JsonResponse:
    """A refusal as the API answers it (the handler of oracle_site/api.py, and the ask stream)."""
    return with_retry_after(JsonResponse(refusal_body(exc), status=refusal_status(exc, api=True)), exc)


def page_refusal(exc: Refused) -> HttpResponse:
    """A refusal as the pages answer it: the message as plain text (htmx hands it to the page)."""
    response = HttpResponse(exc.message, status=refusal_status(exc, api=False), content_type="text/plain; charset=utf-8")
    return with_retry_after(response, exc)


def refusals_as_pages(view):
    """A view decorator: a `Refused` raised by the view (or a service it calls) becomes the
    page's answer from REFUSAL_STATUS."""

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except Refused as exc:
            return page_refusal(exc)

    return wrapped
