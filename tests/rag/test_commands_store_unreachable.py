"""A Qdrant server that is down (QDRANT_URL): the commands say so in one line, through the
project's VectorStoreError, instead of qdrant-client's « Connection refused » traceback."""

import socket
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from qdrant_client import QdrantClient

from games.models import Chunk
from rag.client_store import ClientVectorStore, open_client_store
from rag.store_base import VectorStoreError
from runtime import components
from tests.factories import GameFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf


@pytest.fixture
def down() -> str:
    """The URL of a port nobody listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_opening_a_server_that_is_down_is_a_vector_store_error(down):
    with pytest.raises(VectorStoreError, match=rf"^Qdrant server {down} is unreachable: .*Connection refused"):
        open_client_store(url=down, timeout=2)


def test_a_server_that_goes_down_after_the_opening_is_a_vector_store_error_too(down):
    store = ClientVectorStore(QdrantClient(url=down, timeout=2), f"server {down}")

    for call in (store.collections, lambda: store.count("rules_heat"), lambda: list(store.scroll("rules_heat"))):
        with pytest.raises(VectorStoreError, match="is unreachable"):
            call()


@pytest.mark.django_db
def test_reindex_says_the_server_is_unreachable_in_one_line(settings, down):
    settings.QDRANT_URL = down
    components.reset_vector_store()

    with pytest.raises(CommandError) as failed:
        call_command("reindex", stdout=StringIO())

    assert str(failed.value).startswith(f"Qdrant server {down} is unreachable: ") and "\n" not in str(failed.value)
    assert "Stop the web server" not in str(failed.value)  # that is the embedded store's advice


@pytest.mark.django_db
def test_import_decklists_keeps_the_lists_and_says_the_index_was_not_written(settings, down, tmp_path):
    settings.QDRANT_URL = down
    components.reset_vector_store()
    GameFactory(name="Magic", slug="magic", card_game="magic")
    deck = tmp_path / "deck.txt"
    deck.write_text("// format: modern\n4 Lightning Bolt\n", encoding="utf-8")
    out = StringIO()

    call_command("import_decklists", "magic", str(deck), stdout=out, stderr=StringIO())

    assert f"Qdrant server {down} is unreachable" in out.getvalue().splitlines()[-1]


@pytest.mark.django_db
def test_ingest_keeps_the_rules_and_says_the_server_did_not_answer(settings, down, tmp_path):
    settings.QDRANT_URL = down
    components.reset_vector_store()
    out = StringIO()

    pdf = rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES)
    call_command("ingest", str(pdf), "--new-game-name", "Heat", stdout=out, stderr=StringIO())

    said = "The Qdrant server is unreachable: the web process indexes these chunks once it answers."
    assert out.getvalue().splitlines()[-1] == said
    assert Chunk.objects.filter(collection="rules_heat", indexed=False).exists()
