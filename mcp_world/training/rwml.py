"""RWML (arXiv 2602.05842): GRPO where the reward is how close the predicted observation is to the
real one in embedding space (metric.rwml_reward), with a LoRA adapter (PEFT) on the base model.

    too-easy filter   K predictions per item from the current model (the serving engine); an item
                      whose mean reward is at least tau_easy is kept with probability keep_easy
                      (RWML keeps 10%: without that subsampling training collapsed)
    warm start        (--warmup-sft) supervised fine-tuning of the adapter on the real observations
                      (loss on the answer's tokens only), before GRPO
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
    sft_epochs: int = 0  # the supervised warm start (0: none)
    sft_learning_rate: float = 2e-4
    sft_empty_weight: float = 0.25  # the weight of answers with no output in the warm start's loss
    max_steps: int = 8  # ~2.5 min a step on two cores
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
    were easy. Items are taken in a random order until GRPO's steps have enough prompts (max_steps x
    batch / group): sampling K predictions for items GRPO would never reach costs minutes each on CPU."""
    rng = random.Random(s.seed)
    items = list(items)
    rng.shuffle(items)
    needed = s.max_steps * max(1, s.batch // s.group)
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
        if len(kept) >= needed:
            say(f"too-easy filter: {len(kept)} items kept after sampling {n} — enough for {s.max_steps} GRPO steps")
            break
    return kept, easy


def _lora(s: Settings) -> Any:
    from peft import LoraConfig

    return LoraConfig(r=s.lora_r, lora_alpha=2 * s.lora_r, lora_dropout=0.0, task_type="CAUSAL_LM",
                      target_modules=["q_proj", "k_proj", "v_proj", "o_proj"])


def _prompts(items: list[Item], tokenizer: Any) -> list[str]:
    """What the engine continues for each item: the chat template's prompt and the prefill."""
    return [tokenizer.apply_chat_template(it.messages, tokenize=False, add_generation_prompt=True) + it.prefill
            for it in items]


def _model(base: Path, start: Path | None) -> Any:
    """The base model, with the adapter at `start` (trainable) when continuing from one."""
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    dtype = torch.bfloat16 if torch.cuda.is_available() else torch.float32
    model = AutoModelForCausalLM.from_pretrained(str(base), dtype=dtype)
    return PeftModel.from_pretrained(model, str(start), is_trainable=True) if start else model


def warmup_sft(items: list[Item], base: Path, out: Path, s: Settings, say: Say,
               deadline: float | None = None) -> list[dict[str, float]]:
    """The supervised warm start: fit a LoRA adapter to produce each item's real observation (as the
    server would read it) from the item's prompt; saves it to `out` and returns the per-step log.

    A plain loop rather than TRL's SFTTrainer: the loss needs the logits of the answer only, and
    computing them for the whole ~1,400-token prompt (as SFTTrainer does) made each item ~25% slower
    on two cores. Prompt and answer are tokenized apart, as the engine sees them (the prompt's tokens
    are sent and the answer's continue them); the end-of-turn token is part of the answer."""
    import torch
    from peft import get_peft_model
    from tqdm.auto import tqdm
    from transformers import AutoTokenizer

    torch.manual_seed(s.seed)
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    sequences = []
    for prompt, it in zip(_prompts(items, tokenizer), items):
        p = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        a = tokenizer(it.target, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
        weight = s.sft_empty_weight if not it.real.strip() else 1.0
        sequences.append((torch.tensor([p + a]), len(a), weight))
    model = get_peft_model(_model(base, None), _lora(s))
    model.train()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model.to(device)
    optimizer = torch.optim.AdamW([w for w in model.parameters() if w.requires_grad], lr=s.sft_learning_rate)
    accumulate = 4
    order = list(range(len(sequences)))
    rng = random.Random(s.seed)
    total = -(-len(order) // accumulate) * s.sft_epochs
    say(f"warm start: {s.sft_epochs} epoch(s) of supervised fine-tuning on {len(items)} items ({total} steps)")
    history: list[dict[str, float]] = []
    started = time.monotonic()
    bar = tqdm(total=total, desc="warm start", unit="step")
    step = 0
    for epoch in range(s.sft_epochs):
        rng.shuffle(order)
        for first in range(0, len(order), accumulate):
            chunk = order[first:first + accumulate]
            # The loss is averaged over the answers' tokens, not over answers, and an answer with no
            # output (`git add`, `cd`, `echo … >> f`: the next prompt line alone) weighs a quarter.
            # Averaged per answer at full weight, the many empty outputs taught the model to answer
            # most commands with nothing: they all start with the same token while real outputs
            # spread over many, so under greedy decoding "nothing" won every uncertain command.
            tokens = sum(sequences[i][1] * sequences[i][2] for i in chunk)
            total_loss = 0.0
            for i in chunk:
                ids, n, weight = sequences[i]
                ids = ids.to(device)
                # logits for the positions that predict the answer's tokens only
                logits = model(input_ids=ids[:, :-1], logits_to_keep=n).logits[0]
                loss = torch.nn.functional.cross_entropy(logits.float(), ids[0, -n:], reduction="sum")
                (loss * weight / tokens).backward()
                total_loss += float(loss.detach()) * weight
            optimizer.step()
            optimizer.zero_grad()
            step += 1
            row = {"step": step, "loss": total_loss / tokens, "epoch": round(epoch + (first + len(chunk)) / len(order), 3),
                   "seconds": round(time.monotonic() - started, 1)}
            history.append(row)
            bar.update(1)
            bar.set_postfix(loss=f"{row['loss']:.3f}")
            if step % 5 == 0 or step == total:
                say(f"warm start step {step}/{total} (epoch {row['epoch']:.2f}): loss {row['loss']:.4f}")
            if deadline is not None and time.monotonic() > deadline:
                say(f"time budget reached: the warm start stops at step {step} of {total}")
                break
        else:
            continue
        break
    bar.close()
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return history


def grpo(items: list[Item], base: Path, out: Path, dialect: Any, embedder: Embedder, s: Settings,
         say: Say, start: Path | None = None, deadline: float | None = None) -> list[dict[str, float]]:
    """Train a LoRA adapter with GRPO (a new one, or continuing the one at `start`); saves it to `out`
    and returns the per-step log."""
    import torch
    from datasets import Dataset
    from transformers import AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    if s.batch % s.group:
        raise MCPWorldError(f"the batch ({s.batch}) must be a multiple of the group size ({s.group})")
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    dataset = Dataset.from_dict({"prompt": _prompts(items, tokenizer), "item": list(range(len(items)))})

    def reward(prompts: list[str], completions: list[str], item: list[int], **_: Any) -> list[float]:
        return [s.score(items[i], c, dialect, embedder) for c, i in zip(completions, item)]

    history: list[dict[str, float]] = []
    started = time.monotonic()
    deadline = deadline if deadline is not None else started + s.time_budget_s

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
            if time.monotonic() > deadline:
                say(f"time budget of {s.time_budget_s:.0f} s reached at GRPO step {state.global_step}")
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
    )
    trainer = GRPOTrainer(model=_model(base, start), reward_funcs=reward, args=config, train_dataset=dataset,
                          processing_class=tokenizer, peft_config=None if start else _lora(s), callbacks=[Watch()])
    trainer.train()
    out.mkdir(parents=True, exist_ok=True)
    trainer.model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    spread = [h["groups_with_spread"] for h in history]
    if spread and max(spread) < 0.05:
        say("warning: almost no group had differing rewards — GRPO had nothing to learn from "
            "(try --reward continuous, a larger --group, or --warmup-sft)")
    return history
