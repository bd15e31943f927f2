"""Repeating schedules (django-q2's Schedule rows) kept one per name across processes: two
workers starting together each read « no schedule yet » and created one (Schedule.name is not
unique), so a nightly sync ran twice. Every start-up sweep (ingest.scheduling, the BGG forum
sync, the meta syncs) takes the one lock here."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, time, timedelta

from django.db import connection, transaction
from django.utils import timezone
from django_q.models import Schedule

SCHEDULES_LOCK_ID = 0x4F7261636C65  # "Oracle": PostgreSQL advisory lock of the schedule sweeps


def next_sync_time(now: datetime, hour: int) -> datetime:
    """The next BGG_FORUM_SYNC_HOUR o'clock in TIME_ZONE, strictly after `now`."""
    local = timezone.localtime(now)
    candidate = timezone.make_aware(datetime.combine(local.date(), time(hour)))
    return candidate if candidate > now else timezone.make_aware(
        datetime.combine(local.date() + timedelta(days=1), time(hour))
    )


def at_hour(schedule: Schedule, hour: int) -> bool:
    return bool(schedule.next_run) and timezone.localtime(schedule.next_run).hour == hour


@contextmanager
def schedules_locked():
    """One schedule sweep at a time across processes. PostgreSQL: an advisory lock until the
    transaction ends; SQLite: the write lock its transactions take when they begin (IMMEDIATE,
    settings.py). Re-entrant: a sweep may call `ensure_schedule`, which takes it too."""
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [SCHEDULES_LOCK_ID])
        yield


def ensure_schedule(name: str, hour: int, now: datetime, **fields) -> Schedule:
    """The one repeating schedule `name` with these `fields` at `hour` o'clock: kept when it
    exists, else (re)created for the next such hour; any other copy of the name is deleted."""
    with schedules_locked():
        copies = Schedule.objects.filter(name=name).order_by("pk")
        keep = next((s for s in copies if at_hour(s, hour) and all(getattr(s, k) == v for k, v in fields.items())), None)
        copies.exclude(pk=keep.pk if keep else None).delete()
        return keep or Schedule.objects.create(name=name, repeats=-1, next_run=next_sync_time(now, hour), **fields)
