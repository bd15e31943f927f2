"""The Rules forum of a game becomes forum chunks of its base collection, once per thread."""

import pytest

from games import bgg_sync
from games.indexing import sync_if_changed
from games.models import Chunk, IndexState
from rag.sparse import query_vector
from runtime import components
from tests.factories import ChunkFactory, GameFactory
from tests.games.bgg_replay import XML_DIR, fake_bgg, private_cache  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db


@pytest.fixture
def scythe():
    return GameFactory(name="Scythe", slug="scythe", bgg_id=169786)


def sync(game):
    client = bgg_sync.client_from_settings()
    try:
        return bgg_sync.sync_forum(game, client)
    finally:
        client.close()


def test_each_rules_thread_becomes_one_forum_chunk_of_the_base_collection(fake_bgg, scythe):
    report = sync(scythe)

    chunks = {c.payload["bgg_thread_id"]: c for c in Chunk.objects.filter(game=scythe)}
    assert set(chunks) == {3270001, 3269876}
    assert (report.threads_seen, report.created, report.updated) == (2, 2, 0)
    hand_limit = chunks[3269876]
    assert hand_limit.is_forum and hand_limit.extension is None
    assert hand_limit.collection == "rules_scythe"
    assert (hand_limit.page_start, hand_limit.page_end) == (0, 0)
    assert hand_limit.context.startswith("[FORUM]")
    assert hand_limit.payload["bgg_thread_url"] == "https://boardgamegeek.com/thread/3269876"
    assert hand_limit.text.startswith("Hand limit at end of round")
    assert "designer_x : End of your own turn (rulebook p. 12)." in hand_limit.text
    assert "<b>" not in hand_limit.text


def test_forum_chunks_are_embedded_and_the_collection_marked_changed(fake_bgg, scythe):
    sync(scythe)

    chunk = Chunk.objects.get(payload__bgg_thread_id=3270001)
    assert chunk.dense_vector.shape == (components.embedder().dim,)
    assert chunk.embedder == components.embedder().name
    assert chunk.sparse["indices"] and not chunk.indexed
    assert IndexState.objects.filter(collection="rules_scythe").exists()


def test_only_the_rules_forum_is_read_and_at_most_three_pages(fake_bgg, scythe):
    fake_bgg.overrides["forum-page2.xml"] = (XML_DIR / "forum.xml").read_text()  # never ends

    sync(scythe)

    assert {r.params["id"] for r in fake_bgg.calls("forum")} == {"1565739"}
    assert [r.params["page"] for r in fake_bgg.calls("forum")] == ["1", "2", "3"]
    assert Chunk.objects.filter(is_forum=True).count() == 2  # same threads on every page


def test_a_second_sync_without_new_posts_changes_nothing_and_skips_thread_calls(fake_bgg, scythe):
    sync(scythe)
    first_ids = set(Chunk.objects.values_list("id", flat=True))
    threads_read = len(fake_bgg.calls("thread"))

    report = sync(scythe)

    assert set(Chunk.objects.values_list("id", flat=True)) == first_ids
    assert (report.unchanged, report.created, report.updated) == (2, 0, 0)
    assert len(fake_bgg.calls("thread")) == threads_read


def test_a_thread_with_a_new_post_is_updated_not_duplicated(fake_bgg, scythe):
    sync(scythe)
    before = Chunk.objects.get(payload__bgg_thread_id=3269876)
    forum = (XML_DIR / "forum.xml").read_text()
    thread = (XML_DIR / "thread-3269876.xml").read_text()
    fake_bgg.overrides["forum.xml"] = forum.replace("Sun, 05 May 2024 21:44:10", "Mon, 06 May 2024 08:00:00")
    fake_bgg.overrides["thread-3269876.xml"] = thread.replace("Official answer", "Official answer, confirmed in the FAQ")

    report = sync(scythe)

    after = Chunk.objects.get(payload__bgg_thread_id=3269876)
    assert after.pk == before.pk
    assert "confirmed in the FAQ" in after.text
    assert not after.indexed
    assert (report.updated, report.unchanged) == (1, 1)
    assert Chunk.objects.filter(is_forum=True).count() == 2


def test_long_threads_are_cut_near_two_thousand_characters(fake_bgg, scythe):
    thread = (XML_DIR / "thread-3270001.xml").read_text()
    fake_bgg.overrides["thread-3270001.xml"] = thread.replace("Is that allowed by the rules?", "Is it allowed? " * 400)

    sync(scythe)

    text = Chunk.objects.get(payload__bgg_thread_id=3270001).text
    assert 1900 < len(text) <= bgg_sync.THREAD_MAX_CHARS
    assert text.endswith("…")


def test_rulebook_chunks_of_the_game_are_left_alone(fake_bgg, scythe):
    rule = ChunkFactory(game=scythe, text="Combat : chaque joueur révèle sa carte de combat.")

    sync(scythe)

    assert Chunk.objects.filter(pk=rule.pk, is_forum=False).exists()
    assert Chunk.objects.filter(game=scythe).count() == 3


def test_a_synced_forum_chunk_is_found_by_a_rules_search_once_indexed(fake_bgg, scythe):
    sync(scythe)
    store = components.vector_store()
    sync_if_changed(store, ["rules_scythe"])

    hits = store.search_sparse("rules_scythe", query_vector("play a combat card during another player's turn"), limit=1)

    assert hits[0].payload["bgg_thread_id"] == 3270001
    assert hits[0].payload["is_forum_chunk"] is True
    assert hits[0].payload["page_start"] == 0


def test_metadata_is_stored_on_the_game_and_summarised_for_answers(fake_bgg, scythe):
    client = bgg_sync.client_from_settings()

    bgg_sync.sync_metadata(scythe, client)

    scythe.refresh_from_db()
    assert scythe.bgg_metadata["mechanics"][:2] == ["Area Majority / Influence", "Contracts"]
    assert scythe.bgg_metadata["max_players"] == 5
    assert scythe.bgg_synced_at is not None
    summary = bgg_sync.metadata_summary(scythe)
    assert "Economic" in summary and "1-5" in summary


def test_reingesting_the_rulebook_keeps_the_forum_chunks(fake_bgg, scythe, tmp_path):
    from ingest import services
    from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

    sync(scythe)
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "scythe.pdf", LOREM_RULES), game=scythe)
    services.enqueue(job)

    job.refresh_from_db()
    assert job.status == "done", job.error
    assert Chunk.objects.filter(game=scythe, is_forum=True).count() == 2
    assert Chunk.objects.filter(game=scythe, is_forum=False).count() == job.stats["chunks"]


def test_threads_read_before_bgg_fails_are_kept_and_the_next_run_reads_only_the_rest(fake_bgg, scythe):
    fake_bgg.overrides["thread-3269876.xml"] = "Service temporarily unavailable"  # the second thread read

    report = sync(scythe)

    assert "not XML" in report.error
    assert (report.created, report.updated) == (1, 0)
    assert set(Chunk.objects.filter(is_forum=True).values_list("payload__bgg_thread_id", flat=True)) == {3270001}
    del fake_bgg.overrides["thread-3269876.xml"]
    reads_before = len(fake_bgg.calls("thread"))

    report = sync(scythe)

    assert (report.error, report.created, report.unchanged) == ("", 1, 1)
    assert [r.params["id"] for r in fake_bgg.calls("thread")[reads_before:]] == ["3269876"]


def test_a_thread_deleted_since_the_listing_is_skipped(fake_bgg, scythe):
    fake_bgg.overrides["thread-3270001.xml"] = '<?xml version="1.0" encoding="utf-8"?><error message="Not Found"/>'

    report = sync(scythe)

    assert (report.error, report.created) == ("", 1)
    assert set(Chunk.objects.filter(is_forum=True).values_list("payload__bgg_thread_id", flat=True)) == {3269876}


NOT_FOUND = '<?xml version="1.0" encoding="utf-8"?><error message="Not Found"/>'


def forum_threads(game) -> set[int]:
    return set(Chunk.objects.filter(game=game, is_forum=True).values_list("payload__bgg_thread_id", flat=True))


def test_a_stored_thread_bgg_says_is_gone_when_read_again_is_deleted(fake_bgg, scythe):
    sync(scythe)
    forum = (XML_DIR / "forum.xml").read_text()
    fake_bgg.overrides["forum.xml"] = forum.replace("Sun, 05 May 2024 21:44:10", "Mon, 06 May 2024 08:00:00")  # a new post…
    fake_bgg.overrides["thread-3269876.xml"] = NOT_FOUND  # …then the thread deleted

    report = sync(scythe)

    assert forum_threads(scythe) == {3270001}
    assert (report.deleted, report.error) == (1, "")


def test_a_stored_thread_no_longer_listed_is_asked_again_and_deleted_when_gone(fake_bgg, scythe):
    sync(scythe)
    lines = (XML_DIR / "forum.xml").read_text().splitlines()
    fake_bgg.overrides["forum.xml"] = "\n".join(line for line in lines if 'id="3269876"' not in line)
    fake_bgg.overrides["thread-3269876.xml"] = NOT_FOUND  # deleted on BGG: never listed again

    report = sync(scythe)

    assert forum_threads(scythe) == {3270001}
    assert report.deleted == 1


def test_a_stored_thread_only_less_active_stays_and_few_are_asked_again_each_run(fake_bgg, scythe, monkeypatch):
    sync(scythe)
    older = [ChunkFactory(game=scythe, is_forum=True, payload={"bgg_id": 169786, "bgg_thread_id": 3000000 + n,
                                                              "bgg_last_post_date": "Mon, 01 Jan 2024 10:00:00 +0000"})
             for n in range(3)]
    for chunk in older:  # still on BGG, past the pages the sync reads
        fake_bgg.overrides[f"thread-{chunk.payload['bgg_thread_id']}.xml"] = (
            (XML_DIR / "thread-3270001.xml").read_text().replace("3270001", str(chunk.payload["bgg_thread_id"])))
    monkeypatch.setattr(bgg_sync, "RECHECK_PER_RUN", 2)
    reads_before = len(fake_bgg.calls("thread"))

    sync(scythe)
    sync(scythe)

    assert forum_threads(scythe) == {3270001, 3269876} | {c.payload["bgg_thread_id"] for c in older}
    asked = [int(r.params["id"]) for r in fake_bgg.calls("thread")[reads_before:]]
    assert len(asked) == 4 and set(asked) == {c.payload["bgg_thread_id"] for c in older}  # 2 a run, least recently asked first


def test_a_game_keeps_only_its_most_recently_active_threads(fake_bgg, scythe, settings):
    settings.BGG_FORUM_MAX_THREADS = 1

    report = sync(scythe)

    assert forum_threads(scythe) == {3270001}  # its last post (8 May) is newer than 3269876's (5 May)
    assert report.deleted == 1
