import json

from django.core.management import call_command

from games.card_import import import_cards
from games.models import Card
from tests.card_fixtures import DOMINARIA, SCRYFALL_SAMPLE
from tests.factories import GameFactory


def magic(**kwargs):
    return GameFactory(name="Magic", slug="magic", card_game="mtg", **kwargs)


def test_scryfall_prints_are_merged_per_oracle_card_with_the_french_name(db):
    game = magic()
    report = import_cards(game, SCRYFALL_SAMPLE)
    library = Card.objects.get(game=game, name="Sylvan Library")
    assert library.name_fr == "Bibliothèque sylvestre"
    assert Card.objects.filter(game=game, name="Thallid").count() == 1
    assert report.read == Card.objects.filter(game=game).count() < 88


def test_scryfall_card_keeps_legal_formats_identity_and_set(db):
    game = magic()
    import_cards(game, SCRYFALL_SAMPLE)
    abunas = Card.objects.get(game=game, name="Leonin Abunas")
    assert abunas.color_identity == ["W"]
    assert "modern" in abunas.legal_formats and "standard" not in abunas.legal_formats
    assert abunas.set_code == "arc" and abunas.cost == "{3}{W}"
    delver = Card.objects.get(game=game, name="Delver of Secrets // Insectile Aberration")
    assert "transform Delver of Secrets" in delver.text
    assert delver.cost.startswith("{U}")


def test_mtgjson_set_file_gives_french_names_and_standard_legality(db):
    game = magic()
    import_cards(game, DOMINARIA)
    drake = Card.objects.get(game=game, name="Academy Drake")
    assert drake.name_fr == "Drakôn de l'Académie"
    assert drake.search_name_fr == "drakon de l'academie"
    assert "standard" in drake.legal_formats
    assert drake.set_code == "dom" and drake.set_name == "Dominaria"
    assert drake.attributes["types"] == ["creature"]


def test_an_english_only_source_imported_after_keeps_the_french_names_and_texts(db, tmp_path):
    """Scryfall's bulk files are mostly English prints: importing one after a set file with
    French names must not take the French @-mentions away."""
    game = magic()
    import_cards(game, DOMINARIA)
    english = [{"object": "card", "lang": "en", "layout": "normal", "oracle_id": "65f3ebeb-1ca5-4923-b681-032579991c8a",
                "name": "Academy Drake", "mana_cost": "{2}{U}", "type_line": "Creature — Drake",
                "oracle_text": "Kicker {4}\nFlying\nIf this creature was kicked, it enters with two +1/+1 counters on it.",
                "cmc": 3, "colors": ["U"], "color_identity": ["U"], "legalities": {"standard": "not_legal", "modern": "legal"},
                "set": "dmr", "set_name": "Dominaria Remastered", "rarity": "uncommon", "collector_number": "45"}]  # fmt: skip
    (tmp_path / "bulk.json").write_text(json.dumps(english), encoding="utf-8")

    report = import_cards(game, tmp_path / "bulk.json")

    drake = Card.objects.get(game=game, name="Academy Drake")
    assert report.updated == 1 and drake.set_code == "dmr"  # the English record's own fields are taken
    assert drake.name_fr == "Drakôn de l'Académie" and drake.search_name_fr == "drakon de l'academie"
    assert drake.text_fr


def test_reimport_updates_changed_cards_and_keeps_unchanged_vectors(db, tmp_path):
    import json

    game = magic()
    import_cards(game, DOMINARIA)
    Card.objects.filter(game=game).update(dense=b"\0" * 16)
    document = json.loads(DOMINARIA.read_text())
    drake = next(c for c in document["cards"] if c["name"] == "Academy Drake")
    drake["text"] = "Flying"
    changed = tmp_path / "dom.json"
    changed.write_text(json.dumps(document))

    report = import_cards(game, changed)

    assert report.updated == 1 and report.created == 0
    assert Card.objects.get(game=game, name="Academy Drake").text == "Flying"
    assert Card.objects.get(game=game, name="Academy Drake").dense is None  # re-embedded later
    assert Card.objects.filter(game=game, dense__isnull=False).count() == report.unchanged


def test_import_command_embeds_and_indexes_the_cards(db, tmp_path, capsys):
    import json

    from games.card_indexing import card_collection
    from runtime import components

    game = magic()
    sample = json.loads(SCRYFALL_SAMPLE.read_text())[:6]
    path = tmp_path / "six.json"
    path.write_text(json.dumps(sample))

    call_command("import_cards", "magic", str(path))

    out = capsys.readouterr()
    assert "created" in out.out and "Lecture de six.json" in out.err
    store = components.vector_store()
    assert store.count(card_collection(game)) == Card.objects.filter(game=game).count() > 0


def test_staff_sees_imported_cards_in_the_admin(alice, client):
    game = magic()
    import_cards(game, DOMINARIA)
    client.force_login(alice)
    response = client.get("/admin/games/card/", {"q": "drakon"})
    assert response.status_code == 200
    assert "Academy Drake" in response.content.decode()
    card = Card.objects.get(name="Academy Drake")
    assert client.get(f"/admin/games/card/{card.pk}/change/").status_code == 200
