#!/usr/bin/env bash
# The GPU checks in one short run (a lent H200, ~15 minutes of device time in all): serve
# Qwen-AgentWorld-35B-A3B with the README's vLLM recipe, then measure what a step costs with
# thinking on and off in all seven domains (benchmarks/step_cost.py) and the fidelity of the
# agentworld dialect on the recorded real terminal and MCP episodes (mcp-world eval), then a small
# AgentWorldBench slice predicted and judged (the model judging itself: not the published judge).
#
#   bash benchmarks/gpu_check.sh            # figures go to $OUT (or ./gpu-check-out)
#
# The device machine has no network: it needs, already there or carried,
#   - a Python with vLLM for CUDA (`python -c "import vllm"`), or VLLM_PYTHON=/path/to/python;
#   - the checkpoint: AGENTWORLD_MODEL=/path/to/Qwen-AgentWorld-35B-A3B, or in the Hugging Face cache;
#   - mcp-world's own (pure Python) dependencies: a wheel folder made beforehand with
#     `pip download -d .gpu-wheels .` and carried, or already installed;
#   - optionally AGENTWORLDBENCH=/path (the benchmark's <domain>_test.jsonl files; without it the
#     format-only rows in fixtures/agentworldbench are used) and AGENTWORLD_REPO=/path (a copy of
#     the model's repository: its own world-model and judge prompts).
# Each missing piece is named and the script stops (exit 3) without starting anything.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-check-out}"
mkdir -p "$OUT"
PY="${VLLM_PYTHON:-python3}"
PORT="${PORT:-8000}"
say() { echo "[gpu_check] $*" | tee -a "$OUT/summary.txt"; }

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt" \
  || { say "no GPU visible (nvidia-smi failed)"; exit 3; }
"$PY" -c "import vllm, sys; print('vllm', vllm.__version__)" 2>/dev/null | tee -a "$OUT/summary.txt" \
  || { say "no vLLM for CUDA in $PY: set VLLM_PYTHON"; exit 3; }
MODEL="${AGENTWORLD_MODEL:-}"
if [ -z "$MODEL" ]; then
  for d in "${HF_HOME:-$HOME/.cache/huggingface}/hub/models--Qwen--Qwen-AgentWorld-35B-A3B/snapshots/"*/; do
    [ -f "$d/config.json" ] && MODEL="$d"
  done
fi
[ -n "$MODEL" ] && [ -f "$MODEL/config.json" ] \
  || { say "no Qwen-AgentWorld-35B-A3B weights: set AGENTWORLD_MODEL (nothing can be downloaded here)"; exit 3; }
if ! "$PY" -c "import mcp_world" 2>/dev/null; then
  if [ -d .gpu-wheels ]; then
    "$PY" -m pip install -q --no-index --find-links .gpu-wheels -e . > "$OUT/pip.txt" 2>&1 \
      || { say "installing mcp-world from .gpu-wheels failed (see pip.txt)"; exit 3; }
  else
    say "mcp-world's dependencies are missing: carry a .gpu-wheels folder (pip download -d .gpu-wheels .)"; exit 3
  fi
fi

# The README's recipe (one H200: the bf16 weights take ~70 GB, the rest holds the KV cache).
"$PY" -m vllm.entrypoints.openai.api_server --model "$MODEL" --served-model-name Qwen/Qwen-AgentWorld-35B-A3B \
  --port "$PORT" --max-model-len 131072 --gpu-memory-utilization 0.92 \
  --reasoning-parser qwen3 --language-model-only --trust-remote-code > "$OUT/vllm.log" 2>&1 &
VLLM=$!
trap 'kill $VLLM 2>/dev/null; wait $VLLM 2>/dev/null' EXIT
t0=$(date +%s)
until curl -sf "http://127.0.0.1:$PORT/v1/models" > /dev/null; do
  kill -0 $VLLM 2>/dev/null || { say "vLLM exited while starting (see vllm.log)"; tail -20 "$OUT/vllm.log"; exit 1; }
  [ $(( $(date +%s) - t0 )) -gt 480 ] && { say "vLLM not ready after 480 s"; exit 1; }
  sleep 5
done
say "engine ready in $(( $(date +%s) - t0 )) s"

URL="http://127.0.0.1:$PORT"
timeout 240 "$PY" benchmarks/step_cost.py --engine "$URL" --dialect agentworld --thinking off,on \
  --thinking-budget 4096 --steps 3 --temperature 0.6 --context-tokens 131072 2>&1 | tee "$OUT/step_cost.txt"
timeout 180 "$PY" -m mcp_world eval --engine "$URL" --data fixtures/real/devbox-terminal.jsonl \
  --data fixtures/real/memory-mirror.jsonl --limit 40 --dialect agentworld --no-thinking \
  --db "$OUT/eval.db" --json "$OUT/eval.json" 2>&1 | tail -12 | tee "$OUT/eval.txt"
PROMPTS=()
[ -n "${AGENTWORLD_REPO:-}" ] && PROMPTS=(--agentworld-prompts "$AGENTWORLD_REPO")
timeout 200 "$PY" -m mcp_world eval --engine "$URL" --data fixtures/real/devbox-terminal.jsonl --limit 12 \
  --dialect agentworld --no-thinking "${PROMPTS[@]}" --judge "$URL" --judge-max-tokens 4096 \
  --db "$OUT/eval-judged.db" --json "$OUT/eval-judged.json" 2>&1 | tail -6 | tee "$OUT/eval-judged.txt"
timeout 240 "$PY" -m mcp_world eval --engine "$URL" --agentworldbench "${AGENTWORLDBENCH:-fixtures/agentworldbench}" \
  --limit 4 --max-tokens 8192 --judge "$URL" --judge-max-tokens 4096 "${PROMPTS[@]}" \
  --json "$OUT/agentworldbench.json" 2>&1 | tail -14 | tee "$OUT/agentworldbench.txt"
say "done in $(( $(date +%s) - t0 )) s; figures in $OUT"
