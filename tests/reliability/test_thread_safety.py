"""Answers run in threads of the web process: shared text tools must give each thread the
same result as a lone caller. (Found by scripts/load_test.py: one question in fifty failed
with an IndexError inside the shared Snowball stemmer.)"""

import random
import threading
from concurrent.futures import ThreadPoolExecutor

from rag import sparse


def words(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyzéèàùç"
    return [
        "".join(rng.choice(letters) for _ in range(rng.randint(4, 14))) + rng.choice(["ement", "ations", "ing", "ies", "ées", ""])
        for _ in range(count)
    ]


def test_tokenize_in_many_threads_matches_a_single_thread():
    texts = [" ".join(words(seed, 400)) for seed in range(16)]
    sparse._stems.cache_clear()
    expected = [sparse.tokenize(text) for text in texts]
    sparse._stems.cache_clear()  # every thread must stem, not read the cache
    barrier = threading.Barrier(len(texts))

    def run(text):
        barrier.wait()
        return sparse.tokenize(text)

    with ThreadPoolExecutor(len(texts)) as pool:
        got = list(pool.map(run, texts))
    assert got == expected
