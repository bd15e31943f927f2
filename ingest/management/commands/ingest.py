"""`manage.py ingest PATH --game SLUG --kind base`: ingest a booklet in this terminal."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from games.models import BOOKLET_KINDS
from ingest import cancellation, language_choice, services
from ingest.coordinator import run_job, stopped
from ingest.models import IngestJob
from ingest.progress import ACTS, Reporter
from ingest.stages.index import sync_now
from runtime import broadcast, components

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
        if options["kind"] != "base" and not options["name"]:
            # Without a name every booklet of a kind is one booklet named after the kind: a
            # second FAQ (or extension) replaced the first one's PDF and rules.
            raise CommandError(f"--kind {options['kind']} needs --name (the booklet's name, e.g. --name \"Storm Front\")")
        if options["bgg_id"] is not None and options["game"]:
            # As the API: a BGG id is given to a game created here; an existing game's id is
            # changed in the admin, which drops the former id's forum chunks (games.bgg_sync).
            raise CommandError("--bgg-id only goes with --new-game-name: change an existing game's BGG id in the admin")
        path = Path(options["path"])
        if not path.is_file():  # a folder got as far as open() and its IsADirectoryError traceback
            raise CommandError(f"{path} is a folder: give the PDF file's path" if path.is_dir() else f"{path}: no such file")
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
        try:
            job = run_job(str(job.pk), listener=self.show)
        except KeyboardInterrupt:  # Ctrl-C: not an Exception, so run_job let it through
            sys.stdout.write("\n")  # end the progress bar's line
            self.cancel_interrupted(job)
            raise CommandError(f"interrupted: job {job.pk} cancelled (« Relancer » in the admin resumes it)") from None
        broadcast.flush()  # a web process relaying this job through Redis gets the last events
        self.stdout.write("")
        if job.status != IngestJob.Status.DONE:
            raise CommandError(job.error or f"job {job.pk} is {job.status}")
        self.report(job)

    def cancel_interrupted(self, job: IngestJob) -> None:
        """End the job as a cancellation does (status, final event, staged files gone): left
        `running`, it made a re-run be refused as busy, and a web process's recovery sweep
        queued it again for a worker to finish what the admin stopped."""
        reporter = Reporter(job)
        stopped(job, reporter, None)
        cancellation.acknowledge(job, reporter)
        broadcast.flush()

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
        if synced is None and components.store_is_shared():  # the Qdrant server did not answer (logged)
            self.stdout.write("The Qdrant server is unreachable: the web process indexes these chunks once it answers.")
        elif synced is None:
            self.stdout.write("The local index is held by the web process: it indexes these chunks at its next search.")
        else:
            self.stdout.write(f"Indexed {synced['total']} chunks in {job.booklet.collection}.")
