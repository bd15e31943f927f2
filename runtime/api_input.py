"""How the API reads its input: ninja's parser, refusing the NUL character (U+0000) anywhere.

PostgreSQL refuses NUL in a text column (an error, a 500 or a failed save) and SQLite stores it
silently; no player or script means it. So the API refuses it once, here, before any schema
sees the input: a JSON body (at any depth: `history.0.question`, `cardMentions.2`), a form's
fields (multipart uploads) and the query string each answer 422 naming the field, whatever
operation reads them, so a new free-text field needs nothing more."""

from __future__ import annotations

from ninja.errors import ValidationError
from ninja.parser import Parser

from runtime.refusals import nul_refused

NUL = "\x00"


class UnreadableBody(ValueError):
    """A body that is not JSON. Ninja answers any error of `parse_body` with its own 400, in
    English; this one, its cause, lets oracle_site/api.py answer in the client's language."""


class NulRefusingParser(Parser):
    def parse_body(self, request):
        # Ninja wraps whatever this raises in its 400: oracle_site/api.py unwraps both refusals.
        try:
            data = super().parse_body(request)
        except Exception as exc:  # noqa: BLE001 - any error of the JSON decoder (ValueError, RecursionError…)
            raise UnreadableBody(str(exc)[:200] or exc.__class__.__name__) from exc
        refuse_nul_within(data, ["body"])
        return data

    def parse_querydict(self, data, list_fields, request):
        location = "query" if data is request.GET else "form"  # (or request.FILES: no text in it)
        for key, values in data.lists():
            texts = [value for value in values if isinstance(value, str)]
            for text in texts if key in list_fields else texts[-1:]:  # ninja reads a field's last value
                refuse_nul_within({key: text}, [location])
        return super().parse_querydict(data, list_fields, request)


def refuse_nul_within(value, loc: list) -> None:
    """Raise a ValidationError (422) at the first string holding NUL in `value`, a key of a
    dict included, however deep (a loop, not a recursion: the decoder's depth is no limit)."""
    pending = [(value, loc)]
    while pending:
        value, loc = pending.pop()
        if isinstance(value, str) and NUL in value:
            raise ValidationError([{"loc": loc, "msg": nul_refused(), "type": "string_nul"}])
        if isinstance(value, dict):
            items = [(part, [*loc, key]) for key, item in value.items() for part in (key, item)]
        elif isinstance(value, list):
            items = [(item, [*loc, index]) for index, item in enumerate(value)]
        else:
            continue
        pending.extend(reversed(items))  # in their order: the first one at fault is named
