"""Questions to suggest in a game's chat, made from the headings of its own booklets.

`suggested_questions(game)` turns the sections of the game's rules (the heading paths the
ingestion gave its chunks, ingest/stages/hierarchy.py) into a few questions a player could
ask, in the page's language: « Mise en place » or "Setup" → « Comment met-on le jeu en
place ? » on a French page, "How do I set up the game?" on an English one; « La dérive » →
« Comment fonctionne la dérive ? ». A section of a booklet in the other language is asked
about with the game's own word for it (games/terms.py), or not at all. `question_placeholder(game)`
is the example shown in the empty question box, another section of the same game. Neither
ever shows another game's text: a game without chunks gets no suggestion and a neutral
placeholder.

Headings that are not rules (contents, credits, components list, the booklet's title, a
heading the rules never name elsewhere, like a cover's date) are skipped. The choice is
deterministic: booklet order, the well-known sections (setup, turn, end of the game) first.
Results are cached per game and language until its chunks or terms change (the cache key is
the count and the latest creation time of its booklets' chunks, and its terms' count: an
ingestion replaces them, a deleted booklet removes them).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass

from django.db.models import Count, Max, Min
from django.utils import translation
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from rag.language import ENGLISH, FRENCH, normalise
from rag.terms import fold as rag_fold

from .models import Chunk, Game, GameTerm
from .terms import game_terms

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

# Well-known sections, in order of interest, and the question a player asks about each, in
# both languages: a section of a booklet in one language gives the question in the page's. Keys
# are folded headings; a key ending in "*" matches a heading that starts with it.
CONCEPTS = (
    ({FRENCH: ("mise en place", "preparation", "preparation du jeu", "preparation de la partie", "installation",
               "mise en place du jeu", "mise en place de la partie"),
      ENGLISH: ("setup", "set-up", "set up", "game setup", "setting up", "preparation", "setting up the game")},
     {FRENCH: "Comment met-on le jeu en place ?", ENGLISH: "How do I set up the game?"}),
    ({FRENCH: ("but du jeu", "but", "objectif", "objectif du jeu", "objectifs du jeu", "but de la partie"),
      ENGLISH: ("object", "objective", "goal", "object of the game", "goal of the game", "aim of the game")},
     {FRENCH: "Quel est le but du jeu ?", ENGLISH: "What is the goal of the game?"}),
    ({FRENCH: ("comment jouer", "jouer une partie"),
      ENGLISH: ("gameplay", "playing the game", "how to play", "game play")},
     {FRENCH: "Comment se joue une partie ?", ENGLISH: "How is the game played?"}),
    ({FRENCH: ("tour de jeu", "deroulement", "deroulement du jeu", "deroulement de la partie", "deroulement d'un tour",
               "le tour de jeu", "deroulement du tour", "sequence de jeu", "ordre du tour"),
      ENGLISH: ("turn structure", "game turn", "turn order", "sequence of play", "a turn", "your turn", "turn overview",
                "taking a turn", "on your turn", "order of play", "round structure")},
     {FRENCH: "Comment se déroule un tour de jeu ?", ENGLISH: "How does a turn work?"}),
    ({FRENCH: ("deroulement d'une manche", "une manche", "manche de jeu"),
      ENGLISH: ("playing a round", "a round", "game round")},
     {FRENCH: "Comment se déroule une manche ?", ENGLISH: "How does a round work?"}),
    ({FRENCH: ("combat", "combats", "le combat", "les combats"),
      ENGLISH: ("combat", "combat rules", "battle", "battles", "fighting")},
     {FRENCH: "Comment se déroule le combat ?", ENGLISH: "How does combat work?"}),
    ({FRENCH: ("victoire", "conditions de victoire", "gagner la partie", "comment gagner"),
      ENGLISH: ("winning", "victory", "winning the game", "how to win", "victory conditions")},
     {FRENCH: "Comment gagne-t-on la partie ?", ENGLISH: "How do you win the game?"}),
    ({FRENCH: ("fin de partie*", "fin du jeu*", "fin de la partie*"),
      ENGLISH: ("end of the game*", "game end*", "end game", "ending the game", "end of game*")},
     {FRENCH: "Quand et comment la partie se termine-t-elle ?", ENGLISH: "When does the game end?"}),
    ({FRENCH: ("decompte*", "score", "scores", "points de victoire", "comptage des points", "calcul des points"),
      ENGLISH: ("scoring*", "final scoring", "points", "victory points")},
     {FRENCH: "Comment compte-t-on les points ?", ENGLISH: "How does scoring work?"}),
    ({FRENCH: ("egalite", "en cas d'egalite", "egalites"), ENGLISH: ("tie", "ties", "tiebreaker", "tie breaker", "tiebreakers")},
     {FRENCH: "Que se passe-t-il en cas d'égalité ?", ENGLISH: "What happens in case of a tie?"}),
    ({FRENCH: ("variante", "variantes"), ENGLISH: ("variant", "variants", "game variants")},
     {FRENCH: "Quelles variantes proposent les règles ?", ENGLISH: "What variants do the rules offer?"}),
    ({FRENCH: ("iconographie", "icones", "symboles", "les icones", "les symboles"), ENGLISH: ("iconography", "icons", "symbols")},
     {FRENCH: "Que signifient les icônes ?", ENGLISH: "What do the icons mean?"}),
    ({FRENCH: ("cas particuliers", "precisions", "clarifications", "regles speciales"),
      ENGLISH: ("special cases", "clarifications", "special rules")},
     {FRENCH: "Quels cas particuliers les règles précisent-elles ?", ENGLISH: "Which special cases do the rules clarify?"}),
)

# Questions about any other section of the rules, in turn: the section is named as a rule of
# the game (its heading as the booklet writes it, or its translation in the game's terms).
TEMPLATES = {
    FRENCH: ("Que dit la règle « {h} » ?", "Peux-tu m'expliquer la règle « {h} » ?", "Que faut-il savoir sur la règle « {h} » ?"),
    ENGLISH: ('What does the "{h}" rule say?', 'Can you explain the "{h}" rule?', 'What should I know about the "{h}" rule?'),
}
# A French heading that begins with an article reads as part of the sentence.
ARTICLE_TEMPLATES = (
    "Comment {verb} {h} ?", "Que faut-il savoir sur {h} ?", "Peux-tu m'expliquer {h} ?",
)

_lock = threading.Lock()
_cache: dict[tuple[str, str], tuple[tuple, list["Section"]]] = {}


@dataclass(frozen=True)
class Section:
    heading: str  # cleaned (no numbering, no trailing « (optionnel) »), in the page's language
    question: str
    rank: int  # a well-known section's place in CONCEPTS (setup, turn…); others come after, in order
    depth: int  # 1 for a chapter, 2 for its sections… (the booklet's title not counted)
    order: tuple  # where it first appears: (booklet, ordinal)


@dataclass(frozen=True)
class Booklet:
    """What the suggestions read of one booklet: its language, its headings and its text."""

    order: int  # 0 the base booklet, then the expansions
    language: str
    rows: list  # (hierarchy_path, first ordinal, chunk count)
    texts: list  # (hierarchy_path, folded text) of its chunks


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
_ANY_ARTICLE = re.compile(r"^(?:(?:le|la|les|un|une|des|du|the|a|an)\s+|l')", re.IGNORECASE)


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


def known_rank(heading: str, language: str, asked_in: str | None = None) -> tuple[int, str] | None:
    """(rank, question) of a well-known section of a `language` booklet, the question in
    `asked_in` (the page's language; the booklet's by default)."""
    folded = fold(heading)
    for rank, (keys, questions) in enumerate(CONCEPTS):
        for key in keys.get(language, ()):
            if folded == key or (key.endswith("*") and folded.startswith(key[:-1])):
                return rank, questions.get(asked_in or language) or questions[language]
    return None


def question_for(heading: str, language: str, turn: int = 0) -> str:
    """The question a player would ask about a section (`turn` varies the wording), in the
    heading's own language."""
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


def used_in_rules(heading: str, texts, own_path_parts: set[str]) -> bool:
    """A section is a rule of the game when the rules name it outside the section itself:
    « La dérive », "Election" are; a title page's "November" (a date set large) is not."""
    name = rag_fold(_ANY_ARTICLE.sub("", heading))
    if not name:
        return False
    pattern = re.compile(r"(?<![a-z0-9])" + re.escape(name) + r"(?![a-z0-9])")
    return any(pattern.search(text) for path, text in texts if not (own_path_parts & set(path.split(SEPARATOR))))


class Translator:
    """A heading of a booklet in the other language, in the page's language, through the game's
    own French ↔ English terms (games/terms.py); None when the game has no word for it."""

    def __init__(self, terms, headings_by_language: dict[str, list[str]]):
        self.terms = terms
        # the translation's own spelling (accents, capitals) from the game's headings in that language
        self.spelled = {
            language: {rag_fold(_ANY_ARTICLE.sub("", clean_heading(h))): clean_heading(h) for h in headings}
            for language, headings in headings_by_language.items()
        }

    def __call__(self, heading: str, source: str, target: str) -> str | None:
        if self.terms is None:
            return None
        name = rag_fold(_ANY_ARTICLE.sub("", heading))
        for term, translations in self.terms.named_in(name, source):
            if term == name and translations:
                first = translations[0]
                return self.spelled.get(target, {}).get(first) or first
        return None


def sections_of(booklets: list[Booklet], language: str, titles: set[str] = frozenset(), translate=None) -> list[Section]:
    """The sections a player may ask about, best first, with their questions in `language`
    (the page's). `titles` are folded names of the game and its booklets; `translate(heading,
    source, target)` gives a heading of a booklet in the other language in the page's, or None
    (the section is then left out: the page never shows a question in the other language)."""
    seen: dict[str, Section] = {}
    turn = 0
    for booklet in sorted(booklets, key=lambda b: b.order):
        rows = [([p for p in path.split(SEPARATOR) if p.strip()], first, count) for path, first, count in booklet.rows]
        total = sum(count for *_rest, count in rows) or 1
        roots: dict[str, int] = {}
        for parts, _first, count in rows:
            if len(parts) > 1:
                roots[parts[0]] = roots.get(parts[0], 0) + count
        booklet_titles = {root for root, count in roots.items() if count / total >= TITLE_SHARE}
        for parts, first, _count in sorted(rows, key=lambda r: r[1]):
            offset = 1 if parts and parts[0] in booklet_titles else 0
            for index, raw in enumerate(parts):
                if index < offset or fold(raw) in titles:
                    continue
                section = _section(raw, booklet, language, titles, translate, turn)
                if section is None or fold(section.heading) in seen or any(s.question == section.question for s in seen.values()):
                    continue
                turn += 0 if section.rank != OWN_RANK else 1
                seen[fold(section.heading)] = Section(section.heading, section.question, section.rank,
                                                      index + 1 - offset, (booklet.order, first))  # fmt: skip
    return sorted(seen.values(), key=lambda s: (s.rank, s.depth > 1, s.order))


def _section(raw: str, booklet: Booklet, language: str, titles, translate, turn: int) -> Section | None:
    heading = clean_heading(raw)
    if not usable(heading) or fold(heading) in titles:
        return None
    known = known_rank(heading, booklet.language, asked_in=language)
    if known:
        return Section(heading, known[1], known[0], 0, ())
    if not heading.endswith("?") and not used_in_rules(heading, booklet.texts, {raw}):
        return None
    if booklet.language != language:
        heading = translate(heading, booklet.language, language) if translate else None
        if not heading:
            return None
    return Section(heading, question_for(heading, language, turn), OWN_RANK, 0, ())


def _stamp(chunks) -> tuple:
    figures = chunks.aggregate(n=Count("pk"), latest=Max("created_at"))
    return figures["n"], figures["latest"]


def page_language(game: Game) -> str:
    """The language the page speaks (the active one), else the game's."""
    return normalise(get_language()) or normalise(game.language) or FRENCH


def _booklets(game: Game, chunks) -> list[Booklet]:
    languages = {None: normalise(game.language) or FRENCH}
    languages.update({ext.pk: normalise(ext.language) or languages[None] for ext in game.extensions.all()})
    grouped: dict = {}
    for row in chunks.exclude(hierarchy_path="").values("extension", "hierarchy_path").annotate(
        first=Min("ordinal"), n=Count("pk")
    ).order_by():
        grouped.setdefault(row["extension"], ([], []))[0].append((row["hierarchy_path"], row["first"], row["n"]))
    for extension, path, text in chunks.values_list("extension", "hierarchy_path", "text").iterator():
        grouped.setdefault(extension, ([], []))[1].append((path, rag_fold(text)))
    return [
        Booklet(order=0 if extension is None else 1, language=languages.get(extension, languages[None]), rows=rows, texts=texts)
        for extension, (rows, texts) in grouped.items()
    ]


def game_sections(game: Game, language: str | None = None) -> list[Section]:
    """The game's sections, best first, their questions in `language` (the page's by default);
    cached until its chunks or its terms change."""
    language = language or page_language(game)
    chunks = Chunk.objects.filter(game=game, is_forum=False)
    stamp = (game.name, game.language, *_stamp(chunks), GameTerm.objects.filter(game=game).count())
    key = (str(game.pk), language)
    with _lock:
        cached = _cache.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    booklets = _booklets(game, chunks)
    headings: dict[str, list[str]] = {}
    for booklet in booklets:
        headings.setdefault(booklet.language, []).extend(
            part for path, _first, _n in booklet.rows for part in path.split(SEPARATOR) if part.strip()
        )
    names = {game.name, game.booklet_name, *game.extensions.values_list("name", flat=True)}
    translate = Translator(game_terms(game), headings)
    sections = sections_of(booklets, language, {fold(name) for name in names if name}, translate)
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


def suggested_questions(game: Game, limit: int = 3, language: str | None = None) -> list[str]:
    """Up to `limit` questions about the game's own sections, in the page's language ([] without rules)."""
    return [section.question for section in _picked(game_sections(game, language), limit)]


def question_placeholder(game: Game, suggestions: int = 3, language: str | None = None) -> str:
    """The example in the empty question box: a section of this game that the suggestions do
    not already show (a subsection first), else a neutral invitation; in the page's language."""
    sections = game_sections(game, language)
    shown = _picked(sections, suggestions)
    rest = [s for s in sections if s not in shown] or sections
    if rest:
        chosen = min(rest, key=lambda s: (s.depth < 2, s.order))
        with translation.override(language or page_language(game)):
            return _("Ex. : %(question)s") % {"question": chosen.question}
    with translation.override(language or page_language(game)):
        return _("Posez votre question sur les règles…")
