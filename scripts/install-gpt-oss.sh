#!/usr/bin/env bash
# Make the venv of OpenAI's reference Responses server (PyPI gpt-oss 0.0.9; default .venv-gpt-oss)
# for `harmony-viz replay-server --engine gpt-oss`. gpt-oss needs Python >= 3.12, which is not the
# project's own Python here: one is looked for (PYTHON, python3.1x on PATH, pyenv's versions).
# No torch: the replay server forces the answer through the server's own infer_next_token hook.
# A second venv (default .venv-oss-harmony) holds oss-harmony 0.0.11, the fork of openai-harmony
# that vLLM's Rust path uses; it has openai-harmony's import name, so it cannot share a venv.
# Usage: scripts/install-gpt-oss.sh [DIR] [FORK_DIR]; prints DIR's folder as its last line.
set -euo pipefail
cd "$(dirname "$0")/.."

dir="${1:-.venv-gpt-oss}"
fork_dir="${2:-.venv-oss-harmony}"
py="$dir/bin/python"
check='import gpt_oss.responses_api.api_server, openai_harmony, uvicorn'
fork_check='import importlib.metadata as m, openai_harmony; assert m.version("oss-harmony") == "0.0.11"'

is_312() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; }

find_python() {
  local c
  if [ -n "${PYTHON:-}" ] && is_312 "$PYTHON"; then echo "$PYTHON"; return 0; fi
  for c in python3.14 python3.13 python3.12 python3; do
    if command -v "$c" >/dev/null 2>&1 && is_312 "$(command -v "$c")"; then command -v "$c"; return 0; fi
  done
  for c in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3 /usr/local/bin/python3.1[2-9] /usr/bin/python3.1[2-9]; do
    if [ -x "$c" ] && is_312 "$c"; then echo "$c"; return 0; fi
  done
  return 1
}

make_venv() {  # DIR CHECK PACKAGE
  local d="$1" c="$2" pkg="$3"
  if [ -x "$d/bin/python" ] && "$d/bin/python" -c "$c" >/dev/null 2>&1; then
    echo "$pkg already installed in $d" >&2
    return 0
  fi
  "$base" -m venv "$d"
  "$d/bin/python" -m pip install -q "$pkg"
  "$d/bin/python" -c "$c"
}

if ! base="$(find_python)"; then
  echo "install-gpt-oss: no Python >= 3.12 found (set PYTHON, or put python3.12 on PATH, or install one with pyenv)" >&2
  exit 1
fi
make_venv "$dir" "$check" "gpt-oss==0.0.9"
make_venv "$fork_dir" "$fork_check" "oss-harmony==0.0.11"
echo "$(cd "$dir" && pwd)"
