"""The extractive answerer (no LLM): verbatim quotes cited on the page where they stand,
grouped by booklet, an overriding expansion rule before the base rule, and a plain
statement instead of noise when nothing relevant was found."""

import re

from rag import prompts
from rag.answer import build_user_prompt
from rag.extractive import extractive_answer
from rag.quotes import page_of_offset
from rag.retrieve import BookletRef, RetrievedChunk, retrieve
from tests.rag.corpus import BASE, BASE_PAGES, EXPANSION, EXPANSION_PAGES, embedder, memory_store

CITATION = re.compile(r'\[(?P<booklet>[^\[\],]+), p\.(?P<page>\d+) : "(?P<quote>[^"]+)"\]')

PAGE_3 = "Tour de jeu\nLe joueur actif pioche deux cartes au début de son tour. Il joue ensuite une carte. "
PAGE_4 = "Les cartes Boost se jouent après le mouvement. Une carte Boost ajoute quatre cases au déplacement."
SPANNING = BookletRef("rules_heat", "heat", "HEAT", "base")


def spanning_chunk(score=1.0, dense=0.9):
    payload = {"text": PAGE_3 + PAGE_4, "page_start": 3, "page_end": 4,
               "page_offsets": [[3, 0], [4, len(PAGE_3)]], "hierarchy_path": "Règles > Tour"}
    return RetrievedChunk(id="c1", booklet=SPANNING, payload=payload, score=score, fusion_score=score, dense_score=dense)


def page_text(page: int) -> str:
    return {3: PAGE_3, 4: PAGE_4}[page]


def citations(answer):
    return [m.groupdict() for m in CITATION.finditer(answer)]


def test_quote_on_the_second_page_of_a_chunk_cites_that_page():
    answer = extractive_answer("Combien de cases ajoute une carte Boost ?", [spanning_chunk()], best_score=0.9, min_score=0.8)
    [cited] = citations(answer)
    assert cited["booklet"] == "HEAT" and cited["page"] == "4"
    assert cited["quote"] in " ".join(page_text(4).split())


def test_quote_on_the_first_page_cites_the_first_page():
    answer = extractive_answer("Combien de cartes pioche le joueur actif ?", [spanning_chunk()], best_score=0.9, min_score=0.8)
    [cited] = citations(answer)
    assert cited["page"] == "3" and cited["quote"] in " ".join(page_text(3).split())


def test_page_of_offset_follows_page_offsets():
    chunk = spanning_chunk()
    assert page_of_offset(chunk, 0) == 3
    assert page_of_offset(chunk, len(PAGE_3) - 1) == 3
    assert page_of_offset(chunk, len(PAGE_3)) == 4


def test_every_citation_is_verbatim_on_its_page_for_real_retrieval():
    store = memory_store()
    pages = {("Course Folle", p): t for p, t in BASE_PAGES.items()}
    pages |= {("Heavy Rain", p): t for p, t in EXPANSION_PAGES.items()}
    for question in ("Combien de cartes Chaleur défausse-t-on sous la pluie ?", "Which tyres can I choose?",
                     "Comment se termine la partie ?"):
        found = retrieve(question, store=store, embedder=embedder(), booklets=[BASE, EXPANSION])
        answer = extractive_answer(question, found.chunks, best_score=found.best_score, min_score=0.8, embedder=embedder())
        cited = citations(answer)
        assert cited, answer
        for c in cited:
            assert c["quote"] in " ".join(pages[(c["booklet"], int(c["page"]))].split()), (question, c)


def test_overriding_expansion_rule_comes_before_the_base_rule_it_replaces():
    store = memory_store()
    question = "Combien de cartes Chaleur défausse-t-on quand on dépasse la limite de vitesse dans un virage ?"
    found = retrieve(question, store=store, embedder=embedder(), booklets=[BASE, EXPANSION])
    answer = extractive_answer(question, found.chunks, best_score=found.best_score, min_score=0.8, embedder=embedder())
    assert answer.startswith("Heavy Rain modifie cette règle (livret de base, p.4) :")
    assert answer.index("[Heavy Rain, p.3") < answer.index("[Course Folle, p.4")
    assert "discard two Heat cards per space instead of one" in answer
    assert "une carte Chaleur pour chaque case de dépassement" in answer


def test_nothing_relevant_gives_a_plain_statement_not_noise():
    store = memory_store()
    question = "Quelle est la recette de la tarte aux pommes ?"
    found = retrieve(question, store=store, embedder=embedder(), booklets=[BASE, EXPANSION])
    answer = extractive_answer(question, found.chunks, best_score=found.best_score, min_score=0.8)
    assert answer == prompts.NO_ANSWER
    assert not citations(answer)


def test_llm_prompt_tags_booklets_and_marks_pages():
    chunk = spanning_chunk()
    extension = RetrievedChunk(id="e", booklet=EXPANSION, score=1, fusion_score=1, payload={
        "text": "Rain tyres ignore the first heat penalty.", "page_start": 2, "page_end": 2,
        "conflict_type": "modifies", "conflict_base_page": 4, "conflict_summary": "pneus pluie"})
    prompt = build_user_prompt("Combien de cases ?", [chunk, extension], game_name="HEAT",
                               bgg_metadata={"mechanics": ["Hand Management"]},
                               history=[{"question": "Bonjour ?", "answer": "Bonjour."}])
    assert "[BASE] HEAT — p.3-4 — Règles > Tour" in prompt
    assert f"[p.4] {PAGE_4}" in prompt
    assert "[EXT] Heavy Rain — p.2" in prompt and "Conflit avec le livret de base (modifies, p.4)" in prompt
    assert "Mécaniques : Hand Management" in prompt
    assert "Joueur : Bonjour ?" in prompt and prompt.endswith("QUESTION : Combien de cases ?")


def test_llm_prompt_annotates_a_change_found_offline():
    base = spanning_chunk()
    extension = RetrievedChunk(id="e", booklet=EXPANSION, score=1, fusion_score=1, payload={
        "text": "This replaces rule 4: two cards per space.", "page_start": 3, "page_end": 3})
    extension.overrides = base
    prompt = build_user_prompt("Combien de cartes ?", [extension, base], game_name="HEAT")
    assert "[EXT] Heavy Rain — p.3\nModifie une règle du livret de base (HEAT, p.3-4)\n" in prompt


def test_a_question_in_the_other_language_quotes_the_sentence_its_translated_words_point_to():
    # « Storm » is shared with the first sentence; « pluie », « réduit », « vitesse » only
    # match the second one through their translations (rain, reduce, speed).
    text = "Weather tiles come in the Storm box. Rain reduces the speed limit of every corner by one."
    english = BookletRef("rules_heavy-rain", "heavy-rain", "Heavy Rain", "extension", language="en")
    payload = {"text": text, "page_start": 2, "page_end": 2, "page_offsets": [[2, 0]], "hierarchy_path": "Weather"}
    chunk = RetrievedChunk(id="w", booklet=english, payload=payload, score=1.0, fusion_score=1.0, dense_score=0.9)

    answer = extractive_answer("Avec Storm, de combien la pluie réduit-elle la vitesse ?", [chunk], best_score=0.9, min_score=0.8)

    [cited] = citations(answer)
    assert cited["quote"].startswith("Rain reduces the speed limit")


def test_the_tail_of_a_sentence_carried_over_to_the_next_page_is_not_quoted():
    # The chunk opens with page 13's number, then page 14 goes on with a sentence begun
    # earlier: « the regeneration rule. » is no sentence a player can read on its own.
    text = "13\n\nthe regeneration rule.\n\nScout: This model may be deployed after all other units."
    booklet = BookletRef("rules_wargame", "wargame", "Wargame", "base", language="en")
    payload = {"text": text, "page_start": 13, "page_end": 14, "page_offsets": [[13, 0], [14, 4]],
               "hierarchy_path": "Skills"}
    chunk = RetrievedChunk(id="r", booklet=booklet, payload=payload, score=1.0, fusion_score=1.0, dense_score=0.9)

    answer = extractive_answer("how does the regeneration rule work for a scout?", [chunk], best_score=0.9, min_score=0.8)

    [cited] = citations(answer)
    assert cited["quote"].startswith("Scout:") and cited["page"] == "14"


def test_the_rule_is_quoted_rather_than_its_example():
    # The example shares more of the question's words; the rule is what answers it.
    text = (
        "702.19b The controller of an attacking creature with trample first assigns damage to the "
        "creatures blocking it; the rest is assigned to the player.\n\n"
        "Example: A 6/6 creature with trample is blocked by a 2/2 creature, so the attacking player "
        "assigns 2 damage to the blocking creature and 4 damage to the player."
    )
    booklet = BookletRef("rules_cr", "cr", "Comprehensive Rules", "base", language="en")
    payload = {"text": text, "page_start": 128, "page_end": 128, "page_offsets": [[128, 0]], "hierarchy_path": "702.19. Trample"}
    chunk = RetrievedChunk(id="t", booklet=booklet, payload=payload, score=1.0, fusion_score=1.0, dense_score=0.9)

    answer = extractive_answer("my trample creature is blocked by a 2/2, how much damage to the player?", [chunk],
                               best_score=0.9, min_score=0.8)

    assert citations(answer)[0]["quote"].startswith("702.19b The controller")


KEYWORD_RULE = (
    "702.2. Deathtouch\n\n702.2a Deathtouch is a static ability.\n\n"
    "702.2b A creature with toughness greater than 0 that's been dealt damage by a source with deathtouch "
    "since the last time state-based actions were checked is destroyed as a state-based action."
)


def keyword_chunk(page_offsets, terms=None, text=KEYWORD_RULE):
    booklet = BookletRef("rules_cr", "cr", "Comprehensive Rules", "base", language="en", terms=terms)
    payload = {"text": text, "page_start": 124, "page_end": page_offsets[-1][0], "page_offsets": page_offsets,
               "hierarchy_path": "702. Keyword Abilities > 702.2. Deathtouch"}
    return RetrievedChunk(id="dt", booklet=booklet, payload=payload, score=1.0, fusion_score=1.0, dense_score=0.9)


def test_a_keyword_rule_is_quoted_past_its_title_and_definition_line_to_what_it_does():
    # Every line holds « deathtouch »: the title and « … is a static ability. » answer nothing.
    answer = extractive_answer("what does deathtouch do?", [keyword_chunk([[124, 0]])], best_score=0.9, min_score=0.8)

    [cited] = citations(answer)
    assert "is destroyed as a state-based action" in cited["quote"] and cited["page"] == "124"


def test_a_short_quote_does_not_run_on_to_the_next_page():
    second_page = KEYWORD_RULE.index("702.2b")
    answer = extractive_answer("what does deathtouch do?", [keyword_chunk([[124, 0], [125, second_page]])],
                               best_score=0.9, min_score=0.8)

    [cited] = citations(answer)
    assert cited["page"] == "124" and "destroyed" not in cited["quote"]


def test_a_french_keyword_is_matched_in_an_english_rule_through_the_games_own_terms():
    # « contact mortel » is no dictionary phrase: only the game's terms (learnt from its cards,
    # rag.terms) say it is deathtouch. Without them no word matches and the first rule is quoted.
    from rag.terms import GameTerms

    text = ("702.19a Trample is a static ability that modifies the rules for assigning an attacking creature's "
            "combat damage.\n\n" + KEYWORD_RULE)
    terms = GameTerms([("contact mortel", "deathtouch"), ("piétinement", "trample")])
    chunk = keyword_chunk([[124, 0]], terms=terms, text=text)

    answer = extractive_answer("Le contact mortel, ça fait quoi ?", [chunk], best_score=0.9, min_score=0.8)

    [cited] = citations(answer)
    assert "Deathtouch" in cited["quote"] and "Trample" not in cited["quote"]
