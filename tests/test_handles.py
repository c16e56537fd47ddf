"""Episode handles on the real server (a subprocess on the real embedded engine): the server mints
the episode, any MCP client drives it at its own endpoint with no header, `verify` scores it from
the state and log, and hundreds live at once without seeing each other."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client

from .helpers import http_server

pytestmark = pytest.mark.anyio


def base(url: str) -> str:
    return url.removesuffix("/mcp")


async def test_a_handle_is_one_episode_that_any_mcp_client_drives_and_verify_scores(engine_url: str, tmp_path: Path):
    with http_server(engine_url, tmp_path / "e.db", "--world", "devbox") as (url, _):
        async with httpx.AsyncClient(base_url=base(url), timeout=300) as h:
            opened = (await h.post("/episodes", json={"task": "branch", "seed": 5})).json()
            idle = (await h.post("/episodes", json={"task": "branch"})).json()
            assert opened["instruction"] == "Create a branch feature/search and switch to it."
            assert opened["episode_id"].startswith("ep-") and len(opened["episode_id"]) >= 24
            assert opened["episode_id"] != idle["episode_id"]
            assert opened["mcp_url"] == f"{base(url)}/episodes/{opened['episode_id']}/mcp"
            assert [t["name"] for t in opened["tools"]] == ["run_command"] and opened["seed"] == 5

            async with Client(opened["mcp_url"], read_timeout_seconds=300) as c:  # no X-Episode-Id anywhere
                names = [t.name for t in (await c.list_tools()).tools]
                result = await c.call_tool("run_command", {"command": "git checkout -b feature/search"})
                asked = await c.call_tool("run_command", {"command": "groups"})
                refused = await c.call_tool("world_reset", {})
            assert names == ["run_command"], "world_reset must not be offered on a handle"
            # creating the branch is answered from the episode's state (git's own line), groups by the engine
            assert result.content[0].text == "Switched to a new branch 'feature/search'\n"
            assert not result.is_error and result.meta["mcp-world/provenance"] == "state"
            assert not asked.is_error and asked.meta["mcp-world/provenance"] == "model"
            assert result.meta["mcp-world/episode"] == opened["episode_id"]
            assert refused.is_error and "POST /episodes" in refused.content[0].text
            async with Client(idle["mcp_url"], read_timeout_seconds=300) as c:
                assert [t.name for t in (await c.list_tools()).tools] == names

            done = (await h.post(f"/episodes/{opened['episode_id']}/verify", json={})).json()
            untouched = (await h.post(f"/episodes/{idle['episode_id']}/verify", json={})).json()
            assert done["reward"] == 1.0, done
            assert [c["passed"] for c in done["checks"]] == [True, True]
            assert untouched["reward"] == pytest.approx(1 / 3), "the other episode must not see this branch"
            assert "on branch main" in untouched["checks"][0]["detail"]

            shown = (await h.get(f"/episodes/{opened['episode_id']}")).json()
            assert shown["live"] and shown["reward"] == 1.0 and shown["task"] == "branch"
            assert [s["tool"] for s in shown["steps"]] == ["run_command"] * 2  # the refused world_reset changed nothing
            assert shown["steps"][0]["arguments"] == {"command": "git checkout -b feature/search"}

            assert (await h.delete(f"/episodes/{opened['episode_id']}")).json() == {
                "episode_id": opened["episode_id"], "ended": True}
            again = await h.post(f"/episodes/{opened['episode_id']}/verify", json={})
            assert again.status_code == 404 and "has ended" in again.json()["error"]
            gone = await h.post(f"/episodes/{opened['episode_id']}/mcp",
                                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            assert gone.status_code == 404 and "has ended" in gone.json()["error"]
            assert (await h.get(f"/episodes/{opened['episode_id']}")).json()["live"] is False  # the log stays


async def test_bad_requests_get_clear_errors_and_lose_nothing(engine_url: str, tmp_path: Path):
    with http_server(engine_url, tmp_path / "e.db", "--world", "devbox") as (url, _):
        async with httpx.AsyncClient(base_url=base(url), timeout=300) as h:
            good = (await h.post("/episodes", json={"task": "explore"})).json()
            async with Client(good["mcp_url"], read_timeout_seconds=300) as c:
                await c.call_tool("run_command", {"command": "pwd"})
            cases = [
                ({"world": "atlantis"}, 404, ["cannot be served here", "devbox"]),
                ({"task": "nope"}, 404, ["no task 'nope' for world 'devbox'", "branch", "inline"]),
                ({"seed": -1}, 400, ["seed must be an integer"]),
                ({"colour": "red"}, 400, ["unknown fields ['colour']", "world, task, seed, mode"]),
                ({"mode": "dream"}, 400, ["mode must be one of simulation, real"]),
                ({"mode": "real"}, 400, ["mode 'real' needs a real executor", "terminal", "--shadow"]),
                ({"task": {"id": "x", "instruction": "i", "success": [{"kind": "git_branch", "equal": "x"}]}}, 400,
                 ["success[0]", "equal", "Extra inputs"]),
                ({"task": 7}, 400, ["task must be a task id"]),
                ({"task": "t" * 100_000}, 404, ["no task 'tttt", "(… 100000 characters)"]),  # (not echoed whole)
                ({"world": "w" * 100_000}, 404, ["world 'wwww", "cannot be served here"]),
            ]
            for body, status, says in cases:
                r = await h.post("/episodes", json=body)
                assert r.status_code == status, (body, r.text)
                assert all(part in r.json()["error"] for part in says) and len(r.text) < 2_000, (body, r.text[:300])
            raw = await h.post("/episodes", content=b"{not json", headers={"content-type": "application/json"})
            assert raw.status_code == 400 and "JSON object" in raw.json()["error"]
            deep = await h.post("/episodes", content=b'{"a":' * 5000 + b"1" + b"}" * 5000,
                                headers={"content-type": "application/json"})  # (a RecursionError, a 500, before)
            assert deep.status_code == 400 and "nested deeper" in deep.json()["error"]
            unknown = await h.post("/episodes/ep-madeup/verify", json={})
            assert unknown.status_code == 404 and "not an episode this server opened" in unknown.json()["error"]
            no_task = (await h.post("/episodes", json={})).json()
            r = await h.post(f"/episodes/{no_task['episode_id']}/verify", json={})
            assert r.status_code == 409 and "without a task" in r.json()["error"]
            r = await h.post(f"/episodes/{good['episode_id']}/verify", json={"answer": 5})
            assert r.status_code == 400 and "answer must be a string" in r.json()["error"]
            # Nothing logged was lost, and the good episode goes on.
            kept = (await h.get(f"/episodes/{good['episode_id']}")).json()
            assert [s["arguments"]["command"] for s in kept["steps"]] == ["pwd"]
            verdict = (await h.post(f"/episodes/{good['episode_id']}/verify", json={"answer": "a notes app"})).json()
            assert verdict["task"] == "explore" and verdict["reward"] == 0.0  # it never read the README


async def test_256_live_episodes_keep_their_own_state(engine_url: str, tmp_path: Path):
    """Opened at once; each moves to its own folder (answered from the state) and is verified
    against an inline task; none sees another's."""
    with http_server(engine_url, tmp_path / "e.db", "--world", "devbox") as (url, _):
        async with httpx.AsyncClient(base_url=base(url), timeout=300,
                                     limits=httpx.Limits(max_connections=64)) as h:
            def task(folder: str) -> dict:
                return {"id": f"in-{folder}", "instruction": f"go to {folder}",
                        "success": [{"kind": "cwd", "path": folder}]}

            handles: list[dict] = [{}] * 256

            async def one(i: int) -> None:
                folder = "src" if i % 2 else "tests"
                handles[i] = (await h.post("/episodes", json={"task": task(folder)})).json()

            async with anyio.create_task_group() as tg:
                for i in range(256):
                    tg.start_soon(one, i)
            assert len({x["episode_id"] for x in handles}) == 256
            assert (await h.get("/episodes")).json()["live"] == 256

            sem = anyio.Semaphore(16)

            async def act(i: int) -> None:
                async with sem, Client(handles[i]["mcp_url"], read_timeout_seconds=300) as c:
                    r = await c.call_tool("run_command", {"command": "cd src" if i % 4 in (1, 2) else "cd tests"})
                    assert r.meta["mcp-world/provenance"] == "state"

            async with anyio.create_task_group() as tg:
                for i in range(256):
                    tg.start_soon(act, i)
            rewards = []
            for i, x in enumerate(handles):
                rewards.append((await h.post(f"/episodes/{x['episode_id']}/verify", json={})).json()["reward"])
            # Episode i was asked for src when odd and went to src when i % 4 is 1 or 2: it passes
            # exactly when the two agree.
            assert rewards == [1.0 if (i % 2 == 1) == (i % 4 in (1, 2)) else 0.0 for i in range(256)]


async def test_handles_need_the_bearer_token_when_the_server_has_one(engine_url: str, tmp_path: Path):
    tasks = tmp_path / "mine.yaml"
    tasks.write_text("world: devbox\ntasks:\n  - id: mine\n    instruction: Go to src.\n"
                     "    success:\n      - {kind: cwd, path: src}\n")
    with http_server(engine_url, tmp_path / "e.db", "--world", "devbox", "--token", "s3cret",
                     "--tasks", str(tasks)) as (url, _):
        async with httpx.AsyncClient(base_url=base(url), timeout=300) as h:
            assert (await h.post("/episodes", json={})).status_code == 401
            auth = {"Authorization": "Bearer s3cret"}
            opened = (await h.post("/episodes", json={"task": "mine"}, headers=auth)).json()
            assert opened["instruction"] == "Go to src."  # a task from --tasks
            r = await h.post(f"/episodes/{opened['episode_id']}/mcp",
                             json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            assert r.status_code == 401
            assert (await h.post(f"/episodes/{opened['episode_id']}/verify", json={})).status_code == 401
            verdict = (await h.post(f"/episodes/{opened['episode_id']}/verify", json={}, headers=auth)).json()
            assert verdict["reward"] == 0.0 and verdict["checks"][0]["detail"] == "the shell is in /home/user/notes-app"


async def test_real_episodes_beside_simulated_ones_and_their_checks_read_the_real_sandbox(engine_url: str,
                                                                                           tmp_path: Path):
    """One server, `--shadow terminal`: an episode opened with mode real gets the bubblewrap sandbox's
    answers, and its task's checks read the sandbox's files and repository (not the explicit state,
    which knows nothing of a compound command's effects); a simulated episode beside it reads its
    state. A link the agent makes to a host file reads what the sandbox sees: nothing of the host."""
    import os

    host = Path("/var/tmp") / f"mcp-world-verify-{os.getpid()}.txt"
    host.write_text("host secret\n")
    os.chmod(host, 0o644)
    task = {"id": "docs", "instruction": "Add docs/notes.md on a branch feature/docs and commit it.", "success": [
        {"kind": "file_exists", "path": "docs", "type": "dir"},
        {"kind": "file_contains", "path": "docs/notes.md", "text": "hello"},
        {"kind": "git_branch", "equals": "feature/docs"},
        {"kind": "git_commit", "message_contains": "add docs"},
        {"kind": "file_contains", "path": "leak", "text": "host secret"}]}
    work = ("mkdir docs && echo hello > docs/notes.md && git checkout -q -b feature/docs && git add docs && "
            "git -c user.name=u -c user.email=u@devbox commit -q -m 'add docs' && ln -s " + str(host) + " leak && "
            "echo made")
    try:
        with http_server(engine_url, tmp_path / "e.db", "--world", "devbox", "--shadow", "terminal") as (url, _):
            async with httpx.AsyncClient(base_url=base(url), timeout=300) as h:
                listed = (await h.get("/episodes")).json()
                assert listed["modes"] == ["simulation", "real"] and listed["real_domains"] == ["terminal"]
                real = (await h.post("/episodes", json={"task": task, "mode": "real"})).json()
                sim = (await h.post("/episodes", json={"task": task})).json()
                assert (real["mode"], real["real_domains"], sim["mode"]) == ("real", ["terminal"], "simulation")
                async with Client(real["mcp_url"], read_timeout_seconds=300) as c:
                    refused = await c.call_tool("run_command", {"command": "mkdir -r docs"})
                    made = await c.call_tool("run_command", {"command": work})
                assert refused.meta["mcp-world/provenance"] == "real"
                assert "invalid option" in refused.structured_content["output"]
                assert made.structured_content["output"] == "made\n", made.structured_content
                async with Client(sim["mcp_url"], read_timeout_seconds=300) as c:
                    simulated = await c.call_tool("run_command", {"command": "pwd"})
                assert simulated.meta["mcp-world/provenance"] in ("state", "model")

                done = (await h.post(f"/episodes/{real['episode_id']}/verify", json={})).json()
                assert [c["passed"] for c in done["checks"]] == [True, True, True, True, False], done
                assert all("(in the real sandbox)" in c["detail"] for c in done["checks"]), done
                # The link is there, its target (a host file) is not: the host file is never read through it.
                assert done["checks"][4]["detail"] == \
                    "/home/user/notes-app/leak (in the real sandbox) exists, its content unknown"
                assert done["reward"] == pytest.approx(0.8)
                other = (await h.post(f"/episodes/{sim['episode_id']}/verify", json={})).json()
                assert other["reward"] == 0.0 and "sandbox" not in other["checks"][0]["detail"]
                assert (await h.get(f"/episodes/{real['episode_id']}")).json()["mode"] == "real"
    finally:
        host.unlink(missing_ok=True)
