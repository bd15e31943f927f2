"""`manage.py ingest PATH --game SLUG --kind base`: ingest a booklet in this terminal."""

import sys

from django.core.management.base import BaseCommand, CommandError

from games.models import BOOKLET_KINDS
from ingest import language_choice, services
from ingest.coordinator import run_job
from ingest.models import IngestJob
from ingest.progress import ACTS
from ingest.stages.index import sync_now
from runtime import broadcast

BAR_WIDTH = 30


class Command(BaseCommand):
    help = "Ingest a rulebook PDF inline (progress bar), then index it when this process may."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--game", help="slug or id of an existing game")
        parser.add_argument("--new-game-name", help="create the game with this name")
        parser.add_argument("--kind", default="base", choices=BOOKLET_KINDS)
        parser.add_argument("--name", help="booklet name (extensions: required to tell them apart)")
        parser.add_argument("--language", default="", help="fr, en; left out: told from the booklet's text")
        parser.add_argument("--bgg-id", type=int)

    def handle(self, *args, **options):
        if not options["game"] and not options["new_game_name"]:
            raise CommandError("give --game SLUG or --new-game-name NAME")
        try:
            job = services.create_ingest(
                pdf_path_or_file=options["path"],
                game=options["game"],
                new_game_name=options["new_game_name"],
                kind=options["kind"],
                name=options["name"],
                language=language_choice.requested_language(options["language"]),
                bgg_id=options["bgg_id"],
            )
        except (services.InvalidPdf, services.UnknownGame, services.BookletBusy, language_choice.UnknownLanguage, FileNotFoundError) as exc:
            raise CommandError(str(exc)) from exc
        job = run_job(str(job.pk), listener=self.show)
        broadcast.flush()  # a web process relaying this job through Redis gets the last events
        self.stdout.write("")
        if job.status != IngestJob.Status.DONE:
            raise CommandError(job.error or f"job {job.pk} is {job.status}")
        self.report(job)

    def show(self, event: str, data: dict) -> None:
        if event == "act":
            total, done = data["total"] or 1, data["done"]
            filled = int(BAR_WIDTH * min(done, total) / total)
            label = str(ACTS.get(data["act"], data["act"]))
            sys.stdout.write(f"\r{label:<22} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{data['total']}   ")
            if data["state"] == "done":
                sys.stdout.write(f"{data['elapsed']:.1f} s\n")
            sys.stdout.flush()
        elif event in ("warning", "error"):
            self.stderr.write(f"\n{event}: {data['message']}")

    def report(self, job: IngestJob) -> None:
        stats = job.stats
        self.stdout.write(self.style.SUCCESS(f"{job.booklet_name}: {stats['pages']} pages, {stats['chunks']} chunks"))
        synced = sync_now(job.booklet.collection)
        if synced is None:
            self.stdout.write("The local index is held by the web process: it indexes these chunks at its next search.")
        else:
            self.stdout.write(f"Indexed {synced['total']} chunks in {job.booklet.collection}.")
