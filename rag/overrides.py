"""Which extension, variant or FAQ passages change the base rules, and when they lead.

Ingestion annotates each extension chunk with the base chunks it may change
(`ingest/stages/conflicts.py`: the base rule it names by number first, then candidates by
similarity, never a summary page), and with an LLM a `conflict_type`. Offline there is no
type, so the passage must say it changes a rule of the base game in so many words (« This
replaces rule 4.3 », "Rule 5.6 of the base game is modified", « remplace la règle 8.4 »):
the generic words that also run through ordinary prose (« instead », « also », « no
longer », « now »: credits, summaries, setup notes) never label a change on their own
(issue 26: 7 of 10 answers opened with « X modifie cette règle » were wrong).

A change leads the answer only when it applies to the question (docs/asking.md «
Expansions, variants and FAQs »): the passage changes the very rule (same number, or the
annotation's base passage) of the ordinary game, or the question names the expansion. A
passage of a variant, a team / solo / multiplayer mode, a player count or a format applies
only when the question names that mode (or the booklet): otherwise the base rule leads and
the passage is offered after it, « En variante » (`variant_of`).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from rag.payload import ChunkConflict, ChunkPayload

OVERRIDING = ("replaces", "modifies")
CLARIFYING = "clarifies"
# Generic words an expansion uses when it changes a rule (English and French). They pick the
# sentence the changes page shows; they never label a change alone.
REPLACES_CUE = re.compile(
    r"\b(replaces?|supersedes?|no longer|remplacen?t?|ne \w+ plus|n'\w+ plus)\b", re.IGNORECASE
)
MODIFIES_CUE = re.compile(
    r"\b(instead( of)?|rather than|except|also|now|may (also|now)|au lieu d[e']|à la place|désormais|"
    r"sauf|aussi|modifie|changes?)\b",
    re.IGNORECASE,
)
_NUMBER = r"\d+(?:\.\d+)*[a-z]?"
# What a change names: a numbered rule or table, or the base game's rules as a whole.
_BASE_RULE = (
    rf"(?:rules?|règles?|tables?|tableaux?|sections?|§)\s*{_NUMBER}"
    r"|(?:the\s+)?base(?:\s+game)?(?:'s)?\s+(?:rules?|game|rulebook)"
    r"|(?:la\s+|les\s+|une\s+)?règles?\s+(?:\w+\s+)?du\s+(?:jeu|livret)\s+de\s+base"
    r"|(?:du\s+)?(?:jeu|livret)\s+de\s+base"
)
_REPLACING_VERB = r"replace[sd]?|supersede[sd]?|overrides?|remplacen?t?|remplacée?s?|annulen?t?|annulée?s?"
_MODIFYING_VERB = r"modifie[sd]?|modifies|changes?|changed|amends?|modifien?t?|modifiée?s?|changen?t?"
EXPLICIT_CHANGE = re.compile(
    rf"\b(?:(?P<verb>{_REPLACING_VERB}|{_MODIFYING_VERB})\b[^.!?\n]{{0,40}}?\b(?:{_BASE_RULE})"
    rf"|(?:{_BASE_RULE})\b[^.!?\n]{{0,40}}?\b(?:is|are|est|sont)\s+(?:now\s+|désormais\s+)?(?P<passive>"
    r"replaced|superseded|modified|changed|amended|remplacée?s?|modifiée?s?|changée?s?)"
    rf"|(?P<instead>instead of|au lieu de|à la place de)\s+(?:the\s+|la\s+|le\s+)?(?:{_BASE_RULE}))",
    re.IGNORECASE,
)
_NAMED_RULE = re.compile(
    rf"\b(?:{_REPLACING_VERB}|{_MODIFYING_VERB}|instead of|au lieu de)\b[^.!?\n]{{0,25}}?"
    rf"\b(?:rules?|règles?|tables?|tableaux?|sections?|§)\s*({_NUMBER})"
    rf"|\b(?:rules?|règles?|tables?|tableaux?)\s*({_NUMBER})\b[^.!?\n]{{0,40}}?\b(?:is|are|est|sont)\s+"
    r"(?:now\s+|désormais\s+)?(?:replaced|superseded|modified|changed|remplacée?s?|modifiée?s?|changée?s?)",
    re.IGNORECASE,
)
# A section for one way of playing: the question must name it for the passage to lead.
SCOPES = {
    "variant": r"variant[es]?|variations?",
    "team": r"teams?|équipes?|equipes?|partners?|coéquipiers?|coequipiers?",
    "solo": r"solo|solitaire|single[- ]player|un seul joueur",
    "multiplayer": r"multi-?players?|multi-?joueurs?",
    "short": r"short(?:er)? (?:game|play|version)|quick (?:game|play|variant|version)|partie (?:courte|rapide)"
             r"|(?:jeu|version) (?:court|rapide)|running out of time|short on time|pressed for time|end the game early"
             r"|raccourcir|manque de temps",
    "advanced": r"advanced|avancée?s?|experts?",
    "family": r"family|familiale?|children|kids|enfants|beginners?|débutants?|first game|première partie",
    "players": r"\d+\s*(?:-\s*\d+\s*)?(?:players?|joueurs?)|(?:two|three|four|five|six|seven|eight|deux|trois|quatre"
               r"|cinq|sept|huit)[- ](?:players?|joueurs?)|à\s+\d+\b|at\s+\d+\b",
    "format": r"formats?|commander|two-headed giant|draft|sealed|constructed|limité|construit",
}
_SCOPE_RE = {name: re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE) for name, pattern in SCOPES.items()}
# Pages that touch every rule and change none: a change is never attached to one.
SUMMARY = re.compile(
    r"\b(résumés?|resumes?|summary|summaries|overview|aperçu|récapitulatif|sommaire|quick reference|"
    r"aide[- ]mémoire|aide de jeu|player aid|cheat sheet|table of contents|table des matières|contents|"
    r"credits|crédits)\b",
    re.IGNORECASE,
)
_EXPANSION_WORD = re.compile(r"\b(expansions?|extensions?|add-?ons?)\b", re.IGNORECASE)
PROMOTE_DEPTH = 5  # the base passages whose changes are looked for: the top five
SEARCH_DEPTH = 40
# Only the base passage the annotation ranks first counts: the later candidates are pages that
# touch everything (a round summary), measured on the demo where they tied the FAQ to any rule.
TARGETS_KEPT = 1
NAMED_BY_SIMILARITY_DEPTH = 3  # a base passage tied by the annotation alone must be among the first three


def base_targets(payload: ChunkPayload) -> list[str]:
    """The base chunks an extension chunk may change, most likely first."""
    conflict = payload.conflict or ChunkConflict()
    ids = [conflict.base_chunk_id] + [c.get("base_chunk_id") for c in conflict.candidates or []]
    seen: list[str] = []
    for chunk_id in ids:
        if chunk_id and str(chunk_id) not in seen:
            seen.append(str(chunk_id))
    return seen


@lru_cache(maxsize=65_536)  # the same passages come back question after question
def explicit_change(text: str) -> str | None:
    """replaces | modifies when `text` says it changes a rule of the base game, else None."""
    match = EXPLICIT_CHANGE.search(text)
    if match is None:
        return None
    verb = match.group("verb") or match.group("passive") or ""
    return "replaces" if re.match(_REPLACING_VERB, verb, re.IGNORECASE) else "modifies"


def change_kind(payload: ChunkPayload, booklet_kind: str) -> str | None:
    """replaces | modifies | clarifies | None: how this passage changes the base rules.

    The LLM's classification when ingestion had one; else a FAQ answer clarifies, and an
    expansion passage replaces or modifies when its heading or text says so of a base rule."""
    kind = payload.conflict.type if payload.conflict else None
    if kind in OVERRIDING:
        return kind
    if kind == "extends":
        return None
    if booklet_kind == "base":
        return None
    if booklet_kind == "faq":
        return CLARIFYING
    return explicit_change(_words_of(payload))


@lru_cache(maxsize=65_536)
def scopes_of(text: str) -> frozenset[str]:
    """The ways of playing `text` (a heading, a booklet name) is about: variant, team, solo…"""
    return frozenset(name for name, pattern in _SCOPE_RE.items() if pattern.search(text))


def passage_scopes(payload: ChunkPayload, booklet_name: str = "") -> frozenset[str]:
    """The ways of playing a passage is for, from its booklet's name, its headings and its
    first line (a variant section opens with its title), not from its prose: ordinary rules
    say « with two players: 4 instead of 5 » too."""
    first_line = (payload.text or "").strip().split("\n", 1)[0][:80]
    return scopes_of(f"{booklet_name}\n{payload.hierarchy_path or ''}\n{first_line}")


def names_booklet(question: str, booklet_name: str, base_names: list[str]) -> bool:
    """Does the question name the booklet (« Avec Storm Front », "in XL") or an expansion?"""
    asked = set(_folded_words(question))
    if _EXPANSION_WORD.search(question):
        return True
    common = {w for name in base_names for w in _folded_words(name)}
    own = [w for w in _folded_words(booklet_name) if w not in common and len(w) > 1]
    return bool(own) and all(w in asked for w in own)


def applies(question: str, payload: ChunkPayload, booklet_name: str, base_names: list[str]) -> bool:
    """Does a passage that changes a base rule apply to the question? A mode's passage (a
    variant, a team or solo game, a player count, a format) when the question names the mode
    or the booklet; any other one, since it changes the very rule of the ordinary game."""
    scopes = passage_scopes(payload, booklet_name)
    if not scopes:
        return True
    return bool(scopes & scopes_of(question)) or names_booklet(question, booklet_name, base_names)


def is_summary(heading: str) -> bool:
    """A summary, overview or contents page (by its section heading)."""
    return SUMMARY.search(heading or "") is not None


def overrides_first(chunks: list, question: str = "", *, kind_of=lambda c: c.booklet.kind) -> list:
    """`chunks` (RetrievedChunk-like: `.id`, `.content`, `.booklet`, `.overrides`) with each
    extension or FAQ passage that changes one of the top base passages and applies to
    `question` marked `overrides` = that base chunk and, when it ranked lower, moved right
    after it: the answer then leads with it (rag.extractive.answer_passages). Moved after, not
    before: measured on the eval sets, base questions lost their first place to the expansion
    (rulebooks R@1 0.815 → 0.723). One that does not apply (a variant the question does not
    name) is marked `variant_of` = the base chunk instead and stays where it ranked."""
    top_base = [c for c in chunks[:PROMOTE_DEPTH] if kind_of(c) == "base"]
    if not top_base:
        return chunks
    base_names = list(dict.fromkeys(c.booklet.name for c in top_base))
    near = [c for c in chunks[:NAMED_BY_SIMILARITY_DEPTH] if kind_of(c) == "base"]
    ordered = list(chunks)
    for candidate in chunks[:SEARCH_DEPTH]:
        if kind_of(candidate) == "base" or change_kind(candidate.content, kind_of(candidate)) is None:
            continue
        base = _changed_base(candidate.content, top_base, near)
        if base is None:
            continue
        if not applies(question, candidate.content, candidate.booklet.name, base_names):
            candidate.variant_of = base
            continue
        candidate.overrides = base
        if ordered.index(candidate) > ordered.index(base) + 1:
            ordered.remove(candidate)
            ordered.insert(ordered.index(base) + 1, candidate)
    return ordered


def variant_for(lead, chunks: list):
    """The first passage offered « En variante » for the lead passage, or None."""
    return next((c for c in chunks if getattr(c, "variant_of", None) is lead), None)


VARIANT_INTRO = {"fr": "En variante :", "en": "As a variant:"}


def variant_intro(language: str) -> str:
    return VARIANT_INTRO.get(language, VARIANT_INTRO["fr"])


def named_rules(text: str) -> list[str]:
    """The base rules a passage says it changes: « This replaces rule 4.3 », « modifie la
    règle 5.6 », "Rule 5.6 of the base game is modified", "Scoring changes (table 9.2)"."""
    return list(_named_rules(text))


@lru_cache(maxsize=65_536)
def _named_rules(text: str) -> tuple[str, ...]:
    numbers = (m.group(1) or m.group(2) for m in _NAMED_RULE.finditer(text))
    return tuple(dict.fromkeys(n.rstrip(".").lower() for n in numbers if n))


def states(text: str, number: str) -> bool:
    """Does `text` state rule `number` (a line, or a heading, opening with it)?"""
    return re.search(rf"(?m)^\s*(?:[#>*]+\s*)?{re.escape(number)}\.?(?=\s|$)", text, re.IGNORECASE) is not None


def changed_rule(payload: ChunkPayload, base_rows: list, *, text_of=lambda r: r.text, heading_of=lambda r: r.hierarchy_path,
                 id_of=lambda r: str(r.id)):
    """The base row a change attaches to (the changes page, the ingestion's annotation): the
    rule it names by number, stated in a row's text or heading; else the annotation's first
    base candidate that is not a summary page; None when there is none."""
    for number in named_rules(_words_of(payload)):
        for row in base_rows:
            if states(text_of(row), number) or states(_last_heading(heading_of(row)), number):
                return row
    by_id = {id_of(r): r for r in base_rows}
    for target in base_targets(payload):
        row = by_id.get(target)
        if row is not None and not is_summary(heading_of(row)):
            return row
    return None


def _last_heading(path: str) -> str:
    return re.split(r"\s*[>›]\s*", path or "")[-1]


@lru_cache(maxsize=4096)
def _folded_words(text: str) -> tuple[str, ...]:
    folded = unicodedata.normalize("NFKD", text.casefold())
    return tuple(re.findall(r"[a-z0-9]+", "".join(ch for ch in folded if not unicodedata.combining(ch))))


def _words_of(payload: ChunkPayload) -> str:
    """The passage and its section path: the second chunk of a section « 3. Drift (replaces
    rule 4.3 of the base game) » says what it replaces only in its heading."""
    return f"{payload.hierarchy_path or ''}\n{payload.text or ''}"


def _changed_base(payload: ChunkPayload, top_base: list, near: list):
    """The top base passage an extension passage changes: the rule it names when it names one
    (« This replaces rule 4.3 », whatever the languages), else the annotation's first base
    chunk when it is among the first three passages and not a summary page, else
    (annotations without ids) the base page the annotation names."""
    numbers = named_rules(_words_of(payload))
    if numbers:
        return next((c for c in top_base for n in numbers if _states_rule(c, n)), None)
    base_ids = {c.id: c for c in near if not is_summary(c.hierarchy_path)}
    targets = base_targets(payload)[:TARGETS_KEPT]
    for target in targets:
        if target in base_ids:
            return base_ids[target]
    conflict = payload.conflict or ChunkConflict()
    if targets or conflict.base_chunk_id or not conflict.base_page:
        return None
    page = int(conflict.base_page)
    on_page = (c for c in near if c.page_start <= page <= max(c.page_start, c.page_end))
    return next((c for c in on_page if not is_summary(c.hierarchy_path)), None)


def _states_rule(chunk, number: str) -> bool:
    return states(chunk.text, number) or states(_last_heading(chunk.hierarchy_path), number)
