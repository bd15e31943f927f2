"""What the answer model reads: with an OpenAI-compatible server configured (LLM_BACKEND=openai,
here a local stand-in that records every request), the answer prompt carries the retrieved
top ASK_TOP_K passages in retrieval's final order (after the LLM's rerank), each tagged with
its booklet kind, booklet, pages and section, and the expansion's change annotated."""

import re

import pytest

from games.index_state import mark_changed
from games.models import Chunk
from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from rag.llm_rerank import SYSTEM_PROMPT as RERANK_SYSTEM
from rag.prompts import CLASSIFY_SYSTEM_PROMPT, SYSTEM_PROMPT
from rag.sparse import document_vector
from tests.factories import ExtensionFactory, GameFactory
from tests.rag.corpus import create_chunk_rows, embedder
from tests.support.chat_completions import chat_backend

pytestmark = pytest.mark.django_db
QUESTION = "Combien de cartes Chaleur défausse-t-on quand on dépasse la limite de vitesse sous la pluie ?"
# Three more pages of the base booklet: eleven passages, so the top eight is a cut.
MORE_PAGES = {
    6: "Virages\nChaque virage indique une limite de vitesse. Un joueur qui la respecte ne défausse rien.",
    7: "Cartes Chaleur\nLes cartes Chaleur encombrent la main. On les défausse en passant au stand.",
    8: "Stand\nUn joueur qui s'arrête au stand défausse toutes ses cartes Chaleur et repart au tour suivant.",
}


def add_base_pages(game) -> None:
    model = embedder()
    collection = game.base_booklet.collection
    for ordinal, ((page, text), vector) in enumerate(zip(MORE_PAGES.items(), model.embed_passages(list(MORE_PAGES.values()))), 10):
        chunk = Chunk(game=game, collection=collection, ordinal=ordinal, text=text, page_start=page, page_end=page,
                      page_offsets=[[page, 0]], hierarchy_path=text.split("\n", 1)[0], payload={},
                      embedder=model.name, sparse=document_vector(text).as_dict())  # fmt: skip
        chunk.dense_vector = vector
        chunk.save()
    mark_changed(collection)


def reply(body: dict) -> list[str]:
    """The classifier says « rules », the reranker swaps the first two passages, the answer is one line."""
    system, prompt = (m["content"] for m in body["messages"][:2])
    if system == CLASSIFY_SYSTEM_PROMPT:
        return ["rules"]
    if system == RERANK_SYSTEM:
        count = len(re.findall(r"^\[\d+\] ", prompt, re.MULTILINE))
        return [", ".join(str(n) for n in [2, 1, *range(3, count + 1)])]
    return ["Deux cartes Chaleur par case."]


@pytest.fixture
def chat(settings):
    with chat_backend(settings, ASK_LLM_RERANK=True, ASK_TOP_K=8) as state:
        state.reply = reply
        yield state


@pytest.fixture
def game():
    game = GameFactory(name="Course Folle", slug="course-folle")
    create_chunk_rows(game, ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain"))
    add_base_pages(game)
    return game


def ask(game) -> tuple[list[dict], dict]:
    question = create_question(game=game, text=QUESTION, extensions=list(game.extensions.all()))
    events = []
    answer_question(question.pk, lambda name, data: events.append((name, data)))
    found = dict(events)
    assert "error" not in found, found.get("error")
    return found["context"]["chunks"], found["diagnostics"]


def answer_prompt(chat) -> str:
    bodies = [b for b in chat.requests if b["messages"][0]["content"] == SYSTEM_PROMPT]
    assert len(bodies) == 1
    return bodies[0]["messages"][1]["content"]


def test_the_answer_prompt_holds_the_top_eight_passages_in_retrieval_order(chat, game):
    chunks, diagnostics = ask(game)

    assert diagnostics["reranked"] is True  # the stand-in swapped the fused first two
    assert len(chunks) == 8  # eleven passages in the booklets, the first eight given to the answer
    prompt = answer_prompt(chat)
    headers = re.findall(r"^\[(BASE|EXT|FAQ|FORUM)\] (.+?) — p\.(\d+) — (.+)$", prompt, re.MULTILINE)
    assert [(name, int(page), section) for _tag, name, page, section in headers] == [
        (c["booklet"], c["page_start"], c["hierarchy_path"]) for c in chunks
    ]
    assert [tag for tag, *_ in headers] == ["EXT" if c["is_extension"] else "BASE" for c in chunks]
    for chunk in chunks:  # each passage whole, under its header
        assert chunk["text"] in prompt


def test_the_expansion_passage_carries_the_change_ingestion_found(chat, game):
    ask(game)

    block = next(b for b in answer_prompt(chat).split("\n\n") if b.startswith("[EXT] Heavy Rain — p.3"))
    assert "Conflit avec le livret de base (replaces, p.4) : Deux cartes Chaleur par case sous la pluie." in block


def test_a_model_that_says_the_rulebooks_dont_say_is_labelled_ne_tranchent_pas(chat, game):
    """The system prompt asks the model to open with « Les livrets ne le disent pas. » when no
    passage says it; the label then says so too, whatever the passages' scores (before, the
    answer could read « Les règles ne précisent pas » under « Réponse probable »)."""
    _, sure = ask(game)
    chat.reply = lambda body: (["rules"] if body["messages"][0]["content"] == CLASSIFY_SYSTEM_PROMPT
                               else ["Les livrets ne le disent pas. ", "Au plus proche : [Course Folle, p.4 : \"…\"]"])  # fmt: skip
    _, silent = ask(game)

    assert "commence ta réponse par « Les livrets ne le disent pas. »" in SYSTEM_PROMPT
    assert sure["confidence"]["level"] != "low" and sure["confidence"]["unsettled"] is False
    assert silent["confidence"]["level"] == "low" and silent["confidence"]["unsettled"] is True
