"""A term added by hand in « Termes du jeu » is « saisi à la main » unless staff choose
otherwise: a « textes des cartes » term is deleted by the next card import."""

import re

import pytest

from games.models import GameTerm
from games.terms import learn_card_terms
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


def test_a_term_added_in_the_admin_is_manual_and_outlives_the_next_card_import(client, alice):
    magic = GameFactory(name="Magic", slug="magic", card_game="mtg")
    client.force_login(alice)

    page = client.get("/admin/games/gameterm/add/").content.decode()
    source = re.search(r'<option value="(\w+)" selected>', page).group(1)
    client.post("/admin/games/gameterm/add/",
                {"game": magic.pk, "french": "piétinement", "english": "trample", "source": source, "support": "1"})
    learn_card_terms(magic)  # what import_cards runs after each import

    assert source == "manual"
    assert list(GameTerm.objects.values_list("french", "english", "source")) == [("piétinement", "trample", "manual")]
