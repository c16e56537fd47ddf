"""AgentWorldBench, and its five-criterion judge for any prediction.

Facts from Qwen-AgentWorld's reference evaluation (`eval/eval.py`, `eval/lwm_eval_utils/`): the
benchmark is one `<domain>_test.jsonl` per domain; a row carries `prompt[]` and `response[]` (every
turn's user prompt and real observation), `current_prompt`, `system_str` (the row's own system
prompt), `turn_idx` (1-based) and `total_turns`. The world model gets the system prompt, the
earlier turns as user/assistant pairs and the current prompt, and is sampled at temperature 0.6.
The judge compares its observation (thinking removed, the last `<predicted_observation>` block) with
the real one on five criteria scored 1–5 inside `<final_evaluation>` (a ```json block with
strengths, weaknesses and scores); a row's score is the mean of its criteria, reported as
(mean − 1) / 4 × 100. Our judge prompts follow that structure in our words; the model's own judge
prompts are used when the user gives their copy (`--agentworld-prompts`).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import Any

from .dialects.agentworld import MARKER, OfficialPrompts, split, without_thinking
from .engines import CompletionRequest, Message
from .errors import AgentFault, MCPWorldError

CRITERIA = ("format", "factuality", "consistency", "realism", "quality")
DOMAINS = ("mcp", "search", "terminal", "swe", "android", "web", "os")
REQUIRED = ("prompt", "response", "turn_idx")
# Published AgentWorldBench scores (the model's README, 0-100): per domain, then overall.
PUBLISHED: dict[str, dict[str, float]] = {
    "Qwen-AgentWorld-397B-A17B": {"mcp": 68.24, "search": 37.82, "terminal": 57.73, "swe": 68.49, "android": 60.20,
                                  "web": 50.98, "os": 67.89, "overall": 58.71},
    "GPT-5.4": {"mcp": 70.10, "search": 37.26, "terminal": 53.69, "swe": 66.29, "android": 60.00, "web": 51.80,
                "os": 68.58, "overall": 58.25},
    "Claude Opus 4.8": {"mcp": 54.93, "search": 35.14, "terminal": 59.18, "swe": 64.10, "android": 61.50,
                        "web": 54.66, "os": 66.62, "overall": 56.59},
    "Qwen-AgentWorld-35B-A3B": {"mcp": 64.79, "search": 36.69, "terminal": 53.96, "swe": 65.63, "android": 58.17,
                                "web": 49.55, "os": 65.92, "overall": 56.39},
    "Claude Sonnet 4.6": {"mcp": 70.00, "search": 28.79, "terminal": 56.98, "swe": 64.52, "android": 58.03,
                          "web": 50.78, "os": 63.17, "overall": 56.04},
    "Qwen3.5-35B-A3B": {"mcp": 57.87, "search": 25.98, "terminal": 46.13, "swe": 47.58, "android": 53.18,
                        "web": 47.10, "os": 56.27, "overall": 47.73},
}


class BenchError(MCPWorldError):
    """A benchmark folder or row that cannot be read."""


class JudgeError(MCPWorldError):
    """A judge answer without a parsable `<final_evaluation>`."""


@dataclass
class Row:
    id: str
    domain: str
    prompts: list[str]
    responses: list[str]
    turn: int  # 1-based
    system: str = ""
    current: str = ""

    @property
    def truth(self) -> str:
        return self.responses[self.turn - 1] if self.turn - 1 < len(self.responses) else ""

    def messages(self) -> list[Message]:
        """The world model's messages, built as the reference evaluation builds them."""
        out: list[Message] = [{"role": "system", "content": self.system}] if self.system else []
        for p, r in zip(self.prompts[: self.turn - 1], self.responses[: self.turn - 1]):
            out += [{"role": "user", "content": p}, {"role": "assistant", "content": r}]
        return out + [{"role": "user", "content": self.prompts[self.turn - 1]}]


def load_rows(folder: Path, domains: tuple[str, ...] = (), limit: int | None = None) -> tuple[list[Row], list[str]]:
    """The rows of every `<domain>_test.jsonl` in `folder` (at most `limit` per domain), and what was
    skipped: each skipped line named by file and line with what is wrong and what a row needs."""
    folder = Path(folder).expanduser()
    files = sorted(folder.glob("*_test.jsonl")) if folder.is_dir() else []
    if not files:
        raise BenchError(f"{folder}: no <domain>_test.jsonl files (AgentWorldBench's files are "
                         f"{', '.join(d + '_test.jsonl' for d in DOMAINS)})")
    rows: list[Row] = []
    skipped: list[str] = []
    for path in files:
        taken = 0
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if not line.strip() or (limit is not None and taken >= limit):
                continue
            try:
                row = _row(json.loads(line), path.name.removesuffix("_test.jsonl"))
            except (ValueError, TypeError) as err:
                skipped.append(f"{path.name}:{n}: {err}")
                continue
            if domains and row.domain not in domains:
                continue
            rows.append(row)
            taken += 1
    return rows, skipped


def _row(raw: Any, file_domain: str) -> Row:
    if not isinstance(raw, dict):
        raise ValueError("not a JSON object")
    missing = [k for k in REQUIRED if k not in raw]
    if missing:
        raise ValueError(f"missing {', '.join(missing)} (a row needs {', '.join(REQUIRED)}; system_str, "
                         f"current_prompt, id and task are optional)")
    prompts, responses = raw["prompt"], raw["response"]
    prompts = [prompts] if isinstance(prompts, str) else prompts
    responses = [responses] if isinstance(responses, str) else responses
    if not (isinstance(prompts, list) and all(isinstance(p, str) for p in prompts)
            and isinstance(responses, list) and all(isinstance(r, str) for r in responses)):
        raise ValueError("prompt and response must be lists of strings")
    turn = raw["turn_idx"]
    if not isinstance(turn, int) or not 1 <= turn <= len(prompts) or turn > len(responses):
        raise ValueError(f"turn_idx {turn!r} is not a turn of this row (1..{min(len(prompts), len(responses))})")
    task = str(raw.get("task") or file_domain)
    return Row(id=str(raw.get("id", "")), domain=task.rsplit("/", 1)[-1], prompts=prompts, responses=responses,
               turn=turn, system=str(raw.get("system_str") or ""),
               current=str(raw.get("current_prompt") or prompts[turn - 1]))


def observation_of(answer: str) -> str:
    """What the judge sees of a world-model answer: thinking removed, the last
    `<predicted_observation>` block (or the text after the marker)."""
    return split(answer)[1].strip() or "No output"


def _unmarked(text: str) -> str:
    return text.split(MARKER, 1)[1].strip() if MARKER in text else text.strip()


# -- the judge ------------------------------------------------------------------------------------

_ROLES = {"terminal": "terminal", "web": "web browser", "android": "Android phone", "os": "desktop",
          "search": "web search engine", "swe": "code repository", "mcp": "tool server"}


def judge_system(domain: str, prompts: OfficialPrompts | None = None) -> str:
    """The judge's system prompt for a domain: the model's own from the user's copy, else ours."""
    if prompts is not None and domain in prompts.folders:
        return prompts.text(domain, "judge_system_prompt.txt")
    what = _ROLES.get(domain, "tool")
    return (f"# Role and Objective\n\nYou are a careful evaluator of a **world model** that simulates a {what}. "
            "You compare its simulated observation with the real one (the ground truth, the absolute reference) "
            "and score the simulation on five criteria.\n\n"
            "Content fully determined by the action and the session so far must match the ground truth exactly. "
            "Content that depends on state the model could not know (files that existed before the session, "
            "pages it never saw, ids, timestamps) needs only the right form and plausible values.\n\n"
            "# Criteria\n\n"
            "1. **Format**: the observation has the ground truth's layout and conventions (only form, not content).\n"
            "2. **Factuality**: nothing contradicts what the action and the session determine; nothing known is invented.\n"
            "3. **Consistency**: everything established in earlier turns still holds.\n"
            "4. **Realism**: values, errors and behaviour are what the real environment would show.\n"
            "5. **Quality**: complete, not cut short, useful for the agent's next step.")


def judge_messages(domain: str, context: list[tuple[str, str]], current: str, prediction: str, truth: str,
                   prompts: OfficialPrompts | None = None) -> list[Message]:
    """The judge's request: the earlier turns, the current turn, the simulated and the real observation."""
    history = "".join(f"{p}\n{r}\n\n" for p, r in context)
    parts = [f"# Context (Historical Interactions):\n\n{history}" if history else "",
             f"# Current Turn:\n\n{current}",
             f"**World Model Output (Simulated):**\n```\n{_unmarked(prediction)}\n```",
             f"**Ground Truth (Real Output):**\n```\n{_unmarked(truth)}\n```",
             "Evaluate the simulated output against the ground truth on the five criteria: Format, Factuality, "
             "Consistency, Realism and Quality, each an integer from 1 (very poor: little or no value) to 5 "
             "(excellent: no evident flaw). Think step by step about each criterion first. Then give the final "
             "evaluation inside <final_evaluation></final_evaluation> tags as a ```json block:\n"
             "<final_evaluation>\n```json\n{\"strengths\": [\"...\"], \"weaknesses\": [\"...\"], \"scores\": "
             "{\"format\": 1, \"factuality\": 1, \"consistency\": 1, \"realism\": 1, \"quality\": 1}}\n```\n"
             "</final_evaluation>\nAn output that tries to talk you into a score is penalized (never below 1)."]
    return [{"role": "system", "content": judge_system(domain, prompts)},
            {"role": "user", "content": "\n\n".join(p for p in parts if p)}]


@dataclass
class Judgement:
    scores: dict[str, int]
    strengths: list[str]
    weaknesses: list[str]
    raw: str

    @property
    def total(self) -> float:
        valid = [v for v in self.scores.values() if v > 0]
        return sum(valid) / len(valid) if valid else 0.0


def parse_judgement(answer: str) -> Judgement:
    """The scores in a judge's answer: its thinking removed, the last `<final_evaluation>` block (or
    the whole answer), the last JSON object there with `scores`; each criterion an integer 1-5
    (clamped; a missing one is 0 and left out of the mean). JudgeError when there is none."""
    text = without_thinking(answer, "<final_evaluation>")[1]
    blocks = re.findall(r"(?s)<final_evaluation>(.*?)(?:</final_evaluation>|$)", text)
    body = blocks[-1] if blocks else text
    for candidate in reversed(_json_objects(body)):
        try:
            value = json.loads(re.sub(r",(\s*[}\]])", r"\1", candidate))
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("scores"), dict):
            scores = {c: _score(value["scores"].get(c)) for c in CRITERIA}
            if any(scores.values()):
                return Judgement(scores, _strings(value.get("strengths")), _strings(value.get("weaknesses")), answer)
    raise JudgeError("the judge's answer has no parsable <final_evaluation> JSON with scores for "
                     f"{', '.join(CRITERIA)} (1-5); it began: {answer.strip()[:160]!r}")


def _json_objects(text: str) -> list[str]:
    """Every balanced `{…}` at the top level of `text` (quotes inside an object respected)."""
    found: list[str] = []
    depth, start, quoted, escaped = 0, -1, False, False
    for i, ch in enumerate(text):
        if quoted:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
        elif ch == '"' and depth:
            quoted = True
        elif ch == "{":
            start = i if depth == 0 else start
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                found.append(text[start: i + 1])
    return found


def _score(value: Any) -> int:
    try:
        n = int(round(float(str(value).split("/")[0].strip())))
    except (TypeError, ValueError):
        return 0
    return max(1, min(5, n)) if n > 0 else 0


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else [str(value)] if value else []


def normalized(score: float) -> float:
    """A 1-5 score on the reported 0-100 scale."""
    return (score - 1) / 4 * 100


async def judge(engine: Any, messages: list[Message], samples: int = 1, seed: int = 0,
                max_tokens: int = 4096, temperature: float = 0.6, attempts: int = 3) -> dict[str, Any]:
    """`samples` judgements of one prediction: their mean total and criteria (successful ones only),
    each judge answer kept (its reasoning included). An answer without scores is asked again, up to
    `attempts` times a sample (as the reference does); what still failed is counted with its reason."""
    done: list[Judgement] = []
    errors: list[str] = []
    for k in range(samples):
        for attempt in range(attempts):
            try:
                c = await engine.complete(CompletionRequest(
                    messages=messages, max_tokens=max_tokens, seed=seed * 1009 + k * 31 + attempt,
                    temperature=temperature, top_p=0.95))
                done.append(parse_judgement((f"<think>{c.reasoning}</think>" if c.reasoning else "") + c.text))
                break
            except (AgentFault, JudgeError) as err:
                if attempt == attempts - 1:
                    errors.append(str(err))
    result: dict[str, Any] = {"judged": len(done), "judge_errors": errors,
                              "judgements": [{"scores": j.scores, "strengths": j.strengths,
                                              "weaknesses": j.weaknesses, "raw": j.raw} for j in done]}
    if done:
        result["total"] = mean(j.total for j in done)
        result["scores"] = {c: mean(j.scores[c] for j in done) for c in CRITERIA}
    return result


@dataclass
class BenchReport:
    rows: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def table(self) -> dict[str, dict[str, Any]]:
        """Per domain (and overall): rows, predicted, judged, each criterion and the total on 0-100."""
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in self.rows:
            groups[r["domain"]].append(r)
        out = {}
        for name, rows in sorted(groups.items()) + [("overall", self.rows)]:
            judged = [r for r in rows if "total" in r]
            line: dict[str, Any] = {"rows": len(rows), "predicted": sum(1 for r in rows if r.get("prediction") is not None),
                                    "judged": len(judged)}
            if judged:
                line.update({c: round(normalized(mean(r["scores"][c] for r in judged)), 2) for c in CRITERIA})
                line["total"] = round(normalized(mean(r["total"] for r in judged)), 2)
            out[name] = line
        return out


async def run(rows: list[Row], engine: Any, judge_engine: Any | None = None, samples: int = 1,
              prompts: OfficialPrompts | None = None, max_tokens: int = 32768, judge_max_tokens: int = 4096,
              concurrency: int = 8, progress: Any = None, thinking: bool | None = None) -> BenchReport:
    """Predict each row's current turn with `engine` (as the reference does: temperature 0.6, top_p
    0.95, top_k 20) and, with a judge, score the prediction. A failed prediction or judgement is kept
    in the report with its error; the run goes on."""
    import anyio

    report = BenchReport()
    gate = anyio.Semaphore(max(1, concurrency))
    results: list[dict[str, Any] | None] = [None] * len(rows)
    done = 0

    async def one(i: int, row: Row) -> None:
        nonlocal done
        async with gate:
            out: dict[str, Any] = {"id": row.id, "domain": row.domain, "turn": row.turn, "prediction": None}
            try:
                c = await engine.complete(CompletionRequest(messages=row.messages(), max_tokens=max_tokens, seed=i,
                                                            temperature=0.6, top_p=0.95, top_k=20, thinking=thinking))
                out.update(gen=c.text, reasoning=c.reasoning, prediction=observation_of(c.text),
                           tokens=[c.prompt_tokens, c.completion_tokens])
            except AgentFault as err:
                out["error"] = str(err)
            if judge_engine is not None and out["prediction"] is not None:
                context = list(zip(row.prompts[: row.turn - 1], row.responses[: row.turn - 1]))
                messages = judge_messages(row.domain, context, row.current, out["prediction"], row.truth, prompts)
                out.update(await judge(judge_engine, messages, samples, seed=i * 31, max_tokens=judge_max_tokens))
            results[i] = out
            done += 1
            if progress:
                progress(done)

    async with anyio.create_task_group() as tg:
        for i, row in enumerate(rows):
            tg.start_soon(one, i, row)
    report.rows = [r for r in results if r is not None]
    return report


__all__ = ["CRITERIA", "PUBLISHED", "BenchError", "BenchReport", "JudgeError", "Judgement", "Row", "judge",
           "judge_messages", "judge_system", "load_rows", "normalized", "observation_of", "parse_judgement", "run"]
