"""A Commander deck the Oracle builds around a legendary creature is led by it: the card goes
to the commander section (one of the 100), every other card stays in its colour identity, and
the exports mark it; a list the LLM writes is read and judged the same way."""

import json

from games.card_lookup import resolve_mentions
from rag.deckbuilding import DeckRequest, build_deck
from rag.llm.base import NoLLM
from tests.card_fixtures import dominaria  # noqa: F401
from tests.rag.test_deckbuilding_build import ReplayedLLM, tools_for

QUESTION = "Construis-moi un deck Commander autour de mon commandant."


def build(game, llm, words_in="fr", names=("Naban, Dean of Iteration",)):
    request = DeckRequest(game="mtg", question=QUESTION, fresh=resolve_mentions(game, list(names)), words_in=words_in)
    return build_deck(request, tools_for(game, llm), lambda event, data: None)


def test_the_offline_commander_deck_is_led_by_its_legendary_anchor(dominaria):
    result = build(dominaria, NoLLM())
    identities = {name: card["card_mtg_color_identity"] for name, card in _catalog(dominaria, result).items()}

    assert result.spec.format == "commander"
    assert result.deck.sections["commander"] == [(1, "Naban, Dean of Iteration")]
    assert all(name != "Naban, Dean of Iteration" for _, name in result.deck.sections["main"])
    assert result.verdict.totals["main"] == 100, result.verdict.issues
    assert all(set(identity) <= {"U"} for identity in identities.values())
    assert "### Commandant (1)\n- 1× [[card:Naban, Dean of Iteration]]" in result.text
    assert result.exports["arena"].startswith("Commander\n1 Naban, Dean of Iteration (DAR) 58\n\nDeck\n")
    assert not any("commandant" in issue.lower() for issue in result.verdict.issues + result.verdict.warnings)


def test_a_commander_list_the_llm_writes_is_judged_by_its_commanders_identity(dominaria):
    spec = json.dumps({"game": "mtg", "format": "commander", "colors": ["U"], "main": 100, "sideboard": 0, "max_copies": 1})
    listed = "### Commandant (1)\n- 1× [[card:Naban, Dean of Iteration]]\n### Sorts (2)\n- 1× [[card:Opt]]\n- 1× [[card:Shivan Fire]]\n"
    result = build(dominaria, ReplayedLLM(spec, [listed] * 3), words_in="en")

    assert result.deck.sections["commander"] == [(1, "Naban, Dean of Iteration")]
    assert "Shivan Fire is outside the commander's colour identity (blue): red." in result.verdict.issues


def test_the_commanders_identity_is_among_the_issues_the_llm_is_asked_again_with(dominaria):
    spec = json.dumps({"game": "mtg", "format": "commander", "colors": ["U"], "main": 100, "sideboard": 0, "max_copies": 1})
    listed = "### Commandant (1)\n- 1× [[card:Naban, Dean of Iteration]]\n### Sorts (1)\n- 1× [[card:Shivan Fire]]\n"
    llm = ReplayedLLM(spec, [listed] * 3)
    build(dominaria, llm)

    retry_prompt = llm.prompts[1][1]
    assert "Shivan Fire sort de l'identité couleur du commandant (bleu) : rouge." in retry_prompt


def test_without_a_leading_anchor_the_pool_gives_the_commander_and_its_identity(dominaria):
    result = build(dominaria, NoLLM(), names=())
    leader = result.deck.sections["commander"][0][1]
    identity = set(_catalog(dominaria, result)[leader]["card_mtg_color_identity"])

    assert result.spec.commander == leader and set(result.spec.colors) == identity
    assert not any("commander" in w.lower() or "commandant" in w.lower() for w in result.verdict.warnings)
    assert not any("identity" in issue for issue in result.verdict.issues), result.verdict.issues


def test_a_colourless_commander_gets_a_colourless_deck(dominaria):
    result = build(dominaria, NoLLM(), names=("Traxos, Scourge of Kroog",))
    cards = _catalog(dominaria, result)

    assert result.deck.sections["commander"] == [(1, "Traxos, Scourge of Kroog")] and result.spec.colors == []
    assert all(card["card_mtg_color_identity"] == [] for card in cards.values())
    assert not any("identity" in issue for issue in result.verdict.issues), result.verdict.issues


def _catalog(game, result):
    names = [name for section in ("main", "commander") for _, name in result.deck.sections.get(section, [])]
    return {card["card_name"]: card for card in resolve_mentions(game, names)}


def test_the_commander_chosen_holds_every_mandatory_cards_identity(dominaria):
    """Naban (blue) and Squee (red) asked for: neither can lead the other's colour, a blue-red
    legend of the pool does, and every card and basic stays in its identity."""
    result = build(dominaria, NoLLM(), names=("Naban, Dean of Iteration", "Squee, the Immortal"))

    assert set(result.spec.colors) == {"U", "R"}
    assert result.deck.sections["commander"][0][1] not in ("Naban, Dean of Iteration", "Squee, the Immortal")
    assert not any("identity" in issue for issue in result.verdict.issues), result.verdict.issues


def test_an_llm_list_without_the_commander_chosen_is_asked_again(dominaria):
    spec = json.dumps({"game": "mtg", "format": "commander", "colors": ["U"], "main": 100, "sideboard": 0, "max_copies": 1})
    llm = ReplayedLLM(spec, ["### Sorts (1)\n- 1× [[card:Opt]]\n"] * 3)
    result = build(dominaria, llm)

    assert "Le commandant Naban, Dean of Iteration manque : une section « ### Commandant (1) » avec sa carte." in llm.prompts[1][1]
    assert "Commandant : Naban, Dean of Iteration, sous « ### Commandant (1) »" in llm.prompts[0][1]
    assert result.attempts == 3 and not result.verdict.valid


def test_without_mandatory_cards_the_commander_has_the_colours_asked_for(dominaria):
    request = DeckRequest(game="mtg", question="Construis un deck Commander blanc bleu noir.")
    result = build_deck(request, tools_for(dominaria, NoLLM()), lambda event, data: None)
    leader = result.deck.sections["commander"][0][1]

    assert result.spec.colors and set(result.spec.colors) <= {"W", "U", "B"}, (leader, result.spec.colors)
