"""The booklets each question set is asked against: games, their booklets (slug, kind,
language) and where the PDFs are. Slugs are the `booklet` of each gold page."""

from __future__ import annotations

import json
import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
# ../shared/eval-corpus from a checkout, ../../shared/eval-corpus from a worktree under wt/
_CORPUS_CANDIDATES = [BASE_DIR.parent / "shared" / "eval-corpus", BASE_DIR.parent.parent / "shared" / "eval-corpus"]
EVAL_CORPUS = Path(
    os.environ.get("EVAL_CORPUS_DIR")
    or next((str(p) for p in _CORPUS_CANDIDATES if p.is_dir()), str(_CORPUS_CANDIDATES[0]))
)
DEMO_DIR = BASE_DIR / "games" / "demo"

CORPUS_GAMES = [
    {
        "name": "Secret Hitler", "slug": "secret-hitler", "language": "en",
        "booklets": [
            {"slug": "secret-hitler", "kind": "base", "name": "Secret Hitler", "language": "en",
             "file": "rulebooks/secret-hitler_rules_en.pdf"},
            {"slug": "secret-hitler-xl", "kind": "extension", "name": "Secret Hitler XL", "language": "en",
             "file": "rulebooks/secret-hitler-xl_expansion_en.pdf"},
        ],
    },
    {
        "name": "PhoneImpact", "slug": "phoneimpact", "language": "en",
        "booklets": [
            {"slug": "phoneimpact", "kind": "base", "name": "PhoneImpact", "language": "en",
             "file": "rulebooks/phoneimpact_rules_en.pdf"},
            {"slug": "phoneimpact-partie-courte", "kind": "extension", "name": "Variante partie courte",
             "language": "fr", "file": "rulebooks/phoneimpact_variante-partie-courte_fr.pdf"},
        ],
    },
    {
        "name": "Renaissance (Artigiano)", "slug": "artigiano", "language": "fr",
        "booklets": [
            {"slug": "artigiano", "kind": "base", "name": "Renaissance", "language": "fr",
             "file": "rulebooks/artigiano-renaissance_regle_fr.pdf"},
        ],
    },
    {
        "name": "Arcmage", "slug": "arcmage", "language": "en",
        "booklets": [
            {"slug": "arcmage", "kind": "base", "name": "Arcmage", "language": "en",
             "file": "rulebooks/arcmage_rules_en.pdf"},
        ],
    },
    {
        "name": "d0x3d!", "slug": "d0x3d", "language": "en",
        "booklets": [
            {"slug": "d0x3d", "kind": "base", "name": "d0x3d!", "language": "en",
             "file": "unseen/d0x3d_rules_v1.1_en.pdf"},
        ],
    },
    {
        "name": "Wargame in a Suitcase", "slug": "wargame-in-a-suitcase", "language": "en",
        "booklets": [
            {"slug": "wargame-in-a-suitcase", "kind": "base", "name": "Wargame in a Suitcase", "language": "en",
             "file": "unseen/wargame_in_a_suitcase_rules_en.pdf"},
        ],
    },
    {
        "name": "Mǽrstánas", "slug": "maerstanas", "language": "en",
        "booklets": [
            {"slug": "maerstanas", "kind": "base", "name": "Mǽrstánas", "language": "en",
             "file": "unseen/maerstanas_rules_v0.5.1_en.pdf"},
        ],
    },
    {
        "name": "Magic: The Gathering", "slug": "mtg", "language": "en", "card_game": "mtg",
        "booklets": [
            {"slug": "mtg", "kind": "base", "name": "Comprehensive Rules", "language": "en",
             "file": "mtg/MagicCompRules_20250207.pdf"},
        ],
    },
]


def corpus_games() -> list[dict]:
    games = json.loads(json.dumps(CORPUS_GAMES))
    for game in games:
        for booklet in game["booklets"]:
            booklet["path"] = str(EVAL_CORPUS / booklet["file"])
    return games


def demo_games() -> list[dict]:
    manifest = json.loads((DEMO_DIR / "manifest.json").read_text(encoding="utf-8"))
    game = dict(manifest["game"])
    game["booklets"] = [{**b, "path": str(DEMO_DIR / b["file"])} for b in manifest["booklets"]]
    return [game]

