"""French ↔ English word translations, for BM25 searches across languages.

BM25 cannot match « Qui commence la partie ? » with "Who goes first? … starts the game": no
word is shared. Translating the question's words into the booklet's language (several
candidates per word, weighed below the original words, see `rag.sparse.translated_query`)
lets the sparse side find such pages too; the dense side already does.

Two sources, looked up by the Snowball stem of the source word (so « commence » finds the
entry « commencer »):
- `rag/data/glossary_fr_en.tsv`: the vocabulary of game rules, curated, read both ways. It
  wins for its words: the general dictionary knows « partie » as "part, share", rules mean
  "game".
- FreeDict's French→English and English→French dictionaries (Debian packages
  `dict-freedict-fra-eng` and `dict-freedict-eng-fra`, dictd files in
  `BILINGUAL_DICTIONARY_DIR`, by default /usr/share/dictd). Without them only the glossary
  is used (logged once).
"""

from __future__ import annotations

import gzip
import logging
import re
import string
import threading
from collections import defaultdict
from pathlib import Path

from rag.language import ENGLISH, FRENCH
from rag.sparse import stem

log = logging.getLogger(__name__)

GLOSSARY = Path(__file__).resolve().parent / "data" / "glossary_fr_en.tsv"
DEFAULT_DICTIONARY_DIR = "/usr/share/dictd"
FREEDICT_FILES = {FRENCH: "freedict-fra-eng", ENGLISH: "freedict-eng-fra"}
MAX_TRANSLATIONS = 6  # per word and source; the dictionary lists the common senses first
MAX_PHRASE_WORDS = 2  # "draw pile" yes, "to take the initiative" no

_B64_DIGITS = {char: value for value, char in enumerate(string.ascii_uppercase + string.ascii_lowercase + string.digits + "+/")}


def _dictd_number(encoded: str) -> int:
    """dictd's index numbers (offset, length) are base64 digits, most significant first."""
    value = 0
    for char in encoded:
        value = value * 64 + _B64_DIGITS[char]
    return value

_SENSE_NUMBER_RE = re.compile(r"^\s*\d+\.\s*")
_NOTES_RE = re.compile(r"\([^)]*\)|<[^>]*>|\[[^\]]*\]")


def _translations_of_entry(entry: str) -> list[str]:
    """The target-language phrases of one dictd entry (its first line is the headword)."""
    phrases = []
    for line in entry.splitlines()[1:]:
        line = _NOTES_RE.sub(" ", _SENSE_NUMBER_RE.sub("", line))
        for phrase in re.split(r"[,;]", line):
            phrase = " ".join(phrase.split())
            if phrase and len(phrase.split()) <= MAX_PHRASE_WORDS and phrase not in phrases:
                phrases.append(phrase)
    return phrases


def read_dictd(index_path: Path, dict_path: Path) -> dict[str, list[str]]:
    """headword → translations, from a dictd pair (`.index` + `.dict.dz` or `.dict`)."""
    data = gzip.decompress(dict_path.read_bytes()) if dict_path.suffix == ".dz" else dict_path.read_bytes()
    entries: dict[str, list[str]] = {}
    for line in index_path.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or parts[0].startswith("00-database") or " " in parts[0]:
            continue
        start, length = _dictd_number(parts[1]), _dictd_number(parts[2])
        entry = data[start : start + length].decode("utf-8", errors="replace")
        entries.setdefault(parts[0], []).extend(_translations_of_entry(entry))
    return entries


class Lexicon:
    """Translations of one word from French to English or back, by stem."""

    def __init__(self, glossary: Path | None = GLOSSARY, dictionary_dir: Path | None = None):
        self._glossary: dict[tuple[str, str], list[str]] = defaultdict(list)
        self._dictionary: dict[tuple[str, str], list[str]] = defaultdict(list)
        if glossary is not None:
            self._read_glossary(glossary)
        self.dictionaries = self._read_dictionaries(dictionary_dir) if dictionary_dir else []

    def _read_glossary(self, path: Path) -> None:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            french, english = (part.strip() for part in line.split("\t", 1))
            self._add(self._glossary, FRENCH, french, english)
            self._add(self._glossary, ENGLISH, english, french)

    def _read_dictionaries(self, folder: Path) -> list[str]:
        found = []
        for language, name in FREEDICT_FILES.items():
            index, data = folder / f"{name}.index", folder / f"{name}.dict.dz"
            if not data.exists():
                data = folder / f"{name}.dict"
            if not (index.exists() and data.exists()):
                continue
            for headword, phrases in read_dictd(index, data).items():
                for phrase in phrases:
                    self._add(self._dictionary, language, headword, phrase)
            found.append(name)
        if not found:
            log.warning("no FreeDict dictionary in %s: cross-language searches use the glossary only", folder)
        return found

    @staticmethod
    def _add(table: dict, language: str, word: str, translation: str) -> None:
        if " " in word.strip():  # looked up word by word: a phrase is never a source
            return
        key = (language, stem(word, language))
        if translation not in table[key]:
            table[key].append(translation)

    def translate(self, word: str, source: str) -> list[str]:
        """Phrases in the other language for `word` in `source` ("fr"/"en"); [] if unknown."""
        key = (source, stem(word, source))
        return self._glossary.get(key) or self._dictionary.get(key, [])[:MAX_TRANSLATIONS]

    def __len__(self) -> int:
        return len(self._glossary) + len(self._dictionary)


_lexicons: dict[str, Lexicon] = {}
_lexicon_lock = threading.Lock()


def lexicon(dictionary_dir: str | Path | None = DEFAULT_DICTIONARY_DIR) -> Lexicon:
    """The process's lexicon for the FreeDict files in `dictionary_dir` (the caller passes its
    BILINGUAL_DICTIONARY_DIR setting, runtime.components.lexicon; None or "": the glossary
    only), read on first use (0.3 s; 0.9 s without PyStemmer). `rag` reads no environment."""
    key = str(dictionary_dir or "")
    found = _lexicons.get(key)
    if found is None:
        with _lexicon_lock:
            found = _lexicons.get(key)
            if found is None:
                found = _lexicons[key] = Lexicon(GLOSSARY, Path(key) if key else None)
    return found


def lexicon_of(booklet) -> Lexicon:
    """The lexicon a booklet is searched with: the one its ref carries (built from settings),
    else the default folder's."""
    return getattr(booklet, "lexicon", None) or lexicon()
