"""Network exposure: loopback by default, a bearer token required beyond it, DNS-rebinding
protection on. These run the real server; tools/list needs no engine, so none is started."""

import httpx
import pytest

from .helpers import http_client, http_server

pytestmark = pytest.mark.anyio
NO_ENGINE = "http://127.0.0.1:9"  # nothing listens there; listing tools never asks the engine

INIT = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
           "MCP-Protocol-Version": "2026-07-28"}


def test_binding_beyond_loopback_without_a_token_is_refused(tmp_path):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "mcp_world", "serve", "--host", "0.0.0.0", "--engine", NO_ENGINE,
                        "--db", str(tmp_path / "n.db")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--token" in r.stderr


async def test_a_token_protected_server_refuses_requests_without_it(tmp_path):
    with http_server(NO_ENGINE, tmp_path / "t.db", "--host", "0.0.0.0", "--token", "s3cret") as (url, _):
        r = httpx.post(url, json=INIT, headers=HEADERS, timeout=10)
        assert r.status_code == 401 and "Bearer" in r.headers["www-authenticate"]
        r = httpx.post(url, json=INIT, headers={**HEADERS, "Authorization": "Bearer wrong"}, timeout=10)
        assert r.status_code == 401
        r = httpx.post(url, json=INIT, headers={**HEADERS, "Authorization": "Bearer s3cret",
                                                "Host": "evil.example:80"}, timeout=10)
        assert r.status_code == 421  # DNS-rebinding protection stays on
        async with http_client(url, "e1", headers={"Authorization": "Bearer s3cret"}) as c:
            tools = await c.list_tools()
        assert "run_command" in {t.name for t in tools.tools}


async def test_loopback_rejects_a_foreign_host_header(tmp_path):
    with http_server(NO_ENGINE, tmp_path / "l.db") as (url, _):
        r = httpx.post(url, json=INIT, headers={**HEADERS, "Host": "attacker.example"}, timeout=10)
        assert r.status_code == 421


async def test_any_loopback_address_gets_host_and_origin_checks(tmp_path):
    """127.0.0.2 is loopback too, but not one of the three names the MCP SDK protects by itself."""
    with http_server(NO_ENGINE, tmp_path / "l2.db", "--host", "127.0.0.2", host="127.0.0.2") as (url, _):
        port = url.split(":")[2].split("/")[0]
        r = httpx.post(url, json=INIT, headers={**HEADERS, "Host": "attacker.example"}, timeout=10)
        assert r.status_code == 421
        r = httpx.post(url, json=INIT, headers={**HEADERS, "Origin": "http://attacker.example"}, timeout=10)
        assert r.status_code == 403
        assert port
        async with http_client(url, "e1") as c:  # the address it serves on is accepted
            tools = await c.list_tools()
        assert "run_command" in {t.name for t in tools.tools}


async def test_the_token_can_come_from_the_environment_and_allowed_host_adds_a_name(tmp_path):
    env = {"MCP_WORLD_TOKEN": "from-env"}
    with http_server(NO_ENGINE, tmp_path / "e.db", "--host", "0.0.0.0", "--allowed-host", "devbox.lan",
                     env=env) as (url, _):
        port = url.split(":")[2].split("/")[0]
        assert httpx.post(url, json=INIT, headers=HEADERS, timeout=10).status_code == 401
        auth = {**HEADERS, "Authorization": "Bearer from-env"}
        assert httpx.post(url, json=INIT, headers={**auth, "Host": "other.lan"}, timeout=10).status_code == 421
        r = httpx.post(url, json=INIT, headers={**auth, "Host": f"devbox.lan:{port}"}, timeout=10)
        assert r.status_code != 421  # the allowed name passes the Host check
