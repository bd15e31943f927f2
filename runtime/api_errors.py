"""The one shape of every 4xx the API answers, and the access rules its routers share.

    {"detail": "<a sentence a person reads>", "errors": [{"field": "language", "message": "…"}]}

`errors` is empty when the refusal is not about a field; `field` is the dotted path of the
input without its location (`body`, `query`, `form`…) or the parameter's name (`payload`).
Routers raise `Http404`, `HttpError`, `PermissionDenied` or ninja's `ValidationError`; the
handlers of `oracle_site/api.py` build the body with `error_body`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.utils.translation import gettext as _
from ninja import Field, Schema
from ninja.pagination import LimitOffsetPagination
from ninja.errors import ValidationError

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
