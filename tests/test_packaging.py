"""The wheel carries everything `serve` needs — the shipped domains (data and code), worlds, task
files, real episodes and the adapter — and a non-editable install of it serves `devbox` to a real
MCP client, from a folder that is not the checkout."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from mcp_world.paths import PROJECT_ROOT

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
                    str(PROJECT_ROOT)], check=True, timeout=300, capture_output=True)
    return next(out.glob("mcp_world-*.whl"))


def test_the_wheel_carries_the_domains_worlds_tasks_real_episodes_and_adapter(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for domain in ("terminal", "browser", "android", "search", "mcp", "swe", "os"):
        assert f"mcp_world_domains/{domain}/domain.yaml" in names
        assert f"mcp_world_domains/{domain}/prompt.md" in names
    assert {"mcp_world_domains/terminal/rules/shell.py", "mcp_world_domains/android/grammar.gbnf",
            "mcp_world_domains/swe/grammar.repo_run_tests.gbnf", "mcp_world_domains/browser/rules.py"} <= names
    assert {"mcp_world_fixtures/worlds/devbox.yaml", "mcp_world_fixtures/tasks/devbox.yaml",
            "mcp_world_fixtures/probes.yaml", "mcp_world_fixtures/real/devbox-terminal.jsonl",
            "mcp_world_adapters/devbox-rwml/adapter_model.safetensors",
            "mcp_world_adapters/devbox-rwml/adapter_config.json", "mcp_world/rules.py",
            "mcp_world_fixtures/real/desktop.jsonl.xz"} <= names
    from mcp_world import embedded

    # the adapter served by default, and the one served on terminal worlds, travel with their reports
    for served in (embedded.DEFAULT_ADAPTER.name, embedded.adapter_for(["terminal"]).name):
        assert {f"mcp_world_adapters/{served}/{f}" for f in ("adapter_model.safetensors", "adapter_config.json",
                                                             "report.json")} <= names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    # Every module of the package travels (a subpackage left out of setuptools' list would not).
    root = Path(__file__).resolve().parent.parent
    modules = {str(p.relative_to(root)) for p in (root / "mcp_world").rglob("*.py") if "__pycache__" not in p.parts}
    assert modules <= names, sorted(modules - names)
    # ... and the viewer's templates and static files (package data, not modules).
    viewer = {str(p.relative_to(root)) for p in (root / "mcp_world" / "viewer").rglob("*")
              if p.is_file() and p.suffix in (".html", ".css", ".js")}
    assert viewer and viewer <= names, sorted(viewer - names)


async def test_a_non_editable_install_serves_devbox_from_anywhere(wheel, tmp_path, engine_url):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True,
                   timeout=300, capture_output=True)
    # The dependencies come from the project's environment (installing them again would take minutes);
    # mcp-world itself only from the wheel.
    site = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"], check=True,
                          capture_output=True, text=True).stdout.strip()
    Path(site, "project-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    where = subprocess.run([str(python), "-c", "import mcp_world.paths as p; print(p.DOMAINS_DIR); "
                            "print(p.WORLDS_DIR); print(p.ADAPTERS_DIR)"],
                           check=True, capture_output=True, text=True, cwd=tmp_path).stdout.split()
    assert all(w.startswith(site) for w in where), where
    listed = subprocess.run([str(python), "-m", "mcp_world", "worlds"], check=True, capture_output=True, text=True,
                            cwd=tmp_path, timeout=120).stdout
    assert "devbox" in listed and "desktop" in listed
    params = StdioServerParameters(command=str(python), cwd=str(tmp_path), args=[
        "-m", "mcp_world", "serve", "--transport", "stdio", "--engine", engine_url, "--world", "devbox",
        "--db", str(tmp_path / "w.db"), "--seed", "0"])
    async with Client(params) as client:
        with anyio.fail_after(300):
            tools = [t.name for t in (await client.list_tools()).tools]
            pwd = await client.call_tool("run_command", {"command": "pwd"})
            who = await client.call_tool("run_command", {"command": "groups"})
    assert tools == ["run_command", "world_reset"]
    assert pwd.content[0].text == "/home/user/notes-app\n" and pwd.meta["mcp-world/provenance"] == "state"
    assert not who.is_error and who.meta["mcp-world/provenance"] == "model", who.content[0].text
