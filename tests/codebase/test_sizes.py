"""Size limits of the application's code (the packages below; migrations, scripts/, eval/ and
tests/ are not checked): no module over 400 lines, no function or method over 40 lines
(from its `def` line, decorators excluded, to its last line, docstring included).

EXCEPTIONS names what is over today, each with its size, which it may not outgrow; an entry
that is no longer over the limit fails too, so the list only shrinks."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ["oracle_site", "questions", "ingest", "games", "runtime", "rag"]
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 40

EXCEPTIONS: dict[str, int] = {}  # none today: keep it that way


def python_files():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def sizes_over_the_limits() -> dict[str, int]:
    over = {}
    for path in python_files():
        name = path.relative_to(ROOT).as_posix()
        source = path.read_text(encoding="utf-8")
        lines = len(source.splitlines())
        if lines > MAX_MODULE_LINES:
            over[name] = lines
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    over[f"{name}::{node.name}"] = length
    return over


def test_no_module_over_400_lines_nor_function_over_40_and_no_exception_grows():
    over = sizes_over_the_limits()
    new = {name: size for name, size in over.items() if size > EXCEPTIONS.get(name, 0)}
    assert new == {}, "split these (an exception may not grow past its listed size)"


def test_every_exception_is_still_over_the_limit_so_the_list_only_shrinks():
    over = sizes_over_the_limits()
    back_under = sorted(name for name in EXCEPTIONS if name not in over)
    assert back_under == [], "these are within the limits now: remove them from EXCEPTIONS"
