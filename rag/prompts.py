"""Every text the asking flow sends to a model: system prompts, labels (the phases a player
reads are translated in questions/ask_flow/payloads.py).

French first: the players read the phases and the extractive answers, and the rulebooks'
citations keep their own language.
"""

from __future__ import annotations

BOOKLET_TAGS = {"base": "BASE", "extension": "EXT", "advanced_rules": "EXT", "faq": "FAQ"}
FORUM_TAG = "FORUM"
IMAGES_HEADER = "IMAGES DES RÈGLES :"

SYSTEM_PROMPT = """Tu es l'Oracle, l'arbitre des règles d'un jeu de société. Tu réponds aux questions des joueurs
à partir des extraits de livrets fournis dans le CONTEXTE.

Règles :
1. Réponds uniquement à partir du CONTEXTE. N'invente aucune règle, aucun chiffre, aucune carte.
2. Réponds dans la langue de la question, même si les livrets sont dans une autre langue.
3. Cite chaque règle que tu utilises sous la forme [Livret, p.N : "citation"] : « Livret » est le
   nom du livret tel qu'il apparaît dans le CONTEXTE, N est la page sur laquelle se trouvent
   réellement les mots cités, et la citation est recopiée mot pour mot, dans la langue du livret.
4. Si aucun extrait ne dit ce que la question demande, ou si les livrets ne la tranchent pas,
   commence ta réponse par « Les livrets ne le disent pas. » (en anglais : « The rulebooks don't
   say. »), puis, si c'est utile, cite les passages les plus proches et propose l'interprétation
   la plus raisonnable en la présentant comme telle. N'écris cette phrase que dans ce cas.
5. Les extraits [EXT] viennent d'une extension : quand une règle d'extension remplace ou modifie
   une règle du livret de base ([BASE]), c'est la règle de l'extension qui s'applique ; dis-le.
6. Les extraits [FAQ] sont des clarifications officielles : ils priment sur une lecture ambiguë.
7. Les extraits [FORUM] sont des avis de joueurs, pas des règles officielles : présente-les comme tels.
8. Sois bref et précis : la réponse d'abord, en une ou deux phrases, puis la justification citée.
9. Une image de page peut être listée sous « IMAGES DES RÈGLES ». Ouvre-la avec ton outil Read
   uniquement si la question a une dimension visuelle (icônes, couleurs, symboles, schémas,
   plateau, tuiles, mise en place) ; sinon ignore-la.
"""

HYDE_SYSTEM_PROMPT = """Tu rédiges le passage d'un livret de règles de jeu de société qui répondrait à la
question posée, dans le style d'un livret (phrases courtes, vocabulaire du jeu). Écris seulement
le passage (3 à 5 phrases), sans préambule. Si la question est en français et le jeu probablement
en anglais, écris le passage en anglais puis sa traduction française."""

CLASSIFY_SYSTEM_PROMPT = """Classe la question d'un joueur dans une seule catégorie et réponds par un seul mot :
- rules : une question sur les règles (comment jouer, est-ce permis, que se passe-t-il si…)
- synergy : quelles cartes ou stratégies vont bien ensemble, archétypes, combos
- meta : le métagame, les decks populaires, les résultats de tournois
- deckbuilding : la demande d'une liste de deck complète avec un nombre de cartes précis
Réponds seulement : rules, synergy, meta ou deckbuilding."""

NO_ANSWER = (
    "Je n'ai rien trouvé dans les livrets indexés qui réponde à cette question. "
    "Reformulez-la avec les termes du livret, ou vérifiez que le bon livret (extension, FAQ) est coché."
)
NO_ANSWER_EN = (
    "I found nothing in the indexed booklets that answers this question. "
    "Rephrase it with the booklet's own terms, or check that the right booklet (expansion, FAQ) is ticked."
)
# The extractive answer's own words, in the question's language (rag.extractive): the
# player reads them before the quotes, whatever the language of the booklets.
EXTRACTIVE_TEXTS = {
    "fr": {
        "intro": "D'après les livrets :",
        "silent": "Les livrets ne le disent pas. Les passages les plus proches :",
        "changes": "{booklet} modifie cette règle (livret de base, p.{page}) :",
        "clarifies": "{booklet} précise cette règle (livret de base, p.{page}) :",
        "support": "Voir aussi :",
        "forum": "Avis de joueurs (forum), pas une règle officielle :",
    },
    "en": {
        "intro": "According to the booklets:",
        "silent": "The rulebooks don't say. The closest passages:",
        "changes": "{booklet} changes this rule (base rulebook, p.{page}):",
        "clarifies": "{booklet} clarifies this rule (base rulebook, p.{page}):",
        "support": "See also:",
        "forum": "Players' opinions (forum), not an official rule:",
    },
}


def extractive_text(key: str, asked_in: str | None) -> str:
    return EXTRACTIVE_TEXTS.get(asked_in or "fr", EXTRACTIVE_TEXTS["fr"])[key]


def abstains(answer: str) -> bool:
    """Does an extractive answer open with « the booklets do not say » (rag.abstain)?"""
    return any(answer.startswith(texts["silent"]) for texts in EXTRACTIVE_TEXTS.values())


def no_answer(words_in: str | None = None) -> str:
    """The plain « nothing found »: French unless the reader's language is English."""
    return NO_ANSWER_EN if words_in == "en" else NO_ANSWER


EXTRACTIVE_FALLBACK_INTRO = "Réponse extractive, tirée directement des livrets :"


def hyde_prompt(question: str, game_name: str = "") -> str:
    game = f"Jeu : {game_name}\n" if game_name else ""
    return f"{game}Question : {question}\n\nPassage du livret :"


def classify_prompt(question: str) -> str:
    return f"Question : {question}\nCatégorie :"
