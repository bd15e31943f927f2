"""The typed chunk payload (rag.payload): ingestion writes the keys it always wrote, and a
payload stored before the type existed (an existing index, an old row) reads the same."""

import pytest

from rag.payload import ChunkConflict, ChunkPayload
from rag.retrieve import BookletRef, RetrievedChunk

# A point's payload as an index built before rag.payload stored it: the booklet's keys, the
# rules chunker's, an extension chunk's conflict, the row's keys added by the index sync.
OLD_POINT = {
    "game_name": "Heat", "game_slug": "heat", "booklet_name": "Heavy Rain", "booklet_slug": "heavy-rain",
    "booklet_kind": "extension", "language": "fr", "chunker": "rules", "rule": "4.1",
    "rule_keywords": {"pluie": "4.1"}, "page_furniture": ["— 5 —"],
    "conflict_candidates": [{"base_chunk_id": "b-7", "similarity": 0.81, "base_page": 7}],
    "conflict_type": "modifies", "conflict_base_chunk_id": "b-7", "conflict_base_page": 7,
    "conflict_summary": "La pluie refroidit de 1 de plus.",
    "chunk_id": "c-1", "game_id": "g-1", "extension_id": "e-1", "collection": "rules_heat_rain",
    "text": "4.1 Sous la pluie, refroidissez d'une carte de plus.", "contextual_text": "Météo",
    "page_start": 5, "page_end": 6, "page_offsets": [[5, 0], [6, 30]], "hierarchy_path": "Météo > Pluie",
    "hierarchy_level": 2, "is_forum_chunk": False, "is_extension": True, "ordinal": 12,
}
FORUM_POINT = {  # a BGG thread: keys the type does not name, a base chunk's null extension
    "source": "bgg_forum", "bgg_thread_id": 42, "bgg_subject": "Pluie ?", "text": "Q: …", "page_start": 0,
    "is_forum_chunk": True, "extension_id": None,
}
RAIN = BookletRef(collection="rules_heat_rain", slug="heavy-rain", name="Heavy Rain", kind="extension", language="fr")


@pytest.mark.parametrize("stored", [OLD_POINT, FORUM_POINT])
def test_a_payload_stored_before_the_type_reads_back_unchanged(stored):
    assert ChunkPayload.from_dict(stored).to_dict() == stored


def test_retrieval_reads_an_old_payload_as_before():
    chunk = RetrievedChunk(id="c-1", booklet=RAIN, payload=dict(OLD_POINT), score=1.0, fusion_score=1.0)

    assert chunk.text.startswith("4.1 Sous la pluie") and chunk.pages == "5-6" and chunk.page_offsets == [[5, 0], [6, 30]]
    assert chunk.rule == "4.1" and chunk.hierarchy_path == "Météo > Pluie" and not chunk.is_forum
    assert chunk.conflict == {"type": "modifies", "base_chunk_id": "b-7", "base_page": 7,
                              "summary": "La pluie refroidit de 1 de plus."}
    forum = RetrievedChunk(id="f", booklet=RAIN, payload=dict(FORUM_POINT), score=1.0, fusion_score=1.0)
    assert forum.is_forum and forum.conflict is None and forum.rule is None and forum.content.other["bgg_thread_id"] == 42


@pytest.mark.django_db
def test_ingestion_writes_the_keys_it_always_wrote():
    from ingest.stages.chunk import ChunkDraft, Piece
    from ingest.stages.index import chunk_payload
    from tests.factories import GameFactory

    booklet = GameFactory(name="Heat", slug="heat", language="fr").base_booklet
    draft = ChunkDraft(pieces=[Piece("4.1 Sous la pluie…", 5)], chunker="rules", rule="4.1", rule_keywords={"pluie": "4.1"})
    conflict = ChunkConflict(candidates=OLD_POINT["conflict_candidates"], type=None, base_chunk_id="b-7", base_page=7)
    plain = ChunkDraft(pieces=[Piece("Mise en place", 1)])

    assert chunk_payload(booklet, draft, conflict).to_dict() == {
        "game_name": "Heat", "game_slug": "heat", "booklet_name": "Heat", "booklet_slug": "heat",
        "booklet_kind": "base", "language": "fr", "chunker": "rules", "rule": "4.1", "rule_keywords": {"pluie": "4.1"},
        "conflict_candidates": OLD_POINT["conflict_candidates"], "conflict_type": None,
        "conflict_base_chunk_id": "b-7", "conflict_base_page": 7, "conflict_summary": "",
    }
    assert chunk_payload(booklet, plain, None).to_dict() == {
        "game_name": "Heat", "game_slug": "heat", "booklet_name": "Heat", "booklet_slug": "heat",
        "booklet_kind": "base", "language": "fr",
    }
