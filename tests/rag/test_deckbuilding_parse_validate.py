from rag.deckbuilding.parse_validate import card_key_from, parse_deck_response, validate_deck
from rag.deckbuilding.spec import default_spec

ANSWER = """Voici un deck Simic tempo. Je recommande 4 [[card:Opt]] mais ce n'est pas une ligne de liste.

### Créatures (8)
4× [[card:Llanowar Elves]]
- 4x [[card:Academy Drake]]

### Sorts (4)
4X [[card:Opt]]

### Terrains (48)
24× [[card:Forêt]]
24× [[card:Island]]

### Sideboard (15)
3× [[card:Syncopate]]
12 [[card:Negate]]
"""


def test_only_quantity_lines_with_a_multiplication_sign_count():
    deck = parse_deck_response(ANSWER)
    assert deck.total("main") == 60
    assert deck.sections["sideboard"] == [(3, "Syncopate")]  # « 12 [[card:Negate]] » has no ×
    assert [name for _, name in deck.roles["Créatures"]] == ["Llanowar Elves", "Academy Drake"]


def test_valid_list_passes_with_basic_lands_beyond_the_copy_limit():
    spec = default_spec("mtg").model_copy(update={"sideboard": 3})
    verdict = validate_deck(parse_deck_response(ANSWER), spec)
    assert verdict.valid, verdict.issues


def test_totals_copy_limits_and_missing_anchors_are_issues():
    text = "### Créatures\n5× [[card:Llanowar Elves]]\n50× [[card:Forest]]\n### Sideboard\n4× [[card:Llanowar Elves]]\n"
    anchors = [{"card_name": "Academy Drake", "card_name_fr": "Drakôn de l'Académie"}]
    verdict = validate_deck(parse_deck_response(text), default_spec("mtg"), anchors)
    assert not verdict.valid
    assert "Deck principal : 55 cartes au lieu de 60." in verdict.issues
    assert "Sideboard : 4 cartes au lieu de 15." in verdict.issues
    assert "Llanowar Elves : 9 exemplaires, le maximum est 4." in verdict.issues
    assert "Carte obligatoire absente : Academy Drake." in verdict.issues


def test_an_anchor_written_with_its_french_name_counts():
    anchors = [{"card_name": "Academy Drake", "card_name_fr": "Drakôn de l'Académie"}]
    deck = parse_deck_response("1× [[card:Drakôn de l'Académie]]")
    assert not any("obligatoire" in i for i in validate_deck(deck, default_spec("mtg"), anchors).issues)


def test_unknown_cards_are_warnings_not_issues():
    spec = default_spec("mtg").model_copy(update={"sideboard": 0})
    deck = parse_deck_response("4× [[card:Black Lotus Deluxe]]\n56× [[card:Island]]")
    verdict = validate_deck(deck, spec, known=lambda name: name != "Black Lotus Deluxe")
    assert verdict.valid
    assert verdict.warnings == ["Carte inconnue du catalogue : Black Lotus Deluxe."]


def test_riftbound_sections_runes_and_battlefields_are_counted_apart():
    text = "### Unités (40)\n3× [[card:A]]\n37× [[card:B]]\n### Runes (12)\n6× [[card:Fury Rune]]\n6× [[card:Chaos Rune]]\n" \
           "### Champs de bataille (3)\n1× [[card:X]]\n1× [[card:Y]]\n"
    verdict = validate_deck(parse_deck_response(text), default_spec("riftbound"))
    assert verdict.totals == {"main": 40, "sideboard": 0, "runes": 12, "battlefields": 2}
    assert verdict.issues == ["Champs de bataille : 2 cartes au lieu de 3.", "B : 37 exemplaires, le maximum est 3."]


def test_the_copy_limit_holds_per_card_whatever_the_spelling():
    spec = default_spec("mtg").model_copy(update={"sideboard": 0})
    text = ("4× [[card:Opt]]\n3× [[card:opt]]\n2× [[card:Delver of Secrets]]\n"
            "3× [[card:Delver of Secrets // Insectile Aberration]]\n48× [[card:Island]]")  # fmt: skip
    issues = validate_deck(parse_deck_response(text), spec).issues
    assert "Opt : 7 exemplaires, le maximum est 4." in issues
    assert "Delver of Secrets : 5 exemplaires, le maximum est 4." in issues


def test_a_card_written_with_its_french_name_counts_with_its_english_copies():
    spec = default_spec("mtg").model_copy(update={"sideboard": 0})
    deck = parse_deck_response("4× [[card:Opt]]\n3× [[card:Option]]\n53× [[card:Island]]")
    key = card_key_from([{"card_name": "Opt", "card_name_fr": "Option"}])
    assert "Opt : 7 exemplaires, le maximum est 4." in validate_deck(deck, spec, card_key=key).issues


def test_section_words_are_whole_words_and_hero_legend_belong_to_their_game():
    text = "### Créatures légendaires (4)\n4× [[card:Tatyova, Benthic Druid]]\n### Inside jokes\n2× [[card:Opt]]\n"
    assert parse_deck_response(text, "mtg").sections == {"main": [(4, "Tatyova, Benthic Druid"), (2, "Opt")]}
    fab = parse_deck_response("### Héros\n1× [[card:Katsu, the Wanderer]]\n### Armes\n1× [[card:Harmonized Kodachi]]", "fab")
    assert fab.sections == {"hero": [(1, "Katsu, the Wanderer")], "equipment": [(1, "Harmonized Kodachi")]}
    legend = parse_deck_response("### Légende\n1× [[card:Jinx - Loose Cannon]]\n### Runes (12)\n12× [[card:Fury Rune]]", "riftbound")
    assert legend.sections == {"legend": [(1, "Jinx - Loose Cannon")], "runes": [(12, "Fury Rune")]}


def test_flesh_and_blood_blitz_and_commoner_decks_are_40_cards_with_two_copies_at_most():
    for format in ("blitz", "Commoner"):
        spec = default_spec("fab", format=format)
        assert (spec.main, spec.sideboard, spec.max_copies) == (40, 0, 2)
        assert sum(spec.roles.values()) == 40
    assert (default_spec("fab").main, default_spec("fab").max_copies) == (60, 3)  # Classic Constructed


def test_a_restricted_card_and_a_card_with_its_own_number_have_their_own_copy_limit():
    from rag.deckbuilding.parse_validate import copy_limits

    cards = {
        "Black Lotus": {"card_name": "Black Lotus", "attributes": {"restricted_in": ["vintage"]}},
        "Relentless Rats": {"card_name": "Relentless Rats",
                            "oracle_text": "A deck can have any number of cards named Relentless Rats."},
        "Nazgûl": {"card_name": "Nazgûl", "oracle_text": "Deathtouch\nA deck can have up to nine cards named Nazgûl."},
    }
    text = "4× [[card:Black Lotus]]\n30× [[card:Relentless Rats]]\n10× [[card:Nazgûl]]\n16× [[card:Swamp]]"
    spec = default_spec("mtg", format="vintage").model_copy(update={"sideboard": 0})
    issues = validate_deck(parse_deck_response(text), spec, limit=copy_limits(spec, cards.get)).issues
    assert issues == ["Black Lotus : 4 exemplaires, le maximum est 1.", "Nazgûl : 10 exemplaires, le maximum est 9."]
    legacy = default_spec("mtg", format="legacy").model_copy(update={"sideboard": 0})
    assert validate_deck(parse_deck_response(text), legacy, limit=copy_limits(legacy, cards.get)).issues == [
        "Nazgûl : 10 exemplaires, le maximum est 9."
    ]  # restricted in Vintage only


def test_a_basic_land_the_format_does_not_allow_is_an_issue():
    from rag.deckbuilding.parse_validate import format_legality

    spec = default_spec("mtg", format="standard").model_copy(update={"sideboard": 0})
    formats = {"Snow-Covered Forest": ["modern"], "Forest": ["standard", "modern"]}
    deck = parse_deck_response("30× [[card:Snow-Covered Forest]]\n30× [[card:Forest]]")
    legal = format_legality(spec, formats.get)
    assert validate_deck(deck, spec, legal=legal).issues == ["Snow-Covered Forest n'est pas autorisée en standard."]
