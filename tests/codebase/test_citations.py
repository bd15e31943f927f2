"""Every repository path and every documentation section that the docs and the code cite exists.

What counts as a citation, in docs/*.md (the whole text) and in the comments and docstrings
of the Python files under the checked folders:
- a repository path: a name starting with one of the repository's top folders followed by `/`
  (`rag/retrieve.py`, `docs/asking.md`, `games/demo/`), not inside a longer path or URL;
  it must be a file or folder of the repository, or a module cited without `.py`. `runtime/broadcast.answer_group` (a path
  without `.py`, then an attribute) cites `runtime/broadcast.py`. A path with a placeholder
  or a pattern (`<`, `*`, `{` right after it) is not a citation;
- a module: a dotted name starting with an application package (`ingest.recovery.sweep`,
  `games.services`): its first name after the package must be a module or sub-package
  (what follows may be attributes);
- a section: a Markdown file cited by path or by bare name (`asking.md`, meaning
  docs/asking.md; a bare name that is not in docs/, such as DESIGN.md, is someone else's),
  then optionally a backtick and a comma, then « Title »: the file must have a heading
  containing Title, a bold term starting with it (« Step 2 » for **Step 2.**) or a table row
  whose first cell is Title (the glossary of docs/architecture.md).
"""

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ["oracle_site", "questions", "ingest", "games", "runtime", "rag"]
CODE_FOLDERS = [*PACKAGES, "scripts", "eval", "tests"]
TOP_FOLDERS = [*CODE_FOLDERS, "docs", "templates", "static", "locale"]
EXTENSIONS = {"py", "md", "txt", "json", "html", "css", "js", "png", "pdf", "csv", "yml", "yaml", "toml", "sh", "po", "mo"}

PATH = re.compile(r"(?<![\w/.<>@-])((?:%s)/[\w./-]*)(.?)" % "|".join(TOP_FOLDERS))
MODULE = re.compile(r"(?<![\w/.<>@-])((?:%s)(?:\.[a-z_][a-z0-9_]*)+)" % "|".join(PACKAGES))
SECTION = re.compile(r"(?<![\w/.-])((?:docs/)?[\w-]+\.md)`?,?\s+«\s*([^»]+?)\s*»")


def cited_paths(text: str) -> list[str]:
    """The paths cited in `text`, without the sentence's punctuation; none with a placeholder."""
    return [path.rstrip(".,-") for path, after in PATH.findall(text) if after not in "<*{" or not after]


def cited_path_exists(path: str) -> bool:
    if (ROOT / path).exists() or (ROOT / f"{path}.py").is_file():
        return True
    parts = path.split(".")  # runtime/broadcast.answer_group → runtime/broadcast.py
    return any((ROOT / (".".join(parts[:n]) + ".py")).is_file() for n in range(1, len(parts)))


def cited_module_exists(dotted: str) -> bool:
    package, first, *_ = dotted.split(".")
    if first in EXTENSIONS:  # a file name such as `ingest.py`, not a module
        return True
    return (ROOT / package / f"{first}.py").is_file() or (ROOT / package / first / "__init__.py").is_file()


def section_titles(markdown: str) -> tuple[list[str], set[str]]:
    """Headings (searched for the title), bold terms (starting with it) and first table cells."""
    fold = lambda text: re.sub(r"[`«»*]", "", text).strip().casefold()  # noqa: E731
    headings = [fold(line.lstrip("#")) for line in markdown.splitlines() if line.startswith("#")]
    terms = {fold(term) for term in re.findall(r"\*\*([^*]+)\*\*", markdown)}
    terms |= {fold(line.split("|")[1]) for line in markdown.splitlines() if line.startswith("|") and line.count("|") > 2}
    return headings, terms


def section_exists(document: str, title: str) -> bool:
    path = ROOT / (document if document.startswith("docs/") else f"docs/{document}")
    if not path.is_file():
        return not document.startswith("docs/")  # a bare name outside docs/ (DESIGN.md) is not ours
    headings, terms = section_titles(path.read_text(encoding="utf-8"))
    wanted = title.strip().casefold()
    return any(wanted in heading for heading in headings) or any(term.startswith(wanted) for term in terms)


def code_prose(source: str) -> str:
    """The comments and docstrings of a Python file, one per line."""
    pieces = [token.string for token in tokenize.generate_tokens(io.StringIO(source).readline) if token.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                pieces.append(docstring)
    return "\n".join(pieces)


def texts():
    for path in sorted((ROOT / "docs").glob("*.md")):
        yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")
    for folder in CODE_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path.relative_to(ROOT).as_posix(), code_prose(path.read_text(encoding="utf-8"))


def broken_citations(name: str, text: str) -> list[str]:
    broken = [path for path in cited_paths(text) if not cited_path_exists(path)]
    broken += [module for module in MODULE.findall(text) if not cited_module_exists(module)]
    broken += [f"{doc} « {title} »" for doc, title in SECTION.findall(" ".join(text.split())) if not section_exists(doc, title)]
    return [f"{name}: {citation}" for citation in broken]


def test_every_cited_path_module_and_section_exists():
    broken = [citation for name, text in texts() for citation in broken_citations(name, text)]
    assert broken == []


@pytest.mark.parametrize(
    "text, broken",
    [
        ("see `ingest/stuck_jobs.py` and rag/retrieve.py", ["x: ingest/stuck_jobs.py"]),
        ("(`runtime/broadcast.answer_group`, `runtime/live_events.publish`)", ["x: runtime/live_events.publish"]),
        ("ingest.events.Text, not ingest.progress.Text; eval/ingest.py", ["x: ingest.events"]),
        ("`PAGE_IMAGES_DIR/<slug>`, tests/e2e/test_*.py, docs/img/chat-*.png, https://github.com/x/rag/nowhere.py", []),
        ("ingest/<job id>, (tests/rag/corpus), docs/nowhere.md.", ["x: docs/nowhere.md"]),
        ("(docs/architecture.md, « Concurrency ») and (docs/architecture.md, « Decisions »)", ["x: docs/architecture.md « Concurrency »"]),
        ("asking.md\n« Confidence », ui.md « No such thing », DESIGN.md « Elsewhere »", ["x: ui.md « No such thing »"]),
    ],
)
def test_what_counts_as_a_citation(text, broken):
    assert broken_citations("x", text) == broken
