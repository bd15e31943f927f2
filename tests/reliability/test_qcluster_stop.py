"""Issue 28, defect 5: an idle qcluster ignored the supervisor's SIGTERM and was SIGKILLed
after STOP_TIMEOUT_S (twice in a day). The supervisor sent SIGTERM to the whole process
group: django-q's sentinel dies of it while it sleeps on the cluster's stop event, and the
main process then blocks for ever setting that event. The SIGTERM now goes to the leader,
which stops its children; the group is SIGKILLed only afterwards."""

import subprocess
import sys

import pytest

from scripts import supervise

from .processes import server_env, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def group_of(pid: int) -> set[int]:
    return {int(p) for p in subprocess.run(["pgrep", "-g", str(pid)], capture_output=True, text=True).stdout.split()}


def test_the_supervisor_stops_an_idle_qcluster_without_killing_it(settings, tmp_path, capsys):
    log = tmp_path / "qcluster.log"
    worker = supervise.Child("worker", [sys.executable, "manage.py", "qcluster"], server_env(settings, tmp_path / "var"))
    with open(log, "wb") as out:
        # Started as Child.start does (its own session), with its output kept for the failure message.
        worker.popen = subprocess.Popen(worker.command, env=worker.env, start_new_session=True, stdout=out, stderr=subprocess.STDOUT,
                                        cwd=supervise.__file__.rsplit("/scripts/", 1)[0])
    try:
        wait_for(lambda: len(group_of(worker.popen.pid)) >= 4 and "Q Cluster" in log.read_text() and
                 ("ready for work" in log.read_text() or "prêt pour le travail" in log.read_text()), 60, what="an idle cluster")

        supervise.stop_all([worker])

        said = capsys.readouterr().out
        assert "killed" not in said, f"{said}\n{log.read_text()[-1500:]}"
        assert worker.popen.returncode == 0, log.read_text()[-1500:]
        assert not group_of(worker.popen.pid), "none of its children is left"
    finally:
        supervise.kill_group(worker.popen.pid, 9)
