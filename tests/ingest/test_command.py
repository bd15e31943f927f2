"""`manage.py ingest`: inline, with a progress bar, indexing when it may."""

import io

import pytest
from django.core.management import CommandError, call_command

from games.models import Chunk, Game
from oracle_site import components
from tests.factories import GameFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("ingest", *args, stdout=out, stderr=err)
    return out.getvalue()


def test_command_ingests_a_new_game_and_indexes_it(tmp_path, capsys):
    output = run(str(rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES)), "--new-game-name", "Heat")

    game = Game.objects.get(slug="heat")
    assert Chunk.objects.filter(game=game).count() >= 2
    assert "Indexed" in output and "rules_heat" in output
    bar = capsys.readouterr().out
    assert "Compréhension" in bar and "###" in bar
    assert components.vector_store().count("rules_heat") == Chunk.objects.filter(game=game).count()


def test_command_leaves_indexing_to_the_web_process_when_it_holds_the_local_store(tmp_path, settings):
    from rag.store import open_store

    GameFactory(name="Heat", slug="heat")
    holder = open_store(path=settings.QDRANT_PATH)  # another process's lock, as the web server's
    try:
        output = run(str(rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES)), "--game", "heat", "--kind", "base")
    finally:
        holder.close()

    assert "web process" in output
    assert Chunk.objects.filter(collection="rules_heat", indexed=False).exists()


def test_command_refuses_an_unknown_game(tmp_path):
    with pytest.raises(CommandError, match="Jeu inconnu"):
        run(str(rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES)), "--game", "nope")
