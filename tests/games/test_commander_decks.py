"""A pasted Commander or Brawl list is checked by its own rules: the commander counts in the
deck, may lead it, and sets the colour identity every other card must stay in; the exports
mark the commander as Arena and MTGO expect it (and name split cards and sets their way)."""

import re
from xml.etree import ElementTree

from games.card_import import import_cards
from games.deck_requests import check_decklist
from games.decklists import parse_decklist_text
from tests.card_fixtures import SCRYFALL_SAMPLE, magic_catalog  # noqa: F401

# Arena's export of a Commander deck (its shape: « Commander », the card, a blank line,
# « Deck »), with Dominaria cards: Naban is a mono-blue legendary creature.
NABAN = "Commander\n1 Naban, Dean of Iteration (DOM) 58\n\nDeck\n1 Opt (DOM) 60\n1 Syncopate (DOM) 67\n97 Island (DOM) 254\n"


def issues_of(game, text, format="commander", lang="en"):
    from django.utils import translation

    with translation.override(lang):
        return check_decklist(game, text, format=format).verdict


def test_the_arena_commander_block_is_the_commander_and_counts_in_the_hundred_cards(magic_catalog):
    parsed = parse_decklist_text(NABAN)
    verdict = issues_of(magic_catalog, NABAN)

    assert parsed.sections["commander"] == [[1, "Naban, Dean of Iteration"]]
    assert verdict.valid and verdict.issues == [] and verdict.warnings == []
    assert verdict.totals["main"] == 100


def test_a_card_outside_the_commanders_colour_identity_is_an_issue(magic_catalog):
    red = NABAN.replace("97 Island (DOM) 254", "95 Island (DOM) 254\n1 Shivan Fire\n1 Forêt")
    verdict = issues_of(magic_catalog, red)

    assert not verdict.valid
    assert verdict.issues == [
        "Shivan Fire is outside the commander's colour identity (blue): red.",
        "Forêt is outside the commander's colour identity (blue): green.",
    ]
    assert issues_of(magic_catalog, red, lang="fr").issues[0] == (
        "Shivan Fire sort de l'identité couleur du commandant (bleu) : rouge.")


def test_a_commander_must_be_able_to_lead_and_counts_against_the_singleton_rule(magic_catalog):
    elves = NABAN.replace("Naban, Dean of Iteration (DOM) 58", "Llanowar Elves").replace("1 Opt (DOM) 60", "1 Naban, Dean of Iteration")
    verdict = issues_of(magic_catalog, elves)
    twice = issues_of(magic_catalog, NABAN.replace("1 Opt (DOM) 60", "1 Naban, Dean of Iteration"))

    assert "Llanowar Elves cannot be a commander in commander." in verdict.issues
    assert "Naban, Dean of Iteration: 2 copies, the maximum is 1." in twice.issues


def test_a_planeswalker_leads_a_brawl_deck_not_a_commander_one(magic_catalog):
    chandra = "Commander\n1 Chandra, Bold Pyromancer\n\nDeck\n1 Shivan Fire\n98 Mountain\n"  # Brawl: 100 cards

    assert issues_of(magic_catalog, chandra, format="brawl").issues == []
    assert "Chandra, Bold Pyromancer cannot be a commander in commander." in issues_of(magic_catalog, chandra).issues


def test_a_commander_list_without_its_commander_says_the_identity_is_not_checked(magic_catalog):
    verdict = issues_of(magic_catalog, "Deck\n1 Shivan Fire\n1 Opt\n98 Island\n")

    assert verdict.valid
    assert verdict.warnings == ["The commander is not given (a “Commander” section with its card): "
                                "the colour identity is not checked."]  # fmt: skip


def test_moxfields_one_line_commander_is_read(magic_catalog):
    parsed = parse_decklist_text("Commander: Naban, Dean of Iteration\n\n1 Opt\n98 Island\n")

    assert parsed.sections == {"commander": [[1, "Naban, Dean of Iteration"]], "main": [[1, "Opt"], [98, "Island"]]}


def test_the_exports_mark_the_commander_as_arena_and_mtgo_read_it(magic_catalog):
    exports = check_decklist(magic_catalog, NABAN, format="commander").exports
    dek = ElementTree.fromstring(exports["mtgo_dek"])

    # Arena knows Dominaria as DAR
    assert exports["arena"].startswith("Commander\n1 Naban, Dean of Iteration (DAR) 58\n\nDeck\n1 Opt (DAR) 60\n")
    assert [(c.get("Name"), c.get("Sideboard")) for c in dek.iter("Cards")][-1] == ("Naban, Dean of Iteration", "true")
    assert parse_decklist_text(exports["text"]).sections == parse_decklist_text(NABAN).sections


def test_a_split_card_is_named_whole_on_arena_and_with_a_slash_on_mtgo(magic_catalog):
    import_cards(magic_catalog, SCRYFALL_SAMPLE)  # Boom // Bust, a split card of Planar Chaos

    checked = check_decklist(magic_catalog, "4 Boom/Bust\n56 Mountain\n", format="legacy")
    names = [c.get("Name") for c in ElementTree.fromstring(checked.exports["mtgo_dek"]).iter("Cards")]

    assert checked.verdict.warnings == []  # MTGO's spelling is a name the catalog knows
    assert re.search(r"^4 Boom // Bust \(PLC\) 112$", checked.exports["arena"], re.M)
    assert names == ["Boom/Bust", "Mountain"]


def test_mtgos_commander_is_the_sideboards_card(magic_catalog):
    """MTGO's text export has no Commander heading: the main deck, a blank line, the commander."""
    mtgo = "1 Opt\n1 Shivan Fire\n97 Island\n\n1 Naban, Dean of Iteration\n"
    checked = check_decklist(magic_catalog, mtgo, format="commander")

    assert checked.sections["commander"] == [(1, "Naban, Dean of Iteration")] and "sideboard" not in checked.sections
    assert checked.verdict.totals["main"] == 100
    assert [issue for issue in checked.verdict.issues if "Shivan Fire" in issue]


def test_a_list_with_a_commander_section_and_no_format_is_a_commander_list(magic_catalog):
    checked = check_decklist(magic_catalog, NABAN)

    assert checked.spec.format == "commander" and checked.verdict.valid, checked.verdict.issues


def test_two_commanders_lead_together_only_as_a_pair(magic_catalog):
    pair = NABAN.replace("Naban, Dean of Iteration (DOM) 58", "Naban, Dean of Iteration\n1 Lyra Dawnbringer").replace("97 Island", "96 Island")

    assert ("Naban, Dean of Iteration and Lyra Dawnbringer cannot be commanders together (neither Partner, "
            "Background nor another pair).") in issues_of(magic_catalog, pair).issues  # fmt: skip


def test_a_colourless_brawl_commander_allows_basics_of_one_type(magic_catalog):
    karn = "Commander\n1 Karn, Scion of Urza\n\nDeck\n99 Island\n"

    assert issues_of(magic_catalog, karn, format="brawl").issues == []
    mixed = issues_of(magic_catalog, karn.replace("99 Island", "50 Island\n49 Mountain"), format="brawl").issues
    assert mixed == ["A colourless Brawl commander allows basic lands of one type only, not: island, mountain."]
    assert "Island is outside the commander's colour identity (colourless): blue." in issues_of(magic_catalog, karn.replace(
        "Karn, Scion of Urza", "Traxos, Scourge of Kroog")).issues  # in Commander the exception does not hold


def test_a_commander_section_checked_for_a_format_without_one_is_main_deck(magic_catalog):
    """An Arena Commander export checked for Standard: its commander is one more main-deck card,
    and the MTGO export keeps it in the main deck, not in the sideboard."""
    checked = check_decklist(magic_catalog, NABAN, format="standard")
    dek = ElementTree.fromstring(checked.exports["mtgo_dek"])

    assert "commander" not in checked.sections and checked.verdict.totals["main"] == 100
    assert {c.get("Sideboard") for c in dek.iter("Cards")} == {"false"}
