"""A game's French ↔ English terms, learnt from the parallel texts of its card catalog.

The fixture is MTGJSON-shaped (a set file, cards with `foreignData`); its card texts are
copied from MTGJSON's Dominaria set file (shared/eval-corpus/mtg/mtgjson-v4_DOM_dominaria.json).
"""

import json

from games.card_import import import_cards
from games.models import GameTerm
from games.terms import game_terms, learn_booklet_terms, learn_card_terms
from rag.terms import expand_question
from tests.factories import ChunkFactory, ExtensionFactory, GameFactory

CARDS = [
    ("Arvad the Cursed", "Deathtouch, lifelink\nOther legendary creatures you control get +2/+2.",
     "Arvad le maudit", "Contact mortel, lien de vie\nLes autres créatures légendaires que vous contrôlez gagnent +2/+2."),
    ("Cold-Water Snapper", "Hexproof (This creature can't be the target of spells or abilities your opponents control.)",
     "Claqueur des eaux froides",
     "Défense talismanique (Cette créature ne peut pas être la cible de sorts ou de capacités que vos adversaires contrôlent.)"),
    ("Lich's Mastery", "Hexproof\nYou can't lose the game.", "Maîtrise de la liche",
     "Défense talismanique\nVous ne pouvez pas perdre la partie."),
    ("Serra Angel", "Flying, vigilance", "Ange de Serra", "Vol, vigilance"),
    ("Feral Abomination", "Deathtouch (Any amount of damage this deals to a creature is enough to destroy it.)",
     "Abomination sauvage", "Contact mortel"),
    # two lines in English, one in French: nothing can be aligned
    ("Uneven", "Trample\nWhenever this attacks, draw a card.", "Inégal", "Piétinement. Quand il attaque, piochez une carte."),
]


def mtgjson_file(tmp_path):
    cards = [
        {"name": name, "text": text, "type": "Creature — Test", "manaCost": "{1}", "types": ["Creature"],
         "foreignData": [{"language": "German", "name": "X", "text": "Fluchsicher"},
                         {"language": "French", "name": name_fr, "text": text_fr}]}
        for name, text, name_fr, text_fr in CARDS
    ]
    path = tmp_path / "DOM.json"
    path.write_text(json.dumps({"data": {"code": "DOM", "name": "Dominaria", "cards": cards}}), encoding="utf-8")
    return path


def test_importing_a_catalog_learns_the_games_french_keywords(db, tmp_path):
    game = GameFactory(name="Magic", slug="magic", card_game="mtg")

    report = import_cards(game, mtgjson_file(tmp_path))

    pairs = set(GameTerm.objects.filter(game=game).values_list("french", "english"))
    assert {("defense talismanique", "hexproof"), ("contact mortel", "deathtouch"), ("lien de vie", "lifelink"),
            ("vol", "flying")} <= pairs
    assert report.terms == len(pairs)
    assert not any(english == "trample" for _, english in pairs)  # its texts do not line up
    assert ("vigilance", "vigilance") not in pairs  # the same word needs no translation
    assert GameTerm.objects.get(game=game, english="hexproof").support == 2


def test_the_game_terms_put_the_english_keyword_in_a_french_question(db, tmp_path):
    game = GameFactory(name="Magic", slug="magic", card_game="mtg")
    import_cards(game, mtgjson_file(tmp_path))

    terms = game_terms(game)

    assert expand_question("Que fait la défense talismanique ?", terms, "fr", {"en"}) == (
        "Que fait la défense talismanique ? (hexproof)"
    )
    assert expand_question("Que fait la défense talismanique ?", terms, "fr", {"fr"}).endswith("?")
    assert expand_question("What does deathtouch do?", terms, "en", {"fr"}).endswith("(contact mortel)")


def test_terms_typed_by_hand_survive_a_new_import(db, tmp_path):
    game = GameFactory(name="Magic", slug="magic", card_game="mtg")
    GameTerm.objects.create(game=game, french="défense magique", english="hexproof", source=GameTerm.Source.MANUAL)
    import_cards(game, mtgjson_file(tmp_path))

    learn_card_terms(game)

    assert list(GameTerm.objects.filter(game=game, english="hexproof").values_list("french", flat=True)) == ["défense magique"]
    assert game_terms(GameFactory(name="Catan", slug="catan")) is None


FRENCH_OUTLINE = ["1. Mise en place", "2. Tour de jeu", "2.1 La pioche", "2.2 La défausse", "3. Fin de partie",
                  "3.1 Le décompte"]
ENGLISH_OUTLINE = ["1. Setup", "2. Game turn", "2.1 The draw pile", "2.2 The discard pile", "3. End of the game",
                   "3.1 Scoring"]


def booklet_with_outline(game, outline, extension=None):
    for ordinal, heading in enumerate(outline):
        ChunkFactory(game=game, extension=extension, ordinal=ordinal, hierarchy_path=f"Règles > {heading}")


def test_a_booklet_and_its_translation_teach_their_headings(db):
    game = GameFactory(name="Sky Race", slug="sky-race", language="fr")
    booklet_with_outline(game, FRENCH_OUTLINE)
    translation = ExtensionFactory(game=game, name="Sky Race (English)", kind="faq", language="en")
    booklet_with_outline(game, ENGLISH_OUTLINE, translation)

    assert learn_booklet_terms(game) == 6
    pairs = set(GameTerm.objects.filter(game=game, source=GameTerm.Source.BOOKLETS).values_list("french", "english"))
    assert ("pioche", "draw pile") in pairs and ("decompte", "scoring") in pairs
    assert expand_question("Quand mélange-t-on la défausse ?", game_terms(game), "fr", {"en"}).endswith("(discard pile)")


def test_an_expansion_reusing_a_few_section_numbers_is_not_a_translation(db):
    game = GameFactory(name="Sky Race", slug="sky-race", language="fr")
    booklet_with_outline(game, FRENCH_OUTLINE)
    expansion = ExtensionFactory(game=game, name="Storm", language="en")
    booklet_with_outline(game, ["2.1 Lightning rods", "3.1 Storm scoring"], expansion)

    assert learn_booklet_terms(game) == 0
    assert game_terms(game) is None
