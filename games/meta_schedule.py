"""One django-q2 schedule per game with meta sources (`meta-sync-<slug>`), daily or weekly
at META_SYNC_HOUR, only while META_SYNC_ENABLED; kept in line with the settings by the
start-up sweep (ingest.scheduling.install_schedules), like the BGG forum sync, and under the
same lock (`schedules.ensure_schedule`): workers starting together keep one of each."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone
from django_q.models import Schedule

from .schedules import ensure_schedule, schedules_locked
from .meta_sync import configured_games, parse_targets

SCHEDULE_PREFIX = "meta-sync-"
TASK = "games.meta_sync.sync_game_task"
LATE_BY = timedelta(hours=2)  # a run this much past its period is missing (health `meta`)


def frequency(slug: str) -> str:
    """`META_SYNC_FREQUENCY="magic=weekly"`: daily unless said otherwise."""
    chosen = (parse_targets(settings.META_SYNC_FREQUENCY).get(slug) or ["daily"])[0].lower()
    return Schedule.WEEKLY if chosen == "weekly" else Schedule.DAILY


def overdue_after(slug: str) -> timedelta:
    """How old the game's last run may be before health says it is missing: its period and 2 h."""
    return (timedelta(days=7) if frequency(slug) == Schedule.WEEKLY else timedelta(days=1)) + LATE_BY


def ensure_meta_sync_schedules(now: datetime | None = None) -> list[Schedule]:
    # Only the configured games: a game removed from the settings keeps its documents until
    # `manage.py sync_meta` deletes them (meta_sync.configured_games), never at a worker start.
    games = configured_games(leftovers=False) if settings.META_SYNC_ENABLED else []
    wanted = {f"{SCHEDULE_PREFIX}{game.slug}": game for game in games}
    now = now or timezone.now()
    with schedules_locked():
        Schedule.objects.filter(name__startswith=SCHEDULE_PREFIX).exclude(name__in=wanted).delete()
        return [
            ensure_schedule(name, settings.META_SYNC_HOUR, now, func=TASK, args=repr(game.slug),
                            schedule_type=frequency(game.slug))
            for name, game in wanted.items()
        ]
