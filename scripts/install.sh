#!/usr/bin/env bash
# Installs what Oracle needs on a fresh Debian machine: system packages, a virtualenv and
# the Python packages. Idempotent: a second run only checks.
#   scripts/install.sh          runtime (+ test tools with --test, + browser with --browser)
set -euo pipefail
cd "$(dirname "$0")/.."

WITH_TEST=0; WITH_BROWSER=0
for arg in "$@"; do
  case "$arg" in
    --test) WITH_TEST=1 ;;
    --browser) WITH_BROWSER=1 ;;
  esac
done

# dict-freedict-*: French↔English words for BM25 across languages (rag/lexicon.py);
# wamerican, wfrench: word lists that rejoin tracked capitals in headings (hierarchy stage).
debs=(poppler-utils tesseract-ocr tesseract-ocr-fra tesseract-ocr-eng fonts-dejavu-core gettext
      dict-freedict-fra-eng dict-freedict-eng-fra wamerican wfrench)
# python3-venv: Debian's python3 lacks ensurepip (python3.11-venv), which `-m venv` below needs;
# only while .venv is still to be created.
[ -x .venv/bin/python ] || debs+=(python3-venv)
[ "$WITH_TEST" = 1 ] && debs+=(openssh-server openssh-client procps)
# Node.js may come from elsewhere than Debian (it does on these machines): only install if absent.
[ "$WITH_TEST" = 1 ] && ! command -v npm >/dev/null && debs+=(nodejs npm)
[ "$WITH_BROWSER" = 1 ] && debs+=(chromium)

missing=()
for pkg in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  echo "==> apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  "$PYTHON" -m venv .venv
fi
extras="postgres,redis"
[ "$WITH_TEST" = 1 ] && extras="$extras,test"
stamp=".venv/.installed-$(sha1sum pyproject.toml | cut -c1-12)-$extras"
if [ ! -f "$stamp" ]; then
  echo "==> pip install .[$extras]"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[$extras]"
  touch "$stamp"
fi

# The real Claude Code CLI for the LLM backend tests (they point it at a local stand-in API).
CLAUDE_CLI_VERSION=2.1.197
if [ "$WITH_TEST" = 1 ] && ! var/claude-cli/node_modules/.bin/claude --version 2>/dev/null | grep -q "^$CLAUDE_CLI_VERSION "; then
  echo "==> npm install @anthropic-ai/claude-code@$CLAUDE_CLI_VERSION (var/claude-cli)"
  mkdir -p var/claude-cli
  npm install --silent --no-audit --no-fund --prefix var/claude-cli "@anthropic-ai/claude-code@$CLAUDE_CLI_VERSION" >/dev/null
fi

# axe-core, the accessibility checker the browser tests inject into each page (tests/e2e/test_a11y.py).
AXE_CORE_VERSION=4.11.0
if [ "$WITH_TEST" = 1 ] && ! grep -qs "\"version\": \"$AXE_CORE_VERSION\"" var/axe-core/node_modules/axe-core/package.json; then
  echo "==> npm install axe-core@$AXE_CORE_VERSION (var/axe-core)"
  mkdir -p var/axe-core
  npm install --silent --no-audit --no-fund --prefix var/axe-core "axe-core@$AXE_CORE_VERSION" >/dev/null
fi
