"""`manage.py ask` while the web server owns the embedded index: refused with a message, and
no failed question stored (docs/asking.md, « Terminal »)."""

import pytest
from django.core.management import CommandError, call_command

from questions.models import Question
from rag.store import open_store
from runtime import components
from tests.factories import ExtensionFactory, GameFactory
from tests.rag.corpus import create_chunk_rows

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("engine", ["edge", "local"])
def test_ask_is_refused_while_another_process_holds_the_embedded_index(settings, engine, capsys):
    settings.QDRANT_EMBEDDED_ENGINE = engine
    game = GameFactory(name="Course Folle", slug="course-folle")
    create_chunk_rows(game, ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain"))
    holder = open_store(path=settings.QDRANT_PATH, engine=engine)  # the folder lock, as the web server's
    try:
        with pytest.raises(CommandError) as refused:
            call_command("ask", "Quels pneus peut-on choisir ?", "--game", "course-folle")
        assert holder.ping() >= 0  # the owner's index is untouched
    finally:
        holder.close()

    message = str(refused.value)
    assert "in use by another process" in message and "\n" not in message
    assert message.endswith(". Ask through the site, or stop the web server (it owns the embedded index)")
    assert not Question.objects.exists()
    assert "Traceback" not in capsys.readouterr().err


def test_ask_is_refused_when_the_qdrant_server_does_not_answer(settings):
    settings.QDRANT_URL = "http://127.0.0.1:9"  # the discard port: nobody answers
    components.reset_vector_store()
    GameFactory(name="Course Folle", slug="course-folle")

    with pytest.raises(CommandError, match=r"^Qdrant server http://127.0.0.1:9 is unreachable: .*Connection refused$"):
        call_command("ask", "Quels pneus peut-on choisir ?", "--game", "course-folle")

    assert not Question.objects.exists()
