import json

from rag.deckbuilding.spec import default_spec, parse_spec, request_spec


class ReplayedLLM:
    name, available = "replay", True

    def __init__(self, answer):
        self.answer = answer

    def complete(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        return self.answer


def test_per_game_defaults():
    mtg, rift, fab = default_spec("mtg"), default_spec("riftbound"), default_spec("fab")
    assert (mtg.format, mtg.main, mtg.sideboard, mtg.max_copies) == ("standard", 60, 15, 4)
    assert (rift.main, rift.sideboard, rift.max_copies, rift.runes, rift.battlefields) == (40, 0, 3, 12, 3)
    assert (fab.format, fab.main, fab.sideboard, fab.max_copies) == ("classic constructed", 60, 0, 3)
    assert sum(mtg.roles.values()) == 60 and sum(rift.roles.values()) == 40


def test_commander_default_is_a_hundred_singletons():
    spec = default_spec("mtg", format="commander")
    assert (spec.main, spec.sideboard, spec.max_copies, sum(spec.roles.values())) == (100, 0, 1, 100)


def test_valid_llm_spec_is_used_and_keeps_our_anchors():
    fallback = default_spec("mtg", anchors=["Academy Drake"])
    answer = json.dumps({"game": "mtg", "format": "pioneer", "colors": ["U"], "main": 60, "sideboard": 15,
                         "max_copies": 4, "roles": {"creatures": 16, "spells": 20, "lands": 24}, "anchors": []})
    spec, source = request_spec("un deck bleu pioneer", ReplayedLLM("```json\n" + answer + "\n```"), fallback)
    assert source == "llm" and spec.format == "pioneer" and spec.roles["spells"] == 20
    assert spec.anchors == ["Academy Drake"]


def test_invalid_llm_spec_falls_back_to_the_game_defaults():
    fallback = default_spec("riftbound")
    bad_sizes = json.dumps({"format": "x", "main": 5, "max_copies": 3})
    bad_roles = json.dumps({"format": "x", "main": 40, "max_copies": 3, "roles": {"units": 10, "spells": 10}})
    for answer in ("je ne sais pas", bad_sizes, bad_roles):
        assert parse_spec(answer, fallback) is None
        spec, source = request_spec("un deck", ReplayedLLM(answer), fallback)
        assert source == "defaults" and spec == fallback


def test_no_llm_means_defaults():
    from rag.llm.base import NoLLM

    assert request_spec("un deck", NoLLM(), default_spec("fab"))[1] == "defaults"


def test_the_llms_format_is_written_as_legalities_hold_it():
    for written, stored in (("Modern", "modern"), (" moderne ", "modern"), ("EDH", "commander"), ("Pioneer", "pioneer")):
        answer = json.dumps({"format": written, "main": 60, "sideboard": 15, "max_copies": 4})
        assert parse_spec(answer, default_spec("mtg")).format == stored


def test_a_standard_brawl_request_is_standard_brawl_and_an_llm_spec_keeps_brawls_hundred_cards():
    from rag.synergy import canonical_format, decompose_with_rules

    assert decompose_with_rules("Construis-moi un deck Standard Brawl autour de Chandra").format == "standardbrawl"
    # the French word order
    assert decompose_with_rules("Un deck de Brawl standard autour de Chandra").format == "standardbrawl"
    assert decompose_with_rules("Un deck de Brawl historique mono-vert").format == "brawl"
    assert canonical_format("Brawl standard") == "standardbrawl"
    spec = parse_spec('{"format": "brawl", "main": 60, "max_copies": 1}', default_spec("mtg", format="brawl"))
    assert (spec.main, spec.max_copies, spec.commander) == (100, 1, "")


def test_a_format_is_named_by_the_longest_name_that_holds_a_shorter_one_only():
    from rag.synergy import decompose_with_rules

    for question, wanted in (("Je veux explorer un deck modern", "modern"), ("je veux explorer un deck EDH", "commander"),
                             ("a pioneer deck with historic spells", "pioneer"), ("historic brawl deck", "brawl"),
                             ("duel commander deck", "duel"), ("deck premodern", "premodern")):  # fmt: skip
        assert decompose_with_rules(question).format == wanted, question


def test_an_llm_spec_keeps_the_format_the_question_named_and_a_blitz_spec_without_roles_is_scaled():
    standard_brawl = parse_spec('{"format": "Brawl", "main": 100}', default_spec("mtg", format="standardbrawl"))
    blitz = parse_spec('{"format": "Blitz", "main": 60}', default_spec("fab"))

    assert (standard_brawl.format, standard_brawl.main) == ("standardbrawl", 60)
    assert (blitz.format, blitz.main, blitz.max_copies, sum(blitz.roles.values())) == ("blitz", 40, 2, 40)
