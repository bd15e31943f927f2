"""`make bench`: every benchmark in turn (prints figures; no pass/fail).

    .venv/bin/python -m scripts.bench [ingest retrieval eval cards llm bgg]
Each one can also run alone: `python -m scripts.bench_<name> --help`.
"""

import subprocess
import sys

BENCHES = {
    "ingest": [sys.executable, "-m", "scripts.bench_ingest"],
    "retrieval": [sys.executable, "-m", "scripts.bench_retrieval"],
    "eval": [sys.executable, "-m", "eval.run"],
    "cards": [sys.executable, "-m", "scripts.bench_cards"],
    "llm": [sys.executable, "-m", "scripts.bench_llm"],
    "bgg": [sys.executable, "-m", "scripts.bench_bgg"],
}


def main(names: list[str]) -> int:
    failed = []
    for name in names or list(BENCHES):
        print(f"\n===== {name} =====", flush=True)
        if subprocess.run(BENCHES[name]).returncode != 0:
            failed.append(name)
    if failed:
        print(f"\nbenchmarks that stopped with an error: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
