"""The tournament-list parser keeps the lines it cannot read (no count first: « Opt »,
« four Opt », « -2 Opt ») for its caller to name, and reads the headings and notes of the
exports it supports (Arena, MTGO, Fabrary, Oracle's own) without leaving any line out."""

from games.deck_requests import check_decklist
from games.decklists import parse_decklist_text
from tests.card_fixtures import DECKLISTS, dominaria  # noqa: F401
from tests.games.test_cards_decklists import FABRARY_EXPORT

PASTED = "4 Opt\nShivan Fire\n-2 Academy Drake\nfour Llanowar Elves\n4 Shivan Fire"


def test_a_line_without_a_count_is_not_guessed_but_kept_as_written():
    parsed = parse_decklist_text(PASTED)

    assert parsed.sections == {"main": [[4, "Opt"], [4, "Shivan Fire"]]}
    assert parsed.unread == ["Shivan Fire", "-2 Academy Drake", "four Llanowar Elves"]


def test_the_exports_read_leave_no_line_unread():
    fabrary = FABRARY_EXPORT + "\nMade with ❤️ at the FaBrary\nSee the full deck @ https://fabrary.net/decks/01JZKYA2135MAN58K9VKKR4JYA\n"
    arena = "About\nName Mono Blue\n\nCommander\n1 Tetsuko Umezawa, Fugitive (DOM) 69\n\nDeck\n59 Island (DOM) 254\n"
    mtgo = "// Modern Challenge\n4 Opt\n56 Island\n\nSideboard:\n3 Negate\nSB: 2 Duress\n"

    for text in (fabrary, arena, mtgo, *(path.read_text() for path in DECKLISTS)):
        assert parse_decklist_text(text).unread == [], text[:40]
    assert parse_decklist_text(arena).sections == {"commander": [[1, "Tetsuko Umezawa, Fugitive"]], "main": [[59, "Island"]]}
    assert parse_decklist_text(fabrary).main_count == 9


# Arena's export of a deck with a companion (the shape of Arena's « Export » as public
# decklist parsers document it): the companion in its own block, and again in the sideboard.
ARENA_COMPANION = """Companion
1 Lurrus of the Dream-Den (IKO) 226

Deck
4 Opt (DOM) 60
56 Island (DOM) 254

Sideboard
1 Lurrus of the Dream-Den (IKO) 226
2 Negate (DOM) 61
"""


def test_an_arena_companion_is_outside_the_deck_and_its_sideboard():
    parsed = parse_decklist_text(ARENA_COMPANION)

    assert parsed.unread == [] and parsed.main_count == 60
    assert parsed.sections["companion"] == [[1, "Lurrus of the Dream-Den"]]
    assert parsed.sections["sideboard"] == [[1, "Lurrus of the Dream-Den"], [2, "Negate"]]


def test_a_checked_list_with_a_companion_is_legal_and_its_arena_export_keeps_the_block(dominaria):
    sideboard = "2 Negate (DOM) 61\n3 Wizard's Retort\n3 Unwind\n3 Broken Bond\n3 Befuddle\n"
    checked = check_decklist(dominaria, ARENA_COMPANION.replace("2 Negate (DOM) 61\n", sideboard), format="standard")

    assert checked.verdict.issues == [], checked.verdict.issues
    assert checked.exports["arena"].startswith("Companion\n1 Lurrus of the Dream-Den\n\nDeck\n4 Opt")
