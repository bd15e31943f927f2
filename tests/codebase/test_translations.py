"""The UI is French first and fully translated: every string the code and templates mark for
translation has its English text in locale/en. The catalogue is extracted afresh from a copy
of the sources (`makemessages`, as docs/ui.md « Translations » says to run it) and merged with
the committed one; a string missing from it, left empty or marked fuzzy shows in French to an
English reader.

It needs gettext's tools (xgettext, msgmerge, msgattrib), which `scripts/install.sh` installs."""

import re
import shutil
import subprocess
from pathlib import Path

from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["oracle_site", "questions", "ingest", "games", "runtime", "rag", "templates"]


def untranslated(po_file: Path) -> list[str]:
    """The French texts without an English one, or marked fuzzy (compilemessages leaves those
    out), read from what gettext's msgattrib prints."""
    found = []
    for which in ("--untranslated", "--only-fuzzy"):
        printed = subprocess.run(["msgattrib", which, "--no-obsolete", "--no-location", "--no-wrap", str(po_file)],
                                 capture_output=True, text=True, check=True).stdout
        found += [text for text in re.findall(r'^msgid "(.*)"$', printed, re.MULTILINE) if text]  # "" is the header
    return found


def test_every_string_marked_for_translation_has_its_english_text(tmp_path, settings, monkeypatch):
    for folder in SOURCES:
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
    shutil.copytree(ROOT / "locale", tmp_path / "locale")
    settings.LOCALE_PATHS = [tmp_path / "locale"]
    monkeypatch.chdir(tmp_path)

    call_command("makemessages", locale=["en"], verbosity=0)

    assert untranslated(tmp_path / "locale" / "en" / "LC_MESSAGES" / "django.po") == []
