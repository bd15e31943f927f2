"""`manage.py sync_meta [--game SLUG]`: what the meta schedules do, now (MTGTop8 decklists,
17Lands ratings, as configured by META_SYNC_MTGTOP8 / META_SYNC_17LANDS)."""

from django.core.management.base import BaseCommand, CommandError

from games import meta_sync
from games.models import Game


class Command(BaseCommand):
    help = "Fetch tournament decklists (MTGTop8) and card ratings (17Lands) into the games' meta collections."

    def add_arguments(self, parser):
        parser.add_argument("--game", help="slug of one game (default: every configured game)")

    def handle(self, *args, game=None, **options):
        games = meta_sync.configured_games()
        if game:
            games = [g for g in games if g.slug == game]
            if not games:
                known = Game.objects.filter(slug=game).exists()
                raise CommandError(
                    f"{game!r} has no meta source: set META_SYNC_MTGTOP8 / META_SYNC_17LANDS (docs/scheduling.md)"
                    if known else f"no game {game!r}"
                )
        if not games:
            raise CommandError("no meta source configured: set META_SYNC_MTGTOP8 / META_SYNC_17LANDS (docs/scheduling.md)")
        failed = False
        for one in games:
            report = meta_sync.sync_game(one)
            self.stdout.write(f"{one.slug}: {report.decks} decklists, {report.ratings} rating sets, {report.removed} stale removed")
            for error in report.errors:
                failed = True
                self.stderr.write(f"  {error}")
        if failed:
            raise CommandError("some meta sources could not be read (see above); what was read is stored")
