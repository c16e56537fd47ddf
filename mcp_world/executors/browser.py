"""The shadow browser: real GETs, for allowlisted *local* origins only (off by default).

`serve --shadow browser --shadow-origin http://127.0.0.1:8000` makes every `browser_navigate`, and
every `browser_click` on a link, also fetch the page for real — from a site the user runs on this
machine (a dev server, a static copy). Anything else is refused before a socket opens: another
origin, a redirect that leaves the allowlist, an origin that is not loopback. Typing and form
submission are never executed (they have no real observation); `browser_back` and
`browser_snapshot` return the real browser's page from its own history. Each episode has its own
real browser state (current page, back stack).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx
from lxml import etree, html as lxml_html

from ..errors import MCPWorldError
from .base import RealObservation

_LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def parse_origin(origin: str) -> tuple[str, str, int]:
    parts = urlsplit(origin.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise MCPWorldError(f"--shadow-origin {origin!r} is not an origin like http://127.0.0.1:8000")
    host = parts.hostname
    if host not in _LOOPBACK and not host.startswith("127."):
        raise MCPWorldError(f"--shadow-origin {origin!r}: the shadow browser only fetches local origins "
                            "(127.0.0.1, localhost, ::1), so a simulated agent never reaches the network")
    return parts.scheme, host, parts.port or (443 if parts.scheme == "https" else 80)


@dataclass
class _Tab:
    url: str = ""
    html: str = ""
    status: int = 0
    back: list[tuple[str, str, int]] = field(default_factory=list)


@dataclass(frozen=True)
class BrowserLimits:
    timeout_s: float = 10.0
    max_bytes: int = 2_000_000
    max_redirects: int = 5
    max_back: int = 50  # pages remembered for browser_back per episode (the oldest go first)


@dataclass(frozen=True)
class Fetched:
    url: str  # after redirects
    status: int
    text: str
    headers: dict[str, str]


class LocalFetcher:
    """Real GETs of allowlisted local origins: a redirect is followed only while it stays on the
    allowlist, a body is read up to `max_bytes`; anything else is refused before a socket opens.
    Shared by the real executors that read local sites (the browser, the search engine)."""

    def __init__(self, origins: tuple[str, ...], limits: BrowserLimits, agent: str) -> None:
        self.origins = {parse_origin(o) for o in origins}
        self.limits = limits
        self.agent = agent

    def allowed(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            return False
        return (parts.scheme, parts.hostname, port) in self.origins

    async def get(self, url: str) -> Fetched | None:
        """The page at `url` after allowlisted redirects (None: refused, or the site did not answer)."""
        if not self.allowed(url):
            return None
        async with httpx.AsyncClient(timeout=self.limits.timeout_s, follow_redirects=False, trust_env=False,
                                     headers={"User-Agent": self.agent}) as client:
            for _ in range(self.limits.max_redirects + 1):
                try:
                    async with client.stream("GET", url) as resp:
                        if resp.is_redirect:
                            nxt = urljoin(url, resp.headers.get("location", ""))
                            if not self.allowed(nxt):
                                return None  # a redirect off the allowlist is not followed
                            url = nxt
                            continue
                        body = b""
                        async for chunk in resp.aiter_bytes():
                            body += chunk
                            if len(body) >= self.limits.max_bytes:
                                break
                        text = body[: self.limits.max_bytes].decode(resp.encoding or "utf-8", "replace")
                        return Fetched(url, resp.status_code, text, dict(resp.headers))
                except httpx.HTTPError:
                    return None
        return None


class LocalSites:
    """What the real executors that read local sites share: `--shadow-origin` (at least one, loopback
    only) and a `LocalFetcher` over those origins."""

    uses_origins = True
    domain = ""  # the domain it is the real executor of, as `--shadow` names it

    @classmethod
    def from_options(cls, options: Any) -> Any:
        return cls(options.origins, BrowserLimits(timeout_s=options.timeout_s))

    def __init__(self, origins: tuple[str, ...], limits: BrowserLimits = BrowserLimits()) -> None:
        if not origins:
            raise MCPWorldError(f"--shadow {self.domain} needs at least one --shadow-origin (a local site, "
                                "e.g. http://127.0.0.1:8000): nothing else is ever fetched")
        self.fetcher = LocalFetcher(origins, limits, f"mcp-world-shadow-{self.domain}/0.1")
        self.limits = limits


class ShadowBrowser(LocalSites):
    domain = "browser"

    def __init__(self, origins: tuple[str, ...], limits: BrowserLimits = BrowserLimits()) -> None:
        super().__init__(origins, limits)
        self._tabs: dict[str, _Tab] = {}
        self._lock = threading.Lock()

    def allowed(self, url: str) -> bool:
        return self.fetcher.allowed(url)

    def covers(self, tool: str, arguments: dict[str, Any]) -> bool:
        """Whether this action has a real counterpart (else it is simulated): navigating to an
        allowed page, a click, back, a snapshot; typing and submitting never do."""
        if tool == "browser_navigate":
            return self.allowed(str(arguments.get("url", "")))
        return tool in ("browser_click", "browser_back", "browser_snapshot")

    def _tab(self, episode_id: str) -> _Tab:
        with self._lock:
            return self._tabs.setdefault(episode_id, _Tab())

    async def observe(self, episode_id: str, world: Any, tool: str, arguments: dict[str, Any],
                      state: dict[str, Any]) -> RealObservation | None:
        tab = self._tab(episode_id)
        if tool == "browser_navigate":
            url = str(arguments.get("url", ""))
        elif tool == "browser_click":
            url = self._link(tab, str(arguments.get("target", "")))
        elif tool == "browser_back":
            if not tab.back:
                return None
            tab.url, tab.html, tab.status = tab.back.pop()
            return self._page(tab)
        elif tool == "browser_snapshot":
            return self._page(tab) if tab.url else None
        else:
            return None  # typing and submitting are not executed for real
        fetched = await self.fetcher.get(url) if url else None
        if fetched is None:
            return None
        if tab.url:
            tab.back.append((tab.url, tab.html, tab.status))
            del tab.back[:-self.limits.max_back]
        tab.url, tab.status, tab.html = fetched.url, fetched.status, fetched.text
        return self._page(tab)

    def _link(self, tab: _Tab, target: str) -> str:
        """The href a click on `target` (a CSS selector or a link's visible text) follows, if any."""
        if not tab.html or not target:
            return ""
        try:
            doc = lxml_html.document_fromstring(tab.html)
        except (etree.ParserError, ValueError):
            return ""
        found = []
        try:
            found = doc.cssselect(target)
        except Exception:  # noqa: BLE001 - not a selector: match the visible text
            found = []
        if not found:
            wanted = " ".join(target.split()).lower()
            found = [a for a in doc.iter("a") if " ".join(a.text_content().split()).lower() == wanted]
        for el in found:
            link = el if el.tag == "a" else next(iter(el.iterancestors("a")), None)
            if link is not None and link.get("href"):
                return urljoin(tab.url, link.get("href"))
        return ""

    @staticmethod
    def _page(tab: _Tab) -> RealObservation:
        title = ""
        try:
            doc = lxml_html.document_fromstring(tab.html) if tab.html.strip() else None
            el = doc.find(".//title") if doc is not None else None
            title = (el.text or "").strip() if el is not None else ""
        except (etree.ParserError, ValueError):
            pass
        structured = {"url": tab.url, "status": tab.status, "title": title}
        return RealObservation(tab.html, structured, structured)

    def end(self, episode_id: str) -> None:
        with self._lock:
            self._tabs.pop(episode_id, None)

    def close(self) -> None:
        with self._lock:
            self._tabs.clear()
