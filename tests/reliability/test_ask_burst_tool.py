"""`scripts.ask_burst` (docs/reliability.md) times the ask stream's `meta` for a burst of asks
in one event loop. It once timed nothing: the ask API began refusing a game with no read
booklet (409) and the tool still printed « no meta » and exited 0. It must keep reaching `meta`,
and say so by its exit status when it does not."""

import os
import subprocess
import sys

import pytest

from tests.support.daphne import BASE_DIR

pytestmark = pytest.mark.slow


def test_every_ask_of_each_burst_reaches_its_meta_event():
    # its own temporary folder and SQLite database, not the test run's
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    done = subprocess.run([sys.executable, "-m", "scripts.ask_burst", "--streams", "5", "--bursts", "2", "--pause", "0.2"],
                          cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=180)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "burst 1 (cold): 5/5 meta (statuses [200])" in done.stdout
    assert "burst 2 (warm): 5/5 meta (statuses [200])" in done.stdout
