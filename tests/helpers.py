"""Starting the real server as a user would (a subprocess) and talking to it with real clients."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import time
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import httpx
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client


def query(db: Path, sql: str, params: tuple = ()) -> list[tuple]:
    """Rows of `sql` from a log, on a connection of its own (closed again)."""
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_args(engine_url: str | None, db: Path, *extra: str) -> list[str]:
    engine = ["--engine", engine_url] if engine_url else []
    return ["-m", "mcp_world", "serve", *engine, "--db", str(db), *extra]


def stdio_client(engine_url: str | None, db: Path, *extra: str, env: dict | None = None) -> Client:
    params = StdioServerParameters(command=sys.executable, args=serve_args(engine_url, db, "--transport", "stdio", *extra),
                                   env={**os.environ, **(env or {})})
    return Client(params, read_timeout_seconds=300)


@contextmanager
def http_server(engine_url: str | None, db: Path, *extra: str, env: dict | None = None, start_timeout: float = 60,
                host: str = "127.0.0.1"):
    port = free_port()
    with http_process(serve_args(engine_url, db, "--port", str(port), *extra), port, env, start_timeout,
                      host) as started:
        yield started


@contextmanager
def http_process(args: list[str], port: int, env: dict | None = None, start_timeout: float = 60,
                 host: str = "127.0.0.1"):
    """`python <args>` serving streamable HTTP on `port`: yields (url, process) once it answers, and
    fails (rather than going on) when it never does."""
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, **(env or {})})
    url = f"http://{host}:{port}/mcp"
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited: {proc.stdout.read()}")
            try:
                httpx.get(f"http://{host}:{port}/", timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not answer on {host}:{port} within {start_timeout:.0f} s")
                time.sleep(0.2)
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        try:  # a server with real steps first logs the predictions still running (up to 120 s)
            proc.wait(timeout=150)
        except subprocess.TimeoutExpired:
            proc.kill()


@asynccontextmanager
async def http_client(url: str, episode: str | None, headers: dict | None = None):
    headers = {**({"X-Episode-Id": episode} if episode else {}), **(headers or {})}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(300)) as hc:
        async with Client(streamable_http_client(url, http_client=hc), read_timeout_seconds=300) as c:
            yield c


def domain_code(name: str, submodule: str = ""):
    """A shipped domain's rules module (or one of its submodules) as the server loaded it."""
    import importlib

    from mcp_world.domain import load_domain

    module = type(load_domain(name).rules).__module__
    return importlib.import_module(f"{module}.{submodule}") if submodule else sys.modules[module]


@contextmanager
def watched_port(wait_s: float = 4.0):
    """A listener on the host's loopback that records whether anything connected: yields (port, seen)."""
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.settimeout(wait_s)
    seen: list[bool] = []

    def accept() -> None:
        try:
            listener.accept()
            seen.append(True)
        except OSError:
            pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], seen
    finally:
        thread.join(timeout=wait_s + 2)
        listener.close()


@contextmanager
def local_site(pages: dict[str, tuple[str, str]], redirects: dict[str, str] | None = None,
               headers: dict[str, str] | None = None):
    """A site on 127.0.0.1 in a thread: `pages` path -> (content type, text), `redirects` path ->
    Location (a 302), anything else a 404; yields (origin, the paths asked for, in order)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    hits: list[str] = []

    class Site(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the stdlib's name
            hits.append(self.path)
            if self.path in pages:
                kind, text = pages[self.path]
                body = text.encode()
                self.send_response(200)
                self.send_header("Content-Type", f"{kind}; charset=utf-8")
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif self.path in (redirects or {}):
                self.send_response(302)
                self.send_header("Location", redirects[self.path])
                self.end_headers()
            else:
                self.send_error(404)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()
