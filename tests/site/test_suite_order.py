"""The suite's own scheduling (tests/conftest.py): with tests/durations.json, each xdist
worker's share of the collection starts with its long tests, longest first, and the
recorded seconds are dealt evenly, so no long test starts last on one core."""

from types import SimpleNamespace

from tests.conftest import longest_first


def items(*names):
    return [SimpleNamespace(nodeid=name, _fixtureinfo=None) for name in names]


def test_each_worker_share_starts_with_its_long_tests_longest_first():
    collected = items("a", "b", "slow1", "c", "d", "slow2", "e", "slow3", "f", "g")
    durations = {"slow1": 60, "slow2": 50, "slow3": 20}
    ordered = [item.nodeid for item in longest_first(collected, durations, lanes=2)]
    first, second = ordered[:5], ordered[5:]  # the shares worksteal hands gw0 and gw1
    assert first[:1] == ["slow1"] and second[:2] == ["slow2", "slow3"]  # 60 s and 50 + 20 s
    assert sorted(ordered) == sorted(item.nodeid for item in collected)
    assert [n for n in ordered if not n.startswith("slow")] == ["a", "b", "c", "d", "e", "f", "g"]


def test_one_process_runs_the_long_tests_first_and_nothing_recorded_changes_nothing():
    collected = items("a", "slow", "b")
    assert [item.nodeid for item in longest_first(collected, {"slow": 9}, lanes=1)] == ["slow", "a", "b"]
    assert longest_first(collected, {}, lanes=2) == collected
