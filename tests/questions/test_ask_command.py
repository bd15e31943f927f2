"""`manage.py ask` streams an answer to the terminal."""

import pytest
from django.core.management import CommandError, call_command

from tests.factories import ExtensionFactory, GameFactory
from tests.rag.corpus import create_chunk_rows

pytestmark = pytest.mark.django_db


def test_ask_prints_the_cited_answer(capsys):
    game = GameFactory(name="Course Folle", slug="course-folle")
    create_chunk_rows(game, ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain"))
    call_command("ask", "Quels pneus peut-on choisir avant la course ?", "--game", "course-folle", "--ext", "heavy-rain")
    out, err = capsys.readouterr()
    assert '[Heavy Rain, p.2 : "' in out
    assert "L'Oracle plonge dans le grimoire" in err


def test_ask_names_an_unknown_booklet():
    GameFactory(slug="course-folle")
    with pytest.raises(CommandError, match="nope"):
        call_command("ask", "Question ?", "--game", "course-folle", "--ext", "nope")
