"""The questions the chat suggests come from the game's own headings, in its language.

The French game is the demo rulebook (games/demo/les-aeronautes-regles.pdf) read by the
ingestion's own stages (read, headings, chunks, heading paths). The English one carries the
heading paths the same stages give Secret Hitler's rulebook
(shared/eval-corpus/rulebooks/secret-hitler_rules_en.pdf), copied chunk by chunk.
"""

from functools import cache

import pytest

from games.demo.loader import DEMO_DIR
from games.suggestions import forget_suggestions, question_placeholder, suggested_questions
from tests.factories import ChunkFactory, ExtensionFactory, GameFactory

SECRET_HITLER_PATHS = (
    ["", "OVERVIEW", "OVERVIEW", "OVERVIEW", "OBJECT", "GAME CONTENTS", "SETUP", "SETUP"]
    + ["SETUP > WHY ARE THERE SECRET ROLE AND PARTY MEMBERSHIP CARDS?"] * 4
    + ["GAMEPLAY"] + ["GAMEPLAY > ELECTION"] * 8 + ["GAMEPLAY > LEGISLATIVE SESSION"] * 6
    + ["GAMEPLAY > PRESIDENTIAL POWERS"] * 4 + ["GAMEPLAY > VETO POWER"] * 3
    + ["STRATEGY NOTES"] * 4 + ["THANK YOU"] + ["CREDITS & LICENSE"] * 4
)


@cache
def aeronautes_paths() -> tuple[str, ...]:
    from ingest.stages import chunk, hierarchy, read

    pages = list(read.read_pages(DEMO_DIR / "les-aeronautes-regles.pdf"))
    hierarchy.mark_headings(pages)
    drafts = chunk.chunk_pages(pages)
    hierarchy.assign_paths(pages, drafts)
    return tuple(d.hierarchy_path for d in drafts)


@pytest.fixture(autouse=True)
def no_cached_suggestions():
    forget_suggestions()
    yield
    forget_suggestions()


def with_chunks(game, paths, extension=None):
    for ordinal, path in enumerate(paths):
        ChunkFactory(game=game, extension=extension, ordinal=ordinal, hierarchy_path=path)
    return game


@pytest.fixture
def aeronautes(db):
    return with_chunks(GameFactory(name="Les Aéronautes", slug="les-aeronautes", language="fr"), aeronautes_paths())


@pytest.fixture
def secret_hitler(db):
    return with_chunks(GameFactory(name="Secret Hitler", slug="secret-hitler", language="en"), SECRET_HITLER_PATHS)


def test_a_french_game_gets_french_questions_about_its_own_sections(aeronautes):
    questions = suggested_questions(aeronautes)

    assert questions == [
        "Comment met-on le jeu en place ?",
        "Comment se déroule une manche ?",
        "Que faut-il savoir sur les actions ?",  # « 5. Les actions », a section of this game
    ]
    placeholder = question_placeholder(aeronautes)
    assert placeholder == "Ex. : Comment fonctionnent les pilotes ?"  # « 3.2 Les pilotes »
    assert placeholder.removeprefix("Ex. : ") not in questions


def test_an_english_game_gets_english_questions_and_no_credits_or_contents(secret_hitler):
    questions = suggested_questions(secret_hitler)

    assert questions == [
        "How do I set up the game?",
        "What is the goal of the game?",
        "Why are there secret role and party membership cards?",  # a heading that asks it already
    ]
    assert question_placeholder(secret_hitler) == 'E.g.: Can you explain "Election"?'
    everything = " ".join(suggested_questions(secret_hitler, limit=50)).lower()
    for generic in ("overview", "contents", "thank", "credits", "strategy"):
        assert generic not in everything


def test_the_suggestions_are_the_same_at_every_reload(aeronautes):
    first = suggested_questions(aeronautes), question_placeholder(aeronautes)
    forget_suggestions()

    assert (suggested_questions(aeronautes), question_placeholder(aeronautes)) == first


def test_never_another_games_text(aeronautes, secret_hitler):
    french = " ".join(suggested_questions(aeronautes, limit=50) + [question_placeholder(aeronautes)])
    english = " ".join(suggested_questions(secret_hitler, limit=50) + [question_placeholder(secret_hitler)])

    assert "Boost" not in french + english  # the example that used to sit in every game's box
    assert "Election" not in french and "pilotes" not in english


def test_a_game_without_rules_gets_a_neutral_placeholder_and_no_suggestion(db):
    game = GameFactory(name="Pas encore lu", slug="pas-encore-lu")

    assert suggested_questions(game) == []
    assert question_placeholder(game) == "Posez votre question sur les règles…"


def test_a_new_ingestion_changes_the_suggestions(db):
    game = with_chunks(GameFactory(language="en"), ["Setup", "Combat"])
    assert suggested_questions(game) == ["How do I set up the game?", "How does combat work?"]

    game.chunks.all().delete()
    with_chunks(game, ["3. Trading (optional)", "4. Harbour"])

    assert suggested_questions(game) == ['What do the rules say about "Trading"?', 'Can you explain "Harbour"?']


def test_an_expansion_in_another_language_is_not_mixed_in(db):
    game = with_chunks(GameFactory(language="fr"), ["Règles > Mise en place", "Règles > Le marché"])
    with_chunks(game, ["Storm Front > Lightning"], extension=ExtensionFactory(game=game, language="en"))

    assert not any("Lightning" in q for q in suggested_questions(game, limit=10))


@pytest.mark.parametrize(
    "heading, generic",
    [("Crédits & licence", True), ("Sommaire", True), ("Matériel", True), ("Game Contents", True),
     ("Notes de l'auteur", True), ("arcmage.org - join us!", True),
     ("Conseil des sages", False), ("Mercenaires", False), ("Combat", False), ("Indexation", False)],
)
def test_only_sections_that_are_not_rules_are_skipped(heading, generic):
    from games.suggestions import is_generic

    assert is_generic(heading) is generic
