"""`manage.py sync_bgg [--game SLUG] [--metadata-only]`: what the daily schedule does, now."""

from django.core.management.base import BaseCommand, CommandError

from games import bgg_sync
from games.bgg_client import BggAuthError
from games.models import Game


class Command(BaseCommand):
    help = "Fetch BoardGameGeek metadata and Rules-forum threads of games with a BGG id."

    def add_arguments(self, parser):
        parser.add_argument("--game", help="slug of one game (default: every game with a BGG id)")
        parser.add_argument("--metadata-only", action="store_true", help="skip the forum")

    def handle(self, *args, game=None, metadata_only=False, **options):
        try:
            client = bgg_sync.client_from_settings()
        except bgg_sync.BggDisabled as exc:
            raise CommandError(str(exc)) from None
        games = Game.objects.exclude(bgg_id=None)
        if game:
            games = games.filter(slug=game)
            if not games:
                raise CommandError(f"no game {game!r} with a BGG id")
        failed = []
        try:
            for one in games:  # as the daily task: one game's failure does not stop the others
                try:
                    report = bgg_sync.sync_one(one, client, forum=not metadata_only)
                except BggAuthError as exc:  # the token is wrong for every game
                    raise CommandError(str(exc)) from None
                if report.threads_seen or not report.error:  # what was read is kept
                    self.stdout.write(f"{one.slug}: {report.created} new, {report.updated} updated, "
                                      f"{report.unchanged} unchanged forum threads")  # fmt: skip
                if report.error:  # the exit status says it
                    self.stderr.write(f"{one.slug}: {report.error}")
                    failed.append(f"{one.slug}: {report.error}")
        finally:
            client.close()
        if failed:
            raise CommandError("; ".join(failed))
