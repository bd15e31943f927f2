"""A deck answer's own words in the reader's language, "fr" (the default) or "en": the
verdict's issues and warnings (a pasted list's unread lines among them), the offline list's
title, headings and notes, the retry line, the answer for a game whose cards are not imported,
the note of an LLM that failed on the way (`llm_failure`, in the rules answer's words).
Card names and an LLM's list are not translated. `rag` stays free of Django: the caller passes the
language (games.deck_requests)."""

from __future__ import annotations

from rag.llm import failure_words
from rag.llm.base import ClaudeQuotaError

TEXTS = {
    "section_size": {"fr": "{label} : {count} cartes au lieu de {wanted}.", "en": "{label}: {count} cards instead of {wanted}."},
    "section_min": {"fr": "{label} : {count} cartes, il en faut au moins {wanted}.", "en": "{label}: {count} cards, at least {wanted} are needed."},
    "section_max": {"fr": "{label} : {count} cartes, {wanted} au plus.", "en": "{label}: {count} cards, {wanted} at most."},
    "not_legal": {"fr": "{name} n'est pas autorisée en {format}.", "en": "{name} is not legal in {format}."},
    "too_many": {"fr": "{name} : {count} exemplaires, le maximum est {max}.", "en": "{name}: {count} copies, the maximum is {max}."},
    "no_commander": {
        "fr": "Le commandant n'est pas indiqué (une section « Commander » avec sa carte) : l'identité couleur n'est pas vérifiée.",
        "en": "The commander is not given (a “Commander” section with its card): the colour identity is not checked.",
    },
    "cannot_lead": {"fr": "{name} ne peut pas être commandant en {format}.", "en": "{name} cannot be a commander in {format}."},
    "too_many_commanders": {"fr": "{count} commandants : deux au plus (une paire de partenaires).",
                            "en": "{count} commanders: two at most (a partner pair)."},
    "outside_identity": {"fr": "{name} sort de l'identité couleur du commandant ({identity}) : {colors}.",
                         "en": "{name} is outside the commander's colour identity ({identity}): {colors}."},
    "colourless": {"fr": "incolore", "en": "colourless"},
    "commander_missing": {"fr": "Le commandant {name} manque : une section « ### Commandant ({count}) » avec sa carte.",
                          "en": "The commander {name} is missing: a “### Commandant ({count})” section with its card."},
    "not_a_pair": {"fr": "{first} et {second} ne peuvent pas être commandants ensemble (ni Partenaire, ni Historique, ni autre paire).",
                   "en": "{first} and {second} cannot be commanders together (neither Partner, Background nor another pair)."},
    "one_basic_type": {"fr": "Un commandant incolore en Brawl permet des terrains de base d'un seul type, pas : {types}.",
                       "en": "A colourless Brawl commander allows basic lands of one type only, not: {types}."},
    "anchor_missing": {"fr": "Carte obligatoire absente : {name}.", "en": "Mandatory card missing: {name}."},
    "unknown_card": {"fr": "Carte inconnue du catalogue : {name}.", "en": "Card not in the catalog: {name}."},
    "unread_line": {
        "fr": "Ligne non lue, laissée hors de la liste (ni « 4 Nom de la carte », ni titre de section) : « {line} ».",
        "en": "Line not read, left out of the list (neither “4 Card name” nor a section heading): “{line}”.",
    },
    "unread_more": {"fr": "… et {count} autres lignes non lues.", "en": "… and {count} more lines not read."},
    "no_catalog": {
        "fr": "Les cartes de ce jeu ne sont pas encore importées : l'Oracle ne peut ni construire ni vérifier "
              "une decklist tant que son catalogue est vide.",
        "en": "This game's cards are not imported yet: the Oracle can neither build nor check a decklist "
              "while its catalog is empty.",
    },
    "no_pool": {"fr": "Aucune carte du catalogue n'est éligible ({what}).", "en": "No card of the catalog is eligible ({what})."},
    "offline_note": {
        "fr": "_Liste construite sans LLM à partir du pool éligible : chaque rôle est rempli par les cartes "
              "obligatoires, puis celles des decklists de tournoi proches, puis les meilleures synergies._",
        "en": "_List built without an LLM from the eligible pool: each role is filled with the mandatory "
              "cards, then those of close tournament decklists, then the best synergies._",
    },
    "anchors_note": {"fr": "Cartes obligatoires incluses : {cards}.", "en": "Mandatory cards included: {cards}."},
    "inspiration_note": {"fr": "Inspiration : {decks}.", "en": "Inspiration: {decks}."},
    "retry": {"fr": "\n\n---\n*Liste invalide, l'Oracle la corrige…*\n\n", "en": "\n\n---\n*Invalid list, the Oracle corrects it…*\n\n"},
    "runes": {"fr": "{count} runes", "en": "{count} runes"},
    "battlefields": {"fr": "{count} champs de bataille", "en": "{count} battlefields"},
}  # fmt: skip

# The French headings and labels the code writes (spec.ROLES, the sections), in English.
ENGLISH_LABELS = {
    "Deck principal": "Main deck", "Deck de runes": "Rune deck", "Champs de bataille": "Battlefields",
    "Créatures": "Creatures", "Sorts": "Spells", "Terrains": "Lands", "Unités": "Units", "Équipements": "Gear",
    "Actions d'attaque": "Attack actions", "Réactions de défense": "Defense reactions", "Éphémères": "Instants",
    "Héros": "Hero", "Légende": "Legend", "Équipement": "Equipment", "Commandant": "Commander",
}  # fmt: skip
COLORS = {
    "fr": {"W": "blanc", "U": "bleu", "B": "noir", "R": "rouge", "G": "vert"},
    "en": {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green"},
}


reader = failure_words.reader  # "en" for an English reader ("en", "en-GB"…), else "fr"


def text(key: str, lang: str = "fr", **params) -> str:
    return TEXTS[key][reader(lang)].format(**params)


def label(french: str, lang: str = "fr") -> str:
    """A heading or label the code writes in French, in the reader's language."""
    return ENGLISH_LABELS.get(french, french) if reader(lang) == "en" else french


def color(code: str, lang: str = "fr") -> str:
    """A Magic colour (W, U, B, R, G) by its name."""
    return COLORS[reader(lang)][code]


def llm_failure(error: Exception, lang: str = "fr", *, after_text: bool = False) -> str:
    """The note streamed when the LLM fails while writing a deck answer, just before the offline
    answer: after the text it had streamed (`after_text`: that text stays), a rule that closes
    it; then the rules answer's sentence for that failure (rag.llm.failure_words), a quota's
    resume time in the site's time zone (Django sets the process's to TIME_ZONE). Never the
    error's own text (English, a CLI's output): the caller logs it."""
    at = error.reset_at if isinstance(error, ClaudeQuotaError) else None
    note = failure_words.failure(error, lang, reset=at.astimezone().strftime("%H:%M") if at else "?")
    return ("\n\n---\n" if after_text else "") + note + "\n\n"


def failed_on_the_way(error: Exception, streamed: str, lang: str, emit) -> str:
    """What the player has seen of a deck answer whose LLM failed: what it had streamed, then
    the note saying why (`llm_failure`, emitted here); the offline answer comes next."""
    note = llm_failure(error, lang, after_text=bool(streamed))
    emit("token", {"text": note})
    return streamed + note
