import numpy as np
import pytest

from rag.embeddings import EmbeddingError, OpenAIEmbedder, TeiEmbedder
from tests.rag.tei_embed_server import DIM, TeiEmbedServer, vector_of


def _unit(vector):
    vector = np.array(vector, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_tei_embedder_sends_batches_of_32_and_keeps_the_order():
    texts = [f"règle {i}" for i in range(70)]
    with TeiEmbedServer() as server:
        embedder = TeiEmbedder(server.url)
        matrix = embedder.embed_passages(texts)
    assert [len(body["inputs"]) for _, body in server.requests] == [32, 32, 6]
    assert matrix.shape == (70, DIM) and embedder.dim == DIM
    assert np.allclose(matrix[41], _unit(vector_of("règle 41")), atol=1e-6)


def test_openai_embedder_reorders_the_data_by_index():
    with TeiEmbedServer() as server:
        embedder = OpenAIEmbedder(server.url, model="bge-m3")
        matrix = embedder.embed_passages(["un", "deux", "trois"])
        query = embedder.embed_query("deux")
    assert server.requests[0] == ("/v1/embeddings", {"input": ["un", "deux", "trois"], "model": "bge-m3"})
    assert np.allclose(matrix[1], query, atol=1e-6)


def test_a_server_that_is_down_gives_a_readable_embedding_error():
    with TeiEmbedServer() as server:
        url = server.url
    with pytest.raises(EmbeddingError, match="tei@http://127.0.0.1"):
        TeiEmbedder(url, timeout=2).embed_query("bonjour")
