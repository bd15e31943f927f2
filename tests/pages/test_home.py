from django.urls import reverse

from games.models import Extension
from tests.factories import ExtensionFactory, GameFactory


def test_home_lists_games_with_their_booklets_to_tick(client, bob):
    heat = GameFactory(name="Heat", bgg_metadata={"image": "https://cf.geekdo-images.com/heat.jpg", "yearpublished": 2022,
                                                   "minplayers": 1, "maxplayers": 6})
    ExtensionFactory(game=heat, name="Tempête", kind=Extension.Kind.EXTENSION)
    ExtensionFactory(game=heat, name="Règles expertes", kind=Extension.Kind.ADVANCED_RULES)
    ExtensionFactory(game=heat, name="FAQ officielle", kind=Extension.Kind.FAQ)
    client.force_login(bob)

    page = client.get(reverse("oracle-home")).content.decode()

    assert "Heat" in page
    assert "https://cf.geekdo-images.com/heat.jpg" in page
    assert "2022" in page and "1–6 joueurs" in page
    for ext in heat.extensions.all():
        assert f'name="ext" value="{ext.pk}"' in page
    assert "Règles avancées" in page and "FAQ" in page
    assert f'action="{reverse("oracle-chat", args=[heat.slug])}"' in page


def test_home_without_games_offers_the_admin_a_first_upload(client, alice):
    client.force_login(alice)
    page = client.get(reverse("oracle-home")).content.decode()
    assert "Aucun jeu pour l'instant." in page
    assert reverse("oracle-ingest-new") in page
