"""Riftbound and Flesh and Blood decks from the sample catalogs (docs/cards.md), no LLM."""

import json

import pytest

from games.card_indexing import card_collection
from games.card_lookup import resolve_mentions
from games.models import Game
from rag.deckbuilding import DeckRequest, DeckTools, build_deck, default_spec
from rag.deckbuilding.pool import eligible_pool
from rag.deckbuilding.spec import parse_spec
from rag.llm.base import NoLLM
from runtime import components
from tests.card_fixtures import DATA, make_catalog  # noqa: F401


@pytest.fixture
def riftbound(db, card_embedder):
    return make_catalog("riftbound", Game.CardGame.RIFTBOUND, DATA / "riftbound_cards.csv", card_embedder)


@pytest.fixture
def fab(db, card_embedder):
    return make_catalog("fab", Game.CardGame.FAB, DATA / "fab_cards.json", card_embedder)


def tools(game):
    return DeckTools(store=components.vector_store(), embedder=components.embedder(), llm=NoLLM(),
                     card_collection=card_collection(game), meta_collection=f"meta_{game.slug}")  # fmt: skip


def test_riftbound_deck_has_12_runes_of_its_domains_and_3_battlefields(riftbound):
    anchors = resolve_mentions(riftbound, ["Flash Bomb", "Chemtech Enforcer"])
    result = build_deck(DeckRequest(game="riftbound", question="Un deck Riftbound Fury Chaos", fresh=anchors),
                        tools(riftbound), lambda *_: None)  # fmt: skip
    assert result.spec.domains == ["Chaos", "Fury"]
    assert dict((n, q) for q, n in result.deck.sections["runes"]) == {"Fury Rune": 6, "Chaos Rune": 6}
    assert sorted(n for _, n in result.deck.sections["battlefields"]) == ["Sunken Temple", "The Grand Plaza", "Zaun Warrens"]
    # Two playable cards at 3 copies cannot make 40: the verdict says so instead of inventing cards.
    assert not result.verdict.valid
    assert result.verdict.issues == ["Deck principal : 6 cartes au lieu de 40."]
    assert "Calm Rune" not in result.text and "Meditating Monk" not in result.text


def test_fab_pool_holds_only_cards_the_hero_may_play(fab):
    spec = default_spec("fab", hero="Katsu")
    names = {c["card_name"] for c in eligible_pool(components.vector_store(), card_collection(fab), spec)}
    assert {"Head Jab (red)", "Head Jab (blue)", "Sink Below (red)"} <= names
    assert "Steelblade Supremacy (red)" not in names


def test_an_llm_spec_naming_the_hero_card_still_finds_the_heros_pool(fab):
    answer = json.dumps({"format": "Classic Constructed", "hero": "Katsu, the Wanderer", "main": 60, "max_copies": 3})
    spec = parse_spec(answer, default_spec("fab"))
    names = {c["card_name"] for c in eligible_pool(components.vector_store(), card_collection(fab), spec)}
    assert "Head Jab (red)" in names and spec.format == "classic constructed"


def test_an_offline_fab_deck_for_a_hero_holds_the_hero_and_exports_it(fab):
    anchors = resolve_mentions(fab, ["Katsu, the Wanderer"])
    request = DeckRequest(game="fab", question="Deck pour @Katsu, the Wanderer", fresh=anchors, heroes=["Katsu"])
    result = build_deck(request, tools(fab), lambda *_: None)
    assert result.deck.sections["hero"] == [(1, "Katsu, the Wanderer")]
    assert "### Héros (1)" in result.text
    assert not any("obligatoire" in issue for issue in result.verdict.issues)
    assert "\nHero\n1 Katsu, the Wanderer\n" in result.exports["text"]


def test_an_offline_riftbound_deck_around_a_legend_holds_the_legend(riftbound):
    anchors = resolve_mentions(riftbound, ["Jinx - Loose Cannon"])
    result = build_deck(DeckRequest(game="riftbound", question="Un deck autour de Jinx", fresh=anchors),
                        tools(riftbound), lambda *_: None)  # fmt: skip
    assert result.deck.sections["legend"] == [(1, "Jinx - Loose Cannon")]
    assert not any("obligatoire" in issue for issue in result.verdict.issues)
    assert "\nLegend\n1 Jinx - Loose Cannon\n" in result.exports["text"]
