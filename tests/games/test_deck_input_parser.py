"""The tournament-list parser keeps the lines it cannot read (no count first: « Opt »,
« four Opt », « -2 Opt ») for its caller to name, and reads the headings and notes of the
exports it supports (Arena, MTGO, Fabrary, Oracle's own) without leaving any line out."""

from games.decklists import parse_decklist_text
from tests.card_fixtures import DECKLISTS
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
    assert parse_decklist_text(arena).sections == {"main": [[1, "Tetsuko Umezawa, Fugitive"], [59, "Island"]]}
    assert parse_decklist_text(fabrary).main_count == 9
