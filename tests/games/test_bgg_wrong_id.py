"""A game given the wrong BGG id for a while stored another game's Rules forum; once the id
is corrected or cleared, its rules answers no longer cite those threads as [FORUM]."""

import pytest

from games.indexing import sync_if_changed
from games.models import Chunk, Game
from runtime import components
from tests.factories import ChunkFactory, GameFactory
from tests.games.bgg_replay import XML_DIR, fake_bgg, private_cache  # noqa: F401  (fixtures)
from tests.games.test_bgg_forum_sync import sync

pytestmark = pytest.mark.django_db

SCYTHE = 169786
WRONG = 174430  # another game's thing id, typed by mistake
WRONG_THREAD = 4100001  # a thread of the wrong game's Rules forum


@pytest.fixture
def scythe():
    return GameFactory(name="Scythe", slug="scythe", bgg_id=WRONG)


def sync_the_wrong_forum(fake_bgg, game):
    """The wrong id's forum: one thread of its own (the replay serves one forum for any id)."""
    lines = (XML_DIR / "forum.xml").read_text().splitlines()
    forum = "\n".join(line for line in lines if 'id="3269876"' not in line)
    fake_bgg.overrides["forum.xml"] = forum.replace('id="3270001"', f'id="{WRONG_THREAD}"')
    fake_bgg.overrides[f"thread-{WRONG_THREAD}.xml"] = (XML_DIR / "thread-3270001.xml").read_text().replace("3270001", str(WRONG_THREAD))
    sync(game)
    fake_bgg.overrides.clear()


def served_threads(game) -> set[int]:
    """The forum threads the index serves to the game's rules answers (after the index owner's sync)."""
    store = components.vector_store()
    sync_if_changed(store)
    return {p.payload["bgg_thread_id"] for p in store.scroll(f"rules_{game.slug}") if p.payload["is_forum_chunk"]}


def change_bgg_id(client, game: Game, bgg_id) -> None:
    response = client.post(
        f"/admin/games/game/{game.pk}/change/",
        {"name": game.name, "slug": game.slug, "language": "fr", "description": "", "bgg_metadata": "{}", "card_game": "",
         "booklet_name": "", "bgg_id": bgg_id, "extensions-TOTAL_FORMS": "0", "extensions-INITIAL_FORMS": "0"},
    )  # fmt: skip
    assert response.status_code == 302


def test_a_corrected_id_in_the_admin_takes_the_wrong_forum_out_of_answers(client, alice, fake_bgg, scythe):
    sync_the_wrong_forum(fake_bgg, scythe)
    assert WRONG_THREAD in served_threads(scythe)
    client.force_login(alice)

    change_bgg_id(client, scythe, SCYTHE)

    assert WRONG_THREAD not in served_threads(scythe)
    sync(Game.objects.get(pk=scythe.pk))
    assert served_threads(scythe) == {3270001, 3269876}


def test_a_cleared_id_in_the_admin_takes_every_forum_thread_out_of_answers(client, alice, fake_bgg, scythe):
    sync(scythe)
    assert served_threads(scythe)
    client.force_login(alice)

    change_bgg_id(client, scythe, "")

    assert served_threads(scythe) == set()


def test_the_sync_drops_the_threads_of_an_id_changed_outside_the_admin(fake_bgg, scythe):
    sync_the_wrong_forum(fake_bgg, scythe)
    Game.objects.filter(pk=scythe.pk).update(bgg_id=SCYTHE)  # a shell, a fixture load…

    sync(Game.objects.get(pk=scythe.pk))

    assert served_threads(scythe) == {3270001, 3269876}


def test_threads_stored_before_the_id_was_recorded_are_kept_by_the_sync_and_dropped_by_an_admin_change(
    client, alice, fake_bgg
):
    game = GameFactory(name="Scythe", slug="scythe", bgg_id=SCYTHE)
    older = ChunkFactory(game=game, is_forum=True, payload={"source": "bgg_forum", "bgg_thread_id": 1})
    # Still on BGG (the sync asks again for a stored thread the listing no longer shows).
    fake_bgg.overrides["thread-1.xml"] = (XML_DIR / "thread-3270001.xml").read_text().replace("3270001", "1")

    sync(game)
    assert Chunk.objects.filter(pk=older.pk).exists()
    client.force_login(alice)
    change_bgg_id(client, game, WRONG)

    assert not Chunk.objects.filter(pk=older.pk).exists()
