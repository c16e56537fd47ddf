"""The RL loop closed on CPU: train an agent policy in the simulated world, check it in the real one.

1. Tasks: simple verifiable devbox tasks (make a folder, create a file, create a git branch), a
   train split and a held-out split with other names; success checks read the world's state.
2. Warm start: a short supervised pass on tool-call transcripts of the train tasks, so the small
   policy emits tool calls at all (the packaged SmolLM2-135M never does by itself).
3. GRPO through TRL's `environment_factory` in the **simulated** world (episode handles on a server
   on the embedded engine), the reward being the server's `verify`.
4. Held-out tasks, for the base policy, after the warm start and after GRPO, in the simulation and
   **in the real sandbox** (a second server with `--shadow terminal --real terminal`: the agent's
   commands run in bubblewrap and it sees their real output).

    .venv/bin/python scripts/rl_loop.py --out benchmarks/results/rl_loop.json
    .venv/bin/python scripts/rl_loop.py --preset gpu --policy /models/Qwen3-1.7B --engine http://gpu:8000/v1

`--preset gpu` is the recipe for a real policy on a GPU (a tool-calling model from a local folder,
Qwen-AgentWorld or another served model as the world model): 8 generations a prompt, 256-token
completions, up to 4 tool calls a rollout, LoRA r=32 on every linear layer, bf16, 200 steps, and
the policy's own chat template. Every setting can still be overridden (`--grpo-steps`, ...).

Prints success rates (reward 1.0) before and after, side by side, and writes them as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

FAMILIES = {
    "mkdir": ("Create a folder named {x} in the project.", "mkdir {x}",
              {"kind": "file_exists", "path": "{x}", "type": "dir"}),
    "touch": ("Create an empty file named {x} in the project.", "touch {x}",
              {"kind": "file_exists", "path": "{x}", "type": "file"}),
    "branch": ("Create a git branch named {x} and switch to it.", "git checkout -b {x}",
               {"kind": "git_branch", "equals": "{x}"}),
}
TRAIN = {"mkdir": ["build", "logs", "data", "cache"], "touch": ["notes.txt", "todo.md", "app.py", "config.ini"],
         "branch": ["feature/login", "fix/typo", "dev", "release-1"]}
HELD_OUT = {"mkdir": ["docs", "scripts", "out"], "touch": ["CHANGES.md", "run.sh", "setup.cfg"],
            "branch": ["feature/search", "hotfix", "wip"]}
PRESETS = {
    # What was measured on this 2-core machine (README "The loop, closed on CPU").
    "cpu": {"grpo_steps": 8, "generations": 4, "completion": 48, "tool_calls": 1, "lora_r": 16,
            "targets": ["q_proj", "v_proj"], "lr": 5e-5, "bf16": False, "cpu": True, "own_template": False},
    # A real policy model on one GPU (H100/H200 class): the settings a 1.7B-8B tool-calling model needs.
    "gpu": {"grpo_steps": 200, "generations": 8, "completion": 256, "tool_calls": 4, "lora_r": 32,
            "targets": "all-linear", "lr": 1e-5, "bf16": True, "cpu": False, "own_template": True},
}
TOOL_CALL = re.compile(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", re.S)


def tasks(split: dict[str, list[str]]) -> list[dict]:
    out = []
    for family, names in split.items():
        text, command, check = FAMILIES[family]
        for x in names:
            fill = json.loads(json.dumps(check).replace("{x}", x))
            out.append({"id": f"{family}-{re.sub(r'[^a-z0-9]+', '-', x)}", "instruction": text.format(x=x),
                        "success": [fill], "command": command.format(x=x)})
    return out


def serve(port: int, db: Path, engine: str, *extra: str) -> subprocess.Popen:
    import httpx

    proc = subprocess.Popen([sys.executable, "-m", "mcp_world", "serve", "--world", "devbox", "--port", str(port),
                             "--db", str(db), "--engine", engine, *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/episodes", timeout=2)
            return proc
        except httpx.HTTPError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server on port {port} did not start")
            time.sleep(0.3)


def chat_template(tok, preset: dict):
    """The packaged SmolLM2's template cannot render tool calls: TRL's Qwen3 template stands in;
    a real tool-calling policy keeps its own (`own_template`)."""
    from trl.chat_template_utils import qwen3_chat_template

    if not (preset["own_template"] and tok.chat_template):
        tok.chat_template = qwen3_chat_template
    return tok


def tool_schema(url: str) -> tuple[type, dict]:
    from transformers.utils import get_json_schema

    from mcp_world.rl.trl import environment

    env_cls = environment(url)
    return env_cls, get_json_schema(env_cls.run_command)


def warm_start(base: Path, out: Path, train: list[dict], schema: dict, epochs: int, preset: dict, say) -> Path:
    """Supervised pass: the instruction, then the assistant's one tool call (loss on that turn only)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = chat_template(AutoTokenizer.from_pretrained(base), preset)
    model = AutoModelForCausalLM.from_pretrained(base)
    if not preset["cpu"] and torch.cuda.is_available():
        model = model.to("cuda", dtype=torch.bfloat16 if preset["bf16"] else torch.float32)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5)
    examples = []
    for t in train:
        prompt = [{"role": "user", "content": t["instruction"]}]
        head = tok.apply_chat_template(prompt, tools=[schema], tokenize=False, add_generation_prompt=True)
        answer = f'<tool_call>\n{{"name": "run_command", "arguments": {{"command": "{t["command"]}"}}}}\n</tool_call><|im_end|>'
        h, a = tok(head, add_special_tokens=False).input_ids, tok(answer, add_special_tokens=False).input_ids
        examples.append((torch.tensor([h + a], device=model.device), torch.tensor([[-100] * len(h) + a], device=model.device)))
    model.train()
    t0 = time.time()
    for epoch in range(epochs):
        total = 0.0
        for ids, labels in examples:
            loss = model(input_ids=ids, labels=labels).loss
            loss.backward()
            opt.step()
            opt.zero_grad()
            total += loss.item()
        say(f"  warm start epoch {epoch + 1}/{epochs}: mean loss {total / len(examples):.3f}")
    say(f"  warm start: {len(examples)} examples x {epochs} epochs in {time.time() - t0:.0f} s")
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def grpo(start: Path, out: Path, url: str, env_cls: type, train: list[dict], steps: int, preset: dict,
         say) -> tuple[Path, list]:
    from datasets import Dataset
    from peft import LoraConfig
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    tok = chat_template(AutoTokenizer.from_pretrained(start), preset)
    p = preset
    rows = [{"prompt": [{"role": "user", "content": t["instruction"]}],
             "task": json.dumps({k: t[k] for k in ("id", "instruction", "success")})} for t in train]
    config = GRPOConfig(output_dir=str(out / "trainer"), max_steps=steps, learning_rate=p["lr"],
                        num_generations=p["generations"], per_device_train_batch_size=p["generations"],
                        max_completion_length=p["completion"], temperature=1.0, logging_steps=1,
                        save_strategy="no", report_to="none", use_cpu=p["cpu"], bf16=p["bf16"],
                        gradient_checkpointing=not p["cpu"], max_tool_calling_iterations=p["tool_calls"],
                        disable_tqdm=True, seed=0)
    trainer = GRPOTrainer(model=AutoModelForCausalLM.from_pretrained(start), args=config,
                          train_dataset=Dataset.from_list(rows), processing_class=tok, environment_factory=env_cls,
                          peft_config=LoraConfig(r=p["lora_r"], lora_alpha=2 * p["lora_r"],
                                                 target_modules=p["targets"], task_type="CAUSAL_LM"))
    t0 = time.time()
    trainer.train()
    history = [{k: v for k, v in h.items() if k.startswith(("reward", "tools/", "step"))}
               for h in trainer.state.log_history if "reward" in h]
    for h in history:
        say(f"  GRPO step {h.get('step')}: reward {h.get('reward', 0):.2f}, tool calls/rollout "
            f"{h.get('tools/call_frequency', 0):.2f}")
    say(f"  GRPO: {steps} steps in {time.time() - t0:.0f} s")
    merged = trainer.model.merge_and_unload()
    out.mkdir(parents=True, exist_ok=True)
    merged.save_pretrained(out)
    tok.save_pretrained(out)
    return out, history


def evaluate(model_dir: Path, url: str, schema: dict, held_out: list[dict], preset: dict) -> dict:
    """Greedy, one tool call per task (each task needs exactly one), then verify."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from mcp_world.rl import WorldEnv

    tok = chat_template(AutoTokenizer.from_pretrained(model_dir), preset)
    model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
    if not preset["cpu"] and torch.cuda.is_available():
        model = model.to("cuda", dtype=torch.bfloat16 if preset["bf16"] else torch.float32)
    env = WorldEnv(url)
    results = []
    try:
        for t in held_out:
            instruction, _ = env.reset(seed=0, options={"task": {k: t[k] for k in ("id", "instruction", "success")}})
            text = tok.apply_chat_template([{"role": "user", "content": instruction}], tools=[schema], tokenize=False,
                                           add_generation_prompt=True)
            ids = tok(text, return_tensors="pt", add_special_tokens=False).to(model.device)
            with torch.no_grad():
                out = model.generate(**ids, max_new_tokens=preset["completion"], do_sample=False, pad_token_id=tok.eos_token_id)
            completion = tok.decode(out[0][ids.input_ids.shape[1]:], skip_special_tokens=False)
            call, command = TOOL_CALL.search(completion), None
            if call:
                try:
                    spec = json.loads(call.group(1))
                    command = spec["arguments"]["command"]
                    env.call(spec["name"], spec["arguments"])
                except (ValueError, KeyError, TypeError):
                    command = None
            reward = float(env.verify().get("reward") or 0.0)
            results.append({"task": t["id"], "command": command, "reward": reward})
    finally:
        env.close()
    return {"success": sum(r["reward"] == 1.0 for r in results) / len(results),
            "tool_calls": sum(r["command"] is not None for r in results) / len(results), "tasks": results}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default=None, help="the world model (default: the embedded engine)")
    ap.add_argument("--policy", default=None, help="a Hugging Face folder (default: the packaged SmolLM2-135M)")
    ap.add_argument("--preset", choices=sorted(PRESETS), default="cpu",
                    help="cpu: what runs on 2 cores here; gpu: a real policy model on one GPU")
    ap.add_argument("--warm-epochs", type=int, default=4)
    ap.add_argument("--grpo-steps", type=int, default=None, help="default: the preset's (cpu 8, gpu 200)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/mcp-world-rl-loop"))
    ap.add_argument("--out", type=Path, default=None, help="write the figures here (JSON)")
    a = ap.parse_args()
    preset = dict(PRESETS[a.preset])
    if a.preset == "gpu" and not a.policy:
        ap.error("--preset gpu needs --policy FOLDER (a tool-calling model; the packaged 135M model calls no tools)")
    steps = a.grpo_steps if a.grpo_steps is not None else preset["grpo_steps"]

    from mcp_world import embedded
    from mcp_world.paths import cache_dir

    def say(m: str) -> None:
        print(m, flush=True)

    engine, started = (a.engine, None) if a.engine else embedded.background_or_start(cache_dir(None), say=say)
    base = Path(a.policy) if a.policy else embedded.model_dir(cache_dir(None))
    a.work.mkdir(parents=True, exist_ok=True)
    sim_port, real_port = 18765, 18766
    sim = serve(sim_port, a.work / "sim.db", engine)
    real = serve(real_port, a.work / "real.db", engine, "--shadow", "terminal", "--real", "terminal")
    sim_url, real_url = f"http://127.0.0.1:{sim_port}", f"http://127.0.0.1:{real_port}"
    try:
        train, held_out = tasks(TRAIN), tasks(HELD_OUT)
        env_cls, schema = tool_schema(sim_url)
        report: dict = {"policy": str(base), "preset": a.preset, "grpo_steps": steps, "train_tasks": len(train), "held_out_tasks": len(held_out), "stages": {}}
        t0 = time.time()
        say(f"policy {base.name}: {len(train)} train tasks, {len(held_out)} held-out (other names)")
        stages = [("base", base)]
        warm = warm_start(base, a.work / "warm", train, schema, a.warm_epochs, preset, say)
        stages.append(("warm start", warm))
        trained, history = grpo(warm, a.work / "grpo", sim_url, env_cls, train, steps, preset, say)
        stages.append(("warm start + GRPO in sim", trained))
        report["grpo_history"] = history
        say(f"\n{'stage':<26} {'sim success':>11} {'real success':>12} {'tool calls':>10}")
        for name, folder in stages:
            in_sim = evaluate(folder, sim_url, schema, held_out, preset)
            in_real = evaluate(folder, real_url, schema, held_out, preset)
            report["stages"][name] = {"sim": in_sim, "real": in_real}
            say(f"{name:<26} {in_sim['success']:>11.2f} {in_real['success']:>12.2f} {in_sim['tool_calls']:>10.2f}")
        report["seconds"] = round(time.time() - t0)
        if a.out:
            a.out.parent.mkdir(parents=True, exist_ok=True)
            a.out.write_text(json.dumps(report, indent=2) + "\n")
            say(f"written to {a.out}")
    finally:
        for p in (sim, real):
            p.terminate()
            p.wait(timeout=30)
        if started is not None:
            started.stop()


if __name__ == "__main__":
    main()
