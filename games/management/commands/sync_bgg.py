"""`manage.py sync_bgg [--game SLUG] [--metadata-only]`: what the daily schedule does, now."""

from django.core.management.base import BaseCommand, CommandError

from games import bgg_sync
from games.bgg_client import BggAuthError, BggError
from games.management.commands.import_cards import first_line
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
            for one in games:
                # As the daily task (bgg_sync._sync_one): one game's failure (a wrong id, BGG
                # down for a moment) does not stop the others; a refused token stops them all.
                try:
                    report = bgg_sync.sync_game(one, client, forum=not metadata_only)
                except BggAuthError as exc:
                    raise CommandError(str(exc)) from None
                except BggError as exc:
                    self.stderr.write(f"{one.slug}: {exc}")
                    failed.append(f"{one.slug}: {exc}")
                    continue
                except Exception as exc:  # noqa: BLE001 - the embedder down, the database locked: as the daily task
                    said = f"{one.slug}: {type(exc).__name__}: {first_line(exc)}"
                    self.stderr.write(said)
                    failed.append(said)
                    continue
                self.stdout.write(
                    f"{one.slug}: {report.created} new, {report.updated} updated, "
                    f"{report.unchanged} unchanged forum threads {report.error}".rstrip()
                )
                if report.error:  # what was read is kept; the exit status still says it stopped
                    failed.append(f"{one.slug}: {report.error}")
        finally:
            client.close()
        if failed:
            raise CommandError("; ".join(failed))
