"""The words a game's parallel card texts teach (rag.terms.aligned_words): a French word and
an English word found together on the same cards, card after card."""

from rag.terms import GameTerms, aligned_words, expand_question, learn_from_cards

CARDS = [
    ("Return target creature card from your graveyard to your hand.",
     "Renvoyez une carte de créature ciblée depuis votre cimetière dans votre main."),
    ("Each player mills three cards, then puts a card from their graveyard on top of their library.",
     "Chaque joueur meule trois cartes, puis met une carte de son cimetière au-dessus de sa bibliothèque."),
    ("Exile target card from a graveyard. Draw a card.",
     "Exilez une carte ciblée d'un cimetière. Piochez une carte."),
    ("Draw two cards, then discard a card.", "Piochez deux cartes, puis défaussez-vous d'une carte."),
]


def test_a_word_seen_with_its_translation_card_after_card_is_learnt():
    pairs = {(p.french, p.english) for p in aligned_words(CARDS)}

    assert ("cimetiere", "graveyard") in pairs
    assert not any(french == "main" for french, _ in pairs)  # one card is chance, not a translation


def test_learnt_words_carry_a_french_question_to_the_english_rules():
    terms = GameTerms(learn_from_cards(CARDS))

    assert "graveyard" in expand_question("Que devient un sort dans le cimetière ?", terms, "fr", {"en"})
