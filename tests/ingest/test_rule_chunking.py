"""Numbered-rules documents (the Comprehensive Rules, FAQ booklets) are chunked by rule."""

from ingest.stages.chunk import chunk_pages
from ingest.stages.hierarchy import assign_paths, mark_headings
from ingest.stages.read import Page, Paragraph
from ingest.stages.rules import RULE_MAX_CHARS, chunk_rules, is_rules_document

LONG = "The controller of an attacking creature with trample first assigns damage to the creatures blocking it. " * 4


def _paragraphs() -> list[list[Paragraph]]:
    """Four pages shaped like the Comprehensive Rules: contents, rules, keywords, glossary."""
    contents = [Paragraph("Contents", 16, True), Paragraph("1. Game Concepts", 10, True), Paragraph("100. General", 10),
                Paragraph("7. Additional Rules", 10, True), Paragraph("702. Keyword Abilities", 10), Paragraph("Glossary", 10)]
    rules = [Paragraph("1. Game Concepts", 16, True), Paragraph("100. General", 12, True),
             Paragraph("100.1. These rules apply to any game with two or more players.", 10),
             Paragraph("100.1a A two-player game is a game that begins with only two players.", 10),
             Paragraph("Example: A game of two players against each other is a two-player game.", 10),
             Paragraph("100.1b A multiplayer game is a game that begins with more than two players.", 10)]
    rules += [Paragraph(f"100.{n}. Filler rule number {n} says something short about the game.", 10) for n in range(2, 42)]
    keywords = [Paragraph("7. Additional Rules", 16, True), Paragraph("702. Keyword Abilities", 12, True),
                Paragraph("702.19. Trample", 10.5, True),
                Paragraph("702.19a Trample is a static ability that modifies the rules for assigning combat damage.", 10),
                Paragraph(f"702.19b {LONG}", 10),
                Paragraph("Example: A 6/6 green creature with trample is blocked by a 2/2 creature.", 10),
                Paragraph("601.2c. (If an activated ability uses the word target, that ability is targeted.)", 10),
                Paragraph(f"702.19c {LONG}", 10), Paragraph(f"702.19d {LONG}", 10),
                Paragraph("702.20. Vigilance", 10.5, True),
                Paragraph("702.20a Vigilance is a static ability that modifies the rules for the declare attackers step.", 10)]
    glossary = [Paragraph("Glossary", 16, True),
                Paragraph("Graveyard", 10, True), Paragraph("1. A zone. A player's graveyard is their discard pile.", 10),
                Paragraph("2. All the cards in a player's graveyard. See rule 404, “Graveyard.”", 10),
                Paragraph("Trample A keyword ability that can let a creature deal excess combat damage. "
                          "See rule 702.19, “Trample.”", 10)]
    return [contents, rules, keywords, glossary]


def rules_document() -> list[Page]:
    pages = [Page(number, paragraphs) for number, paragraphs in enumerate(_paragraphs(), start=1)]
    for page in pages:
        for paragraph in page.paragraphs:
            paragraph.page = page.number
    mark_headings(pages)
    return pages


def chunks():
    pages = rules_document()
    drafts = chunk_rules(pages)
    assign_paths(pages, drafts)  # as the pipeline does: the rule paths are kept
    return drafts


def of_rule(drafts, number):
    return [d for d in drafts if d.rule == number]


def test_a_document_of_numbered_rules_is_told_from_an_ordinary_rulebook():
    assert is_rules_document(rules_document())
    ordinary = [Page(1, [Paragraph("Mise en place", 14, True), Paragraph("Chaque joueur prend trois cartes. " * 5, 10),
                         Paragraph("1. Placez le plateau au centre de la table.", 10)])]
    assert not is_rules_document(ordinary)


def test_a_rule_keeps_its_subrules_and_its_examples():
    drafts = chunks()

    (rule,) = of_rule(drafts, "100.1")
    assert rule.text.startswith("100.1. These rules apply")
    assert "100.1a" in rule.text and "100.1b" in rule.text and "Example: A game of two players" in rule.text
    assert rule.hierarchy_path == "1. Game Concepts > 100. General > 100.1"
    assert not any(d.text.startswith("Example:") for d in drafts)


def test_a_long_rule_is_cut_between_subrules_and_every_part_carries_its_number_and_heading():
    trample = of_rule(chunks(), "702.19")

    assert len(trample) >= 2
    assert all(d.text.startswith("702.19. Trample") for d in trample)
    assert all(d.hierarchy_path == "7. Additional Rules > 702. Keyword Abilities > 702.19. Trample" for d in trample)
    assert all(d.size <= RULE_MAX_CHARS for d in trample)
    joined = "\n".join(d.text for d in trample)
    assert all(f"702.19{letter} " in joined for letter in "abcd")
    with_example = next(d for d in trample if "Example: A 6/6" in d.text)
    assert "702.19b" in with_example.text  # the example stays with the sub-rule it illustrates


def test_a_wrapped_line_starting_with_a_rule_number_is_not_a_rule():
    drafts = chunks()

    assert not of_rule(drafts, "601.2")
    assert any("601.2c. (If an activated" in d.text for d in of_rule(drafts, "702.19"))


def test_keywords_the_document_defines_are_in_the_payload():
    drafts = chunks()

    assert of_rule(drafts, "702.20")[0].rule_keywords == {"vigilance": "702.20"}
    assert all(d.rule_keywords == {"trample": "702.19"} for d in of_rule(drafts, "702.19"))
    glossary = [d for d in drafts if d.hierarchy_path == "Glossary"]
    assert glossary and {"trample": "702.19"} == glossary[-1].rule_keywords
    # the numbered senses of a glossary entry are its text, not rules 1 and 2
    assert any("1. A zone." in d.text and "Graveyard" in d.text for d in glossary)


def test_an_ordinary_rulebook_keeps_the_paragraph_chunker():
    pages = [Page(1, [Paragraph("Mise en place", 14, True), Paragraph("Chaque joueur prend trois cartes. " * 8, 10)])]
    for paragraph in pages[0].paragraphs:
        paragraph.page = 1
    mark_headings(pages)

    assert not is_rules_document(pages)
    assert [d.text for d in chunk_pages(pages)][0].startswith("Mise en place")
