"""A domain is a folder: the core names no domain and no tool, has no import cycles, serves a domain
folder with no code, and serves a user's own domain (from --domains or an installed package) to a
real MCP client on the real engine. Registries refuse unknown names with the ones they know."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

import mcp_world
from mcp_world.dialects import get_dialect
from mcp_world.dialects.base import Turn
from mcp_world.domain import domain_folders, domain_names, load_domain
from mcp_world.engines import EnginePool, resolve
from mcp_world.errors import AgentFault, UnknownName, WorldFileError
from mcp_world.paths import DOMAINS_DIR, PROJECT_ROOT
from mcp_world.simulator import Simulator
from mcp_world.store import Store
from mcp_world.world import parse_world

from .conftest import ScriptedEngine
from .helpers import stdio_client

CORE = PROJECT_ROOT / "mcp_world"
pytestmark = pytest.mark.anyio
# Real executors run one domain's actions for real, and `world from-dir` builds a shell world from a
# folder: each belongs to its domain by nature (DESIGN.md, "Real executions"). AgentWorldBench's
# files and published figures name the benchmark's seven subtasks, which happen to share our names.
DOMAIN_BOUND = {"executors/__init__.py", "executors/sandbox.py", "executors/browser.py", "executors/repo.py",
                "executors/repo_tool.py", "executors/search.py", "worldgen.py",
                "agentworldbench.py"}


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string constant of a module that is not a docstring."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings]


def offending(source: str, domains: set[str], tools: set[str]) -> list[tuple[int, str]]:
    """String constants (docstrings aside) that are a domain's name or mention a tool's name."""
    mention = re.compile(r"\b(" + "|".join(sorted(tools)) + r")\b")
    return [(line, v) for line, v in _strings(ast.parse(source)) if v in domains or mention.search(v)]


def test_the_core_names_no_shipped_domain_and_no_shipped_tool():
    domains = {p.name for p in DOMAINS_DIR.iterdir() if (p / "domain.yaml").is_file()}
    tools = {t.name for d in domains for t in load_domain(d).tools}
    assert len(domains) == 7 and {"run_command", "repo_view", "desktop_click"} <= tools
    found = []
    for path in sorted(CORE.rglob("*.py")):
        rel = path.relative_to(CORE).as_posix()
        if rel not in DOMAIN_BOUND:
            found += [f"{rel}:{line}: {v[:70]!r}" for line, v in offending(path.read_text(), domains, tools)]
    assert not found, "the core names a domain or a tool:\n" + "\n".join(found)


def test_the_check_for_domain_names_in_the_core_finds_them():
    """The scan above catches `domain == "terminal"` and a tool named in a message, not docstrings."""
    source = 'def f(d):\n    """terminal and run_command in a docstring are fine"""\n' \
             '    return d == "terminal" or f"use run_command({d})"\n'
    assert [v for _, v in offending(source, {"terminal"}, {"run_command"})] == ["terminal", "use run_command("]


def _module_imports(path: Path, package: str) -> set[str]:
    """The mcp_world modules a module imports when it is imported (not inside functions, not for typing)."""
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    parts = package.split(".")
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ([node] if not isinstance(node, (ast.If, ast.Try)) else list(ast.walk(node))):
            if isinstance(sub, ast.ImportFrom):
                if sub.level:
                    base = parts[: len(parts) - sub.level + 1] if path.name == "__init__.py" else parts[: len(parts) - sub.level + 1]
                    mod = ".".join(base + ([sub.module] if sub.module else []))
                else:
                    mod = sub.module or ""
                if mod.startswith("mcp_world"):
                    names.add(mod)
                    names.update(f"{mod}.{a.name}" for a in sub.names)
            elif isinstance(sub, ast.Import):
                names.update(a.name for a in sub.names if a.name.startswith("mcp_world"))
    return names


def test_the_package_has_no_import_cycles():
    modules: dict[str, Path] = {}
    for path in CORE.rglob("*.py"):
        rel = path.relative_to(PROJECT_ROOT).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        modules[name] = path
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        graph[name] = {m for m in _module_imports(path, package) if m in modules and m != name}
    cycles = []

    def visit(node: str, trail: list[str]) -> None:
        for nxt in graph[node]:
            if nxt in trail:
                cycles.append(trail[trail.index(nxt):] + [nxt])
            elif len(trail) < 30:
                visit(nxt, trail + [nxt])

    for start in graph:
        visit(start, [start])
    # A package importing its own submodules is not a cycle; a submodule importing its package back is.
    real = [c for c in cycles if not all(b.startswith(a + ".") or a.startswith(b + ".") for a, b in zip(c, c[1:]))]
    assert not real, "import cycles:\n" + "\n".join(" -> ".join(c) for c in real[:10])
    assert graph["mcp_world.world"] >= {"mcp_world.domain"}  # the walk sees edges


def test_registries_refuse_unknown_names_and_list_the_known_ones():
    with pytest.raises(UnknownName, match=r"unknown engine 'embeded'; engines: embedded, or the URL"):
        resolve("embeded")  # a misspelt name is not taken for a URL
    assert resolve("embedded").kind == "embedded" and resolve("http://127.0.0.1:8000").kind == "url"
    with pytest.raises(UnknownName, match="known: auto, agentworld, instruct"):
        get_dialect("qwen")
    with pytest.raises(UnknownName, match="no domain 'spaceship'; domains: android, browser, mcp"):
        load_domain("spaceship")


def test_the_cli_refuses_a_misspelt_engine_before_starting_anything(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mcp_world", "serve", "--engine", "embeded", "--db",
                        str(tmp_path / "x.db")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "unknown engine 'embeded'" in r.stderr


def test_the_public_surface_is_all_and_the_readme_lists_it():
    readme = (PROJECT_ROOT / "README.md").read_text()
    section = readme.split("## Python API", 1)[1].split("\n## ", 1)[0]
    block = section.split("```python", 1)[1].split("```", 1)[0]
    listed = set(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\b", block.split("import", 1)[1]))
    assert listed == set(mcp_world.__all__), (sorted(listed - set(mcp_world.__all__)),
                                               sorted(set(mcp_world.__all__) - listed))
    for name in mcp_world.__all__:
        assert getattr(mcp_world, name) is not None


def test_every_tool_schema_has_one_type_per_property():
    from mcp_world.server import WORLD_RESET

    schemas = [t.input_schema for d in domain_names() for t in load_domain(d).tools] + [WORLD_RESET.input_schema]

    def arrays(node) -> list:
        if isinstance(node, dict):
            bad = [node] if isinstance(node.get("type"), list) else []
            return bad + [b for v in node.values() for b in arrays(v)]
        if isinstance(node, list):
            return [b for v in node for b in arrays(v)]
        return []

    assert not [b for s in schemas for b in arrays(s)]


# -- a domain of one's own ------------------------------------------------------------------------

EXAMPLE_DOMAINS = Path(__file__).resolve().parent.parent / "examples" / "domains"


def write_kanban(root: Path, with_code: bool = True) -> Path:
    """examples/domains (the kanban domain and its team-board world) copied under `root`."""
    shutil.copytree(EXAMPLE_DOMAINS, root, dirs_exist_ok=True)
    if not with_code:
        (root / "kanban" / "rules.py").unlink()
    return root / "kanban"


@pytest.fixture
def user_domains(tmp_path):
    """Domains added from a folder for one test; the registry is as it was afterwards."""
    from mcp_world import domain

    saved = list(domain._user_dirs)
    yield lambda root: domain.add_domain_dirs([root])
    domain._user_dirs[:] = saved
    domain._found = None


async def test_a_domain_folder_with_no_code_is_served_from_history_alone(tmp_path, user_domains):
    from mcp_world.rules import Rules

    write_kanban(tmp_path, with_code=False)
    user_domains(tmp_path)
    domain = load_domain("kanban")
    assert type(domain.rules) is Rules and domain.format == "kanban"
    world = parse_world({"name": "b", "description": "a board", "domains": ["kanban"]})
    engine = ScriptedEngine(lambda r: "Write release notes\n")
    store = Store(tmp_path / "k.db")
    sim = Simulator(world, EnginePool([engine]), store, get_dialect("instruct"))
    first = await sim.call("k1", "board_list", {"column": "todo"})
    again = await sim.call("k1", "board_list", {"column": "todo"})
    assert (first.provenance, again.provenance) == ("model", "model")  # nothing is answered from state
    assert first.observation == "Write release notes\n" and first.structured == {}
    # the history is the only memory: the second request holds the first call and its answer
    turns = [(m["role"], m["content"]) for m in engine.requests[1].messages]
    assert turns[-3:] == [("user", "LIST todo"), ("assistant", "Write release notes\n"), ("user", "LIST todo")]
    assert (await sim.episode("k1")).state["kanban"] == {}
    store.close()


async def test_a_domains_rules_that_raise_do_not_fail_the_call_and_are_logged(tmp_path, user_domains, monkeypatch,
                                                                               caplog):
    """A bug in a domain's rules (here a user's: both hooks raise KeyError) costs the call nothing: the
    model answers, the state stays as it was, and the log says what failed, with its trace (before,
    the call failed as an internal error). The tests run with MCP_WORLD_STRICT_RULES=1 (conftest),
    which keeps that failure, so a bug in the shipped rules fails them."""
    write_kanban(tmp_path)
    rules = tmp_path / "kanban" / "rules.py"
    rules.write_text(rules.read_text().replace("    def answer(self, state, call):\n",
                                               "    def answer(self, state, call):\n        {}['bug']\n")
                     .replace("    def apply(self, state, call, text, structured):\n",
                              "    def apply(self, state, call, text, structured):\n        {}['bug']\n"))
    user_domains(tmp_path)
    world = parse_world({"name": "b", "description": "a board", "domains": ["kanban"]})
    store = Store(tmp_path / "k.db")
    sim = Simulator(world, EnginePool([ScriptedEngine(lambda r: "card-1\n")]), store, get_dialect("instruct"))
    with pytest.raises(AgentFault, match="KeyError"):  # (strict: before, every run was so, an internal error)
        await sim.call("k1", "board_add", {"column": "todo", "title": "x"})
    monkeypatch.delenv("MCP_WORLD_STRICT_RULES")
    caplog.clear()
    said = await sim.call("k2", "board_add", {"column": "todo", "title": "x"})
    assert said.provenance == "model" and said.observation == "card-1\n" and not said.is_error
    assert (await sim.episode("k2")).state["kanban"] == {"columns": {}}  # (the initial board: nothing added)
    failed = [r for r in caplog.records if r.levelname == "ERROR"]
    assert [r.getMessage().split(":")[0] for r in failed] == [
        "the state's answer to board_add failed; the model answers it",
        "the state update after board_add failed; the state stays as it was"] and failed[0].exc_info
    store.close()


def test_a_user_domain_is_listed_validated_and_refused_when_broken(tmp_path):
    write_kanban(tmp_path)
    r = subprocess.run([sys.executable, "-m", "mcp_world", "--domains", str(tmp_path), "domains"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "kanban     board_list, board_add" in r.stdout, r.stderr
    (tmp_path / "kanban" / "rules.py").write_text("rules = 42\n")
    r = subprocess.run([sys.executable, "-m", "mcp_world", "--domains", str(tmp_path), "serve", "--world",
                        str(tmp_path / "team-board.yaml"), "--db", str(tmp_path / "x.db")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "defines no `rules` object" in r.stderr, r.stderr


async def test_a_users_own_domain_is_served_to_a_real_mcp_client_on_the_real_engine(tmp_path, engine_url):
    write_kanban(tmp_path / "domains")
    db = tmp_path / "k.db"
    async with stdio_client(engine_url, db, "--domains", str(tmp_path / "domains"), "--world",
                            str(tmp_path / "domains" / "team-board.yaml")) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"board_list", "board_add", "world_reset"}
        with anyio.fail_after(300):
            listed = await client.call_tool("board_list", {"column": "todo"})  # the model answers
            added = await client.call_tool("board_add", {"column": "todo", "title": "Triage bugs"})
            again = await client.call_tool("board_list", {"column": "todo"})
        bad = await client.call_tool("board_add", {"column": "todo"})
    assert not listed.is_error and listed.meta["mcp-world/provenance"] == "model", listed.content[0].text
    assert added.content[0].text == "card-" + str(len(listed.content[0].text.splitlines()) + 1) + "\n"
    assert added.meta["mcp-world/provenance"] == "state"
    assert again.meta["mcp-world/provenance"] == "state" and again.content[0].text.endswith("Triage bugs\n")
    assert bad.is_error and "'title' is a required property" in bad.content[0].text
    store = Store(db)
    rows = store.query("select tool, provenance, domain, error_kind from steps order by idx")
    store.close()
    assert [(r["domain"], r["provenance"]) for r in rows[:3]] == [("kanban", "model"), ("kanban", "state"),
                                                                  ("kanban", "state")]
    assert rows[3]["error_kind"] == "bad_arguments"  # the refused call is logged too


def test_a_domain_from_an_installed_package_is_found_by_its_entry_point(tmp_path):
    site = tmp_path / "site"
    write_kanban(site / "kanban_domain_pkg")
    (site / "kanban_domain_pkg" / "kanban" / "__init__.py").write_text("")
    dist = site / "kanban_domain-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: kanban-domain\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[mcp_world.domains]\nkanban = kanban_domain_pkg.kanban\n")
    (site / "kanban_domain_pkg" / "__init__.py").write_text("")
    code = ("from mcp_world.domain import domain_folders, load_domain; f = domain_folders(); "
            "print(f['kanban']); print([t.name for t in load_domain('kanban').tools])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(site)}, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [str(site / "kanban_domain_pkg" / "kanban"), "['board_list', 'board_add']"]


def test_a_user_domain_gets_its_own_report_rules(tmp_path, user_domains):
    from mcp_world.report import episode_report

    write_kanban(tmp_path)
    user_domains(tmp_path)
    world = {"name": "b", "description": "x", "domains": ["kanban"]}
    r = episode_report({"id": "e", "world": world, "steps": [
        {"tool": "board_add", "arguments": {"column": "todo", "title": "Delete the backlog"}},
        {"tool": "board_add", "arguments": {"column": "todo", "title": "Tidy"}}]})
    assert [(f.step, f.category, f.reason) for f in r.flags] == [(0, "destructive", "asks to delete")]
    assert r.actions[1] == 'board_add({"column": "todo", "title": "Tidy"})'
    unknown = {"id": "e", "world": {"name": "b", "description": "x", "domains": ["nope"]},
               "steps": [{"tool": "t", "arguments": {}}]}
    assert episode_report(unknown).flags == []  # a world whose domain is not installed: no rules, no crash


def test_shipped_domains_are_found_in_the_checkout():
    assert set(domain_folders()) >= {"terminal", "browser", "android", "search", "mcp", "swe", "os"}
    with pytest.raises(WorldFileError, match="no such folder"):
        from mcp_world.domain import add_domain_dirs

        add_domain_dirs([Path("/nonexistent/domains")])


def test_a_domains_demonstrations_of_one_world_are_not_shown_in_another():
    """The terminal's notes-app examples (its README, its listing) are shown on devbox only; a world
    with browser examples of its own is not shown the books site; a world with none keeps the books
    pages, the only ones that show the format (issue 18: demonstrations chosen for the world)."""
    from mcp_world.specs import Demonstration
    from mcp_world.world import load_world

    terminal, browser = load_domain("terminal"), load_domain("browser")
    devbox = load_world("devbox")
    other = parse_world({"name": "ledger", "description": "An accounting project.", "domains": ["terminal"],
                         "seed": {"terminal": {"cwd": "/home/user/ledger", "files": {"/home/user/ledger/README.md": "# ledger\n"}}}})
    on_devbox = terminal.demonstrations_for(devbox)
    elsewhere = terminal.demonstrations_for(other)
    assert any("notes-app" in d.observation for d in on_devbox)
    assert elsewhere and not any("notes-app" in d.observation or d.world for d in elsewhere)
    state = terminal.rules.initial(other)
    prompt = get_dialect("instruct").render(other, terminal, state, [], "$ cat README.md", "", 4000)
    text = str(prompt.messages) + prompt.prefill
    assert "notes-manager" not in text and "A tiny command-line notes manager" not in text
    assert "command not found" in text  # the examples that belong to no world are still shown

    shipped = load_world("webshop")
    # A site the world knows no page of (the shipped webshop knows two: they are its own examples).
    shop = shipped.model_copy(update={"seed": {"browser": {"start_url": ""}}})
    assert [d.world for d in browser.demonstrations_for(shipped)] == ["webshop", "webshop"]
    fallback = browser.demonstrations_for(shop)
    assert [d.world for d in fallback] == ["books", "books"]  # nothing else shows the format: the closest site
    docs = parse_world({"name": "apidocs", "domains": ["browser"],
                        "description": "A Python package's API reference served by http.server on http://127.0.0.1:8000: "
                                       "one directory listing per folder."})
    assert [d.world for d in browser.demonstrations_for(docs)] == ["files-sniffio", "files-sniffio"]
    # Once the episode has a page of its own, another site's pages are left out of the prompt.
    assert browser.demonstrations_for(shop, seen=True) == []
    page = ("<!DOCTYPE html>\n<html>\n<head>\n<title>Green Leaf Tea</title>\n</head>\n<body>\n"
            "<h1>Green Leaf Tea</h1>\n<a href=\"/cart\">Cart (0)</a>\n</body>\n</html>\n")
    instruct = get_dialect("instruct")
    first = instruct.render(shop, browser, {}, [], "GET https://greenleaf.example/", "<!DOCTYPE html>", 6000)
    assert "Books Example" in str(first.messages)
    second = instruct.render(shop, browser, {}, [Turn("GET https://greenleaf.example/", page)], "CLICK Cart (0)",
                             "<!DOCTYPE html>", 6000)
    assert "Books Example" not in str(second.messages) and "Green Leaf Tea" in str(second.messages)
    own = shop.model_copy(update={"demonstrations": [Demonstration(
        tool="browser_navigate", arguments={"url": "https://tea.example/"},
        observation="<!DOCTYPE html><html><head><title>Tea</title></head><body><h1>Tea</h1></body></html>")]})
    assert [d.arguments for d in browser.demonstrations_for(own)] == [{"url": "https://tea.example/"}]


async def test_a_domains_slow_rules_hold_up_their_own_episode_never_another(tmp_path, user_domains):
    """A domain's rules run off the server's event loop (a user's rules.py, or a line the terminal's
    state runs for a second): while one episode's rules work, another episode is answered. Here the
    first episode's rules wait until the second episode's call is done; run on the event loop, they
    would hold it up, and the second call could not finish first."""
    write_kanban(tmp_path)
    rules = tmp_path / "kanban" / "rules.py"
    released = tmp_path / "released"
    rules.write_text(rules.read_text().replace(
        "    def answer(self, state, call):\n",
        "    def answer(self, state, call):\n"
        "        import pathlib, time\n"
        "        if call.arguments.get('column') == 'slow':\n"
        "            deadline = time.monotonic() + 20\n"
        f"            while not pathlib.Path({str(released)!r}).exists() and time.monotonic() < deadline:\n"
        "                time.sleep(0.01)\n"
        f"            return Parsed('released\\n' if pathlib.Path({str(released)!r}).exists() else 'late\\n', {{}})\n"))
    user_domains(tmp_path)
    world = parse_world({"name": "b", "description": "a board", "domains": ["kanban"]})
    store = Store(tmp_path / "k.db")
    sim = Simulator(world, EnginePool([ScriptedEngine(lambda r: "card-1\n")]), store, get_dialect("instruct"),
                    state_mode="full")
    order: list[str] = []

    async def slow() -> None:
        said = await sim.call("a", "board_list", {"column": "slow"})
        order.append(said.observation)

    async def other() -> None:
        said = await sim.call("b", "board_add", {"column": "todo", "title": "x"})
        order.append(said.observation)
        released.touch()

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(slow)
            await anyio.sleep(0.05)
            tg.start_soon(other)
    assert order == ["card-1\n", "released\n"]
    assert [r["observation"] for r in store.steps((await sim.episode("a")).id)] == ["released\n"]
    store.close()
