import datetime as dt

import pytest
from django.core.management import call_command

from games.card_indexing import meta_collection
from games.card_lookup import catalog_card_key
from games.card_search import meta_hits
from games.decklists import guess_format, import_decklist, parse_decklist_text
from games.models import Decklist
from rag.deckbuilding import default_spec, validate_deck
from rag.deckbuilding.parse_validate import ParsedDeck
from rag.synergy import decompose_with_rules
from runtime import components
from tests.api_walk.test_decks_api import PLAYABLE
from tests.card_fixtures import DECKLISTS, dominaria  # noqa: F401
from tests.factories import GameFactory


def test_plain_text_list_has_main_and_sideboard_sections():
    parsed = parse_decklist_text(DECKLISTS[0].read_text())
    assert parsed.main_count == 60
    assert sum(q for q, _ in parsed.sections["sideboard"]) == 15
    assert [4, "Lightning Bolt"] in parsed.sections["main"]


def test_sideboard_given_by_sb_prefix_and_x_quantities():
    parsed = parse_decklist_text("4x Opt\n2 Island\nSB: 3 Negate\n")
    assert parsed.sections == {"main": [[4, "Opt"], [2, "Island"]], "sideboard": [[3, "Negate"]]}


def test_format_and_date_read_from_the_list_comments(db):
    game = GameFactory(name="Magic", slug="magic", card_game="mtg")
    deck = import_decklist(game, DECKLISTS[0])
    assert deck.format == "modern" and deck.played_on == dt.date(2026, 8, 20)


def test_import_command_indexes_meta_chunks_tagged_tournament_deck(db, capsys):
    game = GameFactory(name="Magic", slug="magic", card_game="mtg")
    call_command("import_decklists", "magic", *map(str, DECKLISTS), "--format", "modern")
    assert Decklist.objects.filter(game=game).count() == 4
    points = list(components.vector_store().scroll(meta_collection(game), filter={"meta_format": "modern"}))
    assert len(points) == 4
    payload = points[0].payload
    assert payload["meta_type"] == "tournament_deck" and payload["tag"] == "[META]"
    assert payload["text"].startswith("[META]") and "Sideboard" in payload["text"]
    assert "60 + 15 cards" in capsys.readouterr().out


def test_import_command_names_the_lines_it_left_out(db, tmp_path, capsys):
    GameFactory(name="Magic", slug="magic", card_game="mtg")
    path = tmp_path / "deck.txt"
    path.write_text("4 Opt\nShivan Fire\n2 Shock\n")
    call_command("import_decklists", "magic", str(path), "--format", "standard", "--no-index")
    captured = capsys.readouterr()
    assert "deck.txt: line not read, left out: Shivan Fire" in captured.err
    assert "6 + 0 cards" in captured.out


def test_reimporting_a_list_replaces_it(db, tmp_path):
    game = GameFactory(name="Magic", slug="magic", card_game="mtg")
    path = tmp_path / "deck.txt"
    path.write_text("4 Opt\n")
    import_decklist(game, path, format="standard")
    path.write_text("4 Shock\n")
    import_decklist(game, path, format="standard")
    assert Decklist.objects.get(game=game).sections == {"main": [[4, "Shock"]]}


def test_reimporting_an_unchanged_list_keeps_it_in_search(db, tmp_path):
    game = GameFactory(name="Magic", slug="magic", card_game="mtg")
    path = tmp_path / "deck.txt"
    path.write_text("// Modern Challenge 2026-08-20\n4 Opt\n2 Shock\n")
    call_command("import_decklists", "magic", str(path), "--format", "modern", "--no-index")
    embedded = Decklist.objects.get(game=game)

    import_decklist(game, path, format="modern")

    again = Decklist.objects.get(game=game)
    assert again.dense == embedded.dense and again.dense is not None and again.indexed == embedded.indexed

def test_the_catalog_card_key_counts_a_french_name_with_the_english_copies(dominaria):
    parsed = parse_decklist_text(PLAYABLE.replace("3 Befuddle", "3 Option"))
    deck = ParsedDeck()
    for section, entries in parsed.sections.items():
        for quantity, name in entries:
            deck.add(section, quantity, name)
    verdict = validate_deck(deck, default_spec("mtg"), card_key=catalog_card_key(dominaria))
    assert verdict.issues == ["Opt : 7 exemplaires, le maximum est 4."]


def test_an_arena_set_and_number_is_not_part_of_the_name_but_a_fab_pitch_is():
    parsed = parse_decklist_text("4 Opt (DOM) 60\n12 Forest (DOM) 266\n3 Head Jab (red)\n")
    assert parsed.sections == {"main": [[4, "Opt"], [12, "Forest"], [3, "Head Jab (red)"]]}


def test_the_format_guessed_from_comments_is_the_longest_whole_word_match():
    assert guess_format(["// Premodern Challenge, 2026-08-20"]) == "premodern"
    assert guess_format(["// Classic Constructed Calling"]) == "classic constructed"
    assert guess_format(["// Modern Challenge 64"]) == "modern"
    assert guess_format(["// Modernist gathering"]) == ""


# Fabrary's text export, in the shape patrickhere/proxy-machine documents for its Flesh and
# Blood plugin (assets/hugo/content/plugins/flesh_and_blood.md): fields, « Arena cards » (weapons
# and equipment), « Deck cards ». Shortened: the first three arena and deck lines of its sample.
FABRARY_EXPORT = """Name: Sweden National Championship 2025 1st
Hero: Cindra, Dracai of Retribution
Format: Classic Constructed

Arena cards
1x Blood Splattered Vest
1x Claw of Vynserakai
2x Kunai of Retribution

Deck cards
3x Ancestral Empowerment (red)
3x Art of the Dragon: Blood (red)
3x Blaze Headlong (red)
"""


def test_a_fabrary_export_keeps_its_hero_and_arena_cards_out_of_the_main_deck():
    parsed = parse_decklist_text(FABRARY_EXPORT)
    assert parsed.sections == {
        "main": [[3, "Ancestral Empowerment (red)"], [3, "Art of the Dragon: Blood (red)"], [3, "Blaze Headlong (red)"]],
        "hero": [[1, "Cindra, Dracai of Retribution"]],
        "equipment": [[1, "Blood Splattered Vest"], [1, "Claw of Vynserakai"], [2, "Kunai of Retribution"]],
    }
    assert guess_format(parsed.comments) == "classic constructed"


def test_a_blank_line_after_the_equipment_goes_back_to_the_main_deck():
    parsed = parse_decklist_text("Hero\n1 Katsu, the Wanderer\n\nEquipment\n1 Mask of Momentum\n\n3 Head Jab (red)\n")
    assert parsed.sections["main"] == [[3, "Head Jab (red)"]]
    assert parsed.sections["equipment"] == [[1, "Mask of Momentum"]]
    assert parsed.sections["hero"] == [[1, "Katsu, the Wanderer"]]


def test_a_blank_line_right_under_a_heading_keeps_its_section_and_a_hero_line_may_count_its_card():
    parsed = parse_decklist_text("Hero\n\n1 Katsu, the Wanderer\n\n3 Head Jab (red)\n")
    assert parsed.sections == {"main": [[3, "Head Jab (red)"]], "hero": [[1, "Katsu, the Wanderer"]]}
    assert parse_decklist_text("Legend: 1x Jinx - Loose Cannon\n").sections == {"legend": [[1, "Jinx - Loose Cannon"]]}


def test_a_blank_line_does_not_end_a_sideboard():
    parsed = parse_decklist_text("4 Opt\n\nSideboard\n2 Negate\n\n1 Duress\n")
    assert parsed.sections == {"main": [[4, "Opt"]], "sideboard": [[2, "Negate"], [1, "Duress"]]}


def test_an_mtgo_export_without_headings_has_its_sideboard_after_the_blank_line():
    mtgo = "4 Monastery Swiftspear\n56 Mountain\n\n3 Unholy Heat\n12 Spell Pierce\n"
    parsed = parse_decklist_text(mtgo)
    assert parsed.main_count == 60
    assert parsed.sections["sideboard"] == [[3, "Unholy Heat"], [12, "Spell Pierce"]]


def test_blocks_a_player_typed_by_card_type_stay_in_the_main_deck():
    by_type = "// Burn\n20 Mountain\n\n4 Lightning Bolt\n4 Lava Spike\n\n16 Goblin Guide\n16 Monastery Swiftspear\n"
    assert parse_decklist_text(by_type).sections.keys() == {"main"}  # three blocks: not MTGO's two
    lands_then_spells = "20 Mountain\n\n20 Lightning Bolt\n20 Lava Spike\n"  # a second block of 40 cards
    assert parse_decklist_text(lands_then_spells).main_count == 60


@pytest.mark.parametrize(
    "comment, options, question",
    [
        ("// Top 8, 2026-08-20", ["--format", "EDH"], "Quelles listes EDH jouent Opt ?"),
        ("// Top 8, 2026-08-20", ["--format", "Moderne"], "Quels decks Modern jouent Opt ?"),
        ("// Standard Brawl, Arena ladder, 2026-08-20", [], "Les decks de Standard Brawl avec Opt ?"),
        ("// Duel Commander league, 2026-08-20", [], "Quels decks en Duel Commander jouent Opt ?"),
    ],
)
def test_an_imported_list_is_found_by_a_question_naming_its_format_in_other_words(db, tmp_path, comment, options,
                                                                                  question):  # fmt: skip
    game = GameFactory(name="Magic", slug="magic", card_game="mtg")
    path = tmp_path / "top8.txt"
    path.write_text(f"{comment}\n1 Opt\n59 Island\n")
    call_command("import_decklists", "magic", str(path), *options)

    asked = decompose_with_rules(question).format
    hits = meta_hits(components.vector_store(), components.embedder(), game, question, asked)

    assert [hit.payload["deck_name"] for hit in hits] == ["top8"]
    assert Decklist.objects.get(game=game).format == asked


def test_the_format_guessed_from_comments_is_the_one_questions_name():
    assert guess_format(["// Standard Brawl, Arena ladder"]) == "standardbrawl"
    assert guess_format(["// Duel Commander league"]) == "duel"
    assert guess_format(["// EDH night at the shop"]) == "commander"
