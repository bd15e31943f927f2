"""Who holds a shared flag, and whether that process still runs.

A flag that only lives out its TTL says « a process was alive a few minutes ago »: after a
restart, the marks of the process that died keep its questions « being answered » until they
expire (questions/recovery.py). So a flag's value names its process: the machine's boot, the
PID namespace, the PID and that PID's start time. Another process of the same machine and
namespace (the embedded default's web process restarted, `manage.py ask` beside it) can tell at
once that it is gone: no such PID, or one started at another time (the PID was reused). A
process elsewhere (another host, another container) is never judged: its flag's TTL decides,
as before. Linux only (/proc); elsewhere nothing is judged gone.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

PROC = Path("/proc")


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def _start_time(pid: int) -> str:
    """The PID's start time in clock ticks after boot (/proc/<pid>/stat, field 22), "" when
    no such process runs (or /proc cannot tell)."""
    stat = _read(PROC / str(pid) / "stat")
    # the command name (field 2) may hold spaces and parentheses: the fields after it follow the last ")"
    fields = stat.rpartition(")")[2].split()
    return fields[19] if len(fields) > 19 else ""


@cache  # one boot and one namespace for the process's life: read once, not per flag judged
def _machine() -> str:
    """This boot of this machine, and this PID namespace (containers on one kernel share the
    boot, not the namespace)."""
    boot = _read(PROC / "sys/kernel/random/boot_id")
    try:
        namespace = os.readlink(PROC / "self/ns/pid")
    except OSError:
        namespace = ""
    return f"{boot}/{namespace}" if boot and namespace else ""


@cache
def _this_process(pid: int) -> str:
    machine, started = _machine(), _start_time(pid)
    return f"{machine}:{pid}:{started}" if machine and started else f"pid:{pid}"


def this_process() -> str:
    """This process's name in a flag (a forked child gets its own)."""
    return _this_process(os.getpid())


def is_gone(owner: object) -> bool:
    """True only when `owner` (a flag's value) names a process of this machine and namespace
    that no longer runs; anything else (another machine, an older flag holding True) is not
    judged."""
    if not isinstance(owner, str) or owner.count(":") < 2:
        return False
    machine, pid, started = owner.rsplit(":", 2)
    if not machine or machine != _machine() or not pid.isdigit():
        return False
    return _start_time(int(pid)) != started
