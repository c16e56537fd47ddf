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

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engines import CompletionRequest
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
    easy_batched: bool = False  # the too-easy filter's samples in one request: faster, not reproducible
    lora_r: int = 16
    sft_epochs: int = 0  # the supervised warm start (0: none)
    sft_learning_rate: float = 2e-4
    sft_empty_weight: float = 0.25  # the weight of answers with no output in the warm start's loss
    sft_batch: int = 4  # items of one world per warm-start step (their prompts' common prefix runs once)
    sft_frozen_prefix: bool = False  # run that common prefix without gradient (memory-light: for long worlds)
    sft_step_tokens: int = 0  # most tokens after the common prefix in one warm-start step, rows x longest (0: any)
    keep_state: float = 1.0  # share of the steps the explicit state answers kept for training
    max_steps: int = 8  # ~2.5 min a step on two cores
    time_budget_s: float = 1200.0
    seed: int = 0

    @staticmethod
    def gpu(**overrides: Any) -> "Settings":
        return Settings(**{"group": 8, "batch": 32, "learning_rate": 1e-6, "beta": 0.001, "reward": "binary",
                           "max_completion_tokens": 1024, "easy_samples": 10, "easy_batched": True, "max_steps": 500,
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

    async def samples(item: Item) -> tuple[str, ...]:
        # An engine's numerics depend on what shares a batch with a request, and the K samples of one
        # request (`n`) are batched differently from run to run: on vLLM-CPU 4 of 20 seeded reruns
        # differed. So by default each sample is its own request with its own seed, one after another
        # (0 of 20 differed; twice the time). `easy_batched` (the GPU preset) asks for all K in one
        # request: much faster where batching is nearly free, but not reproducible to the bit.
        per_request = s.easy_samples if s.easy_batched else 1
        requests = [CompletionRequest(messages=item.messages, max_tokens=s.max_completion_tokens, prefill=item.prefill,
                                      stop=item.stop, seed=s.seed * 7919 + k, temperature=s.temperature, top_p=1.0, n=per_request)
                    for k in range(s.easy_samples // per_request)]
        texts: list[str] = []
        for request in requests:
            try:
                c = await engine.complete(request)
            except AgentFault as fault:
                raise MCPWorldError(f"the too-easy filter could not sample from the engine: {fault}") from None
            texts.extend(c.texts or (c.text,))
        return tuple(texts)

    kept: list[Item] = []
    easy = 0
    for n, item in enumerate(items, 1):
        texts = await samples(item)
        mean = sum(s.score(item, t, dialect, embedder) for t in texts) / len(texts)
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


@dataclass(frozen=True)
class _Sequence:
    prompt: list[int]
    answer: list[int]  # the target's tokens and the end-of-turn token
    weight: float
    group: str  # items with the same system prompt share a long prefix


def _batches(sequences: list[_Sequence], rng: random.Random, size: int = 4, tokens: int = 0) -> list[list[_Sequence]]:
    """One epoch's steps: shuffled, each of up to `size` items with the same system prompt (one world:
    their prompts share the world's 1,000-6,000 tokens, which the step computes once). `tokens`, when
    set, also bounds a step's rows times its longest row after that prefix (what its activations cost:
    ~2.5 GB per 1,000 on this model), and a world's items are grouped by length so that little of a
    step is padding; an item longer than the bound alone is a step of its own."""
    by_group: dict[str, list[_Sequence]] = {}
    for q in sequences:
        by_group.setdefault(q.group, []).append(q)
    batches = []
    for group in by_group.values():
        rng.shuffle(group)
        if not tokens:
            batches += [group[i:i + size] for i in range(0, len(group), size)]
            continue
        shared = _shared_prefix(group)
        group.sort(key=lambda q: len(q.prompt) + len(q.answer))  # rows of a step alike in length: little padding
        step: list[_Sequence] = []
        for q in group:
            width = max([len(q.prompt) + len(q.answer) - shared] + [len(p.prompt) + len(p.answer) - shared for p in step])
            if step and (len(step) == size or width * (len(step) + 1) > tokens):
                batches.append(step)
                step = []
            step.append(q)
        batches.append(step)
    rng.shuffle(batches)
    return batches


def _sequences(items: list[Item], tokenizer: Any, empty_weight: float = 1.0) -> tuple[list[_Sequence], int]:
    """Each item's prompt and answer tokens, and how many answers were cut at the item's limit: the
    server stops the model there, so what follows would be learned and never written."""
    sequences, cut = [], 0
    for prompt, it in zip(_prompts(items, tokenizer), items):
        answer = tokenizer(it.target, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
        if it.max_tokens and len(answer) > it.max_tokens:
            answer, cut = answer[:it.max_tokens], cut + 1
        sequences.append(_Sequence(tokenizer(prompt, add_special_tokens=False)["input_ids"], answer,
                                   empty_weight if not it.real.strip() else 1.0, it.messages[0]["content"]))
    return sequences, cut


def _shared_prefix(chunk: list[_Sequence]) -> int:
    """How many leading prompt tokens every sequence of `chunk` has in common (leaving each at least
    its last prompt token, which predicts the answer)."""
    first = chunk[0].prompt
    limit = min(len(q.prompt) for q in chunk) - 1
    shared = 0
    while shared < limit and all(q.prompt[shared] == first[shared] for q in chunk):
        shared += 1
    return shared


def _answer_losses(model: Any, chunk: list[_Sequence], pad: int, device: str, frozen_prefix: bool = False) -> list[Any]:
    """Each sequence's summed cross-entropy over its answer's tokens. The prompts' common prefix runs
    once (its keys and values, with their gradient, repeated for each row) and the rest of each
    sequence runs as one right-padded batch after it: the same loss and gradient as one sequence at a
    time (a test checks both), ~1.6x faster on two cores for four items of one world. Logits
    are computed for the answers' positions only.

    `frozen_prefix`: the prefix runs without gradient. Its keys and values still come from the adapter
    being trained (the answer sees what the engine would serve), but the adapter learns only from the
    positions after it. A world's snapshot of 4,000-7,000 tokens kept every layer's activations for the
    backward pass: 8 items of the corpus's worlds went past 24 GiB on two cores."""
    import contextlib

    import torch
    from transformers import DynamicCache

    first = chunk[0].prompt
    shared = _shared_prefix(chunk)
    cache = None
    if shared:
        cache = DynamicCache(config=model.config)
        with torch.no_grad() if frozen_prefix else contextlib.nullcontext():
            model(input_ids=torch.tensor([first[:shared]], device=device), past_key_values=cache, use_cache=True,
                  logits_to_keep=1)
        cache.batch_repeat_interleave(len(chunk))
    rows = [(q.prompt + q.answer)[shared:-1] for q in chunk]
    starts = [len(q.prompt) - shared - 1 for q in chunk]  # the position that predicts the answer's first token
    width = max(len(r) for r in rows)
    ids = torch.tensor([r + [pad] * (width - len(r)) for r in rows], device=device)  # right padding: never attended
    low = min(starts)
    logits = model(input_ids=ids, past_key_values=cache, use_cache=cache is not None,
                   logits_to_keep=torch.arange(low, width, device=device)).logits
    return [torch.nn.functional.cross_entropy(logits[i, starts[i] - low:starts[i] - low + len(q.answer)].float(),
                                              torch.tensor(q.answer, device=device), reduction="sum")
            for i, q in enumerate(chunk)]


def warmup_sft(items: list[Item], base: Path, out: Path, s: Settings, say: Say,
               deadline: float | None = None, start: Path | None = None) -> list[dict[str, float]]:
    """The supervised warm start: fit a LoRA adapter (a new one, or continuing the one at `start`) to
    produce each item's real observation (as the server would read it) from the item's prompt; saves
    it to `out` and returns the per-step log.

    A plain loop rather than TRL's SFTTrainer: the loss needs the logits of the answer only (computing
    them for the whole ~1,400-token prompt, as SFTTrainer does, made each item ~25% slower on two
    cores), and the items of one step share their prompts' long common prefix (_answer_losses).
    Prompt and answer are tokenized apart, as the engine sees them (the prompt's tokens are sent and
    the answer's continue them); the end-of-turn token is part of the answer."""
    import torch
    from peft import get_peft_model
    from tqdm.auto import tqdm
    from transformers import AutoTokenizer

    torch.manual_seed(s.seed)
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    sequences, cut = _sequences(items, tokenizer, s.sft_empty_weight)
    if cut:
        say(f"warm start: {cut} answer(s) longer than the server lets the model write are cut at that limit")
    # Continuing an adapter keeps its own LoRA shape (its rank, its modules); the optimizer starts anew.
    model = _model(base, start) if start else get_peft_model(_model(base, None), _lora(s))
    model.train()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model.to(device)
    optimizer = torch.optim.AdamW([w for w in model.parameters() if w.requires_grad], lr=s.sft_learning_rate)
    rng = random.Random(s.seed)
    total = len(_batches(sequences, rng, s.sft_batch, s.sft_step_tokens)) * s.sft_epochs
    say(f"warm start: {s.sft_epochs} epoch(s) of supervised fine-tuning on {len(items)} items ({total} steps)"
        + (f", continuing the adapter {start}" if start else ""))
    history: list[dict[str, float]] = []
    started = time.monotonic()
    bar = tqdm(total=total, desc="warm start", unit="step")
    step = 0
    for epoch in range(s.sft_epochs):
        batches = _batches(sequences, rng, s.sft_batch, s.sft_step_tokens)
        for n_batch, chunk in enumerate(batches, 1):
            # The loss is averaged over the answers' tokens, not over answers, and an answer with no
            # output (`git add`, `cd`, `echo … >> f`: the next prompt line alone) weighs a quarter.
            # Averaged per answer at full weight, the many empty outputs taught the model to answer
            # most commands with nothing: they all start with the same token while real outputs
            # spread over many, so under greedy decoding "nothing" won every uncertain command.
            tokens = sum(len(q.answer) * q.weight for q in chunk)
            losses = _answer_losses(model, chunk, tokenizer.eos_token_id, device, s.sft_frozen_prefix)
            (sum(loss * q.weight for loss, q in zip(losses, chunk)) / tokens).backward()
            optimizer.step()
            optimizer.zero_grad()
            step += 1
            row = {"step": step, "loss": sum(float(loss.detach()) * q.weight for loss, q in zip(losses, chunk)) / tokens,
                   "epoch": round(epoch + n_batch / len(batches), 3), "seconds": round(time.monotonic() - started, 1)}
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
