"""A game or booklet whose ingestion is running is not deleted (games.services refuses): the
admin then says only that, never Django's « supprimé avec succès », and its delete page leads
back to the row, which is still there."""

import pytest
from django.contrib.admin.models import DELETION, LogEntry
from django.contrib.messages import get_messages

from games.models import Extension, Game
from ingest.models import IngestJob
from tests.factories import ExtensionFactory, GameFactory, IngestJobFactory

pytestmark = pytest.mark.django_db


def shown(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


@pytest.fixture
def heat():
    """A game whose base booklet is being read."""
    game = GameFactory(name="Heat", slug="heat")
    IngestJobFactory(game=game, status=IngestJob.Status.RUNNING)
    return game


@pytest.fixture
def rain():
    """An expansion being read."""
    extension = ExtensionFactory(game=GameFactory(name="Heat"), name="Pluie", slug="heat-pluie")
    IngestJobFactory(game=extension.game, extension=extension, booklet_kind="extension", status=IngestJob.Status.RUNNING)
    return extension


def test_the_delete_page_of_a_game_being_read_says_why_and_leads_back_to_it(client, alice, heat):
    client.force_login(alice)

    response = client.post(f"/admin/games/game/{heat.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302 and response.url == f"/admin/games/game/{heat.pk}/change/"
    assert len(shown(response)) == 1 and "est en cours : annulez-la d'abord" in shown(response)[0]
    assert Game.objects.filter(pk=heat.pk).exists()
    assert not LogEntry.objects.filter(action_flag=DELETION).exists()  # « Actions récentes » says nothing was deleted


def test_deleting_games_of_which_one_is_being_read_says_why_and_no_success(client, alice, heat):
    free = GameFactory(name="Azul", slug="azul")
    client.force_login(alice)

    response = client.post("/admin/games/game/",
                           {"action": "delete_selected", "_selected_action": [heat.pk, free.pk], "post": "yes"})

    assert response.status_code == 302
    assert len(shown(response)) == 1 and "est en cours" in shown(response)[0]
    assert list(Game.objects.all()) == [heat]  # the other one went
    assert list(LogEntry.objects.filter(action_flag=DELETION).values_list("object_repr", flat=True)) == ["Azul"]


def test_the_delete_page_of_a_booklet_being_read_says_why_and_leads_back_to_it(client, alice, rain):
    client.force_login(alice)

    response = client.post(f"/admin/games/extension/{rain.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302 and response.url == f"/admin/games/extension/{rain.pk}/change/"
    assert len(shown(response)) == 1 and "est en cours" in shown(response)[0]
    assert Extension.objects.filter(pk=rain.pk).exists()


def test_deleting_a_booklet_being_read_from_the_list_says_why_and_no_success(client, alice, rain):
    client.force_login(alice)

    response = client.post("/admin/games/extension/", {"action": "delete_selected", "_selected_action": [rain.pk], "post": "yes"})

    assert len(shown(response)) == 1 and "est en cours" in shown(response)[0]
    assert Extension.objects.filter(pk=rain.pk).exists()


def test_a_game_deleted_from_its_page_still_says_so(client, alice):
    azul = GameFactory(name="Azul", slug="azul")
    client.force_login(alice)

    response = client.post(f"/admin/games/game/{azul.pk}/delete/", {"post": "yes"})

    assert response.url == "/admin/games/game/"
    assert ["succès" in message for message in shown(response)] == [True]
    assert not Game.objects.exists()
