"""`manage.py ingest`: inline, with a progress bar, indexing when it may."""

import io

import pytest
from django.core.management import CommandError, call_command

from games.models import Chunk, Game
from runtime import components
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


@pytest.mark.parametrize("engine", ["edge", "local"])
def test_command_leaves_indexing_to_the_web_process_when_it_holds_the_embedded_store(tmp_path, settings, engine):
    """Either embedded engine: one owner per folder (the web server); the command writes the
    rows and does not touch the owner's index, which stays usable."""
    from rag.store import open_store

    settings.QDRANT_EMBEDDED_ENGINE = engine
    GameFactory(name="Heat", slug="heat")
    holder = open_store(path=settings.QDRANT_PATH, engine=engine)  # the folder lock, as the web server's
    holder.ensure_collection("rules_other", 4)
    try:
        output = run(str(rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES)), "--game", "heat", "--kind", "base")
        assert holder.collections() == ["rules_other"] and holder.ping() >= 0
    finally:
        holder.close()

    assert "web process" in output
    assert Chunk.objects.filter(collection="rules_heat", indexed=False).exists()
    components.reset_vector_store()
    assert components.vector_store().count("rules_heat") == 0  # nothing written behind the owner's back


def test_command_refuses_an_unknown_game(tmp_path):
    with pytest.raises(CommandError, match="Jeu inconnu"):
        run(str(rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES)), "--game", "nope")
