"""The real search engine (`--shadow search`): real fetches of allowlisted local pages as Markdown,
a real search over those sites, and nothing else fetched."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import anyio
import httpx
import pytest
from mcp.client import Client

from mcp_world.errors import MCPWorldError
from mcp_world.executors.search import ShadowSearch

from .helpers import http_server, local_site, watched_port

pytestmark = pytest.mark.anyio

TEA = """<!DOCTYPE html><html><head><title>Green tea guide</title>
<meta property="article:published_time" content="2025-03-14T09:00:00+00:00"></head><body>
<nav><a href="/">Home</a> <a href="/coffee.html">Coffee</a></nav>
<article><h1>Green tea</h1>
<p>Sencha and matcha are Japanese green teas. Brew them at 80 degrees for two minutes, never with boiling water.</p>
<p>Gyokuro is shaded for three weeks before the harvest, which makes it sweeter than sencha.</p>
<p>See also <a href="/coffee.html">how we brew coffee</a>.</p></article>
<footer>Tea House, 2025</footer></body></html>"""
COFFEE = """<!DOCTYPE html><html><head><title>Coffee brewing</title></head><body><main><h1>Coffee brewing</h1>
<p>A pour-over takes 15 grams of coffee to 250 grams of water at 94 degrees.</p>
<p>An espresso is 18 grams in and 36 grams out, in about 28 seconds.</p></main></body></html>"""
INDEX = """<!DOCTYPE html><html><head><title>Tea House</title></head><body><h1>Tea House</h1>
<p>Notes on brewing.</p><ul><li><a href="/tea.html">Green tea</a></li><li><a href="coffee.html#top">Coffee</a></li>
<li><a href="/prices.json">Prices</a></li><li><a href="/logo.png">Logo</a></li>
<li><a href="/search?q=tea">Search</a></li><li><a href="https://example.com/">Elsewhere</a></li></ul></body></html>"""
PRICES = {"sencha": 12.5, "matcha": 30}


PAGES = {"/": ("text/html", INDEX), "/tea.html": ("text/html", TEA), "/coffee.html": ("text/html", COFFEE),
         "/prices.json": ("application/json", json.dumps(PRICES)), "/logo.png": ("image/png", "\x89PNG..")}
ASKED: dict[str, list[str]] = {}  # "hits": the paths the site was asked for, in order (live)


@pytest.fixture
def site():
    with local_site(PAGES, {"/old-tea": "/tea.html", "/away": "https://example.com/"},
                    {"Last-Modified": "Tue, 02 Jun 2026 10:00:00 GMT"}) as (origin, hits):
        ASKED["hits"] = hits
        yield origin


async def test_a_search_ranks_the_crawled_pages_of_the_local_sites(site):
    engine = ShadowSearch((site,))
    found = await engine.observe("e", None, "web_search", {"query": "matcha brewing temperature", "num_results": 2}, {})
    results = found.structured["results"]
    assert [r["url"] for r in results] == [site + "/tea.html", site + "/coffee.html"]
    assert results[0]["title"] == "Green tea guide" and "matcha" in results[0]["snippet"]
    assert results[0]["date"] == "2025-03-14"  # the page's own date, from its markup
    assert results[1]["date"] == "2026-06-02"  # none in the markup: its Last-Modified
    assert found.text.startswith(f"[1] {site}/tea.html\nTitle: Green tea guide\nSnippet: ")
    assert found.logged["indexed_pages"] == 3
    # Crawled once, for the server: same-origin pages without a query; not data, images, other sites.
    assert sorted(ASKED["hits"]) == ["/", "/coffee.html", "/tea.html"]
    espresso = await engine.observe("e2", None, "web_search", {"query": "espresso"}, {})
    assert [r["url"] for r in espresso.structured["results"]] == [site + "/coffee.html"]
    nothing = await engine.observe("e2", None, "web_search", {"query": "zanzibar quokka"}, {})
    assert nothing.text == "No results found for 'zanzibar quokka'.\n" and nothing.structured["results"] == []
    assert sorted(ASKED["hits"]) == ["/", "/coffee.html", "/tea.html"]  # not crawled again


async def test_a_fetch_is_the_real_pages_main_content_as_markdown_and_failures_say_why(site):
    engine = ShadowSearch((site,))
    tea = await engine.observe("e", None, "web_fetch", {"url": site + "/tea.html"}, {})
    assert tea.text.startswith("# ") and "Sencha and matcha are Japanese green teas" in tea.text
    assert "Tea House, 2025" not in tea.text  # the footer is not main content
    assert f"[how we brew coffee]({site}/coffee.html)" in tea.text  # links kept, absolute
    assert tea.structured == {"url": site + "/tea.html", "title": "Green tea guide", "chars": len(tea.text) - 1}
    moved = await engine.observe("e", None, "web_fetch", {"url": site + "/old-tea"}, {})
    assert moved.text == tea.text and moved.logged["final_url"] == site + "/tea.html"
    data = await engine.observe("e", None, "web_fetch", {"url": site + "/prices.json"}, {})
    assert data.text == f"# prices.json\n\n```json\n{json.dumps(PRICES)}\n```\n"
    missing = await engine.observe("e", None, "web_fetch", {"url": site + "/nope.html"}, {})
    assert missing.structured == {"url": site + "/nope.html", "error": "HTTP 404", "status": 404}
    assert missing.text == f"error: could not fetch {site}/nope.html: HTTP 404\n"
    image = await engine.observe("e", None, "web_fetch", {"url": site + "/logo.png"}, {})
    assert "not a page (image/png)" in image.structured["error"]
    away = await engine.observe("e", None, "web_fetch", {"url": site + "/away"}, {})
    assert "redirected off the allowed sites" in away.structured["error"]


async def test_nothing_off_the_allowlist_is_fetched():
    with watched_port() as (port, seen):
        engine = ShadowSearch(("http://127.0.0.1:1",))
        assert await engine.observe("e", None, "web_fetch", {"url": f"http://127.0.0.1:{port}/"}, {}) is None
        assert await engine.observe("e", None, "web_fetch", {"url": "https://example.com/"}, {}) is None
        assert await engine.observe("e", None, "web_fetch", {"url": "file:///etc/passwd"}, {}) is None
    assert not seen
    with pytest.raises(MCPWorldError, match="needs at least one --shadow-origin"):
        ShadowSearch(())
    with pytest.raises(MCPWorldError, match="only fetches local origins"):
        ShadowSearch(("https://example.com",))


async def test_the_crawl_keeps_to_its_limits(site):
    from mcp_world.executors.search import SiteLimits

    engine = ShadowSearch((site,), site=SiteLimits(max_pages=2))
    assert len(await engine.index()) == 2


async def test_real_search_episodes_over_mcp_and_their_checks(engine_url: str, site, tmp_path: Path):
    """`serve --world research --shadow search`: a shadow episode logs the real results beside the
    world model's; a real episode gets them (provenance real), a real 404 is an error result, and
    its task's `fetched` check reads what the agent really fetched."""
    db = tmp_path / "s.db"
    with http_server(engine_url, db, "--world", "research", "--shadow", "search", "--shadow-origin", site) as (url, _):
        with anyio.fail_after(60):  # the server crawls the sites as it starts: the first search need not wait
            while "/coffee.html" not in ASKED["hits"]:
                await anyio.sleep(0.2)
        async with httpx.AsyncClient(base_url=url.removesuffix("/mcp"), timeout=300) as h:
            task = {"id": "tea", "instruction": "Find how hot to brew green tea.",
                    "success": [{"kind": "fetched", "matches": "tea\\.html"}, {"kind": "searched", "matches": "matcha"}]}
            shadow = (await h.post("/episodes", json={"task": task})).json()
            real = (await h.post("/episodes", json={"task": task, "mode": "real"})).json()
            async with Client(shadow["mcp_url"], read_timeout_seconds=300) as c:
                simulated = await c.call_tool("web_search", {"query": "matcha sencha", "num_results": 2})
            async with Client(real["mcp_url"], read_timeout_seconds=300) as c:
                found = await c.call_tool("web_search", {"query": "matcha sencha", "num_results": 2})
                page = await c.call_tool("web_fetch", {"url": site + "/tea.html"})
                gone = await c.call_tool("web_fetch", {"url": site + "/gone.html"})
                # Off the allowlist there is no real page: simulated, and a page the world knows is its own.
                known = await c.call_tool("web_fetch", {"url": "https://science.nasa.gov/mission/voyager/"})
            assert simulated.meta["mcp-world/provenance"] in ("model", "state")
            assert found.meta["mcp-world/provenance"] == "real"
            assert found.content[0].text.startswith(f"[1] {site}/tea.html\nTitle: Green tea guide\n")
            assert "80 degrees" in page.content[0].text and not page.is_error
            assert gone.is_error and "HTTP 404" in gone.content[0].text
            assert known.meta["mcp-world/provenance"] == "state" and known.content[0].text.startswith("# Voyager\n")
            verdict = (await h.post(f"/episodes/{real['episode_id']}/verify", json={"answer": "80 degrees"})).json()
            assert verdict["reward"] == 1.0, verdict
            assert "gone.html" not in verdict["checks"][0]["detail"]  # a failed fetch is no page fetched
            # The episode's transcript is what its agent saw: the real results, not the predictions.
            shown = (await h.get(f"/episodes/{real['episode_id']}")).json()["steps"]
            assert [s["observation"] for s in shown] == [r.content[0].text for r in (found, page, gone, known)]
            assert [s["provenance"] for s in shown] == ["real", "real", "real", "state"]
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select episode_id, tool, provenance, observation is not null, real_observation "
                            "from steps order by id").fetchall()
    first = rows[0]
    assert first[0] == shadow["episode_id"] and first[4].startswith(f"[1] {site}/tea.html")  # real, beside the model's
    assert [r[2] for r in rows[1:]] == ["real", "real", "real", "state"]
