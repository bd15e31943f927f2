"""A NUL character (U+0000) anywhere in the API's input is a 422 naming the field, before
anything is stored or streamed (runtime/api_input.py). PostgreSQL refused it with a 500 or a
failed save (after `meta`, the SQL in the stream's error); SQLite stored it silently."""

import base64
import json
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import DataError
from django.test import Client
from django.utils import timezone

from games.models import Extension, Game
from ingest import services
from oracle_site.api import api
from questions.models import ApiToken, Conversation, Question
from runtime.api_input import NulRefusingParser
from tests.factories import PASSWORD, GameFactory, QuestionFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


def refused(response, field: str) -> None:
    assert response.status_code == 422, response.content[:300]
    body = response.json()
    assert body["errors"][0]["field"] == field and field in body["detail"]
    assert "U+0000" in body["errors"][0]["message"]


@pytest.mark.parametrize("fields, field", [
    ({"question": "Combien\x00 de cartes ?"}, "question"),
    ({"question": "Combien ?", "cardMentions": ["Opt", "Op\x00t"]}, "cardMentions.1"),
    ({"question": "Combien ?", "stickyCardMentions": ["Op\x00t"]}, "stickyCardMentions.0"),
    ({"question": "Combien ?", "history": [{"question": "a", "answer": "b\x00"}]}, "history.0.answer"),
], ids=["question", "cardMentions", "stickyCardMentions", "history"])
def test_a_question_holding_nul_is_refused_before_it_streams(player, fields, field):
    game = GameFactory()
    body = json.dumps({"gameId": str(game.pk), **fields})

    response = player.post("/api/ask/stream", body, content_type="application/json")

    assert not getattr(response, "streaming", False)
    refused(response, field)
    assert not Question.objects.exists() and not Conversation.objects.exists()


def test_a_token_name_holding_nul_is_refused(bob):
    client = Client(headers={"Authorization": "Basic " + base64.b64encode(f"bob:{PASSWORD}".encode()).decode()})

    response = client.post("/api/tokens", json.dumps({"name": "my\x00script"}), content_type="application/json")

    refused(response, "name")
    assert not ApiToken.objects.exists()


def test_a_basic_login_with_a_name_longer_than_any_username_is_a_401(db):
    """django-axes logs the failure in a 255-character column: PostgreSQL refused it (a 500)."""
    for name in ("u" * 256, "u" * 5000):
        client = Client(headers={"Authorization": "Basic " + base64.b64encode(f"{name}:x".encode()).decode()})

        response = client.post("/api/tokens", json.dumps({"name": "script"}), content_type="application/json")

        assert response.status_code == 401, response.content[:200]


def test_a_feedback_comment_holding_nul_is_refused_and_the_rating_kept(player, bob):
    question = QuestionFactory(user=bob, status="done", answer="Deux.", rating=-1, feedback_comment="Vague.")

    response = player.put(f"/api/ask/{question.pk}/feedback", json.dumps({"rating": 1, "comment": "a\x00b"}),
                          content_type="application/json")

    refused(response, "comment")
    question.refresh_from_db()
    assert (question.rating, question.feedback_comment) == (-1, "Vague.")


def upload(tmp_path):
    pdf = rulebook_pdf(tmp_path / "rules.pdf", LOREM_RULES).read_bytes()
    later = (timezone.now() + timedelta(days=1)).isoformat()  # scheduled: nothing is read inline
    return {"pdf": SimpleUploadedFile("rules.pdf", pdf, "application/pdf"), "scheduled_start_at": later}


def pdfs_stored() -> list:
    return sorted(settings.PDF_DIR.rglob("*.pdf")) if settings.PDF_DIR.exists() else []


@pytest.mark.parametrize("fields, field", [
    ({"new_game_name": "He\x00at"}, "new_game_name"),
    ({"base": True, "name": "Règles\x00"}, "name"),
    ({"base": True, "kind": "extension", "name": "Plu\x00ie"}, "name"),
], ids=["new_game_name", "base_booklet_name", "expansion_name"])
def test_an_upload_with_a_name_holding_nul_is_refused_and_nothing_written(admin, tmp_path, fields, field):
    base = GameFactory(name="Heat") if fields.pop("base", False) else None
    form = {**upload(tmp_path), **fields, **({"game_id": str(base.pk)} if base else {})}

    response = admin.post("/api/games/ingest", form)

    refused(response, field)
    assert pdfs_stored() == []
    assert list(Game.objects.values_list("name", flat=True)) == (["Heat"] if base else [])
    assert not Extension.objects.exists()
    if base:
        base.refresh_from_db()
        assert not base.booklet_name and not base.pdf


def test_a_booklet_the_database_refuses_leaves_no_pdf_behind(tmp_path, monkeypatch):
    """ingest.services writes the PDF once the booklet's row is saved: a row refused (as
    PostgreSQL refused a NUL that reached it) no longer leaves an orphan file in PDF_DIR."""
    game = GameFactory(name="Heat")

    def refused_by_the_database(*args, **kwargs):
        raise DataError("A string literal cannot contain NUL (0x00) characters.")

    monkeypatch.setattr(Game, "save", refused_by_the_database)
    with pytest.raises(DataError):
        services.create_ingest(pdf_path_or_file=upload(tmp_path)["pdf"], game=game, name="Règles")
    assert pdfs_stored() == [] and not game.ingest_jobs.exists()


def test_a_query_string_holding_nul_is_refused(player):
    game = GameFactory()
    refused(player.get(f"/api/games/{game.pk}/cards/lookup", {"name": "Op\x00t"}), "name")


def test_every_input_of_the_api_goes_through_the_parser_that_refuses_nul():
    """What the parser reads (a JSON body, a form, the query string) is checked; a text read
    otherwise (a path, a header, a cookie) would not be: none of those is a string."""
    assert isinstance(api.parser, NulRefusingParser)
    for _prefix, router in api._routers:
        for path, view in router.path_operations.items():
            for operation in view.operations:
                for model in operation.models:
                    source = model.__ninja_param_source__
                    if source in ("body", "form", "query", "file"):
                        continue
                    texts = [name for name, field in model.model_fields.items() if "str" in str(field.annotation)]
                    assert not texts, f"{operation.methods} {path}: {source} {texts} bypass runtime/api_input.py"
