"""Worlds made from reality: a real project folder (secrets left out), and recorded episodes."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from mcp_world.errors import WorldFileError
from mcp_world.executors.sandbox import SandboxLimits, TerminalSandbox, bwrap_available
from mcp_world.world import load_world
from mcp_world.worldgen import from_dir, from_episodes


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=Ann Dev", "-c", "user.email=ann@example.com", *args], cwd=cwd,
                   check=True, capture_output=True)


@pytest.fixture
def project(tmp_path):
    p = tmp_path / "billing-svc"
    (p / "src").mkdir(parents=True)
    (p / "node_modules" / "left-pad").mkdir(parents=True)
    (p / "README.md").write_text("# billing-svc\n\nInvoices and payments.\n")
    (p / "src" / "app.py").write_text("def total(items):\n    return sum(items)\n")
    (p / "src" / "settings.py").write_text('AWS_KEY = "AKIAABCDEFGHIJKLMNOP"\n')
    (p / ".env").write_text("DATABASE_URL=postgres://admin:hunter2@db/billing\n")
    (p / ".env.example").write_text("DATABASE_URL=\n")
    (p / "deploy_key.pem").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n")
    (p / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0binary")
    (p / "big.log").write_text("line\n" * 5000)
    (p / "node_modules" / "left-pad" / "index.js").write_text("module.exports = 1\n")
    (p / ".gitignore").write_text("node_modules/\n")
    _git(p, "init", "-q", "-b", "trunk")
    _git(p, "add", ".")
    _git(p, "commit", "-q", "-m", "Initial import")
    (p / "src" / "app.py").write_text("def total(items):\n    return round(sum(items), 2)\n")
    _git(p, "commit", "-q", "-am", "Round totals")
    return p


def test_a_folder_its_repository_ignores_is_read_from_disk(project):
    """A virtual environment's package inside a project: git lists none of it (ignored), so the
    snapshot walks the folder instead of coming back empty."""
    pkg = project / "node_modules" / "left-pad"
    snap = from_dir(pkg)
    seed = snap.world.seed_of("terminal")
    assert seed.files == {"/home/user/left-pad/index.js": "module.exports = 1\n"}
    assert not seed.git


def test_a_real_folder_becomes_a_world_without_its_secrets(project, tmp_path):
    snap = from_dir(project)
    w = snap.world
    seed = w.seed_of("terminal")
    base = "/home/user/billing-svc"
    assert seed.cwd == base
    withheld = dict(snap.withheld)
    assert set(withheld) == {".env", "deploy_key.pem", "src/settings.py"}, withheld
    assert "contents" in withheld["src/settings.py"]
    text = json.dumps(w.model_dump())
    assert "hunter2" not in text and "AKIA" not in text and "PRIVATE KEY" not in text
    assert seed.files[f"{base}/README.md"].startswith("# billing-svc")
    assert seed.files[f"{base}/src/app.py"] == "def total(items):\n    return round(sum(items), 2)\n"
    assert seed.files[f"{base}/.env.example"] == "DATABASE_URL=\n"
    assert seed.files[f"{base}/logo.png"] is None and seed.files[f"{base}/big.log"] is None  # listed, no contents
    assert not any("node_modules" in f for f in seed.files)
    git = seed.git[0]
    assert git.branch == "trunk" and git.message == "Round totals" and git.author == "Ann Dev <ann@example.com>"
    assert [line.split(" ", 1)[1] for line in git.log] == ["Round totals", "Initial import"]

    # The command line writes a world file `serve` loads, and lists what it left out.
    out = tmp_path / "w.yaml"
    r = subprocess.run([sys.executable, "-m", "mcp_world", "world", "from-dir", str(project), "--out", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "left out 3 files that look like secrets" in r.stderr and ".env  (" in r.stderr
    assert load_world(out).seed_of("terminal").files == seed.files


def test_links_out_of_the_folder_are_not_followed_and_secret_values_are_redacted_in_place(project):
    (project / "src" / "link").symlink_to("/etc/passwd")
    (project / "config").mkdir()
    (project / "config" / "settings.ini").write_text(
        '[db]\nhost = db.internal\ndb_password = "hunter2hunter2"\n'
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\ntimeout = 30\n")
    _git(project, "add", ".")
    _git(project, "commit", "-q", "-m", "Config and a link")
    snap = from_dir(project)
    files = snap.world.seed_of("terminal").files
    text = json.dumps(snap.world.model_dump())
    assert "root:x:0:0" not in text and "src/link" in dict(snap.withheld)
    assert "symbolic link" in dict(snap.withheld)["src/link"]
    settings = files["/home/user/billing-svc/config/settings.ini"]
    assert "hunter2hunter2" not in text and "wJalrXUtnFEMI" not in text
    assert 'db_password = "[REDACTED]"' in settings and "aws_secret_access_key = [REDACTED]" in settings
    assert "host = db.internal" in settings and "timeout = 30" in settings  # the file still reads like itself
    assert dict(snap.redacted)["config/settings.ini"] == 2


def test_the_repositorys_own_git_config_cannot_run_programs(project, tmp_path):
    marker = tmp_path / "pwned"
    hook = f"sh -c 'touch {marker}'"
    _git(project, "config", "core.fsmonitor", hook)
    _git(project, "config", "filter.evil.clean", hook)
    _git(project, "config", "filter.evil.process", hook)
    (project / ".gitattributes").write_text("* filter=evil\n")
    (project / "src" / "app.py").write_text("changed\n")  # status must look at the file
    snap = from_dir(project)
    assert not marker.exists()
    assert "changes" in snap.world.seed_of("terminal").notes  # git did run (status saw the change)


def test_a_plain_folder_is_walked_with_the_same_skip_list_and_secret_rules(tmp_path):
    p = tmp_path / "notes"
    (p / "node_modules" / "x").mkdir(parents=True)
    (p / "node_modules" / "x" / "index.js").write_text("1\n")
    (p / "todo.txt").write_text("buy milk\n")
    (p / ".env").write_text("TOKEN=abc\n")
    (p / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n")
    (p / "passwd-link").symlink_to("/etc/passwd")
    snap = from_dir(p)
    files = snap.world.seed_of("terminal").files
    assert files == {"/home/user/notes/todo.txt": "buy milk\n"}
    assert set(dict(snap.withheld)) == {".env", "id_rsa", "passwd-link"}
    assert snap.world.seed_of("terminal").git == []


@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap is installed by the setup")
def test_the_shadow_sandbox_materializes_the_snapshot(project):
    world = from_dir(project).world
    box = TerminalSandbox(world, SandboxLimits(timeout_s=20))
    try:
        base = "/home/user/billing-svc"
        assert box.run("cat src/app.py", base).output == "def total(items):\n    return round(sum(items), 2)\n"
        assert box.run("git branch --show-current && git log -1 --format=%s", base).output == "trunk\nRound totals\n"
        assert "No such file" in box.run("cat .env", base).output
    finally:
        box.close()


def test_from_episodes_keeps_a_few_distinct_real_results_per_tool():
    world = {"name": "kv", "description": "A key-value MCP server.", "domains": ["mcp"],
             "tools": [{"name": "get", "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}}}}]}
    steps = [{"tool": "get", "arguments": {"key": f"k{i}"}, "observation": f"value {i}" * (i + 1)} for i in range(6)]
    steps += [{"tool": "get", "arguments": {"key": "k0"}, "observation": "value 0"},  # a repeat
              {"tool": "get", "arguments": {"key": "x"}, "observation": "Error: no key x", "structured": {"isError": True}},
              {"tool": "get", "arguments": {"key": "y"}, "observation": "Error: no key y", "structured": {"isError": True}}]
    w = from_episodes([{"id": "e1", "world": world, "steps": steps}], per_tool=3)
    assert [d.arguments["key"] for d in w.demonstrations] == ["k0", "k1", "x"]  # shortest first, one error
    assert w.tools[0].name == "get" and w.domains == ["mcp"]
    with pytest.raises(WorldFileError, match="no episodes"):
        from_episodes([])


@pytest.mark.anyio
async def test_a_world_made_from_a_recorded_site_knows_its_pages_and_lays_out_the_others(engine_url, tmp_path):
    """`world from-episodes` on the recorded MkDocs site (real pages): the most visited pages become
    the world's known pages, byte for byte; served to a real MCP client on the real engine, a known
    page comes back as it was recorded, and a recorded page the world does not know is the model's,
    in the real site's own head and navigation bar."""
    import anyio
    from lxml import html

    from mcp_world.importing import read_records
    from mcp_world.paths import FIXTURES_DIR

    from .helpers import stdio_client

    records = [r for r in read_records(FIXTURES_DIR / "real" / "pages.jsonl.xz") if r.world.name == "mkdocs-handbook"]
    data = tmp_path / "site.jsonl"
    data.write_text("".join(r.model_dump_json(by_alias=True, exclude_none=True) + "\n" for r in records))
    made = subprocess.run([sys.executable, "-m", "mcp_world", "world", "from-episodes", "--data", str(data), "--pages", "4",
                           "--out", str(tmp_path / "site.yaml")], capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    assert "4 known pages from 14 episodes" in made.stderr + made.stdout
    world = load_world(tmp_path / "site.yaml")
    known = world.seed["browser"]["pages"]
    real = {s.structured["url"]: s.observation for r in records for s in r.steps if s.structured.get("url")}
    assert len(known) == 4 and all(known[u] == real[u] for u in known)
    other = next(u for u in real if u not in known and u.endswith("/uvicorn/"))
    with anyio.fail_after(600):
        async with stdio_client(engine_url, tmp_path / "w.db", "--world", str(tmp_path / "site.yaml")) as c:
            first = next(iter(known))
            r = await c.call_tool("browser_navigate", {"url": first})
            assert not r.is_error and r.content[0].text == known[first]
            r = await c.call_tool("browser_navigate", {"url": other})
    page = r.content[0].text
    assert not r.is_error and r.structured_content["url"] == other, page[:300]
    assert page.startswith(real[other][:real[other].index("<title>")])  # the real site's head, as far as the title
    assert '<div class="navbar fixed-top' in page and html.document_fromstring(page).find("body") is not None


def test_a_project_folder_becomes_a_repository_world_whose_tests_run_for_real(project, tmp_path):
    """`world from-dir --domain swe`: the project at /workspace/NAME with its files (secrets still left
    out), answered from the state where the files say, and run for real by `--shadow swe`."""
    from mcp_world.executors.repo import ShadowRepo

    snap = from_dir(project, domain="swe")
    seed = snap.world.seed_of("swe")
    assert (snap.world.domains, seed.root, seed.test_command) == (["swe"], "/workspace/billing-svc", "pytest")
    assert seed.files["src/app.py"] == "def total(items):\n    return round(sum(items), 2)\n"
    assert "src/settings.py" not in seed.files and ".env" not in seed.files
    calc = tmp_path / "calc"
    (calc / "src" / "calc").mkdir(parents=True)
    (calc / "tests").mkdir()
    (calc / "pyproject.toml").write_text('[project]\nname = "calc"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    (calc / "src" / "calc" / "__init__.py").write_text("def add(a, b):\n    return a - b\n")
    (calc / "tests" / "test_calc.py").write_text("from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    out = tmp_path / "calc.yaml"
    r = subprocess.run([sys.executable, "-m", "mcp_world", "world", "from-dir", str(calc), "--domain", "swe",
                        "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    world = load_world(out)
    repo = ShadowRepo()
    try:
        ran = asyncio.run(repo.observe("calc", world, "repo_run_tests", {}, {}))
        assert "E       assert -1 == 5" in ran.text and ran.structured["failed"] == 1, ran.text
        fixed = asyncio.run(repo.observe("calc", world, "repo_replace",
                                         {"path": "src/calc/__init__.py", "old_str": "a - b", "new_str": "a + b"}, {}))
        assert fixed.structured == {"path": "src/calc/__init__.py", "added": 1, "removed": 1}
        assert asyncio.run(repo.observe("calc", world, "repo_run_tests", {}, {})).structured["passed"] == 1
    finally:
        repo.close()


@pytest.fixture
def local_site(tmp_path):
    """A small site served by `python -m http.server` on 127.0.0.1: an index, three linked pages (one
    with a token in it) and a page too big to be known."""
    import socket
    import time

    site = tmp_path / "site"
    site.mkdir()
    words = ["kettle", "sencha", "matcha", "oolong"]
    (site / "index.html").write_text("<html><head><title>Tea notes</title></head><body><h1>Tea notes</h1>"
                                     + "".join(f'<a href="{w}.html">{w}</a> ' for w in words) + "</body></html>")
    for n, w in enumerate(words[:3]):
        extra = ' Deploy with token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789".' if n == 0 else ""
        (site / f"{w}.html").write_text(f"<html><head><title>About {w}</title></head><body><main><h1>{w}</h1>"
                                        f"<p>All about {w}: how to brew it and when.{extra}</p></main></body></html>")
    (site / "oolong.html").write_text("<html><head><title>Oolong</title></head><body><main><h1>Oolong</h1>"
                                      + "".join(f"<p>Paragraph {i} on oolong leaves and their rolling.</p>"
                                                for i in range(900)) + "</main></body></html>")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory",
                             str(site)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    origin = f"http://127.0.0.1:{port}"
    for _ in range(100):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    yield origin
    proc.terminate()
    proc.wait()


def test_a_local_site_becomes_a_search_world_that_answers_as_the_real_engine_does(local_site):
    """`world from-site`: the site's pages are the world's known pages (a page too big is the
    model's; a token in a page is redacted), its web is the site alone, and a known page is fetched,
    and a search the known pages fill is answered, byte for byte as `--shadow search` answers them."""
    from mcp_world.domain import load_domain
    from mcp_world.executors.search import ShadowSearch
    from mcp_world.rules import Call
    from mcp_world.worldgen import from_site

    snap = from_site(local_site)
    seed = snap.world.seed["search"]
    assert seed["sites"] == [local_site] and snap.crawled == 5 and snap.known == 4
    assert snap.too_big == [local_site + "/oolong.html"] and set(seed["pages"]) == \
        {local_site + p for p in ("/", "/kettle.html", "/sencha.html", "/matcha.html")}
    kettle = seed["pages"][local_site + "/kettle.html"]["content"]
    assert "ghp_" not in kettle and "[REDACTED]" in kettle and len(snap.redacted) == 1
    rules = load_domain("search").rules
    state = rules.initial(snap.world)
    real = ShadowSearch((local_site,))
    for url in (local_site + "/sencha.html", local_site + "/"):
        answered = rules.answer(state, Call("web_fetch", {"url": url}, state))
        assert answered.text == asyncio.run(real.observe("e", None, "web_fetch", {"url": url}, {})).text
    for query in ("brew sencha", "matcha"):
        call = Call("web_search", {"query": query, "num_results": 1}, state)
        assert rules.answer(state, call).text == asyncio.run(real.observe("e", None, "web_search", call.arguments, {})).text
    with pytest.raises(WorldFileError, match="a site you run on this machine.*got 'https://example.com'"):
        from_site("https://example.com")
    with pytest.raises(WorldFileError, match="gave no page"):
        from_site("http://127.0.0.1:1")
