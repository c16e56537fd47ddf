"""Episode handles: episodes the server mints, for RL trainers and any client (DESIGN.md, "Episodes
and identity").

    POST   /episodes               {world?, task?, seed?, mode?} -> {episode_id, mcp_url, instruction, tools, mode, ...}
    GET    /episodes               {world, live, max_live, modes, tools}: what an adapter needs before any episode
    GET    /episodes/{id}          the transcript, the task and the last verdict
    POST   /episodes/{id}/verify   {answer?} -> {reward, checks: [{name, passed, detail}], judge?}
    DELETE /episodes/{id}          ends it (its sandboxes freed; its log stays)
    *      /episodes/{id}/mcp      the episode's own MCP endpoint (streamable HTTP): no header needed

An id is 128 random bits (`ep-…`): knowing it is the right to use the episode. `task` is a task id
(from the world's shipped task file or the server's `--tasks` files) or a task given inline
({id, instruction, success, judge, max_steps}). `mode` is `simulation` (every tool answered by the
world model) or `real` (the tools of the domains this server has a real executor for, `--shadow
DOMAIN`, answered by that executor, the world model's prediction logged beside each; the task's
checks then read the real machine: the sandbox's files and repository). Default: the server's own
`--real`. Same bearer-token rule as the rest of the server.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from .errors import AgentFault, MCPWorldError, WorldFileError
from .server import HANDLE_SCOPE_KEY
from .simulator import Simulator
from .store import agent_saw
from .tasks import Task, TaskFile, parse_task, shipped_tasks, verify_logged

log = logging.getLogger("mcp_world")

OPEN_FIELDS = ("world", "task", "seed", "mode")
MODES = ("simulation", "real")
MAX_BODY = 1_048_576


class HandleError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Handle:
    id: str
    world: str
    task: Task | None
    created_at: float
    mode: str = "simulation"


class Handles:
    """The live minted episodes of one server, and what the routes do with them."""

    def __init__(self, sim: Simulator, task_files: tuple[TaskFile, ...] = (), judge: Any | None = None,
                 max_live: int | None = None, public_url: str | None = None) -> None:
        self.sim = sim
        self.task_files = task_files
        self.judge = judge  # an engine for tasks' judge rubrics (None: rubrics are not scored)
        self.max_live = max_live or sim.limits.max_episodes
        self.public_url = public_url.rstrip("/") if public_url else None
        self.live: OrderedDict[str, Handle] = OrderedDict()
        self._ended: OrderedDict[str, None] = OrderedDict()  # ids ended here: GET still answers them
        self._tools: list[dict[str, Any]] | None = None
        self._shipped: dict[str, TaskFile | None] = {}

    # -- tasks ------------------------------------------------------------------------------------
    def _task(self, spec: Any, world: Any) -> Task | None:
        if spec is None:
            return None
        if isinstance(spec, dict):
            try:
                return parse_task(spec, world)
            except WorldFileError as err:
                raise HandleError(400, str(err)) from None
        if not isinstance(spec, str):
            raise HandleError(400, "task must be a task id (a string) or a task ({id, instruction, success, ...})")
        files = [tf for tf in self.task_files if tf.world in (None, world.name)]
        if world.name not in self._shipped:  # read once per world, not on every POST /episodes
            self._shipped[world.name] = shipped_tasks(world.name)
        shipped = self._shipped[world.name]
        if shipped is not None:
            files.append(shipped)
        for tf in files:
            for task in tf.tasks:
                if task.id == spec:
                    return task.model_copy(deep=True).resolve(world)
        known = sorted({t.id for tf in files for t in tf.tasks})
        shown = repr(spec[:80]) + (f" (… {len(spec)} characters)" if len(spec) > 80 else "")
        raise HandleError(404, f"no task {shown} for world {world.name!r}; tasks: {', '.join(known) or 'none'} "
                               "(or give the task inline: {id, instruction, success})")

    def tools(self) -> list[dict[str, Any]]:
        if self._tools is None:
            self._tools = [{"name": t.name, "description": t.description, "inputSchema": t.input_schema,
                            **({"outputSchema": t.output_schema} if t.output_schema else {})}
                           for t in self.sim.tools.values()]
        return self._tools

    # -- the operations ----------------------------------------------------------------------------
    async def open(self, body: dict[str, Any], base_url: str) -> dict[str, Any]:
        extra = sorted(set(body) - set(OPEN_FIELDS))
        if extra:
            raise HandleError(400, f"unknown fields {extra}; POST /episodes accepts {', '.join(OPEN_FIELDS)}")
        world_name, seed = body.get("world"), body.get("seed")
        if world_name is not None and not isinstance(world_name, str):
            raise HandleError(400, "world must be a world name (a string)")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**31):
            raise HandleError(400, "seed must be an integer 0..2^31-1")
        if len(self.live) >= self.max_live:
            raise HandleError(429, f"{len(self.live)} episodes are live, the most this server holds; "
                                   "end some with DELETE /episodes/{id}")
        try:
            world = self.sim.world_named(world_name)
        except AgentFault as fault:
            raise HandleError(404, fault.message) from None
        task = self._task(body.get("task"), world)
        real = self._mode(body.get("mode"), world)
        episode_id = f"ep-{secrets.token_urlsafe(16)}"
        try:
            ep = await self.sim.reset(episode_id, world.name, seed, real=real)
        except AgentFault as fault:
            raise HandleError(400, fault.message) from None
        fields: dict[str, Any] = {"source": "sim"}
        if task is not None:
            fields.update(task=task.model_dump_json(exclude_defaults=True), task_id=task.id,
                          instruction=task.instruction)
        await self.sim.store.write(lambda db: db["episodes"].update(ep.id, fields))
        real_here = sorted(self.sim.real_domains(ep.id) & set(world.domains))
        mode = "real" if real_here else "simulation"
        self.live[ep.id] = Handle(ep.id, world.name, task, time.time(), mode)
        root = self.public_url or base_url.rstrip("/")
        return {"episode_id": ep.id, "mcp_url": f"{root}/episodes/{ep.id}/mcp", "world": world.name,
                "seed": ep.seed, "mode": mode, "real_domains": real_here, "instruction": task.instruction if task else world.description.strip(),
                "task": task.id if task else None, "max_steps": task.max_steps if task else None,
                "tools": self.tools()}

    def _mode(self, mode: Any, world: Any) -> frozenset[str] | None:
        """The episode's real domains for `mode` (None: the server's default)."""
        if mode is None:
            return None
        if mode not in MODES:
            raise HandleError(400, f"mode must be one of {', '.join(MODES)}, not {str(mode)[:40]!r}")
        if mode == "simulation":
            return frozenset()
        real = frozenset(d for d in world.domains if d in self.sim.shadow)
        if not real:
            from .executors import EXECUTORS

            have = ", ".join(self.sim.shadow) or "none"
            raise HandleError(400, f"mode 'real' needs a real executor for one of world {world.name!r}'s domains "
                                   f"({', '.join(world.domains)}); this server has {have}: start it with --shadow "
                                   f"DOMAIN (real executors: {', '.join(EXECUTORS)})")
        return real

    def modes(self) -> list[str]:
        return list(MODES) if set(self.sim.shadow) & set(self.sim.world.domains) else ["simulation"]

    def _live(self, episode_id: str) -> Handle:
        handle = self.live.get(episode_id)
        if handle is None:
            state = "has ended" if episode_id in self._ended else "is not an episode this server opened"
            raise HandleError(404, f"episode {episode_id[:80]!r} {state}; open one with POST /episodes")
        return handle

    async def verify(self, episode_id: str, body: dict[str, Any]) -> dict[str, Any]:
        handle = self._live(episode_id)
        extra = sorted(set(body) - {"answer"})
        if extra:
            raise HandleError(400, f"unknown fields {extra}; verify accepts answer (the agent's final answer)")
        answer = body.get("answer")
        if answer is not None and not isinstance(answer, str):
            raise HandleError(400, "answer must be a string")
        if handle.task is None or not handle.task.verifiable():
            raise HandleError(409, f"episode {episode_id} was opened without a task that has success checks or a "
                                   "judge rubric; open it with a task to verify it")
        try:
            readers = self.sim.readers(episode_id)  # real tools: the checks read the real machine
            verdict = await verify_logged(self.sim.store, episode_id, handle.task, answer, self.judge, real=readers)
        except MCPWorldError as err:
            raise HandleError(500, str(err)) from None
        return {"episode_id": episode_id, **verdict.as_dict()}

    def get(self, episode_id: str) -> dict[str, Any]:
        if episode_id not in self.live and episode_id not in self._ended:
            self._live(episode_id)  # raises the 404
        store = self.sim.store
        row = store.episode(episode_id) or {}
        # What the agent saw (`agent_saw`); a real step's prediction logged beside it is `predicted`.
        steps = [{"index": s["idx"], "tool": s["tool"], "arguments": json.loads(s["arguments"] or "{}"),
                  "observation": agent_saw(s)[0],
                  **({"predicted": s["observation"]} if s["provenance"] == "real" else {}),
                  "provenance": s["provenance"],
                  **({"error": f"{s['error_kind']}: {s['error']}"} if s["error_kind"] else {}),
                  **({"is_error": True} if s.get("is_error") else {})}
                 for s in store.steps(episode_id)]
        handle = self.live.get(episode_id)
        return {"episode_id": episode_id, "live": handle is not None, "world": row.get("world_name"),
                **({"mode": handle.mode} if handle else {}),
                "seed": row.get("seed"), "task": row.get("task_id"), "instruction": row.get("instruction"),
                "reward": row.get("reward"), "verdict": json.loads(row["verdict"]) if row.get("verdict") else None,
                "steps": steps}

    def close(self, episode_id: str) -> dict[str, Any]:
        self._live(episode_id)
        self.live.pop(episode_id)
        self.sim.end(episode_id, "DELETE /episodes")
        self._ended[episode_id] = None
        while len(self._ended) > 65_536:
            self._ended.popitem(last=False)
        return {"episode_id": episode_id, "ended": True}

    def close_all(self) -> None:
        for episode_id in list(self.live):
            self.close(episode_id)

    # -- HTTP ------------------------------------------------------------------------------------
    def routes(self, mcp_app: Any) -> list[Route]:
        """The routes; `mcp_app` is the server's streamable-HTTP ASGI app (for /episodes/{id}/mcp)."""

        async def body_of(request: Request) -> dict[str, Any]:
            raw = await request.body()
            if len(raw) > MAX_BODY:
                raise HandleError(413, f"the request body is {len(raw)} bytes; the limit is {MAX_BODY}")
            if not raw.strip():
                return {}
            try:
                body = json.loads(raw)
            except ValueError:
                raise HandleError(400, "the request body must be a JSON object") from None
            except RecursionError:
                raise HandleError(400, "the request body is nested deeper than it can be read; it must be a JSON "
                                       "object ({\"task\": ID, \"seed\": N})") from None
            if not isinstance(body, dict):
                raise HandleError(400, "the request body must be a JSON object")
            return body

        def answer(fn):
            async def endpoint(request: Request) -> JSONResponse:
                try:
                    return JSONResponse(await fn(request))
                except HandleError as err:
                    return JSONResponse({"error": err.message}, status_code=err.status)
                except Exception as err:  # the server keeps serving whatever one request does
                    log.exception("episode handle request failed")
                    return JSONResponse({"error": f"mcp-world failed on this request ({type(err).__name__})"},
                                        status_code=500)
            return endpoint

        async def open_(request: Request) -> dict[str, Any]:
            return await self.open(await body_of(request), str(request.base_url))

        async def get_(request: Request) -> dict[str, Any]:
            return self.get(request.path_params["episode_id"])

        async def verify_(request: Request) -> dict[str, Any]:
            return await self.verify(request.path_params["episode_id"], await body_of(request))

        async def delete_(request: Request) -> dict[str, Any]:
            return self.close(request.path_params["episode_id"])

        async def list_(request: Request) -> dict[str, Any]:
            return {"world": self.sim.world.name, "live": len(self.live), "max_live": self.max_live,
                    "modes": self.modes(), "real_domains": sorted(self.sim.shadow), "tools": self.tools()}

        class EpisodeMCP:
            """/episodes/{id}/mcp: the server's MCP endpoint, with the episode named by the path."""

            async def __call__(inner, scope: Any, receive: Any, send: Any) -> None:  # noqa: N805
                episode_id = scope.get("path_params", {}).get("episode_id", "")
                if episode_id not in self.live:
                    state = "has ended" if episode_id in self._ended else "is not an episode this server opened"
                    response = JSONResponse({"error": f"episode {episode_id[:80]!r} {state}; open one with "
                                                      "POST /episodes"}, status_code=404)
                    await response(scope, receive, send)
                    return
                scope[HANDLE_SCOPE_KEY] = episode_id
                await mcp_app(scope, receive, send)

        return [
            Route("/episodes", answer(open_), methods=["POST"]),
            Route("/episodes", answer(list_), methods=["GET"]),
            Route("/episodes/{episode_id}", answer(get_), methods=["GET"]),
            Route("/episodes/{episode_id}", answer(delete_), methods=["DELETE"]),
            Route("/episodes/{episode_id}/verify", answer(verify_), methods=["POST"]),
            Route("/episodes/{episode_id}/mcp", EpisodeMCP(), methods=["GET", "POST", "DELETE"]),
        ]


def http_app(server: Any, handles: Handles, **kwargs: Any) -> Any:
    """The server's streamable-HTTP app with the episode routes beside /mcp."""
    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp

    holder: dict[str, Any] = {}

    async def mcp_app(scope: Any, receive: Any, send: Any) -> None:
        await holder["app"](scope, receive, send)

    app = server.streamable_http_app(custom_starlette_routes=handles.routes(mcp_app), **kwargs)
    holder["app"] = StreamableHTTPASGIApp(server.session_manager)
    return app
