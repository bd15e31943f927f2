"""The questions the chat suggests come from the game's own rules, in the page's language.

The French game is the demo rulebook (games/demo/les-aeronautes-regles.pdf) read by the
ingestion's own stages (read, headings, chunks, heading paths). The English one carries the
heading paths the same stages give Secret Hitler's rulebook
(shared/eval-corpus/rulebooks/secret-hitler_rules_en.pdf), copied chunk by chunk, with a
sentence of its rules naming its sections.
"""

from functools import cache

import pytest

from django.utils import translation

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


SECRET_HITLER_TEXT = ("During the Election the President nominates a Chancellor; the Legislative Session follows, "
                      "and Presidential Powers and Veto Power may apply.")


@cache
def aeronautes_chunks() -> tuple[tuple[str, str], ...]:
    """(heading path, text) of the demo rulebook's chunks."""
    from ingest.stages import chunk, hierarchy, read

    pages = list(read.read_pages(DEMO_DIR / "les-aeronautes-regles.pdf"))
    hierarchy.mark_headings(pages)
    drafts = chunk.chunk_pages(pages)
    hierarchy.assign_paths(pages, drafts)
    return tuple((d.hierarchy_path, d.text) for d in drafts)


@pytest.fixture(autouse=True)
def no_cached_suggestions():
    forget_suggestions()
    yield
    forget_suggestions()


def with_chunks(game, paths, extension=None, text=None):
    """Chunks under these heading paths; each a (path, text) pair, or a path with `text`."""
    for ordinal, path in enumerate(paths):
        path, body = path if isinstance(path, tuple) else (path, text or ChunkFactory.text)
        ChunkFactory(game=game, extension=extension, ordinal=ordinal, hierarchy_path=path, text=body)
    return game


@pytest.fixture
def aeronautes(db):
    return with_chunks(GameFactory(name="Les Aéronautes", slug="les-aeronautes", language="fr"), aeronautes_chunks())


@pytest.fixture
def secret_hitler(db):
    game = GameFactory(name="Secret Hitler", slug="secret-hitler", language="en")
    return with_chunks(game, SECRET_HITLER_PATHS, text=SECRET_HITLER_TEXT)


def test_a_french_game_gets_french_questions_about_its_own_sections(aeronautes):
    questions = suggested_questions(aeronautes, language="fr")

    assert questions == [
        "Comment met-on le jeu en place ?",
        "Comment se déroule une manche ?",
        "Peux-tu m'expliquer les actions ?",  # « 5. Les actions », a section of this game (named in its rules)
    ]
    placeholder = question_placeholder(aeronautes, language="fr")
    assert placeholder == "Ex. : Comment fonctionnent les pilotes ?"  # « 3.2 Les pilotes »
    assert placeholder.removeprefix("Ex. : ") not in questions


def test_an_english_game_gets_english_questions_and_no_credits_or_contents(secret_hitler):
    with translation.override("en"):  # the page's language by default
        questions = suggested_questions(secret_hitler)
        placeholder = question_placeholder(secret_hitler)

    assert questions == [
        "How do I set up the game?",
        "What is the goal of the game?",
        "Why are there secret role and party membership cards?",  # a heading that asks it already
    ]
    assert placeholder == 'E.g.: Can you explain the "Election" rule?'
    everything = " ".join(suggested_questions(secret_hitler, limit=50, language="en")).lower()
    for generic in ("overview", "contents", "thank", "credits", "strategy"):
        assert generic not in everything


def test_an_english_page_gets_english_questions_about_a_french_game(aeronautes):
    """The well-known sections say what they say in English; the game's own sections need the
    game's own words for them (none here: the demo has no English booklet of its base rules)."""
    questions = suggested_questions(aeronautes, language="en")

    assert questions[:2] == ["How do I set up the game?", "How does a round work?"]
    assert question_placeholder(aeronautes, language="en").startswith("E.g.: ")
    assert not french_in(" ".join(suggested_questions(aeronautes, limit=50, language="en")))


def test_a_french_page_gets_french_questions_about_an_english_game(secret_hitler):
    questions = suggested_questions(secret_hitler, limit=50, language="fr")

    assert questions[:2] == ["Comment met-on le jeu en place ?", "Quel est le but du jeu ?"]
    assert "Election" not in " ".join(questions)  # no French word for it in this game's terms


def test_an_other_language_section_is_asked_through_the_games_own_terms(db):
    """A French page, an English booklet: its « Drifting » section is asked about with the
    word the game's French booklet uses for it (a learnt term), spelled as that booklet does."""
    from games.models import GameTerm

    game = GameFactory(name="Ballons", language="en")
    with_chunks(game, ["Setup", "Drifting", "Movement"], text="Drifting moves your balloon; movement follows drifting.")
    french = ExtensionFactory(game=game, name="Ballons — règles", language="fr")
    with_chunks(game, ["Mise en place", "La dérive"], extension=french, text="La dérive pousse le ballon.")
    GameTerm.objects.create(game=game, french="derive", english="drifting", source=GameTerm.Source.BOOKLETS)

    questions = suggested_questions(game, limit=10, language="fr")

    assert "Comment met-on le jeu en place ?" in questions
    assert any("la dérive" in q for q in questions), questions  # « Comment fonctionne la dérive ? »
    assert not any("Movement" in q or "Drifting" in q for q in questions)  # no French word: left out


def test_a_date_on_the_title_page_is_not_a_rule(db):
    """Wargame in a Suitcase's cover sets « November » large: a heading, never named by the
    rules. A section the rules name elsewhere is one."""
    game = GameFactory(name="Wargame", language="en")
    with_chunks(game, [("November", "Way of Wood 2021 November. This work is licensed under a Creative Commons license."),
                       ("Activation", "Players take turns to activate one unit each."),
                       ("Morale", "A unit that fails a Morale test is shaken; Activation of a shaken unit ends."),
                       ("Melee", "Units in base contact fight in melee and then test Morale.")])

    questions = " ".join(suggested_questions(game, limit=10, language="en") + [question_placeholder(game, language="en")])

    assert "November" not in questions
    assert "Morale" in questions and "Activation" in questions


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
    assert suggested_questions(game, language="en") == ["How do I set up the game?", "How does combat work?"]

    game.chunks.all().delete()
    with_chunks(game, ["3. Trading (optional)", "4. Harbour"], text="Trading happens in the Harbour.")

    assert suggested_questions(game, language="en") == ['What does the "Trading" rule say?', 'Can you explain the "Harbour" rule?']


def test_an_expansion_in_another_language_is_not_mixed_in(db):
    game = with_chunks(GameFactory(language="fr"), ["Règles > Mise en place", "Règles > Le marché"])
    with_chunks(game, ["Storm Front > Lightning"], extension=ExtensionFactory(game=game, language="en"))

    assert not any("Lightning" in q for q in suggested_questions(game, limit=10, language="fr"))


def french_in(text: str) -> list[str]:
    from tests.e2e.test_a11y import french_in as words

    return words(text)


@pytest.mark.parametrize(
    "heading, generic",
    [("Crédits & licence", True), ("Sommaire", True), ("Matériel", True), ("Game Contents", True),
     ("Notes de l'auteur", True), ("arcmage.org - join us!", True),
     ("Conseil des sages", False), ("Mercenaires", False), ("Combat", False), ("Indexation", False)],
)
def test_only_sections_that_are_not_rules_are_skipped(heading, generic):
    from games.suggestions import is_generic

    assert is_generic(heading) is generic

