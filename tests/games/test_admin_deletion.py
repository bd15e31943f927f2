"""Deleting a game or a booklet in the admin goes through games.services, as the API does:
its PDF and vectors go with its rows."""

from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.base import ContentFile

from games.models import Chunk, Extension, Game
from tests.factories import ChunkFactory, ExtensionFactory, GameFactory

pytestmark = pytest.mark.django_db


def test_deleting_a_booklet_in_the_admin_removes_its_pdf_and_chunks(client, alice):
    extension = ExtensionFactory(game=GameFactory(name="Heat"), name="Pluie", slug="heat-pluie")
    extension.pdf.save("heat-pluie.pdf", ContentFile(b"%PDF-1.4\n"))
    ChunkFactory(game=extension.game, extension=extension)
    pdf = Path(settings.MEDIA_ROOT) / extension.pdf.name
    client.force_login(alice)

    response = client.post(f"/admin/games/extension/{extension.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert not Extension.objects.exists() and not Chunk.objects.exists() and not pdf.exists()


def test_deleting_a_game_in_the_admin_removes_its_pdf(client, alice):
    game = GameFactory(name="Heat")
    game.pdf.save("heat.pdf", ContentFile(b"%PDF-1.4\n"))
    pdf = Path(settings.MEDIA_ROOT) / game.pdf.name
    client.force_login(alice)

    client.post("/admin/games/game/", {"action": "delete_selected", "_selected_action": [game.pk], "post": "yes"})

    assert not Game.objects.exists() and not pdf.exists()
