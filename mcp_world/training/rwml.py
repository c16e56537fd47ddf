"""RWML (arXiv 2602.05842): GRPO where the reward is how close the predicted observation is to the
real one in embedding space (metric.rwml_reward), with a LoRA adapter (PEFT) on the base model.

    too-easy filter   K predictions per item from the current model (the serving engine); an item
                      whose mean reward is at least tau_easy is kept with probability keep_easy
                      (RWML keeps 10%: without that subsampling training collapsed)
    GRPO              TRL's GRPOTrainer on the items' prompts, exactly as the server renders them;
                      each completion is read as the server reads an answer (stop strings, dialect,
                      format) and rewarded; logs reward mean and spread, the share of groups whose
                      rewards differ (near zero: nothing to learn from, said so) and the loss

torch, transformers, peft and trl are imported here only (the training extra).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine import CompletionRequest
from ..errors import AgentFault, MCPWorldError
from ..metric import Embedder, rwml_reward
from .items import Item, is_valid

Say = Callable[[str], None]


@dataclass(frozen=True)
class Settings:
    """One run's knobs. `gpu()` follows the paper; `cpu()` is sized to finish on two cores."""

    group: int = 4  # completions per prompt (GRPO group size)
    batch: int = 8  # completions per optimizer step (a multiple of group)
    learning_rate: float = 1e-4
    beta: float = 0.001  # KL coefficient (RWML: 0.001)
    max_completion_tokens: int = 96
    temperature: float = 1.0
    reward: str = "continuous"  # binary (1 at similarity >= tau) or continuous (the similarity)
    tau: float = 0.8
    format_penalty: float = 0.5
    tau_easy: float = 0.8
    keep_easy: float = 0.1
    easy_samples: int = 4
    lora_r: int = 16
    max_steps: int = 40
    time_budget_s: float = 1200.0
    seed: int = 0

    @staticmethod
    def gpu(**overrides: Any) -> "Settings":
        return Settings(**{"group": 8, "batch": 32, "learning_rate": 1e-6, "beta": 0.001, "reward": "binary",
                           "max_completion_tokens": 1024, "easy_samples": 10, "max_steps": 500,
                           "time_budget_s": 12 * 3600.0, **overrides})

    @staticmethod
    def cpu(**overrides: Any) -> "Settings":
        return Settings(**overrides)

    def score(self, item: Item, completion: str, dialect: Any, embedder: Embedder) -> float:
        text, valid = is_valid(item, completion, dialect)
        similarity = embedder.similarity(text, item.real)
        return rwml_reward(similarity, valid, self.tau if self.reward == "binary" else None, self.format_penalty)


async def too_easy_filter(items: list[Item], engine: Any, dialect: Any, embedder: Embedder, s: Settings,
                          say: Say) -> tuple[list[Item], int]:
    """Drop most items the current model already predicts well; returns the kept items and how many
    were easy."""
    rng = random.Random(s.seed)
    gate = asyncio.Semaphore(8)

    async def sample(item: Item, k: int) -> str | None:
        async with gate:
            try:
                c = await engine.complete(CompletionRequest(
                    messages=item.messages, max_tokens=s.max_completion_tokens, prefill=item.prefill,
                    stop=item.stop, seed=s.seed * 7919 + k, temperature=s.temperature, top_p=1.0))
                return c.text
            except AgentFault as fault:
                raise MCPWorldError(f"the too-easy filter could not sample from the engine: {fault}") from None

    kept: list[Item] = []
    easy = 0
    for n, item in enumerate(items, 1):
        texts = await asyncio.gather(*(sample(item, k) for k in range(s.easy_samples)))
        mean = sum(s.score(item, t or "", dialect, embedder) for t in texts) / len(texts)
        if mean >= s.tau_easy:
            easy += 1
            if rng.random() >= s.keep_easy:
                continue
        kept.append(item)
        if n % 10 == 0 or n == len(items):
            say(f"too-easy filter: {n}/{len(items)} items sampled, {easy} easy so far")
    return kept, easy


def grpo(items: list[Item], base: Path, out: Path, dialect: Any, embedder: Embedder, s: Settings,
         say: Say) -> list[dict[str, float]]:
    """Train a LoRA adapter with GRPO; saves it to `out` and returns the per-step log."""
    import torch
    from datasets import Dataset
    from peft import LoraConfig
    from transformers import AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    if s.batch % s.group:
        raise MCPWorldError(f"the batch ({s.batch}) must be a multiple of the group size ({s.group})")
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    prompts = [tokenizer.apply_chat_template(it.messages, tokenize=False, add_generation_prompt=True) + it.prefill
               for it in items]
    dataset = Dataset.from_dict({"prompt": prompts, "item": list(range(len(items)))})

    def reward(prompts: list[str], completions: list[str], item: list[int], **_: Any) -> list[float]:
        return [s.score(items[i], c, dialect, embedder) for c, i in zip(completions, item)]

    history: list[dict[str, float]] = []
    started = time.monotonic()

    class Watch(TrainerCallback):
        def on_log(self, args: Any, state: Any, control: Any, logs: dict | None = None, **kw: Any) -> None:
            if not logs or "reward" not in logs:
                return
            row = {"step": state.global_step, "reward": float(logs["reward"]),
                   "reward_std": float(logs.get("reward_std", 0.0)),
                   "groups_with_spread": 1.0 - float(logs.get("frac_reward_zero_std", 0.0)),
                   "loss": float(logs.get("loss", 0.0)), "seconds": round(time.monotonic() - started, 1)}
            history.append(row)
            say(f"step {row['step']}: reward {row['reward']:.3f} ± {row['reward_std']:.3f}, groups with "
                f"differing rewards {row['groups_with_spread']:.0%}, loss {row['loss']:.4f}")

        def on_step_end(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
            if time.monotonic() - started > s.time_budget_s:
                say(f"time budget of {s.time_budget_s:.0f} s reached at step {state.global_step}")
                control.should_training_stop = True

    on_cpu = not torch.cuda.is_available()
    config = GRPOConfig(
        output_dir=str(out.parent / "trainer-state"), max_steps=s.max_steps, learning_rate=s.learning_rate, beta=s.beta,
        # Micro-batches of two sequences: a whole batch of 1,500-token prompts at once ran a 24 GiB
        # machine out of memory (activations); accumulation keeps the effective batch.
        num_generations=s.group, per_device_train_batch_size=min(2, s.batch),
        gradient_accumulation_steps=max(1, s.batch // 2),
        max_completion_length=s.max_completion_tokens, temperature=s.temperature, top_p=1.0,
        logging_steps=1, save_strategy="no", report_to="none", seed=s.seed, use_cpu=on_cpu, bf16=not on_cpu,
        gradient_checkpointing=False, disable_tqdm=False, log_completions=False,
        model_init_kwargs={"dtype": torch.float32 if on_cpu else torch.bfloat16},
    )
    lora = LoraConfig(r=s.lora_r, lora_alpha=2 * s.lora_r, lora_dropout=0.0, task_type="CAUSAL_LM",
                      target_modules=["q_proj", "k_proj", "v_proj", "o_proj"])
    trainer = GRPOTrainer(model=str(base), reward_funcs=reward, args=config, train_dataset=dataset,
                          processing_class=tokenizer, peft_config=lora, callbacks=[Watch()])
    trainer.train()
    out.mkdir(parents=True, exist_ok=True)
    trainer.model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    spread = [h["groups_with_spread"] for h in history]
    if spread and max(spread) < 0.05:
        say("warning: almost no group had differing rewards — GRPO had nothing to learn from "
            "(try --reward continuous, a larger --group, or --warmup-sft)")
    return history
