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


def build(game, llm, words_in="fr"):
    naban = resolve_mentions(game, ["Naban, Dean of Iteration"])
    request = DeckRequest(game="mtg", question=QUESTION, fresh=naban, words_in=words_in)
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


def _catalog(game, result):
    names = [name for section in ("main", "commander") for _, name in result.deck.sections.get(section, [])]
    return {card["card_name"]: card for card in resolve_mentions(game, names)}
