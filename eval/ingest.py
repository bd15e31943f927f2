"""Ingest the evaluation booklets with the real ingestion pipeline (offline paths unless an
LLM is configured), once: a booklet that already has chunks is kept."""

from __future__ import annotations

import time

from games.models import Chunk, Extension, Game


def ensure_rows(spec: dict) -> Game:
    game, _ = Game.objects.get_or_create(
        slug=spec["slug"],
        defaults={"name": spec["name"], "language": spec["language"], "card_game": spec.get("card_game", "")},
    )
    for booklet in spec["booklets"]:
        if booklet["kind"] == "base":
            if game.booklet_name != booklet["name"]:
                game.booklet_name = booklet["name"]
                game.save(update_fields=["booklet_name"])
        else:
            Extension.objects.get_or_create(
                slug=booklet["slug"],
                defaults={"game": game, "name": booklet["name"], "kind": booklet["kind"], "language": booklet["language"]},
            )
    return game


def import_catalog(game: Game, spec: dict, log=print) -> None:
    """The game's card file, rows only (no embedding): the game's terms are learnt from it."""
    from games.card_import import import_cards
    from games.models import Card

    if spec.get("cards_path") and not Card.objects.filter(game=game).exists():
        report = import_cards(game, spec["cards_path"])
        log(f"  {spec['slug']}: {report.read} cards, {report.terms} French/English terms")


def has_chunks(game: Game, booklet: dict) -> bool:
    if booklet["kind"] == "base":
        return Chunk.objects.filter(game=game, extension=None).exists()
    return Chunk.objects.filter(extension__slug=booklet["slug"]).exists()


def ingest_games(games: list[dict], log=print) -> dict[str, float]:
    """Ingest what is missing; returns seconds per booklet ingested now."""
    from ingest import services
    from ingest.coordinator import run_job
    from ingest.models import IngestJob

    timings = {}
    for spec in games:
        game = ensure_rows(spec)
        import_catalog(game, spec, log)
        for booklet in spec["booklets"]:
            if has_chunks(game, booklet):
                continue
            log(f"ingesting {booklet['slug']} ({booklet['path']})…")
            start = time.perf_counter()
            job = services.create_ingest(
                pdf_path_or_file=booklet["path"], game=game, kind=booklet["kind"],
                name=booklet["name"], language=booklet["language"],
            )
            job = run_job(str(job.pk))
            if job.status != IngestJob.Status.DONE:
                raise RuntimeError(f"ingesting {booklet['slug']} failed: {job.error}")
            timings[booklet["slug"]] = round(time.perf_counter() - start, 1)
            log(f"  {booklet['slug']}: {Chunk.objects.filter(ingest_job=job).count()} chunks in {timings[booklet['slug']]} s")
    return timings
