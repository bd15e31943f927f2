"""A game's own French ↔ English terms, learnt from what it ships, and their use in a search.

A card catalog with both languages (MTGJSON's `foreignData`, Scryfall's French prints) gives
parallel texts of the same card. Keyword lines ("Flying, vigilance", "Hexproof (This
creature can't be…)") are lines made of short comma-separated items; when the English and
the French text have as many lines, and the keyword line as many items in both, the items
are translations of each other: « Défense talismanique » = Hexproof, « Contact mortel » =
Deathtouch. A pair seen on several cards is kept when it is the most frequent translation of
its English term. Beyond the keywords, a French and an English word that appear together on
the same cards, card after card, are taken for translations too (« cimetière » = graveyard).

Two booklets of one game in both languages (a rulebook and its translation) give their
same-numbered headings (`learn_from_headings`).

A general dictionary knows neither (« talismanique » is in no FreeDict entry), and the dense
embedder does not link « défense talismanique » to "hexproof" either. `expand_question`
appends the game's terms in the booklet's language to the question, so both the BM25 query
and the embedded text hold the word the rules use. Plain Python: the app passes the pairs.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable

from rag.language import ENGLISH, FRENCH

MAX_ITEM_WORDS = 4  # "Protection from black" yes, a sentence no
MAX_LINE_ITEMS = 5
MIN_SUPPORT = 1  # one card is enough for a keyword line; votes pick between translations

_REMINDER_RE = re.compile(r"\s*[(（][^)）]*[)）]")
_COST_RE = re.compile(r"\{[^}]*\}|[—–:]\s*.*$|\d+")
_SENTENCE_RE = re.compile(r"[.!?;]\s*$|[.!?]\s")


@dataclass(frozen=True)
class TermPair:
    french: str
    english: str
    support: int = 1  # how many cards (or headings) showed the pair


def fold(text: str) -> str:
    """Lower case, accents off, words only (an elision is a word of its own): what term
    matching compares."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    return " ".join(re.findall(r"[a-z0-9]+", text))  # « l'initiative » → "l initiative"


def _keyword_items(line: str) -> list[str] | None:
    """The items of a keyword line ("Flying, vigilance" → ["Flying", "vigilance"]), else None."""
    line = _REMINDER_RE.sub("", line).strip()
    if not line or _SENTENCE_RE.search(line):
        return None
    items = []
    for item in line.split(","):
        item = " ".join(_COST_RE.sub("", item).split()).strip(" .")
        if not item or len(item.split()) > MAX_ITEM_WORDS or not any(c.isalpha() for c in item):
            return None
        items.append(item)
    return items if len(items) <= MAX_LINE_ITEMS else None


def aligned_keywords(english_text: str, french_text: str) -> list[tuple[str, str]]:
    """(french, english) keyword pairs of one card's two texts."""
    english_lines = [line for line in english_text.splitlines() if line.strip()]
    french_lines = [line for line in french_text.splitlines() if line.strip()]
    if not english_lines or len(english_lines) != len(french_lines):
        return []
    pairs = []
    for english_line, french_line in zip(english_lines, french_lines):
        english_items, french_items = _keyword_items(english_line), _keyword_items(french_line)
        if english_items and french_items and len(english_items) == len(french_items):
            pairs += [(f, e) for f, e in zip(french_items, english_items) if fold(f) and fold(e)]
    return pairs


def learn_from_cards(cards: Iterable[tuple[str, str]]) -> list[TermPair]:
    """Term pairs from (english_text, french_text) card texts: the keyword lines' items (one
    French term per English one), then the words the two texts share card after card
    (`aligned_words`)."""
    cards = [(english, french) for english, french in cards if english and french]
    pairs = _keyword_pairs(cards)
    known = {p.english for p in pairs} | {p.french for p in pairs}
    return pairs + [p for p in aligned_words(cards) if p.english not in known and p.french not in known]


MIN_WORD_CARDS = 3  # a word pair seen on fewer cards is chance…
MIN_WORD_DICE = 0.8  # …and the two words must come (nearly) always together
_NOT_A_WORD_RE = re.compile(r"\{[^}]*\}|[+-]?\d+/[+-]?\d+|\d+")


def aligned_words(cards: list[tuple[str, str]]) -> list[TermPair]:
    """(french, english) word pairs of parallel card texts: the French word and the English
    word found on the same cards (Dice coefficient ≥ MIN_WORD_DICE over ≥ MIN_WORD_CARDS
    cards), the best English word for each French one. The texts teach the words their rules
    use that no dictionary translates so (« cimetière » graveyard, « rituel » sorcery,
    « blessures » damage, « bibliothèque » library)."""
    from rag.sparse import STOP_WORDS

    def words(text: str) -> set[str]:
        return {w for w in fold(_NOT_A_WORD_RE.sub(" ", text)).split() if len(w) > 2 and w not in STOP_WORDS}

    english_count: Counter = Counter()
    french_count: Counter = Counter()
    together: Counter = Counter()
    for english_text, french_text in cards:
        english, french = words(english_text), words(french_text)
        english_count.update(english)
        french_count.update(french)
        together.update((f, e) for f in french for e in english)
    best: dict[str, tuple[float, int, str]] = {}
    for (french, english), shared in together.items():
        if shared < MIN_WORD_CARDS or french == english:
            continue
        dice = 2 * shared / (french_count[french] + english_count[english])
        if dice >= MIN_WORD_DICE and (dice, shared, english) > best.get(french, (0.0, 0, "")):
            best[french] = (dice, shared, english)
    return [TermPair(french=f, english=e, support=n) for f, (_, n, e) in sorted(best.items())]


def _keyword_pairs(cards: list[tuple[str, str]]) -> list[TermPair]:
    votes: dict[str, Counter] = defaultdict(Counter)
    for english_text, french_text in cards:
        if english_text and french_text:
            for french, english in aligned_keywords(english_text, french_text):
                votes[fold(english)][fold(french)] += 1
    pairs = []
    for english, counter in sorted(votes.items()):
        french, support = counter.most_common(1)[0]
        if support >= MIN_SUPPORT and french != english:
            pairs.append(TermPair(french=french, english=english, support=support))
    return pairs


# --- booklets of one game in both languages -------------------------------------------------

MIN_SHARED_HEADINGS = 4
TRANSLATION_SHARE = 0.8  # of the numbered headings of each booklet: the same outline
_NUMBERED_TITLE_RE = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)\.?\s+([^\d].{1,60})$")
_ARTICLE_RE = re.compile(r"^(?:le|la|les|l'|un|une|des|du|the|a|an)\s*", re.IGNORECASE)


def numbered_titles(headings: Iterable[str]) -> dict[str, str]:
    """number → title of the numbered headings ("4.3 La dérive" → {"4.3": "dérive"})."""
    titles = {}
    for heading in headings:
        match = _NUMBERED_TITLE_RE.match(heading.strip())
        if match:
            titles.setdefault(match.group(1), _ARTICLE_RE.sub("", match.group(2).strip()))
    return titles


def learn_from_headings(french: Iterable[str], english: Iterable[str]) -> list[TermPair]:
    """Pairs of same-numbered headings of two booklets that are translations of each other.

    Two booklets are taken for translations only when most numbered headings of each have
    their number in the other: an expansion that reuses the numbers of a few base sections
    (« 4.3 La dérive » / "4.3 Lightning Rods", a different rule) is not one.
    """
    ours, theirs = numbered_titles(french), numbered_titles(english)
    shared = sorted(ours.keys() & theirs.keys(), key=lambda n: tuple(int(p) for p in n.split(".")))
    if len(shared) < MIN_SHARED_HEADINGS or len(shared) < TRANSLATION_SHARE * max(len(ours), len(theirs)):
        return []
    pairs = [TermPair(french=fold(ours[n]), english=fold(theirs[n])) for n in shared]
    return [p for p in pairs if p.french and p.english and p.french != p.english]


class GameTerms:
    """A game's term pairs, looked up in a question of either language."""

    def __init__(self, pairs: Iterable[TermPair | tuple[str, str]]):
        self._by_language: dict[str, dict[str, set[str]]] = {FRENCH: defaultdict(set), ENGLISH: defaultdict(set)}
        for pair in pairs:
            french, english = (pair.french, pair.english) if isinstance(pair, TermPair) else pair
            french, english = fold(french), fold(english)
            if french and english and french != english:
                self._by_language[FRENCH][french].add(english)
                self._by_language[ENGLISH][english].add(french)
        # Longest terms first: « trample over planeswalkers » before "trample".
        self._patterns = {
            language: _alternation(sorted(table, key=len, reverse=True)) for language, table in self._by_language.items()
        }

    def __len__(self) -> int:
        return len(self._by_language[FRENCH])

    def named_in(self, text: str, language: str) -> list[tuple[str, list[str]]]:
        """[(term as found, its translations)] for the `language` terms `text` names."""
        pattern = self._patterns.get(language)
        if pattern is None:
            return []
        found = []
        for match in pattern.finditer(fold(text)):
            term = match.group(0)
            found.append((term, sorted(self._by_language[language][term])))
        return found


def _alternation(terms: list[str]) -> re.Pattern | None:
    if not terms:
        return None
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(re.escape(t) for t in terms) + r")(?![a-z0-9])")


def expand_question(question: str, terms: GameTerms | None, source: str | None, targets: set[str]) -> str:
    """`question` followed by the game's words, in each target language, for the terms it names.

    « Que fait la défense talismanique ? » → « Que fait la défense talismanique ? (hexproof) »
    for an English booklet. Unchanged when the question names no term or every booklet is in
    the question's own language.
    """
    if not terms or source not in (FRENCH, ENGLISH) or not (targets - {source}):
        return question
    added: list[str] = []
    for _, translations in terms.named_in(question, source):
        added += [t for t in translations if t not in added]
    return f"{question} ({', '.join(added)})" if added else question
