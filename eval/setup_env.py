"""Run the evaluation in its own folder (var/eval/: database, vectors, media), never the
site's, with the embedded defaults unless the environment says otherwise."""

import os
import sys
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent


def setup(var_dir: str | None = None) -> None:
    var = Path(var_dir or os.environ.get("EVAL_VAR_DIR", BASE_DIR / "var" / "eval"))
    var.mkdir(parents=True, exist_ok=True)
    os.environ["ORACLE_VAR_DIR"] = str(var)
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{var / 'oracle.sqlite3'}")
    os.environ.setdefault("MEDIA_ROOT", str(var / "media"))
    os.environ.setdefault("QDRANT_PATH", str(var / "qdrant"))
    os.environ.setdefault("SECRET_KEY", "evaluation-only")
    os.environ.setdefault("LLM_BACKEND", "none")
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "oracle_site.settings")
    sys.path.insert(0, str(BASE_DIR))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
