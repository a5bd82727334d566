#!/usr/bin/env bash
# Build llama.cpp's llama-server (only that target) from the llama-cpp-python source
# distribution on PyPI, which carries the whole llama.cpp tree in vendor/llama.cpp.
# No registry ships a llama-server binary we would trust, so we build one, and keep it
# outside the clone, cached by version: a second run with the same version does nothing.
# Usage: scripts/install-llama-cpp.sh [DIR]; prints DIR (the tree, with build/bin/llama-server) on success.
set -euo pipefail

version="${LLAMA_CPP_PYTHON_VERSION:-0.3.36}"
dir="${1:-${HARMONY_VIZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/harmony_viz}/llama.cpp-$version}"
server="$dir/build/bin/llama-server"

if [ -x "$server" ] && [ -f "$dir/.built-$version" ]; then
  echo "llama-server $version already built in $dir" >&2
  echo "$dir"
  exit 0
fi

for tool in cmake ninja g++; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake ninja-build g++ >/dev/null
      break
    fi
    echo "install-llama-cpp: $tool is needed to build llama-server (apt-get install cmake ninja-build g++)" >&2
    exit 2
  fi
done

mkdir -p "$dir"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [ ! -f "$dir/src/CMakeLists.txt" ]; then
  python3 -m pip download -q --no-deps --no-binary :all: -d "$tmp" "llama-cpp-python==$version"
  tar -xzf "$tmp"/llama_cpp_python-"$version".tar.gz -C "$tmp"
  rm -rf "$dir/src"
  mv "$tmp/llama_cpp_python-$version/vendor/llama.cpp" "$dir/src"
fi

# The web UI options stay off: the prebuilt UI would be downloaded at configure time.
cmake -S "$dir/src" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
  -DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF >"$dir/configure.log" 2>&1 \
  || { tail -20 "$dir/configure.log" >&2; exit 1; }
start=$(date +%s)
cmake --build "$dir/build" --target llama-server -j"$(nproc)" >"$dir/build.log" 2>&1 \
  || { tail -30 "$dir/build.log" >&2; exit 1; }
echo "built llama-server $version in $(( $(date +%s) - start )) s" >&2
touch "$dir/.built-$version"
echo "$dir"
