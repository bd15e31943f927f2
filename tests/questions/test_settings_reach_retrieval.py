"""Settings reach retrieval as arguments: `rag` reads no environment and no Django settings,
so a setting changed in a test (or in production) changes what retrieval does."""

import ast
from pathlib import Path

import pytest

from questions.booklets import booklets_of
from rag.quotes import question_groups
from rag.retrieve import RetrievedChunk
from tests.factories import ExtensionFactory, GameFactory

RAG = Path(__file__).resolve().parents[2] / "rag"


def english_chunk(booklet) -> RetrievedChunk:
    return RetrievedChunk(id="1", booklet=booklet, payload={"text": "Read the card aloud."}, score=1.0, fusion_score=1.0)


@pytest.mark.django_db
def test_the_dictionary_setting_changes_how_a_french_question_is_searched_in_an_english_booklet(settings, tmp_path):
    game = GameFactory(language="fr")
    ExtensionFactory(game=game, language="en")
    question = "Faut-il lire la carte à voix haute ?"

    english = booklets_of(game, game.extensions.all())[1]
    with_dictionary = set().union(*question_groups(question, english_chunk(english)))
    settings.BILINGUAL_DICTIONARY_DIR = str(tmp_path)  # an empty folder: the glossary alone
    english = booklets_of(game, game.extensions.all())[1]
    glossary_only = set().union(*question_groups(question, english_chunk(english)))

    assert "read" in with_dictionary  # « lire » → "read", FreeDict's fra-eng dictionary
    assert "read" not in glossary_only


def _environment_reads(tree: ast.AST) -> list[int]:
    """Lines reading the environment: os.getenv(…), os.environ.get(…), os.environ[…] read."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "getenv":
            lines.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr in ("get", "copy", "items") and _is_environ(node.value):
            lines.append(node.lineno)
        elif isinstance(node, ast.Subscript) and _is_environ(node.value) and isinstance(node.ctx, ast.Load):
            lines.append(node.lineno)
    return lines


def _is_environ(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" or isinstance(node, ast.Name) and node.id == "environ"


def test_rag_reads_no_environment_variable():
    """Writing OMP_NUM_THREADS for the embedding engine is configuring it, not reading a setting."""
    readers = {
        str(path.relative_to(RAG.parent)): found
        for path in sorted(RAG.rglob("*.py"))
        if (found := _environment_reads(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert readers == {}
