"""Bearer-token protection for the HTTP transport (required when binding beyond loopback)."""

from __future__ import annotations

import hmac
import ipaddress
from typing import Any


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def require_token_beyond_loopback(host: str, token: str | None, what: str) -> None:
    """Binding beyond loopback shows this machine's worlds or logs to the network: only with a token."""
    if not is_loopback(host) and not token:
        from .errors import MCPWorldError

        raise MCPWorldError(f"binding to {host} {what} beyond this machine; give a bearer token with --token "
                            "(or MCP_WORLD_TOKEN), or bind to 127.0.0.1")


class BearerToken:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        if hmac.compare_digest(given, self._expected):
            return await self.app(scope, receive, send)
        body = b'{"error": "unauthorized: send Authorization: Bearer <token> (the --token given to mcp-world serve)"}'
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"application/json"), (b"www-authenticate", b'Bearer realm="mcp-world"'),
            (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
