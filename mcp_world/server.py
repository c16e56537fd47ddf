"""The MCP server: the low-level `Server`, since tool schemas are data (domains, worlds).

`build_server(simulator)` makes one; nothing is module-level. Episode identity (DESIGN.md):
    stdio                       the connection is one episode (until `world_reset`)
    HTTP + `X-Episode-Id: ID`   the header names the episode
    HTTP + legacy MCP session   the session id names it
    HTTP, neither               a fresh episode per connection, which for clients of the
                                2026-07-28 protocol is one call: send X-Episode-Id to keep a world
    /episodes/{id}/mcp          the episode the server minted (handles.py): the path names it, no
                                header needed; there `world_reset` is neither listed nor accepted
A server built for one connection (stdio, in memory) passes `connection_key`: every call without
a header belongs to that one episode.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
import weakref
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server

from .errors import AgentFault, FaultKind
from .simulator import Simulator

log = logging.getLogger("mcp_world")

TRANSCRIPT_URI = "episode://current"
HANDLE_SCOPE_KEY = "mcp_world.episode"  # the ASGI scope entry of a /episodes/{id}/mcp request
_EPISODE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$")

WORLD_RESET = types.Tool(
    name="world_reset",
    description=(
        "Start a fresh episode: the world returns to its initial state and earlier steps are forgotten. "
        "Optionally choose another shipped world (by name) and a sampling seed for reproducible answers."
    ),
    input_schema={
        "type": "object",
        "properties": {
            # One type each (no ["string", "null"] arrays: clients that map schemas onto single-type
            # dialects mishandle them); leave an argument out for its default (null is accepted too).
            "world": {"type": "string", "maxLength": 128, "description": "World name; default: the served world"},
            "seed": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1,
                     "description": "Sampling seed; default: the server's"},
        },
        "additionalProperties": False,
    },
    annotations=types.ToolAnnotations(title="Reset the world", read_only_hint=False, destructive_hint=True,
                                      idempotent_hint=False, open_world_hint=False),
)


class EpisodeKeys:
    """Maps a request to its episode key (see the module docstring)."""

    def __init__(self, connection_key: str | None = None) -> None:
        self.connection_key = connection_key
        self._by_connection: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._unnamed = 0  # (HTTP calls that named no episode, each one's own: said in the log, 1, 10, 100… times)

    @staticmethod
    def handle(ctx: Any) -> str | None:
        """The minted episode this request's path names (set by handles.py, never by the client)."""
        scope = getattr(getattr(ctx, "request", None), "scope", None)
        return scope.get(HANDLE_SCOPE_KEY) if isinstance(scope, dict) else None

    def key(self, ctx: Any) -> str:
        handle = self.handle(ctx)
        if handle:
            return handle
        request = getattr(ctx, "request", None)
        headers = getattr(request, "headers", None)
        if headers is not None:
            explicit = headers.get("x-episode-id")
            if explicit:
                if not _EPISODE_ID.match(explicit):
                    raise AgentFault(FaultKind.BAD_ARGUMENTS,
                                     "X-Episode-Id must be 1-128 characters of letters, digits and ._:@- "
                                     "starting with a letter or digit")
                return explicit
            session = headers.get("mcp-session-id")
            if session:
                return f"session-{session[:64]}"
        if self.connection_key:
            return self.connection_key
        conn = getattr(ctx.session, "_connection", None) or ctx.session
        try:
            key = self._by_connection.get(conn)
            if key is None:
                key = f"conn-{uuid.uuid4().hex[:12]}"
                self._by_connection[conn] = key
                self._unnamed_said(key, headers is not None)
        except TypeError:  # not weak-referenceable: one episode per call
            key = f"call-{uuid.uuid4().hex[:12]}"
            self._unnamed_said(key, headers is not None)
        return key

    def _unnamed_said(self, key: str, http: bool) -> None:
        """A fresh episode for an HTTP call that names none: a client of the 2026-07-28 protocol has no
        session, so each of its calls starts the world again (its writes seem lost). Said in the log at
        the 1st, 10th, 100th… such episode, with what keeps one world."""
        if not http:
            return
        self._unnamed += 1
        if self._unnamed in (1, 10, 100, 1000) or self._unnamed % 10000 == 0:
            log.warning("episode %s: an HTTP call named no episode (no X-Episode-Id header, no MCP session), so it "
                        "runs in a fresh world of its own (%d so far). Clients of the 2026-07-28 protocol have no "
                        "session: send 'X-Episode-Id: NAME' on every call, or open a handle (POST /episodes), to "
                        "keep one world across calls", key, self._unnamed)


def _tool(t: Any) -> types.Tool:
    a = t.annotations
    return types.Tool(
        name=t.name, title=t.title, description=t.description, input_schema=t.input_schema,
        output_schema=t.output_schema,
        annotations=types.ToolAnnotations(
            title=a.get("title"), read_only_hint=a.get("readOnlyHint"), destructive_hint=a.get("destructiveHint"),
            idempotent_hint=a.get("idempotentHint"), open_world_hint=a.get("openWorldHint"),
        ) if a else None,
    )


def _error(fault: AgentFault) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=str(fault))], is_error=True)


def build_server(sim: Simulator, name: str = "mcp-world", connection_key: str | None = None) -> Server:
    """`connection_key`: the episode key for calls that name none (stdio and in-memory servers)."""
    keys = EpisodeKeys(connection_key)
    world_tools = [_tool(t) for t in sim.tools.values()]
    tools = world_tools + [WORLD_RESET]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=world_tools if keys.handle(ctx) else tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            key = keys.key(ctx)
            if params.name == "world_reset":
                if keys.handle(ctx):
                    raise AgentFault(FaultKind.UNKNOWN_TOOL, "world_reset is not offered on an episode handle: the "
                                     "handle is one episode; open another with POST /episodes")
                return await _reset(key, params.arguments or {})
            result = await sim.call(key, params.name, params.arguments)
            ep = await sim.episode(key)
            return types.CallToolResult(
                content=[types.TextContent(text=result.observation)],
                structured_content=result.structured,
                is_error=result.is_error,
                _meta={"mcp-world/episode": ep.id, "mcp-world/step": result.index,
                       "mcp-world/provenance": result.provenance},
            )
        except AgentFault as fault:
            return _error(fault)
        except Exception as err:  # the server keeps serving whatever one call does
            log.exception("unexpected error in tools/call %s", params.name)
            return _error(AgentFault(FaultKind.INTERNAL, f"mcp-world failed on this call ({type(err).__name__})"))

    async def _reset(key: str, arguments: dict[str, Any]) -> types.CallToolResult:
        extra = set(arguments) - {"world", "seed"}
        seed = arguments.get("seed")
        world = arguments.get("world")
        if extra or (seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**31)) \
                or (world is not None and not isinstance(world, str)):
            raise AgentFault(FaultKind.BAD_ARGUMENTS,
                             "world_reset accepts world (a world name) and seed (an integer 0..2^31-1)"
                             + (f"; unknown: {sorted(extra)}" if extra else ""))
        ep = await sim.reset(key, world, seed)
        text = f"New episode {ep.id} in world {ep.world.name}.\n{ep.world.description.strip()}"
        return types.CallToolResult(
            content=[types.TextContent(text=text)],
            structured_content={"episode_id": ep.id, "world": ep.world.name, "seed": ep.seed,
                                "domains": ep.world.domains},
        )

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource(
            uri=TRANSCRIPT_URI, name="transcript", mime_type="application/json",
            description="This episode's transcript in the episode interchange format (world and steps).",
        )])

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        if str(params.uri) != TRANSCRIPT_URI:
            raise ValueError(f"unknown resource {params.uri}; the only resource is {TRANSCRIPT_URI}")
        ep = await sim.episode(keys.key(ctx))
        text = json.dumps(sim.transcript(ep), ensure_ascii=False, indent=2)
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=TRANSCRIPT_URI, mime_type="application/json", text=text)])

    return Server(
        name, version="0.1.0", instructions=f"{sim.world.name}: {sim.world.description.strip()}",
        on_list_tools=list_tools, on_call_tool=call_tool,
        on_list_resources=list_resources, on_read_resource=read_resource,
    )
