
from games.card_indexing import card_collection
from rag.synergy import card_filter, decompose, decompose_with_rules, match_sets, query_variants, synergy_search
from runtime import components
from tests.card_fixtures import dominaria  # noqa: F401


class ReplayedLLM:
    """Answers `complete` with a recorded text (the decomposition call of a real model)."""

    name, available = "replay", True

    def __init__(self, answer):
        self.answer, self.calls = answer, []

    def complete(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        self.calls.append((system, prompt, model))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_rules_read_colors_format_types_and_themes_in_french():
    d = decompose_with_rules("Un deck Standard bleu-rouge avec des éphémères et beaucoup de pioche")
    assert d.colors == ("U", "R") and d.format == "standard"
    assert "instant" in d.types and "draw" in d.themes


def test_guild_name_gives_its_colors():
    assert decompose_with_rules("Quelles cartes pour un Golgari sacrifice en Pioneer ?").colors == ("B", "G")


def test_set_matcher_finds_strixhaven_and_catalog_set_names():
    assert match_sets("Les meilleures cartes de Strixhaven pour le draft") == ("stx",)
    assert match_sets("Une synergie dans Dominaria ?", {"dom": "Dominaria"}) == ("dom",)
    assert match_sets("the best removal", {"the": "Theros"}) == ()


def test_llm_decomposition_is_used_when_valid_and_rules_otherwise():
    llm = ReplayedLLM('Voici : {"colors": ["G", "W"], "format": "Standard", "types": ["creature"], "themes": ["tokens"]}')
    d = decompose("un deck de jetons", llm)
    assert (d.colors, d.format, d.types, d.themes, d.source) == (("W", "G"), "standard", ("creature",), ("tokens",), "llm")
    broken = decompose("un deck vert de jetons", ReplayedLLM("pas du JSON"))
    assert broken.source == "rules" and broken.colors == ("G",) and "tokens" in broken.themes


def test_query_variants_add_english_card_wording_for_french_themes():
    d = decompose_with_rules("synergie de jetons et de sacrifice")
    variants = query_variants("synergie de jetons et de sacrifice", d)
    assert variants[0] == "synergie de jetons et de sacrifice"
    assert "create creature token" in variants and "sacrifice a creature" in variants


def test_color_filter_keeps_colorless_and_in_color_cards_only(dominaria):
    store = components.vector_store()
    d = decompose_with_rules("deck standard vert")
    cards = list(store.scroll(card_collection(dominaria), filter=card_filter(d, "mtg")))
    identities = {tuple(c.payload["card_mtg_color_identity"]) for c in cards}
    assert identities == {("G",), ()}


def test_synergy_search_finds_saproling_cards_for_a_french_question(dominaria):
    store, embedder = components.vector_store(), components.embedder()
    question = "Quelles cartes vertes vont avec les saprolings en Standard ?"
    d = decompose_with_rules(question)
    hits = synergy_search(store, embedder, card_collection(dominaria), question, d)
    top = [h.payload["card_name"] for h in hits[:10]]
    assert sum("Saproling" in h.payload["oracle_text"] for h in hits[:10]) >= 3, top
    assert all(set(h.payload["card_mtg_color_identity"]) <= {"G"} for h in hits)
