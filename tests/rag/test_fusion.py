"""RRF v2 exactly as docs/architecture.md (« Fusion RRF v2 ») states it: weight/(rank+2), bonus +0.05 at rank 0 and +0.02 at
ranks 1–2, question lists weigh 2 and HyDE lists 1, one entry per point id."""

import pytest

from rag.fusion import RankedList, fuse, merge_by_score, rrf_v2
from rag.store import Hit


def hits(*ids):
    return [Hit(id=i, score=1.0 - n / 10, payload={"text": i}) for n, i in enumerate(ids)]


def test_a_point_first_in_both_question_lists_scores_twice_2_over_2_plus_bonus():
    fused = rrf_v2([RankedList("dense:question", 2, hits("a", "b")), RankedList("bm25:question", 2, hits("a", "c"))])
    assert fused[0].id == "a"
    assert fused[0].score == pytest.approx(2 * (2 / 2 + 0.05))


@pytest.mark.parametrize("rank,expected", [(0, 2 / 2 + 0.05), (1, 2 / 3 + 0.02), (2, 2 / 4 + 0.02), (3, 2 / 5), (9, 2 / 11)])
def test_contribution_at_each_rank(rank, expected):
    ids = [f"p{i}" for i in range(10)]
    fused = {f.id: f.score for f in rrf_v2([RankedList("dense:question", 2, hits(*ids))])}
    assert fused[f"p{rank}"] == pytest.approx(expected)


def test_hyde_lists_weigh_half_of_question_lists():
    fused = {f.id: f.score for f in rrf_v2([
        RankedList("dense:question", 2, hits("q")),
        RankedList("dense:hyde", 1, hits("h")),
    ])}
    assert fused["q"] == pytest.approx(1.05)
    assert fused["h"] == pytest.approx(0.5 + 0.05)


def test_points_are_deduplicated_by_id_and_keep_every_rank():
    fused = rrf_v2([RankedList("dense:question", 2, hits("x", "y")), RankedList("bm25:hyde", 1, hits("y", "x"))])
    assert [f.id for f in fused].count("y") == 1
    y = next(f for f in fused if f.id == "y")
    assert y.ranks == {"dense:question": 1, "bm25:hyde": 0}
    assert y.score == pytest.approx(2 / 3 + 0.02 + 1 / 2 + 0.05)


def test_lists_of_several_collections_merge_by_score():
    base = [Hit("b1", 0.9, {}), Hit("b2", 0.5, {})]
    extension = [Hit("e1", 0.7, {})]
    assert [h.id for h in merge_by_score([base, extension], limit=2)] == ["b1", "e1"]


# RAG_FUSION_V2_ENABLED=false: plain RRF, every list alike, no bonus.

def test_plain_rrf_counts_lists_not_their_weights():
    lists = [
        RankedList("dense:question", 2, hits("a")),  # the raw question's top hit, in one list
        RankedList("dense:hyde", 1, hits("x", "b")),  # the HyDE passage's second hit, in two lists
        RankedList("bm25:hyde", 1, hits("y", "b")),
    ]
    v2 = fuse(lists, v2=True)
    plain = fuse(lists, v2=False)

    assert [f.id for f in v2][0] == "a"  # v2: the question weighs twice and its top rank gets the bonus
    assert [f.id for f in plain][0] == "b"  # plain: two lists beat one
    assert {f.id: f.score for f in plain}["b"] == pytest.approx(2 / 62)
    assert {f.id: f.score for f in plain}["a"] == pytest.approx(1 / 61)


def test_fusion_is_v2_unless_the_caller_says_plain():
    """No process-wide switch: the caller passes RAG_FUSION_V2_ENABLED (runtime.components)."""
    lists = [RankedList("dense:question", 2, hits("a")), RankedList("dense:hyde", 1, hits("x", "b")),
             RankedList("bm25:hyde", 1, hits("y", "b"))]
    assert fuse(lists)[0].id == "a"
    assert fuse(lists, v2=False)[0].id == "b"
