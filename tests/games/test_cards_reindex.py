import json

from django.core.management import call_command

from games.card_import import import_cards
from games.card_indexing import card_collection, meta_collection
from games.decklists import import_decklist
from games.models import Card
from runtime import components
from tests.card_fixtures import DECKLISTS, SCRYFALL_SAMPLE
from tests.factories import GameFactory


def test_reindex_rebuilds_card_and_meta_collections_from_the_rows(db, tmp_path):
    game = GameFactory(name="Magic", slug="magic", card_game="mtg")
    path = tmp_path / "five.json"
    path.write_text(json.dumps(json.loads(SCRYFALL_SAMPLE.read_text())[:5]))
    import_cards(game, path)
    import_decklist(game, DECKLISTS[0])
    Card.objects.update(embedder="old-model")

    call_command("reindex", "--reembed")

    store = components.vector_store()
    assert store.count(card_collection(game)) == Card.objects.filter(game=game).count() > 0
    assert store.count(meta_collection(game)) == 1
    assert set(Card.objects.values_list("embedder", flat=True)) == {components.embedder().name}
