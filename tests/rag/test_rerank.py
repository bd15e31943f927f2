"""Reranking: TEI /rerank over HTTP, and the position-aware blend (1–3: 75/25, 4–10: 60/40,
11+: 40/60, both scores min-max normalised over the candidates)."""

import pytest

from rag.rerank import TeiReranker, blend, normalise, position_weights
from rag.retrieve import retrieve
from tests.rag.corpus import BASE, EXPANSION, embedder, memory_store
from tests.rag.tei_rerank_server import TeiRerankServer


@pytest.mark.parametrize("position,weights", [(1, (0.75, 0.25)), (3, (0.75, 0.25)), (4, (0.6, 0.4)),
                                              (10, (0.6, 0.4)), (11, (0.4, 0.6)), (50, (0.4, 0.6))])
def test_position_weights(position, weights):
    assert position_weights(position) == weights


def test_blend_normalises_both_scores_then_weighs_by_position():
    fusion = [2.1, 1.05, 0.5, 0.4]  # normalised: 1, 0.3529…, 0.0588…, 0
    rerank = [0.0, 0.5, 1.0, 0.25]  # normalised: 0, 0.5, 1, 0.25
    f = normalise(fusion)
    assert blend(fusion, rerank) == pytest.approx([0.75 * 1 + 0.25 * 0, 0.75 * f[1] + 0.25 * 0.5,
                                                    0.75 * f[2] + 0.25 * 1.0, 0.6 * 0 + 0.4 * 0.25])


def test_beyond_position_ten_the_reranker_weighs_more_than_fusion():
    fusion = [1.0] + [0.5] * 10 + [0.0]
    rerank = [0.0] * 11 + [1.0]
    blended = blend(fusion, rerank)
    assert blended[11] == pytest.approx(0.6)  # 0.4·0 + 0.6·1
    assert blended[3] == pytest.approx(0.3)  # 0.6·0.5 + 0.4·0


def test_tei_reranker_reads_scores_back_in_input_order():
    with TeiRerankServer(lambda text: 0.9 if "pneus" in text or "tyres" in text.lower() else 0.1) as tei:
        scores = TeiReranker(url=tei.url).scores("pneus ?", ["rien", "Tyres: rain or slick", "rien non plus"])
    assert scores == [0.1, 0.9, 0.1]
    assert tei.bodies[0]["query"] == "pneus ?"


def test_retrieval_with_a_reranker_lifts_the_passage_it_prefers():
    store = memory_store()
    question = "Que se passe-t-il quand une voiture franchit la ligne d'arrivée ?"
    plain = retrieve(question, store=store, embedder=embedder(), booklets=[BASE, EXPANSION])
    wanted = plain.chunks[3]  # a passage fusion ranked 4th
    with TeiRerankServer(lambda text: 1.0 if text.endswith(wanted.text) else 0.0) as tei:
        reranked = retrieve(question, store=store, embedder=embedder(), booklets=[BASE, EXPANSION],
                            reranker=TeiReranker(url=tei.url))
    assert reranked.reranked
    position = [c.id for c in reranked.chunks].index(wanted.id)
    assert position < 3
    assert reranked.chunks[position].rerank_score == 1.0
