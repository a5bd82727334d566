#!/usr/bin/env bash
# GPU check for the recorder (not run in CI): a few minutes on any CUDA machine, no network.
#   1. the tiny random gpt-oss model on the GPU: tokens/s and recording overhead vs bare generate;
#   2. a full tool-loop recording with the tiny model on the GPU (the run file is checked by loading it);
#   3. if gpt-oss-20b weights are on the machine (Hugging Face cache, or GPT_OSS_PATH=folder),
#      one real prompt with the demo tools, and its tokens/s.
# Usage: ./gpu_check.sh [OUTDIR]     (default: a fresh temporary folder)
set -euo pipefail
cd "$(dirname "$0")"
export TIKTOKEN_ENCODINGS_BASE="${TIKTOKEN_ENCODINGS_BASE:-$(cd .. && pwd)/shared/vocab}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
OUT="${1:-$(mktemp -d)}"
mkdir -p "$OUT"

python - <<'PY'
import sys, torch
if not torch.cuda.is_available():
    sys.exit("gpu_check: no CUDA GPU visible to torch; run this on a GPU machine")
print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}, capability {torch.cuda.get_device_capability(0)}")
PY

echo "== tiny model on the GPU"
python -m harmony_viz make-tiny-model "$OUT/tiny"
python -m benchmarks.bench_record --model "$OUT/tiny" --device cuda --tokens 256 --repeats 5
echo "-- with top-5 log-probs kept"
python -m benchmarks.bench_record --model "$OUT/tiny" --device cuda --tokens 256 --repeats 5 --top-logprobs 5

echo "== tool loop with the tiny model (forced conversation) on the GPU"
python - "$OUT" <<'PY'
import json, sys, torch
from pathlib import Path
from harmony_viz import load_model, record
from harmony_viz.runs import load_runs
from harmony_viz.tokens import RETURN, encoding

out = Path(sys.argv[1])
enc = encoding()
script = enc.encode(
    "<|channel|>analysis<|message|>Use the calculator.<|end|>"
    "<|start|>assistant<|channel|>commentary to=functions.calculator <|constrain|>json<|message|>"
    '{"expression": "17 * 23"}<|call|>'
    "<|channel|>final<|message|>391<|return|>",
    allowed_special="all",
)

class Script:
    def __init__(self, ids): self.ids, self.i = ids, 0
    def __call__(self, input_ids, scores):
        forced = torch.full_like(scores, float("-inf")); forced[:, self.ids[self.i]] = 0; self.i += 1
        return forced

loaded = load_model(out / "tiny", device="cuda", progress=False)
run = record(loaded, "What is 17 * 23?", tools="demo", temperature=0, logits_processors=[Script(script)], out=out / "tiny_runs.jsonl")
meta = run.metadata.extra
call = meta["tool_calls"][0]
assert meta["stop_reason"] == "return" and run.completion_token_ids[-1] == RETURN, meta["stop_reason"]
assert json.loads(call["content"])["result"] == 391, call
assert load_runs(out / "tiny_runs.jsonl")[0].completion_token_ids == run.completion_token_ids
print(f"tool loop ok on {loaded.device}: {len(run.completion_token_ids)} tokens, calculator said {call['content']}")
PY

echo "== gpt-oss-20b (only if its weights are here)"
MODEL="${GPT_OSS_PATH:-openai/gpt-oss-20b}"
if python -c "import sys, transformers; transformers.AutoConfig.from_pretrained(sys.argv[1])" "$MODEL" 2>/dev/null; then
  python -m harmony_viz record --model "$MODEL" --prompt "What is 17 * 23? Use the calculator." \
    --demo-tools --effort low --max-new-tokens 512 --seed 0 --out "$OUT/gpt-oss-20b.jsonl"
  python - "$OUT/gpt-oss-20b.jsonl" <<'PY'
import sys
from harmony_viz.runs import load_runs
for run in load_runs(sys.argv[1]):
    m = run.metadata.extra
    print(f"{run.metadata.model} on {run.metadata.device} ({m['kernels']}): {m['generated_tokens']} tokens, "
          f"{m['tokens_per_second']} tokens/s, stop {m['stop_reason']}, tool calls {[c['name'] for c in m['tool_calls']]}")
PY
else
  echo "no weights for $MODEL on this machine (set GPT_OSS_PATH to a local folder); skipped"
fi
echo "gpu_check: done; files in $OUT"
