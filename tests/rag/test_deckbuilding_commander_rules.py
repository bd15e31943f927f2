"""Who may lead a Commander deck, and which two may lead it together (Comprehensive Rules 903,
702.124 Partner, « Choose a Background »), on cards written as the catalog holds them."""

from rag.deckbuilding.commander import can_lead, pair_allowed
from rag.deckbuilding.parse_validate import parse_deck_response


def card(name, type_line, text=""):
    return {"card_name": name, "type": type_line, "oracle_text": text}


THRASIOS = card("Thrasios, Triton Hero", "Legendary Creature — Merfolk Wizard", "{4}: Scry 1… Partner")
TYMNA = card("Tymna the Weaver", "Legendary Creature — Human Cleric", "Lifelink\nPartner (You can have two commanders…)")
WILSON = card("Wilson, Refined Grizzly", "Legendary Creature — Bear Warrior", "Choose a Background (You can have a Background…)")
GIANTS = card("Raised by Giants", "Legendary Enchantment — Background", "Commander creatures you own have base power…")
GRIST = card("Grist, the Hunger Tide", "Legendary Planeswalker — Grist",
             "As long as Grist, the Hunger Tide isn't on the battlefield, it's a 1/1 Insect creature in addition to its other types.")
NABAN = card("Naban, Dean of Iteration", "Legendary Creature — Human Wizard")


PIR = card("Pir, Imaginative Rascal", "Legendary Creature — Human", "Partner with Toothy, Imaginary Friend (When this…)")
TOOTHY = card("Toothy, Imaginary Friend", "Legendary Creature — Illusion", "Partner with Pir, Imaginative Rascal (When…)")


def test_partners_and_a_background_lead_together_two_legends_do_not():
    survivors = [card(n, "Legendary Creature — Human", "Partner—Survivors (You can have two commanders if both have this ability.)")
                 for n in ("Hope", "Will")]  # fmt: skip
    assert pair_allowed(THRASIOS, TYMNA) and pair_allowed(PIR, TOOTHY) and pair_allowed(*survivors)
    assert not pair_allowed(survivors[0], THRASIOS)
    assert not pair_allowed(PIR, THRASIOS)  # « Partner with » pairs with its one card only
    assert pair_allowed(WILSON, GIANTS) and pair_allowed(GIANTS, WILSON)
    assert not pair_allowed(NABAN, THRASIOS)


def test_a_background_leads_only_beside_a_commander_that_chooses_one():
    assert can_lead(GIANTS, "commander", beside=[WILSON])
    assert not can_lead(GIANTS, "commander", beside=[NABAN]) and not can_lead(GIANTS, "commander")


def test_a_legend_that_is_a_creature_off_the_battlefield_leads():
    assert can_lead(GRIST, "commander")
    assert not can_lead(card("Karn, Scion of Urza", "Legendary Planeswalker — Karn"), "commander")


def test_only_a_heading_that_is_the_word_itself_holds_the_commander():
    deck = parse_deck_response("### Commandant (1)\n- 1× [[card:Naban, Dean of Iteration]]\n"
                               "### Synergies avec le commandant (2)\n- 1× [[card:Opt]]\n- 1× [[card:Syncopate]]\n", "mtg")  # fmt: skip

    assert deck.sections["commander"] == [(1, "Naban, Dean of Iteration")]
    assert deck.sections["main"] == [(1, "Opt"), (1, "Syncopate")]


def test_a_commander_heading_may_carry_an_article_a_count_or_the_name():
    for heading in ("Le commandant (1 carte)", "👑 Commandant (1)", "Commander : Naban"):
        deck = parse_deck_response(f"### {heading}\n- 1× [[card:Naban, Dean of Iteration]]\n", "mtg")
        assert deck.sections.get("commander") == [(1, "Naban, Dean of Iteration")], heading


def test_a_heading_of_main_deck_cards_after_the_word_is_not_the_commander():
    for heading in ("Commander: Support cards (10)", "Le commandant : ses soutiens (10)", "Commander: ramp"):
        deck = parse_deck_response(f"### {heading}\n- 1× [[card:Opt]]\n", "mtg")
        assert "commander" not in deck.sections, heading


def with_identity(card_dict, identity):
    return {**card_dict, "card_mtg_color_identity": identity}


def test_two_mandatory_partners_lead_together_when_neither_holds_the_others_colours():
    from rag.deckbuilding.commander import leaders_of
    from rag.deckbuilding.spec import default_spec

    spec = default_spec("mtg", format="commander")
    thrasios, tymna = with_identity(THRASIOS, ["G", "U"]), with_identity(TYMNA, ["W", "B"])
    naban, squee = with_identity(NABAN, ["U"]), with_identity(card("Squee", "Legendary Creature — Goblin"), ["R"])
    wilson, giants = with_identity(WILSON, ["G"]), with_identity(GIANTS, ["G"])

    assert leaders_of([naban, thrasios, tymna], spec) == [thrasios, tymna]
    assert leaders_of([naban, thrasios], spec) == [thrasios]  # one holds both: it leads alone
    assert leaders_of([naban, thrasios, with_identity(TYMNA, ["U"])], spec)[1]["card_name"] == TYMNA["card_name"]
    assert leaders_of([naban, squee], spec) == []  # two legends are no pair: the pool's legend leads
    assert leaders_of([giants, wilson], spec) == [giants, wilson]  # a Background beside its chooser
    assert leaders_of([thrasios, tymna], default_spec("mtg", format="modern")) == []


def test_the_offline_deck_of_a_pair_holds_both_commanders_and_their_colours_only():
    from rag.deckbuilding.offline import build_offline_deck
    from rag.deckbuilding.spec import default_spec

    spec = default_spec("mtg", format="commander").model_copy(
        update={"commander": THRASIOS["card_name"], "partner": TYMNA["card_name"], "colors": ["W", "U", "B", "G"]})
    anchors = [with_identity(THRASIOS, ["G", "U"]), with_identity(TYMNA, ["W", "B"])]
    creatures = [with_identity(card(f"Bear {n}", "Creature — Bear"), ["G"]) | {"cost": "{1}{G}"} for n in range(100)]

    deck = build_offline_deck(spec, {"creatures": creatures}, anchors)

    assert deck.sections["commander"] == [(1, THRASIOS["card_name"]), (1, TYMNA["card_name"])]
    main = [name for _, name in deck.sections["main"]]
    assert THRASIOS["card_name"] not in main and TYMNA["card_name"] not in main
    assert sum(q for q, _ in deck.sections["main"]) + 2 == spec.main


def test_a_pairs_deck_takes_the_colours_of_both_and_no_other():
    from rag.deckbuilding.build import _led
    from rag.deckbuilding.pool import is_eligible
    from rag.deckbuilding.spec import default_spec

    spec = _led(default_spec("mtg", format="commander"), [with_identity(THRASIOS, ["G", "U"]), with_identity(TYMNA, ["W", "B"])])

    assert (spec.commander, spec.partner, spec.colors) == (THRASIOS["card_name"], TYMNA["card_name"], ["W", "U", "B", "G"])
    assert is_eligible(with_identity(card("Swan Song", "Instant"), ["U"]), spec)
    assert is_eligible(with_identity(card("Vindicate", "Sorcery"), ["W", "B"]), spec)
    assert not is_eligible(with_identity(card("Lightning Bolt", "Instant"), ["R"]), spec)


def test_the_prompt_names_both_commanders_of_a_pair():
    from rag.deckbuilding.prompt import _spec_block
    from rag.deckbuilding.spec import default_spec

    spec = default_spec("mtg", format="commander").model_copy(update={"commander": "Thrasios, Triton Hero", "partner": "Tymna the Weaver"})
    assert "Commandants (une paire) : Thrasios, Triton Hero et Tymna the Weaver, sous « ### Commandant (2) »" in _spec_block(spec)


def test_a_list_without_the_pair_chosen_misses_both_commanders():
    from rag.deckbuilding.commander import commander_verdict
    from rag.deckbuilding.parse_validate import ParsedDeck
    from rag.deckbuilding.spec import default_spec

    spec = default_spec("mtg", format="commander").model_copy(update={"commander": "Thrasios, Triton Hero", "partner": "Tymna the Weaver"})
    deck = ParsedDeck()
    deck.add("main", 1, "Opt")

    issues, _ = commander_verdict(deck, spec, {}, "en")
    assert issues == ["The commander Thrasios, Triton Hero is missing: a “### Commandant (2)” section with its card.",
                      "The commander Tymna the Weaver is missing: a “### Commandant (2)” section with its card."]


def test_a_list_led_by_one_of_the_pair_or_by_another_misses_the_commanders_chosen():
    from rag.deckbuilding.commander import commander_verdict
    from rag.deckbuilding.parse_validate import ParsedDeck
    from rag.deckbuilding.spec import default_spec

    spec = default_spec("mtg", format="commander").model_copy(update={"commander": THRASIOS["card_name"], "partner": TYMNA["card_name"]})
    cards = {c["card_name"]: c for c in (with_identity(THRASIOS, ["G", "U"]), with_identity(TYMNA, ["W", "B"]), with_identity(NABAN, ["U"]))}
    half = ParsedDeck()
    half.add("commander", 1, THRASIOS["card_name"])
    half.add("main", 1, TYMNA["card_name"])
    other = ParsedDeck()
    other.add("commander", 1, NABAN["card_name"])

    half_issues, _ = commander_verdict(half, spec, cards, "en")
    other_issues, _ = commander_verdict(other, spec, cards, "en")
    missing = "The commander {} is missing: a “### Commandant (2)” section with its card."
    assert half_issues[0] == missing.format(TYMNA["card_name"])
    assert other_issues[:2] == [missing.format(THRASIOS["card_name"]), missing.format(TYMNA["card_name"])]
