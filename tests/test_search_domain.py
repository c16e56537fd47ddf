"""The search domain: numbered results and fetched Markdown pages, parsed and validated, answered by
the embedded engine over a real MCP client, and repeated searches answered the same."""

from __future__ import annotations

import pytest

from mcp_world.domain import load_domain
from mcp_world.rules import Call, FormatError

from .helpers import stdio_client

pytestmark = pytest.mark.anyio

RESULTS = ("[1] https://a.example/x\nTitle: A page\nSnippet: About A.\nDate: 2024-01-01\n"
           "[2] https://b.example/\nTitle: B\nSnippet: About B.\nDate: 2023-02-02\n")


def test_search_results_are_read_as_numbered_blocks_and_a_cut_block_is_dropped():
    fmt = load_domain("search").rules
    call = Call("web_search", {"query": "q", "num_results": 10}, {})
    assert fmt.prefill(call) == "[1] "
    p = fmt.parse(RESULTS, call)
    assert p.text == RESULTS and [r["url"] for r in p.structured["results"]] == ["https://a.example/x", "https://b.example/"]
    cut = fmt.parse(RESULTS + "[3] https://c.example\nTitle: C\nSnip", Call("web_search", {"query": "q"}, {}, True))
    assert len(cut.structured["results"]) == 2 and cut.repaired
    one = fmt.parse(RESULTS, Call("web_search", {"query": "q", "num_results": 1}, {}))
    assert len(one.structured["results"]) == 1
    with pytest.raises(FormatError, match="no results"):
        fmt.parse("I found some pages about that.", call)


def test_fetched_pages_are_markdown():
    fmt = load_domain("search").rules
    page = fmt.parse("# Voyager\n\nTwo probes.", Call("web_fetch", {"url": "https://x.example"}, {}))
    assert page.structured == {"url": "https://x.example", "title": "Voyager", "chars": 22}
    with pytest.raises(FormatError, match="HTML"):
        fmt.parse("<!DOCTYPE html><html><body>x</body></html>", Call("web_fetch", {"url": "u"}, {}))


async def test_search_and_fetch_over_mcp_on_the_embedded_engine(engine_url, tmp_path):
    async with stdio_client(engine_url, tmp_path / "s.db", "--world", "research", "--seed", "2") as c:
        names = {t.name for t in (await c.list_tools()).tools}
        first = await c.call_tool("web_search", {"query": "voyager golden record", "num_results": 3})
        again = await c.call_tool("web_search", {"query": "voyager golden record", "num_results": 3})
        for _ in range(3):  # the 135M model's page may fail the format; the capability is that one comes back
            page = await c.call_tool("web_fetch", {"url": "https://science.nasa.gov/mission/voyager/"})
            if not page.is_error:
                break
        bad = await c.call_tool("web_search", {"query": ""})
    assert names == {"web_search", "web_fetch", "world_reset"}
    assert not first.is_error, first.content[0].text
    results = first.structured_content["results"]
    assert 1 <= len(results) <= 3 and all(r["url"] and "title" in r for r in results)
    assert first.content[0].text.startswith("[1] ")
    # The same search in the same episode gives the same results (the explicit state remembers them).
    assert again.content[0].text == first.content[0].text and again.meta["mcp-world/provenance"] == "state"
    assert not page.is_error, page.content[0].text  # a fetched page, as Markdown (HTML is refused by the format)
    assert not page.content[0].text.lstrip().lower().startswith(("<!doctype", "<html"))
    assert page.structured_content["url"] == "https://science.nasa.gov/mission/voyager/"
    assert bad.is_error and "query" in bad.content[0].text
