"""`mcp-world generate`: synthetic episodes at scale. Agent policies walk tasks through a world
over a real MCP client (streamable HTTP, the same path Claude takes), many episodes at once.

Policies
    scripted   each task's fixed `actions` list, in order (reproducible data)
    chat       any OpenAI-compatible chat model given the world's tools: with `tools` (native tool
               calling: the model needs a server-side tool parser) or `json` (the model answers one
               JSON action per turn under the engine's structured outputs — what the small
               embedded model can do). A turn without a tool call is the agent declaring it is done.

Episodes are named `<run>-<task>-<n>`; a finished one (outcome recorded) is skipped when the same run
is started again, so an interrupted run resumes where it stopped. The episode row keeps the run,
task, agent, outcome (done, max_steps, agent_error) and the agent's final answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from .errors import MCPWorldError
from .tasks import Action, Task, TaskFile, load_tasks, verify_logged  # noqa: F401 - re-exported for older imports

FINISHED = ("done", "max_steps", "agent_error")


# -- policies --------------------------------------------------------------------------------------


@dataclass
class Outcome:
    status: str  # done | max_steps | agent_error
    answer: str = ""
    steps: int = 0


class ToolSession:
    """What a policy sees of the MCP client: the world's tools and a way to call one."""

    def __init__(self, client: Any, tools: list[Any], on_step: Callable[[], None]) -> None:
        self.client = client
        self.tools = [t for t in tools if t.name != "world_reset"]
        self.on_step = on_step

    async def call(self, name: str, arguments: dict[str, Any]) -> str:
        result = await self.client.call_tool(name, arguments)
        self.on_step()
        text = "\n".join(getattr(c, "text", "") for c in result.content)
        return f"[error] {text}" if result.is_error else text


class ScriptedPolicy:
    name = "scripted"

    async def run(self, session: ToolSession, task: Task, seed: int, max_steps: int) -> Outcome:
        if task.actions is None:
            raise MCPWorldError(f"task {task.id} has no `actions`; the scripted policy needs them")
        n = 0
        for action in task.actions[:max_steps]:
            await session.call(action.tool, action.arguments)
            n += 1
        return Outcome("done" if len(task.actions) <= max_steps else "max_steps", "", n)


AGENT_SYSTEM = (
    "You are an agent working in the environment described below, through its tools. Work on the "
    "user's task step by step: call one tool at a time and read its result. When the task is "
    "finished (or cannot be done), stop calling tools and reply with a short final answer.\n\n"
    "# Environment\n{world}"
)
JSON_PROTOCOL = (
    "\n\n# How to act\nAnswer with exactly one JSON object per turn: "
    '{{"tool": "<tool name>", "arguments": {{...}}}} to call a tool, or {{"done": "<final answer>"}} when '
    "finished. Tools:\n{tools}"
)


@dataclass
class ChatPolicy:
    """An OpenAI-compatible chat model as the agent."""

    url: str
    model: str | None = None
    protocol: str = "tools"  # tools | json
    temperature: float = 0.7
    max_tokens: int = 400
    max_observation_chars: int = 4_000  # what the agent reads of each result
    context_chars: int = 18_000  # the agent's prompt is kept within this (oldest turns dropped)
    timeout_s: float = 300.0
    api_key: str | None = field(default=None, repr=False)
    world_text: str = ""
    name: str = "chat"
    min_steps: int = 1  # tool calls before a final answer is accepted (an answer without looking is no episode)
    _client: httpx.AsyncClient | None = field(default=None, repr=False)

    async def _model(self) -> str:
        if self.model is None:
            r = await self._http().get("/v1/models")
            r.raise_for_status()
            self.model = r.json()["data"][0]["id"]
        return self.model

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
            self._client = httpx.AsyncClient(base_url=self.url.rstrip("/").removesuffix("/v1"), headers=headers,
                                             timeout=httpx.Timeout(self.timeout_s, connect=10.0))
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    async def run(self, session: ToolSession, task: Task, seed: int, max_steps: int) -> Outcome:
        try:
            if self.protocol == "json":
                return await self._run_json(session, task, seed, max_steps)
            return await self._run_tools(session, task, seed, max_steps)
        except (httpx.HTTPError, KeyError, IndexError, ValueError) as err:
            return Outcome("agent_error", f"the agent model failed: {type(err).__name__}: {str(err)[:300]}")

    async def _chat(self, body: dict[str, Any]) -> dict[str, Any]:
        body = {"model": await self._model(), "max_tokens": self.max_tokens, "temperature": self.temperature, **body}
        r = await self._http().post("/v1/chat/completions", json=body)
        if r.status_code != 200:
            raise ValueError(f"HTTP {r.status_code}: {r.text[:300]}")
        return r.json()["choices"][0]["message"]

    def _trim(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Keep the system prompt and the task; drop the oldest turns beyond the context budget."""
        head, turns = messages[:2], messages[2:]
        while turns and sum(len(json.dumps(m)) for m in head + turns) > self.context_chars:
            turns = turns[1:]
            while turns and turns[0]["role"] == "tool":  # never start with a result of a dropped call
                turns = turns[1:]
        return head + turns

    async def _run_tools(self, session: ToolSession, task: Task, seed: int, max_steps: int) -> Outcome:
        tools = [{"type": "function", "function": {"name": t.name, "description": t.description or "",
                                                   "parameters": t.input_schema}} for t in session.tools]
        messages: list[dict[str, Any]] = [{"role": "system", "content": AGENT_SYSTEM.format(world=self.world_text)},
                                          {"role": "user", "content": task.instruction}]
        steps = 0
        for turn in range(max_steps + 1):
            choice = "required" if steps < min(self.min_steps, max_steps) else "auto"
            msg = await self._chat({"messages": self._trim(messages), "tools": tools, "tool_choice": choice,
                                    "seed": seed + turn})
            calls = msg.get("tool_calls") or []
            if not calls:
                return Outcome("done", (msg.get("content") or "").strip(), steps)
            if steps >= max_steps:
                break
            messages.append({"role": "assistant", "content": msg.get("content") or "", "tool_calls": calls})
            for call in calls:
                fn = call["function"]
                try:
                    args = json.loads(fn.get("arguments") or "{}")
                except ValueError:
                    args = {"_unparsed": fn.get("arguments")}
                text = await session.call(fn["name"], args if isinstance(args, dict) else {"_value": args})
                steps += 1
                messages.append({"role": "tool", "tool_call_id": call.get("id", ""),
                                 "content": text[: self.max_observation_chars]})
        return Outcome("max_steps", "", steps)

    async def _run_json(self, session: ToolSession, task: Task, seed: int, max_steps: int) -> Outcome:
        listing = "\n".join(
            f"- {t.name}: {(t.description or '').strip().splitlines()[0] if t.description else ''} "
            f"arguments {json.dumps(t.input_schema.get('properties', {}), separators=(',', ':'))[:400]}"
            for t in session.tools)
        options = [{"type": "object", "properties": {"tool": {"const": t.name},
                                                     "arguments": _loose(t.input_schema)},
                    "required": ["tool", "arguments"], "additionalProperties": False} for t in session.tools]
        acting = {"anyOf": list(options)}  # before `min_steps` tool calls: no final answer yet
        options.append({"type": "object", "properties": {"done": {"type": "string", "maxLength": 500}},
                        "required": ["done"], "additionalProperties": False})
        schema = {"anyOf": options}
        system = AGENT_SYSTEM.format(world=self.world_text) + JSON_PROTOCOL.format(tools=listing)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system},
                                          {"role": "user", "content": task.instruction}]
        steps = 0
        for turn in range(max_steps + 1):
            allowed = acting if steps < min(self.min_steps, max_steps) else schema
            # response_format is OpenAI's documented field (vLLM, llama.cpp and hosted APIs take it),
            # so a strict hosted agent API accepts the request too.
            msg = await self._chat({"messages": self._trim(messages), "seed": seed + turn, "response_format": {
                "type": "json_schema", "json_schema": {"name": "action", "schema": allowed}}})
            content = (msg.get("content") or "").strip()
            try:
                action = json.loads(content)
            except ValueError:
                return Outcome("agent_error", f"the agent's answer is not JSON: {content[:200]!r}", steps)
            if "done" in action:
                return Outcome("done", str(action["done"]), steps)
            if steps >= max_steps:
                break
            text = await session.call(action["tool"], action.get("arguments") or {})
            steps += 1
            messages.append({"role": "assistant", "content": content})
            messages.append({"role": "user", "content": f"Result of {action['tool']}:\n{text[: self.max_observation_chars]}"})
        return Outcome("max_steps", "", steps)


def _loose(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's input schema as a guide for generation: the server checks it strictly anyway."""
    keep = {k: v for k, v in schema.items() if k in ("type", "properties", "required")}
    keep.setdefault("type", "object")
    return keep


# -- the run ---------------------------------------------------------------------------------------


@dataclass
class GenerateConfig:
    serve: Any  # serving.ServeConfig: world, db, engines, limits (transport is always in-process HTTP)
    tasks: list[Task]
    agent: str = "scripted"  # scripted | embedded | URL
    agent_model: str | None = None
    protocol: str | None = None  # tools | json (default: json for embedded, tools otherwise)
    episodes: int = 1  # per task
    concurrency: int = 4
    seed: int = 0
    max_steps: int = 20
    run_id: str = "run"
    agent_temperature: float = 0.7
    agent_key: str | None = field(default=None, repr=False)  # the agent API's bearer key (never logged)
    agent_min_steps: int = 1  # a chat agent's tool calls before it may give its final answer


@dataclass
class Summary:
    run_id: str
    planned: int = 0
    skipped: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    steps: int = 0
    seconds: float = 0.0
    rewards: list[float] = field(default_factory=list)  # the verified episodes' rewards
    prompt_tokens: int = 0  # the world model's, over the episodes run now
    completion_tokens: int = 0
    cost: float | None = None  # US dollars, where priced

    @property
    def mean_reward(self) -> float | None:
        return sum(self.rewards) / len(self.rewards) if self.rewards else None


def _finished(store: Any, key: str) -> bool:
    return any(r["outcome"] in FINISHED for r in store.episodes_of_key(key, "id, outcome"))


async def generate(cfg: GenerateConfig, engines: Any, say: Callable[[str], None] = lambda m: None,
                   progress: Any = None, judge: Any | None = None) -> Summary:
    """Run every (task, n) episode not finished yet; returns what happened."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from .dialects import get_dialect
    from .server import build_server
    from .serving import QuietServer, free_loopback_port
    from .simulator import Simulator
    from .store import Store

    from .serving import make_shadow

    # Real executors (`--shadow`), made before anything starts: a bad --shadow/--real fails at once.
    shadow = make_shadow(cfg.serve) if cfg.serve.shadow or cfg.serve.real else None
    store = Store(cfg.serve.db)
    sim = Simulator(cfg.serve.world, engines, store, get_dialect(cfg.serve.dialect), cfg.serve.limits,
                    None, cfg.serve.sampling, price=cfg.serve.price, shadow=shadow, real=frozenset(cfg.serve.real))
    sim.backlog.wait_when_full = True  # a real step's prediction is a pair this run is for: none skipped
    if cfg.agent == "scripted":
        policy: Any = ScriptedPolicy()
        agent_name = "scripted"
    else:
        url = engines.engines[0].url if cfg.agent == "embedded" else cfg.agent
        protocol = cfg.protocol or ("json" if cfg.agent == "embedded" else "tools")
        known = engines.engines[0].model if cfg.agent == "embedded" else None
        model = cfg.agent_model or (known if known != "unknown" else None)  # None: ask the engine
        policy = ChatPolicy(url, model, protocol, temperature=cfg.agent_temperature,
                            api_key=cfg.agent_key if cfg.agent != "embedded" else None,
                            world_text=cfg.serve.world.description.strip(), min_steps=cfg.agent_min_steps)
        agent_name = f"{cfg.agent}:{protocol}"
    summary = Summary(cfg.run_id)
    work = [(t, n) for t in cfg.tasks for n in range(cfg.episodes)]
    summary.planned = len(work)
    todo = []
    for t, n in work:
        key = f"{cfg.run_id}-{t.id}-{n}"
        if _finished(store, key):
            summary.skipped += 1
        else:
            todo.append((t, n, key))
    if summary.skipped:
        say(f"resuming run {cfg.run_id}: {summary.skipped} of {summary.planned} episodes already finished")
    port = free_loopback_port()
    app = build_server(sim).streamable_http_app(host="127.0.0.1")
    userver = QuietServer(__import__("uvicorn").Config(app, host="127.0.0.1", port=port, log_level="warning",
                                                       lifespan="on"))
    url = f"http://127.0.0.1:{port}/mcp"
    sem = asyncio.Semaphore(cfg.concurrency)
    ran: list[str] = []
    t0 = time.perf_counter()

    def stepped() -> None:
        summary.steps += 1
        if progress:
            progress(steps=summary.steps, seconds=time.perf_counter() - t0)

    async def one(task: Task, n: int, key: str) -> None:
        async with sem:
            seed = (cfg.seed * 1_000_003 + hash_id(task.id) * 101 + n) % (2**31 - 1)
            outcome = Outcome("agent_error", "")
            episode_id = key
            try:
                async with httpx2.AsyncClient(headers={"X-Episode-Id": key}, timeout=httpx2.Timeout(600)) as hc:
                    async with Client(streamable_http_client(url, http_client=hc), read_timeout_seconds=600) as client:
                        reset = await client.call_tool("world_reset", {"seed": seed})
                        episode_id = reset.structured_content["episode_id"]
                        tools = (await client.list_tools()).tools
                        session = ToolSession(client, tools, stepped)
                        outcome = await policy.run(session, task, seed, task.max_steps or cfg.max_steps)
            except MCPWorldError:
                raise
            except Exception as err:  # one episode's failure is recorded; the run goes on
                outcome = Outcome("agent_error", f"{type(err).__name__}: {str(err)[:300]}")
            await store.write(lambda db: db["episodes"].update(episode_id, {
                "run_id": cfg.run_id, "task_id": task.id, "agent": agent_name, "outcome": outcome.status,
                "final_answer": outcome.answer, "instruction": task.instruction,
                "task": task.model_dump_json(exclude_defaults=True)}))
            if task.verifiable() and store.episode(episode_id) is not None:
                try:
                    verdict = await verify_logged(store, episode_id, task, judge_engine=judge,
                                                  real=await asyncio.to_thread(sim.readers, episode_id, key))
                    if verdict.reward is not None:
                        summary.rewards.append(verdict.reward)
                except MCPWorldError as err:
                    say(f"episode {episode_id}: not verified: {err}")
            if shadow:
                sim.end(key)  # its sandboxes go; its log stays
            summary.outcomes[outcome.status] = summary.outcomes.get(outcome.status, 0) + 1
            ran.append(episode_id)
            used = store.usage([episode_id]).get(episode_id)
            if used:
                summary.prompt_tokens += used["prompt_tokens"]
                summary.completion_tokens += used["completion_tokens"]
                if used["cost"] is not None:
                    summary.cost = (summary.cost or 0.0) + used["cost"]
            if progress:
                progress(episodes=sum(summary.outcomes.values()), steps=summary.steps,
                         seconds=time.perf_counter() - t0, cost=summary.cost)

    serving = asyncio.ensure_future(userver.serve())
    try:
        deadline = time.monotonic() + 60
        while not userver.started:  # the in-process server must be up before any agent connects
            if serving.done() or time.monotonic() > deadline:
                problem = serving.exception() if serving.done() and not serving.cancelled() else None
                raise MCPWorldError(f"the world's in-process server did not start on 127.0.0.1:{port}"
                                    + (f": {problem}" if problem else ""))
            await asyncio.sleep(0.05)
        await asyncio.gather(*(one(t, n, key) for t, n, key in todo))
        if len(sim.backlog):
            from .backlog import drain_at_exit

            await drain_at_exit(sim.backlog, None, say, "real steps")
            usage = store.usage(ran).values()  # now with the predictions' tokens
            summary.prompt_tokens = sum(u["prompt_tokens"] for u in usage)
            summary.completion_tokens = sum(u["completion_tokens"] for u in usage)
            summary.cost = sum(u["cost"] for u in usage) if usage and all(u["cost"] is not None for u in usage) \
                else summary.cost
    finally:
        with contextlib.suppress(Exception):
            await sim.drain(0)  # what is left (an interrupted run) is marked abandoned, not left blank
        userver.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(serving, 30)
        summary.seconds = time.perf_counter() - t0
        if isinstance(policy, ChatPolicy):
            with contextlib.suppress(Exception):
                await policy.aclose()
        store.close()
        for executor in (shadow or {}).values():
            executor.close()
    return summary


def hash_id(text: str) -> int:
    import hashlib

    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
