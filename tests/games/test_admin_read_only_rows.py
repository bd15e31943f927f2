"""Chunks and cards are what ingestion and the card import wrote, index states what the
index owner syncs by: the admin shows them and changes none (a chunk deleted there was still
quoted in answers). The chunk page shows no vector."""

import pytest

from games.index_state import mark_changed
from games.models import Card, Chunk, Game, IndexState
from tests.factories import ChunkFactory, GameFactory

pytestmark = pytest.mark.django_db


def delete_selected(client, model: str, row) -> None:
    client.post(f"/admin/games/{model}/", {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"})


def test_a_chunk_is_neither_deleted_nor_edited_in_the_admin(client, alice):
    chunk = ChunkFactory(text="On pioche deux cartes.")
    client.force_login(alice)

    delete_selected(client, "chunk", chunk)
    deleted = client.post(f"/admin/games/chunk/{chunk.pk}/delete/", {"post": "yes"})
    edited = client.post(f"/admin/games/chunk/{chunk.pk}/change/", {"text": "On pioche trois cartes."})

    assert (deleted.status_code, edited.status_code) == (403, 403)
    assert Chunk.objects.get(pk=chunk.pk).text == "On pioche deux cartes."


def test_a_card_is_neither_deleted_nor_edited_in_the_admin(client, alice):
    card = Card.objects.create(game=GameFactory(name="Magic"), key="bolt", name="Lightning Bolt", search_name="lightning bolt")
    client.force_login(alice)

    delete_selected(client, "card", card)
    deleted = client.post(f"/admin/games/card/{card.pk}/delete/", {"post": "yes"})
    edited = client.post(f"/admin/games/card/{card.pk}/change/", {"name": "Shock"})

    assert (deleted.status_code, edited.status_code) == (403, 403)
    assert Card.objects.get(pk=card.pk).name == "Lightning Bolt"


def test_the_chunk_page_shows_its_text_and_no_vector(client, alice):
    chunk = ChunkFactory(sparse={"indices": [7], "values": [0.5]})
    chunk.dense_vector = [0.25, 0.5]
    chunk.save()
    client.force_login(alice)

    page = client.get(f"/admin/games/chunk/{chunk.pk}/change/").content.decode()

    assert "field-text" in page
    assert "field-dense" not in page and "field-sparse" not in page


def test_index_states_are_shown_and_never_changed_in_the_admin(client, alice):
    mark_changed("rules_heat")
    client.force_login(alice)

    listed = client.get("/admin/games/indexstate/")
    refused = [client.get("/admin/games/indexstate/add/"),
               client.post("/admin/games/indexstate/rules_heat/change/", {"collection": "rules_heat", "version": "9"}),
               client.post("/admin/games/indexstate/rules_heat/delete/", {"post": "yes"})]

    assert listed.status_code == 200 and "rules_heat" in listed.content.decode()
    assert [response.status_code for response in refused] == [403, 403, 403]
    assert IndexState.objects.get().version == 1


def test_a_game_deleted_in_the_admin_takes_its_chunks_and_cards_along(client, alice):
    heat, azul = GameFactory(name="Heat", slug="heat"), GameFactory(name="Azul", slug="azul")
    for game in (heat, azul):
        ChunkFactory(game=game)
        Card.objects.create(game=game, key="bolt", name="Lightning Bolt", search_name="lightning bolt")
    client.force_login(alice)

    page = client.post(f"/admin/games/game/{heat.pk}/delete/", {"post": "yes"})
    client.post("/admin/games/game/", {"action": "delete_selected", "_selected_action": [azul.pk], "post": "yes"})

    assert page.status_code == 302
    assert not Game.objects.exists() and not Chunk.objects.exists() and not Card.objects.exists()
