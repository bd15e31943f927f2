from games.card_import import import_cards
from games.models import Card
from tests.card_fixtures import DATA
from tests.factories import GameFactory


def test_flesh_and_blood_cards_keep_pitch_class_and_legal_heroes(db):
    game = GameFactory(name="Flesh and Blood", slug="fab", card_game="fab")
    import_cards(game, DATA / "fab_cards.json")
    red, blue = Card.objects.get(name="Head Jab (red)"), Card.objects.get(name="Head Jab (blue)")
    assert red.attributes["pitch"] == 1 and blue.attributes["pitch"] == 3
    assert red.attributes["legal_heroes"] == ["Katsu", "Ira"]
    assert red.attributes["class"] == "Ninja"
    assert Card.objects.get(name="Sink Below (red)").name_fr == "Sombrer"
    assert Card.objects.get(name="Katsu, the Wanderer").attributes["types"] == ["ninja", "hero"]


def test_riftbound_csv_gives_domains_and_types(db):
    game = GameFactory(name="Riftbound", slug="riftbound", card_game="riftbound")
    report = import_cards(game, DATA / "riftbound_cards.csv")
    assert report.created == 10
    jinx = Card.objects.get(name="Jinx - Loose Cannon")
    assert jinx.attributes["domains"] == ["Fury", "Chaos"]
    assert jinx.name_fr == "Jinx - Canon déchaîné"
    assert Card.objects.get(name="Zaun Warrens").attributes["types"] == ["battlefield"]
    assert sum("rune" in c.attributes["types"] for c in Card.objects.filter(game=game)) == 3


def test_a_file_of_another_shape_is_refused_with_a_readable_error(db, tmp_path):
    import pytest

    from games.card_import import CardFileError

    game = GameFactory(name="Riftbound", slug="riftbound", card_game="riftbound")
    path = tmp_path / "cards.json"
    path.write_text('{"items": []}')
    with pytest.raises(CardFileError, match="expected a list of cards"):
        import_cards(game, path)
