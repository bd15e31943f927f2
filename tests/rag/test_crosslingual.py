"""French or English, and the words of one in the other (rag.language, rag.lexicon,
rag.sparse.translated_query), with Debian's FreeDict dictionaries as installed."""

from pathlib import Path

import pytest

from rag import language
from rag.lexicon import GLOSSARY, Lexicon, read_dictd
from rag.sparse import TRANSLATION_WEIGHT, term_index, translated_query

DICTD = Path("/usr/share/dictd")


@pytest.fixture(scope="module")
def full_lexicon():
    lexicon = Lexicon(GLOSSARY, DICTD)
    assert lexicon.dictionaries == ["freedict-fra-eng", "freedict-eng-fra"], "apt-get install dict-freedict-*"
    return lexicon


@pytest.mark.parametrize("text,expected", [
    ("Qui commence la partie ?", "fr"),
    ("Combien de cartes pioche-t-on ?", "fr"),
    ("L'attaquant peut-il défausser une carte ?", "fr"),
    ("How do the Liberals win the game?", "en"),
    ("When does the Anarchist win if there are no Communists?", "en"),
    ("Deathtouch", None),
    ("702.2b", None),
])
def test_the_language_of_a_question(text, expected):
    assert language.detect(text) == expected


@pytest.mark.parametrize("typed,expected", [
    ("fr", "fr"), ("FR-fr", "fr"), ("Français", "fr"), ("en-GB", "en"), ("anglais", "en"), ("de", None), ("", None),
])
def test_a_booklet_language_as_an_admin_typed_it(typed, expected):
    assert language.normalise(typed) == expected


def test_only_a_known_pair_of_different_languages_is_other():
    assert language.is_other_language("fr", "en-US")
    assert not language.is_other_language("fr", "fr")
    assert not language.is_other_language(None, "en")
    assert not language.is_other_language("fr", "")


def test_the_glossary_wins_over_the_general_dictionary(full_lexicon):
    # FreeDict knows « partie » as "part, share, piece"; in a rulebook it is a game.
    assert full_lexicon.translate("partie", "fr") == ["game"]
    assert full_lexicon.translate("players", "en") == ["joueur", "joueuse"]


def test_words_are_found_by_stem_in_both_dictionaries(full_lexicon):
    assert "start" in full_lexicon.translate("commence", "fr")  # entry « commencer »
    assert "read" in full_lexicon.translate("lire", "fr")  # FreeDict fra-eng
    assert "raccourcir" in full_lexicon.translate("shorten", "en")  # FreeDict eng-fra
    assert full_lexicon.translate("xyzzy", "en") == []


def test_dictd_entries_give_their_translations_without_notes():
    entries = read_dictd(DICTD / "freedict-fra-eng.index", DICTD / "freedict-fra-eng.dict.dz")

    assert "begin" in entries["commencer"] and "start" in entries["commencer"]
    assert all("<" not in t and "/" not in t for t in entries["commencer"])


def test_without_dictionaries_the_glossary_still_translates(tmp_path, caplog):
    lexicon = Lexicon(GLOSSARY, tmp_path)

    assert lexicon.dictionaries == []
    assert lexicon.translate("défausse", "fr") == ["discard pile", "discard"]  # « défausse », « défausser »
    assert lexicon.translate("shorten", "en") == []
    assert "glossary only" in caplog.text


def test_a_translated_query_keeps_the_words_and_adds_their_translations_at_half_weight(full_lexicon):
    query = translated_query("Qui commence la partie ?", "fr", "en", full_lexicon)

    weights = dict(zip(query.vector.indices, query.vector.values))
    assert weights[term_index("parti")] == 1.0  # the word itself: names and shared words still match
    assert weights[term_index("game")] == TRANSLATION_WEIGHT
    assert weights[term_index("start")] == TRANSLATION_WEIGHT
    assert len(query.groups) == 2  # « qui », « la » say nothing: « commence », « partie »
    assert any("game" in group and "parti" in group for group in query.groups)


def test_a_booklet_in_the_other_language_is_not_outranked_for_its_language_alone():
    # A French question scores the French sheet's loosely related passage a little higher than
    # the English rule that answers it: merging the booklets, the English cosines get
    # OTHER_LANGUAGE_COSINE more (the cosine reported stays the real one).
    from rag.retrieve import OTHER_LANGUAGE_COSINE, merge_dense
    from rag.store import Hit

    french = [Hit(id="fr-1", score=0.835, payload={}, collection="rules_sheet-fr")]
    english = [Hit(id="en-1", score=0.835 - OTHER_LANGUAGE_COSINE / 2, payload={}, collection="rules_base-en")]

    merged = merge_dense([french, english], other_language={"rules_base-en"})

    assert [h.id for h in merged] == ["en-1", "fr-1"]
    assert merged[0].score == english[0].score
    assert [h.id for h in merge_dense([french, english], other_language=set())] == ["fr-1", "en-1"]
