"""A recording proxy in front of a real engine that behaves like a strict hosted API: every chat
request must carry the bearer key and only OpenAI's documented Chat Completions fields (anything
else is refused with 400, as strict APIs do), the server says nothing about what it is (so
`--engine-profile auto` must take it for `openai`), and the first `busy` requests are answered
429 with a Retry-After. Used by tests/test_engine_profiles.py and benchmarks/profiles.py.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mcp_world.engines.profiles import OPENAI_FIELDS
from mcp_world.embedded import free_port


class StrictProxy:
    def __init__(self, upstream: str, key: str, busy: int = 0, retry_after: str = "1") -> None:
        self.upstream = upstream.rstrip("/")
        self.key = key
        self.busy = busy
        self.retry_after = retry_after
        self.bodies: list[dict] = []  # every chat request that was forwarded
        self.refused: list[str] = []  # why each refused request was refused
        self.times: list[float] = []  # when each chat request arrived (monotonic)
        self.inflight = self.peak_inflight = 0  # chat requests being answered now, and the most at once
        self.url = ""

    def _refuse(self, status: int, why: str) -> JSONResponse:
        self.refused.append(why)
        return JSONResponse({"error": {"message": why, "type": "invalid_request_error"}}, status_code=status)

    async def _authorized(self, request: Request) -> bool:
        return request.headers.get("authorization") == f"Bearer {self.key}"

    async def models(self, request: Request) -> Response:
        if not await self._authorized(request):
            return self._refuse(401, "Incorrect API key provided.")
        async with httpx.AsyncClient(timeout=30) as client:
            r = await client.get(self.upstream + "/v1/models")
        return Response(r.content, r.status_code, media_type="application/json")

    async def chat(self, request: Request) -> Response:
        self.times.append(time.monotonic())
        if not await self._authorized(request):
            return self._refuse(401, "Incorrect API key provided.")
        body = await request.json()
        unknown = sorted(set(body) - OPENAI_FIELDS)
        if unknown:
            return self._refuse(400, f"Unrecognized request argument supplied: {', '.join(unknown)}")
        if body["messages"] and body["messages"][-1]["role"] == "assistant":
            return self._refuse(400, "a final assistant message is not continued by this API")
        if self.busy > 0:
            self.busy -= 1
            return JSONResponse({"error": {"message": "Rate limit reached for requests", "type": "rate_limit"}},
                                status_code=429, headers={"Retry-After": self.retry_after})
        self.bodies.append(body)
        self.inflight += 1
        self.peak_inflight = max(self.peak_inflight, self.inflight)
        try:
            async with httpx.AsyncClient(timeout=600) as client:
                r = await client.post(self.upstream + "/v1/chat/completions", json=body)
        finally:
            self.inflight -= 1
        return Response(r.content, r.status_code, media_type="application/json")

    @contextlib.contextmanager
    def serving(self) -> Iterator[str]:
        port = free_port()
        app = Starlette(routes=[Route("/v1/models", self.models), Route("/v1/chat/completions", self.chat,
                                                                          methods=["POST"])])
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the strict proxy did not start")
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{port}"
        try:
            yield self.url
        finally:
            server.should_exit = True
            thread.join(10)
