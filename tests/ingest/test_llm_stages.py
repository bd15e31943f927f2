"""LLM stages (contexts, conflict types): parallel calls, a per-booklet cache, and a cache
flushed before a quota error propagates so a resumed job asks only what is missing."""

import json
import threading
from datetime import datetime, timezone

import numpy as np
import pytest

from ingest.stages import conflicts
from ingest.stages.chunk import ChunkDraft, Piece
from ingest.stages.context import contextualise
from rag.llm.base import ClaudeQuotaError, HealthReport, LLMError
from rag.sparse import document_vector


class ScriptedLLM:
    """Answers `complete` from a function; counts calls. (The LLM service is the one thing
    that cannot run here; real backends are tested against recorded streams elsewhere.)"""

    name = "scripted"
    available = True

    def __init__(self, answer):
        self.answer = answer
        self.prompts: list[str] = []
        self._lock = threading.Lock()

    def complete(self, system, prompt, *, model="sonnet", timeout=None) -> str:
        with self._lock:
            self.prompts.append(prompt)
            count = len(self.prompts)
        return self.answer(prompt, count)

    def stream(self, *args, **kwargs):
        yield self.complete(*args[:2])

    def health(self):
        return HealthReport(status="ok")


def drafts(n: int) -> list[ChunkDraft]:
    return [
        ChunkDraft(pieces=[Piece(f"Règle {i} : le joueur actif fait l'action numéro {i}.", 1)], hierarchy_path=f"Chapitre {i}")
        for i in range(n)
    ]


def run_contexts(chunks, llm, cache_dir, concurrency=4):
    return contextualise(
        chunks, game="Heat", booklet="Règles", slug="heat", llm=llm, cache_dir=cache_dir, concurrency=concurrency
    )


def test_contexts_come_from_the_llm_and_are_cached(tmp_path):
    llm = ScriptedLLM(lambda prompt, n: "Ce passage décrit une action du tour.")
    chunks = drafts(12)

    assert run_contexts(chunks, llm, tmp_path) == 12
    assert chunks[3].context == "Heat / Règles / Chapitre 3. Ce passage décrit une action du tour."
    assert len(llm.prompts) == 12

    again = ScriptedLLM(lambda prompt, n: "autre chose")
    fresh = drafts(12)
    run_contexts(fresh, again, tmp_path)
    assert again.prompts == [] and fresh[3].context.endswith("une action du tour.")


def test_quota_error_flushes_answered_contexts_before_propagating(tmp_path):
    reset = datetime(2026, 11, 30, 3, 0, tzinfo=timezone.utc)

    def quota_after_five(prompt, count):
        if count > 5:
            raise ClaudeQuotaError(reset)
        return f"Contexte {count}."

    with pytest.raises(ClaudeQuotaError):
        run_contexts(drafts(30), ScriptedLLM(quota_after_five), tmp_path, concurrency=1)

    cache = json.loads((tmp_path / "contexts-v2-heat.json").read_text())
    assert len(cache) == 5  # fewer than the 10 that trigger a periodic save: the flush kept them
    resumed = ScriptedLLM(lambda prompt, n: "Contexte repris.")
    run_contexts(drafts(30), resumed, tmp_path)
    assert len(resumed.prompts) == 25


def test_a_failing_call_falls_back_to_the_offline_context(tmp_path):
    def flaky(prompt, count):
        if "Règle 2 " in prompt:
            raise LLMError("timeout")
        return "Situé."

    chunks = drafts(4)
    run_contexts(chunks, ScriptedLLM(flaky), tmp_path)

    assert chunks[2].context == "Heat / Règles / Chapitre 2"
    assert chunks[1].context.endswith("Situé.")


def test_conflicts_are_typed_by_the_llm_with_a_summary(tmp_path):
    base_texts = ["Une carte Boost ajoute une carte piochée au déplacement.", "La partie dure trois tours."]
    rng = np.random.default_rng(0)
    base_vectors = rng.normal(size=(2, 8)).astype("float32")
    base_vectors /= np.linalg.norm(base_vectors, axis=1, keepdims=True)
    base = [
        conflicts.BaseChunk(f"00000000-0000-0000-0000-00000000000{i}", t, i + 3, base_vectors[i], document_vector(t))
        for i, t in enumerate(base_texts)
    ]
    ext_text = "Une carte Boost ajoute désormais deux cartes piochées au déplacement."
    found = conflicts.find_candidates([ext_text], base_vectors[:1], [document_vector(ext_text)], base, 0.65)
    llm = ScriptedLLM(lambda prompt, n: 'Voici : {"type": "modifies", "summary": "Le Boost pioche deux cartes."}')

    classes = conflicts.classify([ext_text], found, {b.id: b.text for b in base}, llm=llm, slug="ext", cache_dir=tmp_path, concurrency=2)
    notes = conflicts.annotations(found[0], classes[0]).to_dict()  # the payload keys

    assert notes["conflict_type"] == "modifies" and notes["conflict_summary"] == "Le Boost pioche deux cartes."
    assert notes["conflict_base_chunk_id"] == base[0].id and notes["conflict_base_page"] == 3
    assert (tmp_path / "conflicts-v1-ext.json").exists()



def test_when_the_llm_finds_the_first_candidate_unrelated_the_next_one_is_asked(tmp_path):
    """On the demo, the base's round summary (it names the expansion) comes before the rule
    an expansion chunk replaces: the rule it replaces is the one the answer must cite."""
    summary = conflicts.BaseChunk("00000000-0000-0000-0000-000000000001", "10.3 Résumé d'une manche", 11, None, None)
    rule = conflicts.BaseChunk("00000000-0000-0000-0000-000000000002", "8.4 Amerrissage : repêché au Dépôt", 9, None, None)
    candidates = [[{"base_chunk_id": b.id, "similarity": 0.88, "base_page": b.page} for b in (summary, rule)], []]
    texts = ["This replaces rule 8.4: a balloon that ditches takes a Rescue token.", "New icons."]

    def answer(prompt, n):
        if "Amerrissage" in prompt:
            return '{"type": "replaces", "summary": "Le ballon prend un jeton Secours au lieu du Dépôt."}'
        return '{"type": "none", "summary": ""}'

    llm = ScriptedLLM(answer)
    classes = conflicts.classify(texts, candidates, {summary.id: summary.text, rule.id: rule.text}, llm=llm, slug="ext", cache_dir=tmp_path, concurrency=2)
    notes = conflicts.annotations(candidates[0], classes[0]).to_dict()  # the payload keys

    assert notes["conflict_type"] == "replaces" and notes["conflict_base_chunk_id"] == rule.id
    assert notes["conflict_base_page"] == 9 and "Secours" in notes["conflict_summary"]
    assert classes[1] is None and len(llm.prompts) == 2  # no candidate, no call

    again = ScriptedLLM(answer)  # a retried job: both answers come from the cache
    assert conflicts.classify(texts, candidates, {summary.id: summary.text, rule.id: rule.text}, llm=again, slug="ext", cache_dir=tmp_path, concurrency=2) == classes
    assert again.prompts == []

def test_llm_refines_heading_levels_from_the_outline():
    from ingest.stages.hierarchy import assign_paths, mark_headings, refine_with_llm
    from ingest.stages.read import Page, Paragraph

    paragraphs = [
        Paragraph("Règles", 16, True, page=1),
        Paragraph("Combat", 16, True, page=1),
        Paragraph("Le défenseur lance deux dés et garde le meilleur résultat pour parer.", 10, page=1),
    ]
    pages = [Page(1, paragraphs)]
    mark_headings(pages)
    llm = ScriptedLLM(lambda prompt, n: '[{"i": 0, "level": 1}, {"i": 1, "level": 2}]')

    assert refine_with_llm(pages, llm) == 2
    chunk = ChunkDraft(pieces=[Piece(paragraphs[1].text, 1, paragraphs[1]), Piece(paragraphs[2].text, 1, paragraphs[2])])
    assign_paths(pages, [chunk])
    assert (chunk.hierarchy_path, chunk.hierarchy_level) == ("Règles > Combat", 2)
    assert "Combat" in llm.prompts[0]


# Contextual retrieval with the whole document (the reference), when the booklet fits.

def long_drafts() -> list[ChunkDraft]:
    return [ChunkDraft(pieces=[Piece(f"Règle {i} : le joueur actif fait l'action numéro {i}. " * 4, 1)],
                       hierarchy_path=f"Chapitre {i}") for i in range(8)]


def test_a_booklet_that_fits_is_given_whole_with_each_passage(tmp_path):
    llm = ScriptedLLM(lambda prompt, n: "Ce passage décrit une action.")
    chunks = long_drafts()

    contextualise(chunks, game="Heat", booklet="Règles", slug="heat", llm=llm, cache_dir=tmp_path, concurrency=2,
                  whole_document_max_chars=100_000)

    assert len(llm.prompts) == 8
    for prompt in llm.prompts:
        assert prompt.startswith("<document>") and all(c.text in prompt for c in chunks)  # every passage, each time


def test_a_longer_booklet_gets_the_outline_and_the_neighbours_and_no_work_is_repeated(tmp_path):
    chunks = long_drafts()
    outline_llm = ScriptedLLM(lambda prompt, n: "Situé par le plan.")
    contextualise(chunks, game="Heat", booklet="Règles", slug="heat", llm=outline_llm, cache_dir=tmp_path,
                  concurrency=2, whole_document_max_chars=500)
    prompt = next(p for p in outline_llm.prompts if "Règle 5 :" in p.split("Passage à situer")[-1])
    assert "Plan du livret" in prompt and "Chapitre 7" in prompt  # the outline names every section…
    assert "Règle 4 :" in prompt and "Règle 7 :" not in prompt  # …the text only of the passage before

    # Raising the limit afterwards (a bigger model): the finished contexts are kept, nothing is asked again.
    whole_llm = ScriptedLLM(lambda prompt, n: "autre chose")
    again = long_drafts()
    contextualise(again, game="Heat", booklet="Règles", slug="heat", llm=whole_llm, cache_dir=tmp_path,
                  concurrency=2, whole_document_max_chars=100_000)
    assert whole_llm.prompts == [] and again[5].context.endswith("Situé par le plan.")
