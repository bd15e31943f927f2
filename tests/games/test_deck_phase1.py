"""A deck asked of a game without a card catalog gets the reference's « Phase 1 » answer (a
synergy retrieval over the rulebooks and the deckbuilding rules), never a plain rules answer."""

from datetime import datetime, timezone

import pytest
from django.utils import translation

from games.deck_phase1 import ask_phase1
from runtime import components
from rag.deckbuilding.phase1 import PHASE1_SYSTEM_PROMPT
from rag.llm.base import ClaudeQuotaError, HealthReport, LLMTimeout
from tests.factories import ChunkFactory
from tests.ingest.pdfs import rulebook_pdf
from tests.ingest.running import ingest_inline

pytestmark = pytest.mark.django_db

RULES = [
    ("1. Mise en place", ["Chaque joueur prend un plateau Zoo, 25 pièces et pioche 8 cartes Projet dont il garde 4."]),
    ("2. Construire son paquet de départ", [
        "Variante de construction : chaque joueur compose un paquet de départ de 12 cartes Projet, "
        "au plus 2 cartes Animal de grande taille et au moins 3 cartes Mécène.",
        "Les cartes Mécène qui rapportent de l'argent se combinent bien avec les enclos de petite taille.",
    ]),
    ("3. Fin de partie", ["La partie s'arrête quand un joueur fait se croiser ses marqueurs d'attrait et de conservation."]),
]
QUESTION = "Peux-tu me construire un paquet de départ pour Ark Nova avec des cartes Mécène ?"


@pytest.fixture
def ark_nova(tmp_path):
    job = ingest_inline(rulebook_pdf(tmp_path / "ark.pdf", RULES, per_page=1), new_game_name="Ark Nova")
    ChunkFactory(game=job.game, collection="rules_ark-nova", is_forum=True, page_start=0, page_end=0,
                 text="Forum : mon paquet de départ préféré a 12 cartes Mécène, c'est imbattable.")
    return job.game


def test_without_an_llm_the_answer_says_no_list_can_be_built_and_quotes_the_construction_rules(ark_nova):
    tokens = []

    answer = ask_phase1(game=ark_nova, question=QUESTION, emit=lambda event, data: tokens.append(data["text"]))

    assert answer.startswith("**Ark Nova** n'a pas de catalogue de cartes dans Oracle")
    assert "[Ark Nova, p.2 :" in answer and "12 cartes Projet" in answer
    assert "Forum" not in answer  # forum threads are no deck advice
    assert "".join(tokens) == answer


class RecordingLLM:
    name = "recording"
    available = True

    def __init__(self):
        self.calls = []

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        self.calls.append((system, prompt, model))
        yield "### Mécènes\n"
        yield "3× Mécène [Ark Nova, p.2 : \"au moins 3 cartes Mécène\"]"

    def complete(self, system, prompt, **kwargs):
        return ""

    def health(self):
        return HealthReport(status="ok")


def test_with_an_llm_the_deckbuilding_prompt_gets_the_synergy_passages(ark_nova, monkeypatch, settings):
    llm = RecordingLLM()
    monkeypatch.setattr(components, "llm_backend", lambda: llm)
    tokens = []

    answer = ask_phase1(game=ark_nova, question=QUESTION, history=[{"question": "Et les enclos ?"}],
                        emit=lambda event, data: tokens.append(data["text"]))

    [(system, prompt, model)] = llm.calls
    assert system == PHASE1_SYSTEM_PROMPT and model == settings.DECK_ANSWER_MODEL
    assert prompt.index("SPEC DU DECK") < prompt.index("EXTRAITS DES RÈGLES") < prompt.index("QUESTION :")
    assert "au moins 3 cartes Mécène" in prompt and "Forum" not in prompt
    assert "Joueur : Et les enclos ?" in prompt
    assert answer == "".join(tokens) and answer.startswith("### Mécènes")


def test_the_ask_flow_answers_a_deck_request_on_a_game_without_catalog_with_phase1(ark_nova):
    from questions.ask_flow.flow import answer_question
    from questions.ask_flow.intake import create_question
    from questions.models import Question

    question = create_question(game=ark_nova, text="Peux-tu me construire un deck de départ avec des cartes Mécène ?")
    events = []

    answer_question(question.pk, lambda name, data: events.append((name, data)))

    question.refresh_from_db()
    assert question.status == Question.Status.DONE and question.intent == "deckbuilding"
    assert question.answer.startswith("**Ark Nova** n'a pas de catalogue de cartes dans Oracle")
    assert "12 cartes Projet" in question.answer and "Forum" not in question.answer
    assert "".join(d["text"] for n, d in events if n == "token") == question.answer
    assert [n for n, _ in events][-2:] == ["diagnostics", "done"]


class FailingMidway:
    """Streams the start of a list, then fails as a backend does (a timeout, the quota)."""

    name = "failing-midway"
    available = True

    def __init__(self, error):
        self.error = error

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        yield "### Mécènes\n"
        yield "3× Mécène, 2× "
        raise self.error

    def complete(self, system, prompt, **kwargs):
        return ""

    def health(self):
        return HealthReport(status="ok")


RESET = datetime(2026, 11, 29, 22, 0, tzinfo=timezone.utc)  # 17:00 in Bogotá (UTC-5)
CUT_SHORT = "Claude CLI did not finish in time (answer cut short)"
FAILURES = {  # the error, and what the rules answer says of it (questions/ask_flow/steps/answer_rules.py)
    "timeout": (LLMTimeout(CUT_SHORT), "Le modèle de langage n'a pas répondu à temps."),
    "quota": (ClaudeQuotaError(RESET), "Le quota du modèle de langage est atteint (reprise vers 17:00)."),
}
PARTIAL = "### Mécènes\n3× Mécène, 2× "
OFFLINE_START = "**Ark Nova** n'a pas de catalogue de cartes dans Oracle"


@pytest.mark.parametrize("failure", FAILURES)
def test_an_llm_failing_midway_keeps_its_text_says_why_then_quotes_the_rules(ark_nova, settings, failure):
    settings.TIME_ZONE = "America/Bogota"  # the quota's reset time is the site's
    error, said = FAILURES[failure]
    tokens = []

    answer = ask_phase1(game=ark_nova, question=QUESTION, emit=lambda event, data: tokens.append(data["text"]),
                        llm=FailingMidway(error))

    assert answer == "".join(tokens)  # the answer kept is the one the player saw
    assert answer.startswith(f"{PARTIAL}\n\n---\n{said}\n\n{OFFLINE_START}")
    assert "12 cartes Projet" in answer and CUT_SHORT not in answer  # the error's own text goes to the log


def test_an_llm_failing_before_any_text_says_why_first_in_the_readers_language(ark_nova, settings):
    settings.TIME_ZONE = "America/Bogota"
    tokens = []

    class QuotaAtOnce(FailingMidway):
        def stream(self, *args, **kwargs):
            raise self.error
            yield  # a generator, as a backend's stream is

    with translation.override("en"):
        answer = ask_phase1(game=ark_nova, question=QUESTION, emit=lambda event, data: tokens.append(data["text"]),
                            llm=QuotaAtOnce(ClaudeQuotaError(RESET)))

    assert answer == "".join(tokens)
    assert answer.startswith(f"The language model's quota is reached (back around 17:00).\n\n{OFFLINE_START}")


def test_an_empty_llm_answer_says_so_then_quotes_the_rules(ark_nova):
    class Silent(FailingMidway):
        def stream(self, *args, **kwargs):
            yield ""  # a model that answered nothing
    tokens = []

    answer = ask_phase1(game=ark_nova, question=QUESTION, emit=lambda event, data: tokens.append(data["text"]),
                        llm=Silent(None))

    assert answer == "".join(tokens)
    assert answer.startswith(f"Le modèle de langage a rendu une réponse vide.\n\n{OFFLINE_START}")


@pytest.mark.parametrize("failure", FAILURES)
def test_the_ask_flow_stores_the_answer_the_player_saw_when_the_llm_fails_midway(ark_nova, monkeypatch, settings,
                                                                                  failure):  # fmt: skip
    from questions.ask_flow.flow import answer_question
    from questions.ask_flow.intake import create_question
    from questions.models import Question

    settings.TIME_ZONE = "America/Bogota"
    error, said = FAILURES[failure]
    monkeypatch.setattr(components, "llm_backend", lambda: FailingMidway(error))
    question = create_question(game=ark_nova, text="Peux-tu me construire un deck de départ avec des cartes Mécène ?")
    events = []

    answer_question(question.pk, lambda name, data: events.append((name, data)))

    question.refresh_from_db()
    assert question.status == Question.Status.DONE and question.intent == "deckbuilding"
    assert "".join(d["text"] for n, d in events if n == "token") == question.answer  # a reload shows the same turn
    assert question.answer.startswith(f"{PARTIAL}\n\n---\n{said}\n\n{OFFLINE_START}")
    name, done = events[-1]
    assert name == "done" and done["fullAnswer"] == question.answer
