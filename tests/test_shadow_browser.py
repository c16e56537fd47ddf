"""The shadow browser: real GETs of allowlisted local origins only, beside the simulated page."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from mcp_world.errors import MCPWorldError
from mcp_world.executors.browser import ShadowBrowser, parse_origin

from .helpers import local_site

pytestmark = pytest.mark.anyio

INDEX = """<!DOCTYPE html><html><head><title>Local shop</title></head><body>
<h1>Local shop</h1>
<a href="/about.html">About us</a> <a id="ext" href="https://example.com/">Elsewhere</a>
<a href="/out">Out</a> <a href="/in">In</a>
</body></html>"""
ABOUT = "<!DOCTYPE html><html><head><title>About</title></head><body><p>We sell tea.</p></body></html>"


ASKED: dict[str, list[str]] = {}  # "hits": the paths the site was asked for, in order (live)


@pytest.fixture
def site():
    with local_site({"/": ("text/html", INDEX), "/about.html": ("text/html", ABOUT)},
                    {"/out": "https://example.com/", "/in": "/about.html"}) as (origin, hits):
        ASKED["hits"] = hits
        yield origin


def test_only_local_origins_can_be_allowlisted():
    for bad in ("https://example.com", "http://10.0.0.5:8000", "file:///etc/passwd", "127.0.0.1:8000"):
        with pytest.raises(MCPWorldError):
            parse_origin(bad)
    assert parse_origin("http://localhost:8000") == ("http", "localhost", 8000)
    with pytest.raises(MCPWorldError, match="--shadow-origin"):
        ShadowBrowser(())


async def test_navigate_and_link_clicks_fetch_for_real_and_nothing_else_is_fetched(site):
    b = ShadowBrowser((site,))
    page = await b.observe("e1", None, "browser_navigate", {"url": site + "/"}, {})
    assert page.text == INDEX and page.structured == {"url": site + "/", "status": 200, "title": "Local shop"}
    about = await b.observe("e1", None, "browser_click", {"target": "About us"}, {})
    assert about.text == ABOUT and about.structured["url"] == site + "/about.html"
    back = await b.observe("e1", None, "browser_back", {}, {})
    assert back.structured["title"] == "Local shop"
    assert await b.observe("e1", None, "browser_click", {"target": "#ext"}, {}) is None  # another origin
    assert await b.observe("e1", None, "browser_click", {"target": "Out"}, {}) is None  # redirect off the list
    followed = await b.observe("e1", None, "browser_click", {"target": "In"}, {})  # redirect within it
    assert followed.structured["url"] == site + "/about.html"
    assert await b.observe("e1", None, "browser_type", {"target": "q", "text": "x"}, {}) is None
    assert await b.observe("e2", None, "browser_navigate", {"url": "https://example.com/"}, {}) is None
    assert (await b.observe("e1", None, "browser_snapshot", {}, {})).text == ABOUT
    assert ASKED["hits"] == ["/", "/about.html", "/out", "/in", "/about.html"]


async def test_serve_shadows_the_browser_and_real_mode_gives_the_agent_the_real_page(engine_url, site, tmp_path):
    """Over streamable HTTP: the agent gets the real pages at once; the world model's pages of the
    same steps are made in the background and logged beside them, the last ones while the server
    stops (SIGTERM)."""
    from .helpers import http_client, http_server

    db = tmp_path / "b.db"
    with http_server(engine_url, db, "--world", "webshop", "--shadow", "browser", "--shadow-origin", site,
                     "--real", "browser") as (url, proc):
        async with http_client(url, "shop") as c:
            got = await c.call_tool("browser_navigate", {"url": site + "/"})
            clicked = await c.call_tool("browser_click", {"target": "About us"})
        proc.terminate()
        assert proc.wait(timeout=150) == 128 + 15
    assert got.content[0].text == INDEX and got.meta["mcp-world/provenance"] == "real"
    assert clicked.content[0].text == ABOUT and clicked.structured_content["title"] == "About"
    con = sqlite3.connect(db)
    logged = con.execute("select observation, real_observation, prediction_error, prediction_ms from steps "
                         "order by idx").fetchall()
    con.close()
    # The world model's page is logged beside the real one (or why it has none: the agent had the real one;
    # on a busy machine a prediction still running when the server's drain ends is marked abandoned).
    assert [real for _, real, _, _ in logged] == [INDEX, ABOUT]
    assert all((sim and "<html" in sim.lower()) or (err or "").startswith(("malformed_observation", "abandoned"))
               for sim, _, err, _ in logged)
    assert any(sim for sim, _, _, _ in logged) and all(ms for sim, _, _, ms in logged if sim)


def test_a_non_local_shadow_origin_is_refused_before_anything_starts(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mcp_world", "serve", "--world", "webshop", "--db", str(tmp_path / "x.db"),
                        "--shadow", "browser", "--shadow-origin", "https://example.com"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "only fetches local origins" in r.stderr
