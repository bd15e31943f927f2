"""One django-q2 schedule per game with meta sources (`meta-sync-<slug>`), daily or weekly
at META_SYNC_HOUR, only while META_SYNC_ENABLED; kept in line with the settings by the
start-up sweep (ingest.scheduling.install_schedules), like the BGG forum sync."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.utils import timezone
from django_q.models import Schedule

from .bgg_sync import next_sync_time
from .meta_sync import configured_games, parse_targets

SCHEDULE_PREFIX = "meta-sync-"
TASK = "games.meta_sync.sync_game_task"


def frequency(slug: str) -> str:
    """`META_SYNC_FREQUENCY="magic=weekly"`: daily unless said otherwise."""
    chosen = (parse_targets(settings.META_SYNC_FREQUENCY).get(slug) or ["daily"])[0].lower()
    return Schedule.WEEKLY if chosen == "weekly" else Schedule.DAILY


def ensure_meta_sync_schedules(now: datetime | None = None) -> list[Schedule]:
    games = configured_games() if settings.META_SYNC_ENABLED else []
    wanted = {f"{SCHEDULE_PREFIX}{game.slug}": game for game in games}
    Schedule.objects.filter(name__startswith=SCHEDULE_PREFIX).exclude(name__in=wanted).delete()
    now = now or timezone.now()
    schedules = []
    for name, game in wanted.items():
        kind = frequency(game.slug)
        existing = Schedule.objects.filter(name=name).first()
        if (existing and existing.schedule_type == kind and existing.next_run
                and timezone.localtime(existing.next_run).hour == settings.META_SYNC_HOUR):
            schedules.append(existing)
            continue
        Schedule.objects.filter(name=name).delete()
        schedules.append(Schedule.objects.create(
            name=name, func=TASK, args=repr(game.slug), schedule_type=kind, repeats=-1,
            next_run=next_sync_time(now, settings.META_SYNC_HOUR),
        ))
    return schedules
