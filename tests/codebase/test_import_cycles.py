"""No import cycle inside a package: each app's import graph (grimp, the graph import-linter
checks; imports inside functions count) has no strongly connected set of modules. A cycle
hidden behind a lazy import (as the one between ingest's services and its former stuck-jobs
module was) fails here
with the modules that form it."""

from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ["oracle_site", "questions", "ingest", "games", "runtime", "rag"]


def cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(imports):
        if start in index:
            continue
        work = [(start, iter(sorted(imports[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(imports[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def package_imports(package: str) -> dict[str, set[str]]:
    graph = grimp.build_graph(package, cache_dir=None)
    inside = {module for module in graph.modules if module == package or module.startswith(package + ".")}
    return {module: graph.find_modules_directly_imported_by(module) & inside for module in inside}


def test_the_cycle_finder_finds_a_lazy_two_module_cycle_and_nothing_in_a_chain():
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle_inside_the_package(package, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    assert cycles(package_imports(package)) == []
