"""A booklet's slug names its collection (`rules_<slug>`) and its chunks carry it: the admin
types a slug on the add pages only, never moves a booklet to another game, never gives a game
and a booklet the same slug, and leaves adding and deleting booklets to ingestion and to the
booklet's own page (games.services)."""

from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.base import ContentFile

from games.models import Extension, Game
from tests.factories import ChunkFactory, ExtensionFactory, GameFactory

pytestmark = pytest.mark.django_db


def game_form(game=None, **fields) -> dict:
    """The game page's fields, with its booklets' inline rows (`extensions-N-…`)."""
    data = {
        "name": "Heat", "slug": "heat", "language": "fr", "description": "", "bgg_id": "", "bgg_metadata": "{}",
        "card_game": "", "booklet_name": "", "extensions-TOTAL_FORMS": "0", "extensions-INITIAL_FORMS": "0",
    }  # fmt: skip
    if game is not None:
        data.update({"name": game.name, "slug": game.slug, "language": game.language})
        for n, extension in enumerate(game.extensions.all()):
            data.update({f"extensions-{n}-{key}": value for key, value in {
                "id": extension.pk, "game": game.pk, "name": extension.name, "slug": extension.slug,
                "kind": extension.kind, "language": extension.language}.items()})  # fmt: skip
        data["extensions-TOTAL_FORMS"] = data["extensions-INITIAL_FORMS"] = str(game.extensions.count())
    data.update(fields)
    return data


@pytest.fixture
def heat():
    """A game and an expansion, each with a chunk in its collection."""
    game = GameFactory(name="Heat", slug="heat")
    rain = ExtensionFactory(game=game, name="Pluie", slug="heat-pluie")
    ChunkFactory(game=game)
    ChunkFactory(game=game, extension=rain)
    return game


def searched_and_stored(game) -> list[tuple[str, set[str]]]:
    """Each booklet's collection, as the search names it, and the collections its chunks carry."""
    return [(b.collection, set(b.chunks().values_list("collection", flat=True))) for b in Game.objects.get(pk=game.pk).booklets()]


def test_the_game_page_changes_no_slug_so_its_booklets_keep_their_chunks(client, alice, heat):
    client.force_login(alice)

    response = client.post(f"/admin/games/game/{heat.pk}/change/",
                           game_form(heat, slug="heat-2024", **{"extensions-0-slug": "pluie-2024"}))

    assert response.status_code == 302
    assert searched_and_stored(heat) == [("rules_heat", {"rules_heat"}), ("rules_heat-pluie", {"rules_heat-pluie"})]


def test_a_booklet_page_changes_neither_its_slug_nor_its_game(client, alice, heat):
    rain, other = heat.extensions.get(), GameFactory(name="Heat 2e édition", slug="heat-2")
    client.force_login(alice)

    response = client.post(f"/admin/games/extension/{rain.pk}/change/",
                           {"game": other.pk, "name": "Pluie", "slug": "pluie-2024", "kind": "extension", "language": "en"})

    assert response.status_code == 302
    rain.refresh_from_db()
    assert (rain.game, rain.slug, rain.language) == (heat, "heat-pluie", "en")  # the rest is still edited
    assert searched_and_stored(heat)[1] == ("rules_heat-pluie", {"rules_heat-pluie"})


def test_the_slug_is_typed_on_the_add_pages_only(client, alice, heat):
    client.force_login(alice)

    for model, row in (("game", heat), ("extension", heat.extensions.get())):
        assert 'name="slug"' in client.get(f"/admin/games/{model}/add/").content.decode()
        assert 'name="slug"' not in client.get(f"/admin/games/{model}/{row.pk}/change/").content.decode()


def test_the_game_page_neither_deletes_nor_adds_a_booklet(client, alice, heat):
    rain = heat.extensions.get()
    rain.pdf.save("heat-pluie.pdf", ContentFile(b"%PDF-1.4\n"))
    pdf = Path(settings.MEDIA_ROOT) / rain.pdf.name
    client.force_login(alice)
    new_row = {"extensions-1-game": heat.pk, "extensions-1-name": "Neige", "extensions-1-slug": "heat-neige",
               "extensions-1-kind": "extension", "extensions-1-language": "fr"}  # fmt: skip

    response = client.post(f"/admin/games/game/{heat.pk}/change/",
                           game_form(heat, **{"extensions-0-DELETE": "on", "extensions-TOTAL_FORMS": "2"}, **new_row))

    assert response.status_code == 302
    assert list(Extension.objects.values_list("slug", flat=True)) == ["heat-pluie"] and pdf.exists()
    page = client.get(f"/admin/games/game/{heat.pk}/change/").content.decode()
    assert "extensions-0-DELETE" not in page and 'name="extensions-0-slug"' not in page


def test_a_new_game_cannot_take_the_slug_of_a_booklet(client, alice, heat):
    client.force_login(alice)

    response = client.post("/admin/games/game/add/", game_form(name="Heat Pluie", slug="heat-pluie"))

    assert response.status_code == 200
    assert response.context["adminform"].form.errors["slug"] == [
        "Un livret a déjà l'identifiant « heat-pluie » : leurs passages seraient dans le même index. Choisissez-en un autre."
    ]
    assert not Game.objects.filter(slug="heat-pluie").exists()


def test_a_new_booklet_cannot_take_the_slug_of_a_game(client, alice, heat):
    GameFactory(name="Heat Neige", slug="heat-neige")
    client.force_login(alice)

    response = client.post("/admin/games/extension/add/",
                           {"game": heat.pk, "name": "Neige", "slug": "heat-neige", "kind": "extension", "language": "fr"})

    assert response.status_code == 200
    assert "Un jeu a déjà l'identifiant « heat-neige »" in response.context["adminform"].form.errors["slug"][0]
    assert not Extension.objects.filter(slug="heat-neige").exists()
