"""Questions to suggest in a game's chat, made from the headings of its own booklets.

`suggested_questions(game)` turns the sections of the game's rules (the heading paths the
ingestion gave its chunks, ingest/stages/hierarchy.py) into a few questions a player could
ask, in the game's language: « Mise en place » → « Comment met-on le jeu en place ? »,
"Combat" → "How does combat work?", « La dérive » → « Comment fonctionne la dérive ? ».
`question_placeholder(game)` is the example shown in the empty question box, another
section of the same game. Neither ever shows another game's text: a game without chunks
gets no suggestion and a neutral placeholder.

Headings that are not rules (contents, credits, components list, the booklet's title…) are
skipped. The choice is deterministic: booklet order, the well-known sections (setup, turn,
end of the game) first. Results are cached per game until its chunks change (the cache
key is the count and the latest creation time of its booklets' chunks: an ingestion
replaces them, a deleted booklet removes them).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass

from django.db.models import Count, Max, Min, Q
from django.utils.translation import gettext as _

from rag.language import ENGLISH, FRENCH, normalise

from .models import Chunk, Game

SEPARATOR = " > "
MAX_WORDS = 7
MAX_CHARS = 60
OWN_RANK = 99  # the rank of a section that is not a well-known one
TITLE_SHARE = 0.6  # a first-level heading over this share of the chunks is the booklet's title

_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*[a-z]?\.?(?:\s*[&,/-]\s*\d+\.?)*|[IVX]+\.|[A-Z]\.|[-–•*])\s+")
_TRAILING_PARENS = re.compile(r"\s*\([^)]*\)\s*$")
_WEB = re.compile(r"www\.|https?:|\.(?:org|com|net|fr)\b", re.IGNORECASE)
_FR_ARTICLE = re.compile(r"^(?:(le|la|les|un|une|des|du)\s+|(l)['’])", re.IGNORECASE)

# Sections that are not rules a player asks about (folded: lower case, no accents); a heading
# is generic when it is one of these words (or its plural), alone or followed by other words.
GENERIC = (
    "sommaire", "table des matieres", "credit", "remerciement", "merci", "auteur", "illustration",
    "introduction", "presentation", "vue d'ensemble", "apercu", "materiel", "contenu", "composant",
    "index", "licence", "mentions legales", "resume", "a propos", "glossaire", "vocabulaire", "annexe",
    "note", "conseils", "strategie", "exemple",
    "contents", "table of contents", "thank", "acknowledgement", "acknowledgment", "license", "overview", "about",
    "components", "component list", "game contents", "box contents", "summary", "glossary", "appendix",
    "designer", "strategy", "example", "tips", "faq", "game design", "welcome", "bienvenue",
)

# Well-known sections and the question a player asks about them, by language. Keys are folded
# headings; a key ending in "*" matches a heading that starts with it.
KNOWN = {
    FRENCH: {
        ("mise en place", "preparation", "preparation du jeu", "preparation de la partie", "installation",
         "mise en place du jeu", "mise en place de la partie"): "Comment met-on le jeu en place ?",
        ("but du jeu", "but", "objectif", "objectif du jeu", "objectifs du jeu", "but de la partie"):
            "Quel est le but du jeu ?",
        ("tour de jeu", "deroulement", "deroulement du jeu", "deroulement de la partie", "deroulement d'un tour",
         "le tour de jeu", "deroulement du tour", "sequence de jeu", "ordre du tour"): "Comment se déroule un tour de jeu ?",
        ("deroulement d'une manche", "une manche", "manche de jeu"): "Comment se déroule une manche ?",
        ("combat", "combats", "le combat", "les combats"): "Comment se déroule le combat ?",
        ("victoire", "conditions de victoire", "gagner la partie", "comment gagner"): "Comment gagne-t-on la partie ?",
        ("fin de partie*", "fin du jeu*", "fin de la partie*"): "Quand et comment la partie se termine-t-elle ?",
        ("decompte*", "score", "scores", "points de victoire", "comptage des points", "calcul des points"):
            "Comment compte-t-on les points ?",
        ("egalite", "en cas d'egalite", "egalites"): "Que se passe-t-il en cas d'égalité ?",
        ("variante", "variantes"): "Quelles variantes proposent les règles ?",
        ("iconographie", "icones", "symboles", "les icones", "les symboles"): "Que signifient les icônes ?",
        ("cas particuliers", "precisions", "clarifications", "regles speciales"):
            "Quels cas particuliers les règles précisent-elles ?",
    },
    ENGLISH: {
        ("setup", "set-up", "set up", "game setup", "setting up", "preparation", "setting up the game"):
            "How do I set up the game?",
        ("object", "objective", "goal", "object of the game", "goal of the game", "aim of the game"):
            "What is the goal of the game?",
        ("gameplay", "playing the game", "how to play", "game play"): "How is the game played?",
        ("turn structure", "game turn", "turn order", "sequence of play", "a turn", "your turn", "turn overview",
         "taking a turn", "on your turn", "order of play", "round structure"): "How does a turn work?",
        ("combat", "combat rules", "battle", "battles", "fighting"): "How does combat work?",
        ("winning", "victory", "winning the game", "how to win", "victory conditions"): "How do you win the game?",
        ("end of the game*", "game end*", "end game", "ending the game", "end of game*"): "When does the game end?",
        ("scoring*", "final scoring", "points", "victory points"): "How does scoring work?",
        ("tie", "ties", "tiebreaker", "tie breaker", "tiebreakers"): "What happens in case of a tie?",
        ("variant", "variants", "game variants"): "What variants do the rules offer?",
        ("iconography", "icons", "symbols"): "What do the icons mean?",
    },
}

# Questions about any other section, in turn (the heading as the booklet writes it).
TEMPLATES = {
    FRENCH: ("Que disent les règles sur « {h} » ?", "Peux-tu m'expliquer « {h} » ?", "Que faut-il savoir sur « {h} » ?"),
    ENGLISH: ('What do the rules say about "{h}"?', 'Can you explain "{h}"?', 'What are the rules for "{h}"?'),
}
# A French heading that begins with an article reads as part of the sentence.
ARTICLE_TEMPLATES = (
    "Comment {verb} {h} ?", "Que faut-il savoir sur {h} ?", "Peux-tu m'expliquer {h} ?",
)

_lock = threading.Lock()
_cache: dict[str, tuple[tuple, list["Section"]]] = {}


@dataclass(frozen=True)
class Section:
    heading: str  # cleaned: no numbering, no trailing « (optionnel) »
    question: str
    rank: int  # a well-known section's place in KNOWN (setup, turn…); others come after, in order
    depth: int  # 1 for a chapter, 2 for its sections… (the booklet's title not counted)
    order: tuple  # where it first appears: (booklet, ordinal)


def fold(text: str) -> str:
    text = text.replace("’", "'").replace("æ", "ae").replace("ǽ", "ae").replace("œ", "oe")
    text = unicodedata.normalize("NFKD", text.replace("Æ", "AE").replace("Œ", "OE"))
    return " ".join("".join(c for c in text if not unicodedata.combining(c)).lower().split())


def clean_heading(heading: str) -> str:
    """« 4.1 Phase de Vent » → « Phase de Vent »; "3. Tactics (optional)" → "Tactics"."""
    text = _NUMBERING.sub("", heading.strip())
    text = _TRAILING_PARENS.sub("", text).strip(" :–-[]«»\"'")
    return " ".join(text.split())


_GENERIC_RE = re.compile(r"^(?:" + "|".join(re.escape(key) for key in GENERIC) + r")s?(?![a-z])")


def is_generic(heading: str) -> bool:
    return bool(_GENERIC_RE.match(fold(heading)) or _WEB.search(heading))


def usable(heading: str) -> bool:
    letters = sum(c.isalpha() for c in heading)
    longest = 2 if heading.endswith("?") else 1  # a heading that already asks a question may be longer
    if letters < 3 or len(heading) > MAX_CHARS * longest or len(heading.split()) > MAX_WORDS * longest:
        return False
    if "·" in heading or sum(c.isdigit() for c in heading) > 1 or heading.endswith("!"):
        return False
    return not is_generic(heading)


def _display(heading: str, language: str) -> str:
    """Capitals as a sentence would set them: "LEGISLATIVE SESSION" → "Legislative Session"."""
    if heading.isupper():
        return heading.title() if language == ENGLISH else heading[:1] + heading[1:].lower()
    return heading[:1].upper() + heading[1:]


def known_rank(heading: str, language: str) -> tuple[int, str] | None:
    """(rank, question) of a well-known section: the order of KNOWN is the order of interest."""
    folded = fold(heading)
    for rank, (keys, question) in enumerate(KNOWN.get(language, {}).items()):
        for key in keys:
            if folded == key or (key.endswith("*") and folded.startswith(key[:-1])):
                return rank, question
    return None


def question_for(heading: str, language: str, turn: int = 0) -> str:
    """The question a player would ask about a section (`turn` varies the wording)."""
    known = known_rank(heading, language)
    if known:
        return known[1]
    shown = _display(heading, language)
    if shown.endswith("?"):  # "WHY ARE THERE SECRET ROLE CARDS?" is already a question
        return shown[:1] + shown[1:].lower() if heading.isupper() else shown
    if language == FRENCH:
        article = _FR_ARTICLE.match(shown)
        if article:
            lowered = shown[:1].lower() + shown[1:]
            plural = (article.group(1) or "").lower() in {"les", "des"}
            template = ARTICLE_TEMPLATES[turn % len(ARTICLE_TEMPLATES)]
            return template.format(h=lowered, verb="fonctionnent" if plural else "fonctionne")
    templates = TEMPLATES.get(language) or TEMPLATES[FRENCH]
    return templates[turn % len(templates)].format(h=shown)


def sections_from_paths(rows, language: str, titles: set[str] = frozenset()) -> list[Section]:
    """The sections a player may ask about, best first, from (booklet, hierarchy_path,
    first ordinal, chunk count) rows. `titles` are folded names of the game and its booklets."""
    rows = [(booklet, [p for p in path.split(SEPARATOR) if p.strip()], first, count) for booklet, path, first, count in rows]
    total = sum(count for *_rest, count in rows) or 1
    roots: dict[tuple, int] = {}
    for booklet, parts, _first, count in rows:
        if len(parts) > 1:
            roots[(booklet, parts[0])] = roots.get((booklet, parts[0]), 0) + count
    booklet_titles = {key for key, count in roots.items() if count / total >= TITLE_SHARE}
    seen: dict[str, Section] = {}
    turn = 0
    for booklet, parts, first, _count in sorted(rows, key=lambda r: (r[0], r[2])):
        offset = 1 if parts and (booklet, parts[0]) in booklet_titles else 0
        for index, raw in enumerate(parts):
            if index < offset or fold(raw) in titles:
                continue
            heading = clean_heading(raw)
            key = fold(heading)
            if key in seen or not usable(heading) or key in titles:
                continue
            known = known_rank(heading, language)
            question = question_for(heading, language, turn)
            if any(s.question == question for s in seen.values()):
                continue
            turn += 0 if known else 1
            rank = known[0] if known else OWN_RANK
            seen[key] = Section(heading, question, rank, index + 1 - offset, (booklet, first))
    return sorted(seen.values(), key=lambda s: (s.rank, s.depth > 1, s.order))


def _stamp(chunks) -> tuple:
    figures = chunks.aggregate(n=Count("pk"), latest=Max("created_at"))
    return figures["n"], figures["latest"]


def game_sections(game: Game) -> list[Section]:
    """The game's sections, best first; cached until its chunks change."""
    language = normalise(game.language) or FRENCH
    chunks = Chunk.objects.filter(game=game, is_forum=False).filter(
        Q(extension__isnull=True) | Q(extension__language__iexact=game.language)
    )
    stamp = (language, game.name, *_stamp(chunks))
    key = str(game.pk)
    with _lock:
        cached = _cache.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    rows = [
        (0 if row["extension"] is None else 1, row["hierarchy_path"], row["first"], row["n"])
        for row in chunks.exclude(hierarchy_path="")
        .values("extension", "hierarchy_path")
        .annotate(first=Min("ordinal"), n=Count("pk"))
        .order_by()
    ]
    names = {game.name, game.booklet_name, *game.extensions.values_list("name", flat=True)}
    sections = sections_from_paths(rows, language, {fold(name) for name in names if name})
    with _lock:
        _cache[key] = (stamp, sections)
    return sections


def forget_suggestions() -> None:
    with _lock:
        _cache.clear()


def _picked(sections: list[Section], limit: int) -> list[Section]:
    """The first `limit` sections, but the last place goes to one of the game's own sections
    (not a well-known one) when it has any: « Comment met-on le jeu en place ? » alone says
    little about this game."""
    chosen = sections[:limit]
    own = [s for s in sections if s.rank == OWN_RANK]
    if limit >= 2 and own and not any(s.rank == OWN_RANK for s in chosen):
        chosen = chosen[: limit - 1] + [own[0]]
    return chosen


def suggested_questions(game: Game, limit: int = 3) -> list[str]:
    """Up to `limit` questions about the game's own sections, in its language ([] without rules)."""
    return [section.question for section in _picked(game_sections(game), limit)]


def question_placeholder(game: Game, suggestions: int = 3) -> str:
    """The example in the empty question box: a section of this game that the suggestions do
    not already show (a subsection first), else a neutral invitation."""
    sections = game_sections(game)
    shown = _picked(sections, suggestions)
    rest = [s for s in sections if s not in shown] or sections
    if rest:
        chosen = min(rest, key=lambda s: (s.depth < 2, s.order))
        prefix = "E.g.: " if normalise(game.language) == ENGLISH else "Ex. : "
        return prefix + chosen.question
    return _("Posez votre question sur les règles…")
