from rag.cards import (
    FRESH_BLOCK_TITLE,
    STICKY_BLOCK_TITLE,
    auto_wrap_card_mentions,
    build_wrap_aliases,
    is_basic_land,
    mention_blocks,
    render_full_card,
    render_short_card,
    update_sticky,
)

DRAKE = {
    "card_name": "Academy Drake",
    "card_name_fr": "Drakôn de l'Académie",
    "cost": "{2}{U}",
    "type": "Creature — Drake",
    "oracle_text": "Kicker {4} (You may pay an additional {4} as you cast this spell.)\nFlying\n"
    "If Academy Drake was kicked, it enters the battlefield with two +1/+1 counters on it.",
    "card_mtg_legal_formats": ["standard", "modern"],
    "card_mtg_color_identity": ["U"],
    "set": "dom",
    "set_name": "Dominaria",
    "attributes": {"power": "2", "toughness": "2"},
}
LONG = {**DRAKE, "card_name": "Wordy", "card_name_fr": "", "oracle_text": "word " * 300}


def test_full_card_has_names_cost_text_legality_and_set():
    text = render_full_card(DRAKE)
    assert text.startswith("[CARD] Academy Drake (Drakôn de l'Académie) {2}{U} — Creature — Drake")
    assert "two +1/+1 counters" in text and "Légal en : standard, modern" in text
    assert "2/2" in text and "Dominaria (DOM)" in text


def test_short_card_stays_near_a_hundred_tokens():
    short = render_short_card(LONG)
    assert len(short) <= 400 and short.endswith("…")
    assert render_short_card(DRAKE).startswith("Academy Drake (Drakôn de l'Académie) {2}{U} — Creature — Drake : Kicker")


def test_mention_blocks_full_for_this_turn_and_short_for_earlier_turns():
    block = mention_blocks([DRAKE], [LONG, DRAKE])
    fresh, sticky = block.split(STICKY_BLOCK_TITLE)
    assert fresh.startswith(FRESH_BLOCK_TITLE) and "Légal en" in fresh
    assert "Wordy" in sticky and "Academy Drake" not in sticky  # already shown in full


def test_sticky_mentions_are_a_fifo_of_twenty_or_eighty_when_a_deck_is_discussed():
    earlier = [f"Card {i}" for i in range(30)]
    assert update_sticky(earlier, ["New"]) == [f"Card {i}" for i in range(11, 30)] + ["New"]
    assert len(update_sticky(earlier * 3 + [f"X{i}" for i in range(90)], [], deck_discussed=True)) == 80
    assert update_sticky(["A", "B", "C"], ["a"]) == ["B", "C", "a"]


def test_card_names_in_an_answer_are_wrapped_once_french_names_included():
    aliases = build_wrap_aliases([DRAKE, {"card_name": "Delver of Secrets // Insectile Aberration"}])
    text = "Jouez Academy Drake puis le Drakôn de l'Académie, ou [[card:Academy Drake]] et Delver of Secrets."
    wrapped = auto_wrap_card_mentions(text, aliases)
    assert wrapped == (
        "Jouez [[card:Academy Drake]] puis le [[card:Academy Drake]], ou [[card:Academy Drake]] "
        "et [[card:Delver of Secrets // Insectile Aberration]]."
    )


def test_basic_lands_in_french_and_english_are_recognised():
    assert all(is_basic_land(n) for n in ["Forest", "Forêt", "Île", "Snow-Covered Island", "Wastes", "marais",
                                          "Forêt enneigée", "Marais enneigé", "Île enneigée"])  # French puts « enneigé » after
    assert not is_basic_land("Llanowar Elves")


def test_citations_keep_their_quotes_verbatim():
    from rag.cards import wrap_card_names

    answer = 'Academy Drake vole [Magic, p.3 : "Academy Drake has flying"] donc oui.'
    assert wrap_card_names(answer, [DRAKE]) == (
        '[[card:Academy Drake]] vole [Magic, p.3 : "Academy Drake has flying"] donc oui.'
    )


def test_sticky_cap_grows_to_eighty_while_a_deck_is_discussed():
    from rag.cards import capped_sticky

    names = [f"Card {i}" for i in range(100)]
    assert len(capped_sticky(names, "Et contre les fliers ?")) == 20
    assert len(capped_sticky(names, "Je veux améliorer mon deck")) == 80
    history = [{"question": "Une liste ?", "answer": "### Créatures (20)\n- 4× [[card:Llanowar Elves]]"}]
    assert len(capped_sticky(names, "Et contre les fliers ?", history)) == 80
    assert capped_sticky(names, "?")[-1] == "Card 99"
