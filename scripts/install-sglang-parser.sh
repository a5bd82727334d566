#!/usr/bin/env bash
# Make SGLang's own venv (default .venv-sglang) for `server-check --engine sglang`.
# sglang 0.5.23 is installed with --no-deps: its full requirements (torch, CUDA kernels) are a GPU
# server's; the lens only runs its Harmony parser and its gpt-oss tool detector, which need the few
# pure-Python packages below (the versions sglang pins where it pins one). harmony_viz's
# servers/sglang_runner.py loads those files by path, without running the heavy `sglang/__init__.py`.
# Usage: scripts/install-sglang-parser.sh [DIR]; prints DIR/bin/python on success.
set -euo pipefail
cd "$(dirname "$0")/.."

dir="${1:-.venv-sglang}"
py="$dir/bin/python"
base_python="${PYTHON:-python3}"
runner="harmony_viz/servers/sglang_runner.py"

# What the runner's --check needs: the parser file and the tool detector's imports.
if [ -x "$py" ] && "$py" "$runner" --check >/dev/null 2>&1; then
  echo "sglang already installed in $dir" >&2
  echo "$(cd "$dir" && pwd)/bin/python"
  exit 0
fi

"$base_python" -m venv "$dir"
"$py" -m pip install -q --upgrade pip
# The tool detector's chain (gpt_oss_detector -> protocol, base_format_detector, utils) imports these.
# They go in first: pip checks sglang's full requirements against a later install and prints errors.
"$py" -m pip install -q "openai==2.8.0" pydantic msgspec orjson partial_json_parser numpy pybase64 requests ipython tqdm
"$py" -m pip install -q --no-deps "sglang==0.5.23"
"$py" "$runner" --check >/dev/null
echo "$(cd "$dir" && pwd)/bin/python"
