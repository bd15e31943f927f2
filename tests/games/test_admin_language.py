"""A booklet's language changed in the admin reaches its chunks (what the index carries) as it
does through the API and the job page's « Corriger la langue » (games.services)."""

import pytest

from games.models import Chunk, Extension, Game
from tests.factories import ChunkFactory, ExtensionFactory, GameFactory

pytestmark = pytest.mark.django_db


def test_an_expansion_whose_language_is_changed_in_the_admin_carries_it_to_its_chunks(client, alice):
    rain = ExtensionFactory(game=GameFactory(name="Heat"), name="Pluie", slug="heat-pluie", language="fr")
    ChunkFactory(game=rain.game, extension=rain, payload={"language": "fr", "booklet_name": "Pluie"})
    client.force_login(alice)

    response = client.post(
        f"/admin/games/extension/{rain.pk}/change/",
        {"game": rain.game.pk, "name": "Pluie", "slug": "heat-pluie", "kind": "extension", "language": "en"},
    )

    assert response.status_code == 302 and Extension.objects.get(pk=rain.pk).language == "en"
    assert [c.payload for c in Chunk.objects.filter(extension=rain)] == [{"language": "en", "booklet_name": "Pluie"}]


def test_a_game_whose_language_is_changed_in_the_admin_carries_it_to_its_base_chunks(client, alice):
    heat = GameFactory(name="Heat", slug="heat", language="fr")
    ChunkFactory(game=heat, payload={"language": "fr"})
    client.force_login(alice)

    response = client.post(
        f"/admin/games/game/{heat.pk}/change/",
        {"name": "Heat", "slug": "heat", "language": "en", "description": "", "bgg_metadata": "{}", "card_game": "",
         "booklet_name": "", "extensions-TOTAL_FORMS": "0", "extensions-INITIAL_FORMS": "0"},
    )

    assert response.status_code == 302 and Game.objects.get(pk=heat.pk).language == "en"
    assert [c.payload["language"] for c in Chunk.objects.filter(game=heat)] == ["en"]


def test_a_booklet_renamed_in_the_admin_is_cited_under_its_new_name(client, alice):
    """Answers cite the name the chunks carry: an admin rename reaches them, as the API's does."""
    heat = GameFactory(name="Heat", slug="heat", language="fr")
    ChunkFactory(game=heat, payload={"language": "fr", "game_name": "Heat", "booklet_name": "Heat"})
    rain = ExtensionFactory(game=heat, name="Pluie", slug="heat-pluie", language="fr")
    ChunkFactory(game=heat, extension=rain, payload={"language": "fr", "game_name": "Heat", "booklet_name": "Pluie"})
    client.force_login(alice)

    client.post(
        f"/admin/games/game/{heat.pk}/change/",
        {"name": "Heat: Pedal to the Metal", "slug": "heat", "language": "fr", "description": "", "bgg_metadata": "{}",
         "card_game": "", "booklet_name": "Règles", "extensions-TOTAL_FORMS": "0", "extensions-INITIAL_FORMS": "0"},
    )
    client.post(
        f"/admin/games/extension/{rain.pk}/change/",
        {"game": heat.pk, "name": "Pluie battante", "slug": "heat-pluie", "kind": "extension", "language": "fr"},
    )

    base = Chunk.objects.get(game=heat, extension=None).payload
    assert (base["game_name"], base["booklet_name"]) == ("Heat: Pedal to the Metal", "Règles")
    assert Chunk.objects.get(extension=rain).payload["booklet_name"] == "Pluie battante"
