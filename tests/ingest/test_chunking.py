"""Chunks: about 600 characters, cut at headings and numbered rules, with their pages."""

from ingest.stages.chunk import MAX_CHARS, chunk_pages
from ingest.stages.hierarchy import assign_paths, mark_headings
from ingest.stages.read import Page, Paragraph, drop_page_numbers


def rule_pages():
    body = "Ce paragraphe décrit la règle en détail avec des exemples de situations de jeu. " * 3
    page1 = [Paragraph("7. Règles additionnelles", 14, True), Paragraph("702. Capacités mot-clé", 12, True)]
    page1 += [Paragraph(f"702.1. Capacité numéro 1. {body * 2}", 10), Paragraph(f"702.2. Capacité numéro 2. {body}", 10)]
    short = "Ce paragraphe précise la règle par un exemple. "
    page2 = [Paragraph(f"702.2{letter} Précision {letter} sur la capacité deux. {short}", 10) for letter in "ab"]
    page2 += [Paragraph(f"702.3. Capacité numéro 3. {body * 2}", 10)]
    pages = [Page(1, page1), Page(2, page2)]
    for page in pages:
        for paragraph in page.paragraphs:
            paragraph.page = page.number
    return pages


def chunks_of(pages):
    mark_headings(pages)
    drafts = chunk_pages(pages)
    assign_paths(pages, drafts)
    return drafts


def test_a_numbered_rule_starts_its_own_chunk_and_keeps_its_subrules():
    drafts = chunks_of(rule_pages())

    rule2 = next(d for d in drafts if d.text.startswith("702.2."))
    assert "702.2a" in rule2.text and "702.2b" in rule2.text
    rule3 = next(d for d in drafts if "702.3." in d.text)
    assert rule3.text.startswith("702.3.")  # a clean cut: no overlap before a new rule
    assert rule3.hierarchy_path == "7. Règles additionnelles > 702. Capacités mot-clé"
    assert rule3.hierarchy_level == 2


def test_chunk_spanning_two_pages_knows_where_each_page_begins():
    drafts = chunks_of(rule_pages())

    spanning = next(d for d in drafts if d.page_start != d.page_end)
    (first_page, zero), (second_page, offset) = spanning.page_offsets
    assert (first_page, zero, second_page) == (spanning.page_start, 0, spanning.page_end)
    assert spanning.text[offset:].startswith("702.2a")


def test_long_paragraphs_are_cut_near_the_target_with_overlap():
    sentence = "Le joueur actif déplace sa voiture du nombre de cases indiqué par ses cartes. "
    pages = [Page(1, [Paragraph(sentence * 60, 10, page=1)])]

    drafts = chunks_of(pages)

    assert len(drafts) >= 4
    assert all(d.size <= MAX_CHARS + 200 for d in drafts)
    assert drafts[1].text.startswith("Le joueur actif")  # the overlap starts on a sentence


CONDITION = "If three or more Fascist Policies have been enacted already, the Chancellor may end the round"
SETUP = "Each player takes a secret role card and a party membership card, then looks at them in secret. " * 4
VOTE = "The players vote on the proposed government by revealing their ballot cards at the same time. " * 3


def test_an_overlap_takes_a_short_last_paragraph_whole_never_from_its_second_word():
    pages = [Page(1, [Paragraph(text, 10, page=1) for text in (SETUP.strip(), CONDITION, VOTE.strip())])]

    drafts = chunks_of(pages)

    assert len(drafts) == 2 and drafts[1].pieces[0].paragraph is None
    assert drafts[1].text.startswith(CONDITION), drafts[1].text[:80]  # not « three or more Fascist… »


def test_a_last_paragraph_with_no_sentence_starting_in_its_tail_gives_no_overlap():
    clause = "the President draws the top three policy tiles, discards one of them face down and passes the rest "
    long_sentence = "When the government is elected " + clause * 3 + "to the Chancellor"
    first = SETUP[:220].rsplit(" ", 1)[0] + "."
    pages = [Page(1, [Paragraph(text, 10, page=1) for text in (first, long_sentence, VOTE.strip())])]

    drafts = chunks_of(pages)

    assert len(drafts) == 2 and long_sentence in drafts[0].text
    assert drafts[1].text.startswith("The players vote"), drafts[1].text[:80]  # no overlap from mid-sentence


def test_tiny_fragments_are_merged_but_short_sections_stay_whole():
    long = "Chaque manche, le joueur actif joue une carte puis résout son effet. " * 3
    paragraphs = [
        Paragraph("1. Matériel", 14, True),
        Paragraph("Un plateau, quatre voitures, soixante cartes de course et un carnet de score.", 10),
        Paragraph("2. Tour de jeu", 14, True),
        Paragraph(long, 10),
        Paragraph(long, 10),
        Paragraph("Fin du tour.", 10),
    ]
    for paragraph in paragraphs:
        paragraph.page = 1

    drafts = chunks_of([Page(1, paragraphs)])

    assert len(drafts) == 2
    assert drafts[0].text.startswith("1. Matériel") and "2. Tour" not in drafts[0].text
    assert drafts[1].text.startswith("2. Tour de jeu") and drafts[1].text.endswith("Fin du tour.")


def tracked_capitals_pages():
    # pdfminer cuts headings set with wide letter spacing into pieces (seen in the real
    # Secret Hitler rulebook: "EXEC UT IVE ACT I ON", "PR E SIDE NTIAL P O WE R S").
    body = "After the Executive Action the presidential powers of the government apply to a new round. " * 3
    return [Page(1, [
        Paragraph("SET UP", 9, page=1),
        Paragraph(body, 9, page=1),
        Paragraph("EXEC UT IVE ACT I ON", 9, page=1),
        Paragraph("The President must use the power before the next round begins. " * 3, 9, page=1),
        Paragraph("PR E SIDE NTIAL P O WE R S", 9, page=1),
        Paragraph("Investigate Loyalty: the President chooses a player to investigate. " * 3, 9, page=1),
        Paragraph("OV ERVI EW", 9, page=1),  # not a word of the booklet: from the system's word list
        Paragraph("Each player is secretly assigned to one of three roles. " * 3, 9, page=1),
        Paragraph("A NEW ROUND", 9, page=1),  # words as written: not « ANEW ROUND »
        Paragraph("The round starts with the player on the left of the dealer. " * 3, 9, page=1),
    ])]


def test_tracked_capitals_are_rejoined_into_known_words_and_start_a_section():
    drafts = chunks_of(tracked_capitals_pages())

    paths = [d.hierarchy_path for d in drafts]
    assert {"EXECUTIVE ACTION", "PRESIDENTIAL POWERS", "OVERVIEW", "A NEW ROUND"} <= set(paths)
    powers = next(d for d in drafts if d.hierarchy_path == "PRESIDENTIAL POWERS")
    assert powers.text.startswith("PRESIDENTIAL POWERS\n\nInvestigate Loyalty")


def test_without_word_lists_only_the_booklets_words_rejoin_capitals(settings):
    settings.WORD_LISTS = ""

    paths = [d.hierarchy_path for d in chunks_of(tracked_capitals_pages())]

    assert "PRESIDENTIAL POWERS" in paths and "OV ERVI EW" in paths


def test_a_table_of_contents_heads_no_later_section():
    entries = ["Set-up ..................... 4", "Gameplay ................... 6", "End of the game ............ 9"]
    text = "Players take turns clockwise and each turn has three phases described below. " * 3
    pages = [
        Page(1, [Paragraph("Game rules", 30), Paragraph("Table of Contents", 20)] + [Paragraph(e, 11) for e in entries]),
        Page(2, [Paragraph("1. Set-up", 16), Paragraph(text, 10), Paragraph("Who goes first?", 13), Paragraph(text, 10)]),
    ]
    for page in pages:
        for paragraph in page.paragraphs:
            paragraph.page = page.number

    drafts = chunks_of(pages)

    assert [d.hierarchy_path for d in drafts if d.page_start == 2] == ["Game rules > 1. Set-up", "Game rules > 1. Set-up > Who goes first?"]
    assert not any("Contents" in d.hierarchy_path or "...." in d.hierarchy_path for d in drafts)


def test_heading_sizes_a_point_apart_are_one_level():
    text = "Each player is secretly assigned to one of three roles before the game. " * 3
    pages = [Page(1, [
        Paragraph("SETUP", 19.0), Paragraph(text, 9.5), Paragraph("ELECTION", 9.5), Paragraph(text, 9.5),
        Paragraph("GAMEPLAY", 17.9), Paragraph(text, 9.5),
    ])]
    for paragraph in pages[0].paragraphs:
        paragraph.page = 1

    paths = [d.hierarchy_path for d in chunks_of(pages)]

    assert paths[-1] == "GAMEPLAY"  # a sibling of SETUP, not « SETUP > GAMEPLAY »
    assert "SETUP > ELECTION" in paths


def test_a_capitals_sentence_in_the_text_is_not_a_heading():
    pages = [Page(1, [
        Paragraph("Setup", 14, page=1),
        Paragraph("DON'T DO IT.", 9, page=1),  # ends like a sentence
        Paragraph("Shuffle the deck and deal five cards to each player before the first round. " * 4, 9, page=1),
    ])]

    drafts = chunks_of(pages)

    assert [d.hierarchy_path for d in drafts] == ["Setup"]


def test_the_printed_page_number_is_not_text_and_makes_no_chunk_span_two_pages():
    skills = "Regeneration: When taking a wound, roll one die. On a 5+ it is ignored. " * 4
    scout = "Scout: This model may be deployed after all other units, and may then move by up to 12 inches. " * 4
    pages = [Page(13, [Paragraph("Skills", 14, True), Paragraph(skills, 10), Paragraph("13", 8)]),
             Page(14, [Paragraph("14", 8), Paragraph("Special rules", 14, True), Paragraph(scout, 10),
                       Paragraph("Table: 3", 10)])]
    for page in pages:
        for paragraph in page.paragraphs:
            paragraph.page = page.number

    assert drop_page_numbers(pages) == 2
    drafts = chunks_of(pages)

    assert all(not any(p.text in {"13", "14"} for p in d.pieces) for d in drafts)
    skills_chunk = next(d for d in drafts if d.text.startswith("Skills"))
    assert (skills_chunk.page_start, skills_chunk.page_end) == (13, 13)  # the « 14 » made it 13–14
    assert pages[1].paragraphs[-1].text == "Table: 3"  # only a number standing alone is one


def test_a_number_far_from_the_page_or_inside_it_is_kept():
    pages = [Page(3, [Paragraph("120", 10), Paragraph("Score", 10), Paragraph("7", 10), Paragraph("Fin.", 10)])]

    assert drop_page_numbers(pages) == 0
    assert [p.text for p in pages[0].paragraphs] == ["120", "Score", "7", "Fin."]


def test_a_page_of_pages_number_is_the_pages_too_not_a_score():
    """« 1/2 » closing the first page of a two-page sheet made its last chunk span both pages."""
    pages = [Page(1, [Paragraph("Partie courte", 14, True), Paragraph("On joue en 10 tours.", 10), Paragraph("1/2", 8)]),
             Page(2, [Paragraph("Fin de partie : le score le plus haut gagne, 3/4 des points au moins.", 10), Paragraph("2 / 2", 8)])]

    assert drop_page_numbers(pages) == 2
    assert [p.text for page in pages for p in page.paragraphs] == [
        "Partie courte", "On joue en 10 tours.", "Fin de partie : le score le plus haut gagne, 3/4 des points au moins."]
    assert drop_page_numbers([Page(1, [Paragraph("3/4", 10)])]) == 0  # not out of this booklet's 1 page
