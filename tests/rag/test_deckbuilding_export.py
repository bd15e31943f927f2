from xml.etree import ElementTree

from rag.deckbuilding.export import to_arena, to_mtgo_dek, to_text
from rag.deckbuilding.parse_validate import parse_deck_response

DECK = parse_deck_response(
    "### Créatures (8)\n4× [[card:Llanowar Elves]]\n4× [[card:Delver of Secrets // Insectile Aberration]]\n"
    "### Sideboard (2)\n2× [[card:Syncopate]]\n"
)
CARDS = {"Llanowar Elves": {"set": "dom", "attributes": {"collector_number": "168", "mtgo_id": 67860}}}


def test_text_export_lists_main_then_sideboard():
    assert to_text(DECK) == (
        "4 Llanowar Elves\n4 Delver of Secrets // Insectile Aberration\n\nSideboard\n2 Syncopate\n"
    )


def test_arena_export_uses_front_faces_and_arenas_set_codes_and_numbers_when_known():
    assert to_arena(DECK, CARDS) == (
        "Deck\n4 Llanowar Elves (DAR) 168\n4 Delver of Secrets\n\nSideboard\n2 Syncopate\n"
    )


def test_mtgo_dek_is_xml_with_quantities_sideboard_flags_and_ids():
    root = ElementTree.fromstring(to_mtgo_dek(DECK, CARDS))
    rows = [(c.get("Name"), c.get("Quantity"), c.get("Sideboard"), c.get("CatID")) for c in root.iter("Cards")]
    assert rows == [
        ("Llanowar Elves", "4", "false", "67860"),
        ("Delver of Secrets", "4", "false", "0"),
        ("Syncopate", "2", "true", "0"),
    ]


def test_text_export_keeps_every_section_of_a_fab_list():
    fab = parse_deck_response("### Héros\n1× [[card:Katsu, the Wanderer]]\n### Équipement\n1× [[card:Mask of Momentum]]\n"
                              "### Actions d'attaque\n3× [[card:Head Jab (red)]]\n", "fab")  # fmt: skip
    assert to_text(fab) == "3 Head Jab (red)\n\nHero\n1 Katsu, the Wanderer\n\nEquipment\n1 Mask of Momentum\n"
