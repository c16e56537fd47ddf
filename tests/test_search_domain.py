"""The search domain: numbered results and fetched Markdown pages, parsed and validated, answered by
the embedded engine over a real MCP client, and repeated searches answered the same; the pages a
world's web knows (seed.search.pages) fetched as declared and found by searches."""

from __future__ import annotations

import pytest

from mcp_world.domain import load_domain
from mcp_world.errors import WorldFileError
from mcp_world.rules import Call, FormatError
from mcp_world.world import load_world, parse_world

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


def test_a_result_starts_with_a_whole_url_and_lists_a_page_once():
    fmt = load_domain("search").rules
    call = Call("web_search", {"query": "q", "num_results": 10}, {})
    # What the 135M model wrote for the research world: a date where the URL goes, the same block over and over.
    looped = "[1] 2024-11-02\nTitle: Voyager 2\nSnippet: S.\nDate: 2024-11-02\n" * 3
    with pytest.raises(FormatError, match="'2024-11-02', which is not a URL"):
        fmt.parse(looped, call)
    p = fmt.parse(RESULTS + RESULTS.replace("[1]", "[3]").replace("[2]", "[4]")
                  + "[5] https://c.example/y/y/y/y/y/y\nTitle: C\nSnippet: c\nDate: 2024-01-01\n"
                  + "[6] www.d.example\nTitle: D\nSnippet: d\nDate: 2024-01-01\n", call)
    assert p.text == RESULTS and p.repaired  # listed once, renumbered; no scheme or a looped URL is no result
    # An engine that ignored its token limit: a 50,000-character URL is none, and a result's lines are cut short.
    with pytest.raises(FormatError, match="not a URL"):
        fmt.parse("[1] https://a.example/" + "ab" * 25_000 + "\nTitle: t\nSnippet: s\nDate: 2024-01-01\n", call)
    long = fmt.parse("[1] https://a.example/x\nTitle: " + "t" * 30_000 + "\nSnippet: " + "s " * 30_000
                     + "\nDate: 2024-01-01\n", call)
    assert len(long.text) < 1_000 and long.structured["results"][0]["snippet"].endswith("…")


def test_a_fetched_page_is_not_search_results_and_a_looping_page_is_kept_once():
    fmt = load_domain("search").rules
    call = Call("web_fetch", {"url": "https://x.example/p"}, {})
    assert fmt.prefill(call) == "# "
    echoed = fmt.parse("# P\n\nText.\n\nFetch https://x.example/p\n", call)  # the action echoed back
    assert echoed.text == "# P\n\nText.\n" and echoed.repaired
    with pytest.raises(FormatError, match="came back as search results"):
        fmt.parse("#  Genesis\nTitle: Genesis\nSnippet: A story.\nDate: 2024-03-23\n", call)
    loop = "# Seeds\n\nIntro.\n\n" + "```python\nimport x\n\nx()\n```\n\nThis is the default.\n\n" * 6 + "```py"
    cut = fmt.parse(loop, Call("web_fetch", {"url": "https://x.example/p"}, {}, True))
    assert cut.text == "# Seeds\n\nIntro.\n\n```python\nimport x\n\nx()\n```\n\nThis is the default.\n"
    assert cut.repaired and cut.structured["title"] == "Seeds"


WEB = {"name": "w", "description": "A small web.", "domains": ["search"], "seed": {"search": {"notes": "facts", "pages": {
    "https://science.nasa.gov/mission/voyager/golden-record/": {
        "date": "2024-03-01",
        "content": "# The Golden Record\n\nEach Voyager carries a Golden Record, a gold-plated copper disc.\n\n"
                   "It holds greetings in 55 languages and sounds of Earth."},
    "https://en.wikipedia.org/wiki/Voyager_2":
        "# Voyager 2\n\nVoyager 2 launched in 1977. It is the only spacecraft to have visited Uranus and Neptune.",
    "https://example.org/pizza": {"title": "Pizza in Naples", "content": "Naples has the best pizza."},
}}}}


def _web(**pages):
    return {**WEB, "seed": {"search": {"pages": pages}}}


def test_a_webs_known_pages_are_fetched_as_declared_and_searches_find_them():
    world = parse_world(WEB)
    rules = load_domain("search").rules
    tool = load_domain("search").tool("web_search")
    state = rules.initial(world)
    fetched = rules.answer(state, Call("web_fetch", {"url": "https://en.wikipedia.org/wiki/Voyager_2/"}, state))
    assert fetched.text == WEB["seed"]["search"]["pages"]["https://en.wikipedia.org/wiki/Voyager_2"] + "\n"
    # Ranked by the query's words (stemmed: launches -> launch), a snippet from the page, its date.
    two = rules.answer(state, Call("web_search", {"query": "greetings in many languages", "num_results": 1}, state, spec=tool))
    assert two.text == ("[1] https://science.nasa.gov/mission/voyager/golden-record/\nTitle: The Golden Record\n"
                        "Snippet: It holds greetings in 55 languages and sounds of Earth.\nDate: 2024-03-01\n")
    assert rules.answer(state, Call("web_search", {"query": "when was voyager launched", "num_results": 1}, state,
                                    spec=tool)).structured["results"][0]["url"] == "https://en.wikipedia.org/wiki/Voyager_2"
    # Fewer known pages than asked for: the model writes the rest, after them.
    call = Call("web_search", {"query": "voyager neptune"}, state, spec=tool)
    assert rules.answer(state, call) is None
    prefill = rules.prefill(call)
    assert prefill.startswith("[1] https://en.wikipedia.org/wiki/Voyager_2\n") and prefill.endswith("\n[3] ")
    assert rules.max_tokens(call) == 90 * 8 and rules.max_tokens(Call("web_fetch", {"url": "u"}, state)) is None
    written = (prefill + "https://x.example/a\nTitle: A\nSnippet: s\nDate: 2020-01-01\n"
               "[4] https://en.wikipedia.org/wiki/Voyager_2\nTitle: junk\nSnippet: j\nDate: 1999-01-01\n"
               "[5] https://example.org/pizza\nTitle: Pizza\nSnippet: p\nDate: 1999-01-01\n")
    merged = rules.parse(written, call)
    assert [r["url"] for r in merged.structured["results"]] == [
        "https://en.wikipedia.org/wiki/Voyager_2", "https://science.nasa.gov/mission/voyager/golden-record/",
        "https://x.example/a"]  # a known page is listed once, and not where none of the query's words is in it
    # An engine that cannot continue a prefill answers whole: the known pages still come first.
    assert rules.parse("[1] https://x.example/a\nTitle: A\nSnippet: s\nDate: 2020-01-01\n", call).text == merged.text
    # The prompt has the seed's notes, not the known pages (nor their URLs: the model copied them into every
    # search); the first is this web's example of a page until the episode has one of its own.
    assert world.seed_text("search") == "facts"
    demos = rules.seed_demonstrations(world)
    assert [d.tool for d in demos] == ["web_fetch"] and rules.seed_demonstrations(world, seen=True) == []


@pytest.mark.parametrize("pages, message", [
    ({"ftp://x.example/a": "# A\n\nText."}, "'ftp://x.example/a' is not a page's whole URL"),
    ({"https://x.example/a#top": "# A\n\nText."}, "is not a page's whole URL"),
    ({"https://x.example/a": "<!DOCTYPE html><html><body>A</body></html>"}, "its content is HTML"),
    ({"https://x.example/a": "No heading here."}, "it has no title"),
    ({"https://x.example/a": {"content": "# A", "date": "May 2024"}}, "date: String should match pattern"),
    ({"https://x.example/a": "# A\n\n" + "x" * 40_000}, "a known page may be at most 32,768"),
    ({f"https://x.example/{n}": "# A\n\n" + "x" * 30_000 for n in range(9)}, "may hold at most 262,144"),
])
def test_malformed_known_pages_are_refused_with_their_place(pages, message):
    with pytest.raises(WorldFileError, match="seed.search.pages") as err:
        parse_world(_web(**pages))
    assert message in str(err.value)


def test_a_date_yaml_reads_as_a_date_is_taken():
    import datetime

    world = parse_world(_web(**{"https://x.example/a": {"content": "# A\n\nText.", "date": datetime.date(2024, 5, 17)}}))
    assert load_domain("search").rules.initial(world)["known"]["https://x.example/a"]["date"] == "2024-05-17"


async def test_search_and_fetch_over_mcp_on_the_embedded_engine(engine_url, tmp_path):
    research = load_world("research")
    golden = "https://science.nasa.gov/mission/voyager/golden-record/"
    async with stdio_client(engine_url, tmp_path / "s.db", "--world", "research", "--seed", "2") as c:
        names = {t.name for t in (await c.list_tools()).tools}
        first = await c.call_tool("web_search", {"query": "voyager golden record", "num_results": 3})
        again = await c.call_tool("web_search", {"query": "voyager golden record", "num_results": 3})
        known = await c.call_tool("web_fetch", {"url": golden})
        for _ in range(3):  # the 135M model's answer may fail the format; the capability is that one comes back
            other = await c.call_tool("web_search", {"query": "python dataclass default factory", "num_results": 3})
            if not other.is_error:
                break
        for _ in range(3):
            page = await c.call_tool("web_fetch", {"url": "https://www.nasa.gov/voyager-uranus-moons"})
            if not page.is_error:
                break
        bad = await c.call_tool("web_search", {"query": ""})
    assert names == {"web_search", "web_fetch", "world_reset"}
    # The world's own pages: found by the search (the best match first) and fetched as declared, from the state.
    assert not first.is_error, first.content[0].text
    assert first.meta["mcp-world/provenance"] == "state"
    results = first.structured_content["results"]
    assert len(results) == 3 and results[0]["url"] == golden and results[0]["title"] == "The Golden Record"
    assert first.content[0].text.startswith(f"[1] {golden}\nTitle: The Golden Record\nSnippet: ")
    assert again.content[0].text == first.content[0].text and again.meta["mcp-world/provenance"] == "state"
    assert known.content[0].text == research.seed["search"]["pages"][golden]["content"]
    assert known.meta["mcp-world/provenance"] == "state"
    # What the web does not know, the model writes: results with whole URLs, each listed once.
    assert not other.is_error, other.content[0].text
    assert other.meta["mcp-world/provenance"] == "model"
    urls = [r["url"] for r in other.structured_content["results"]]
    assert 1 <= len(urls) <= 3 and len(set(urls)) == len(urls) and all(u.startswith(("https://", "http://")) for u in urls)
    assert not page.is_error, page.content[0].text  # a fetched page, as Markdown (HTML and results are refused)
    assert page.content[0].text.startswith("# ") and "\nSnippet: " not in page.content[0].text
    assert page.structured_content["url"] == "https://www.nasa.gov/voyager-uranus-moons"
    assert bad.is_error and "query" in bad.content[0].text


async def test_the_model_writes_only_what_the_known_pages_leave_and_sees_only_related_turns(make_rig):
    """The request the engine gets (a test double answers it: the subject is what is asked)."""
    from .conftest import ScriptedEngine

    written = iter(["https://x.example/a\nTitle: A\nSnippet: About a.\nDate: 2020-01-01\n",
                    "https://docs.example/dc\nTitle: Dataclasses\nSnippet: default_factory.\nDate: 2024-01-01\n",
                    "x.example page\n\nText."])
    engine = ScriptedEngine(lambda r: next(written))
    rig = make_rig("research", engine=engine, state_mode="full")
    first = await rig.sim.call("k", "web_search", {"query": "voyager golden record"})
    await rig.sim.call("k", "web_search", {"query": "python dataclass default factory", "num_results": 3})
    await rig.sim.call("k", "web_fetch", {"url": "https://x.example/a"})
    voyager, python, page = engine.requests
    # Seven known pages match: the model writes results 8 to 10 after them, under the results grammar.
    assert voyager.prefill.endswith("Date: 2026-10-28\n[8] ") and voyager.max_tokens == 270 and voyager.grammar
    assert [r["url"] for r in first.structured["results"]][-1] == "https://x.example/a"
    # A search is shown no unrelated search (nor the known pages' URLs); a fetch, the search that listed its page.
    prompt = lambda r: "\n".join(m["content"] for m in r.messages)  # noqa: E731
    assert "Title: The Golden Record" not in prompt(python) and python.max_tokens == 270
    assert "https://x.example/a" in prompt(page) and "docs.example" not in prompt(page)
    # The page begins as its result showed it: the title, and the snippet (a sentence of the page).
    assert page.prefill == "# A\n\nAbout a.\n\n" and page.grammar is None


def _real_searches():
    """The recorded real searches (fixtures/real/search.jsonl.xz): (world seed, call, real text)."""
    import json
    import lzma
    from pathlib import Path

    rules = load_domain("search").rules
    with lzma.open(Path(__file__).parent.parent / "fixtures" / "real" / "search.jsonl.xz", "rt") as f:
        for line in f:
            episode = json.loads(line)
            world = parse_world(episode["world"], episode["id"])
            state = rules.initial(world)
            for step in episode["steps"]:
                if step["tool"] == "web_search" and step["structured"]["results"]:
                    yield world, Call("web_search", step["arguments"], state), step["observation"]


def test_a_web_of_given_sites_lists_only_their_pages_and_its_grammar_takes_every_real_search():
    """`seed.search.sites`: the world's web is these sites (a local documentation site, an
    intranet). Every result's URL is on one of them — the grammar says so and the parse keeps to it —
    and every real search the real engine made on the five recorded sites lies inside that grammar
    (under the old one, a URL could have no port: none of them did)."""
    from pathlib import Path

    import xgrammar
    from xgrammar.testing import _is_grammar_accept_string

    rules = load_domain("search").rules
    base = (Path(__file__).parent.parent / "domains" / "search" / "grammar.web_search.gbnf").read_text()
    whole_web = xgrammar.Grammar.from_ebnf(base)
    taken = 0
    for world, call, real in _real_searches():
        assert call.state["sites"] == [world.seed["search"]["sites"][0]]
        own = rules.grammar(call, base)
        body = real.removeprefix(rules.prefill(call))
        assert own is not None and _is_grammar_accept_string(xgrammar.Grammar.from_ebnf(own), body), (world.name, real)
        assert _is_grammar_accept_string(whole_web, body), (world.name, real)  # a URL with a port
        taken += 1
    assert taken >= 100
    site = {"sites": ["http://127.0.0.1:8770"]}
    other = "[1] https://docs.python.org/3/\nTitle: Python\nSnippet: Docs.\nDate: 2024-01-01\n"
    ours = "[2] http://127.0.0.1:8770/jinja2.html\nTitle: Jinja2\nSnippet: Templates.\nDate: 2026-03-06\n"
    p = rules.parse(other + ours, Call("web_search", {"query": "jinja"}, site))
    assert [r["url"] for r in p.structured["results"]] == ["http://127.0.0.1:8770/jinja2.html"]
    with pytest.raises(FormatError, match="'https://docs.python.org/3/', which is not a URL of this web"):
        rules.parse(other, Call("web_search", {"query": "python"}, site))
    assert rules.grammar(Call("web_search", {"query": "q"}, {}), base) is None  # the whole web: as it is
    assert len(rules.parse(other, Call("web_search", {"query": "python"}, {})).structured["results"]) == 1
    with pytest.raises(WorldFileError, match="'http://x.org/docs' is not a site's origin"):
        parse_world({"name": "w", "domains": ["search"], "seed": {"search": {"sites": ["http://x.org/docs"]}}}, "w")


def test_known_pages_rank_alike_from_many_threads_at_once():
    """The server answers state steps in worker threads, several episodes at a time. Snowball's stemmer
    keeps the word it is stemming on itself: one stemmer shared by two threads read another thread's
    word and failed with an IndexError, an internal error on a search (1 run in 3 of the shadow test)."""
    from concurrent.futures import ThreadPoolExecutor

    from domains.search import rules as search_rules

    texts = [" ".join(f"{w}{i} launching generations nationalization" for w in ("voyager", "probe", "heliopause"))
             for i in range(400)]
    alone = [search_rules._terms(t) for t in texts]
    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(search_rules._terms, texts * 4))
    assert together == alone * 4
