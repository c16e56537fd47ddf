"""Shadow mode: the real terminal in a bubblewrap sandbox, beside the simulated one."""

import json
from pathlib import Path
import sqlite3
import subprocess
import sys

import anyio
import psutil
import pytest

from mcp_world.executors.sandbox import SandboxLimits, TerminalSandbox
from mcp_world.world import load_world

from .helpers import stdio_client


@pytest.fixture
def box():
    b = TerminalSandbox(load_world("devbox"), SandboxLimits(timeout_s=3, max_output_bytes=10_000))
    yield b
    b.close()


def run(box, cmd):
    return box.run(cmd, "/home/user/notes-app")


def test_the_world_seed_is_materialized_with_contents_and_git(box):
    assert run(box, "cat src/notes.py").output.startswith("def add(notes, text):")
    assert run(box, "ls").output == "README.md\nrequirements.txt\nsrc\ntests\n"
    assert run(box, "git log --oneline").output.endswith(" Initial commit\n")
    r = run(box, "whoami; hostname; pwd")
    assert r.output == "user\ndevbox\n/home/user/notes-app\n" and r.exit_code == 0


def test_a_folder_removed_under_the_shell_stays_the_working_folder(box):
    """As in a real shell: after `rm -rf` of the project the shell is in, `pwd` still prints it and
    `ls` lists nothing (the sandbox used to run the next command in the home: `ls` listed it)."""
    cwd = "/home/user/notes-app/src"
    assert box.run("rm -rf ../src", cwd).exit_code == 0
    assert box.run("pwd", cwd).output == cwd + "\n"
    r = box.run("ls", cwd)
    assert (r.output, r.exit_code) == ("", 0)
    assert box.run("cd .. && ls", cwd).output == "README.md\nrequirements.txt\ntests\n"
    assert box.run("ls", "/home/user/notes-app").output == "README.md\nrequirements.txt\ntests\n"  # nothing made


def test_writes_outside_the_scratch_folder_are_refused(box, tmp_path):
    for cmd in ("echo x > /usr/evil", "touch /evil", "mkdir /opt/evil"):
        assert run(box, cmd).exit_code != 0
    host_file = tmp_path / "host-secret.txt"
    host_file.write_text("secret")
    r = run(box, f"cat {host_file}; echo gone > {host_file}")
    assert r.exit_code != 0 and host_file.read_text() == "secret"
    assert run(box, "touch inside.txt && ls inside.txt").exit_code == 0
    assert (box.scratch / "home/user/notes-app/inside.txt").exists()


def test_host_files_outside_the_mounts_are_invisible_and_untouched_whatever_the_uid(box):
    """The checks above would pass on the uid drop alone (as root the sandbox runs unprivileged);
    these need the mounts: a host file anyone may read is not there, and a host folder anyone may
    write stays empty."""
    import os

    shared = Path("/var/tmp") / f"mcp-world-isolation-{os.getpid()}"
    shared.mkdir(exist_ok=True)
    os.chmod(shared, 0o777)
    readable = shared / "readable.txt"
    readable.write_text("host secret\n")
    os.chmod(readable, 0o644)
    try:
        r = run(box, f"cat {readable}; echo x > {shared}/written; ls /var/tmp; echo done")
        assert "host secret" not in r.output and "No such file or directory" in r.output and "done" in r.output
        assert sorted(p.name for p in shared.iterdir()) == ["readable.txt"]  # nothing was written there
    finally:
        for p in shared.iterdir():
            p.unlink()
        shared.rmdir()


def test_there_is_no_network_at_all(box):
    """Only an isolated network proves it: no interface but loopback, and a listener on the host's
    loopback sees no connection when the sandbox connects to that address and port."""
    from .helpers import watched_port

    with watched_port() as (port, seen):
        r = run(box, f"tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; echo ---; "
                     f"(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>&1 | head -1; echo tried")
    interfaces = r.output.split("---")[0].split()
    assert interfaces == ["lo"] and "tried" in r.output, r.output
    assert not seen  # the host's listener saw nothing: the sandbox's 127.0.0.1 is its own


def test_host_secrets_are_not_there(box):
    assert "No such file" in run(box, "cat /etc/shadow").output
    assert run(box, "ls /root").exit_code != 0
    assert run(box, "ls -a ~").output.split() == [".", "..", ".bashrc", "notes-app"]


def test_sleep_past_the_limit_is_stopped(box):
    r = run(box, "sleep 30")
    assert r.timed_out and r.exit_code == 124 and "stopped after 3 s" in r.output


def test_endless_output_is_cut(box):
    r = run(box, "yes")
    assert r.truncated and len(r.output) < 11_000 and "output cut at 10000 bytes" in r.output


def limits_inside(box) -> dict[str, str]:
    lines = run(box, "cat /proc/self/limits").output.splitlines()[1:]
    return {ln[:26].strip(): ln[26:47].strip() for ln in lines}


def test_a_fork_bomb_is_capped_and_leaves_no_process_behind(box):
    # The cap must be in force before a real fork bomb runs (as a normal user the kernel counts the
    # user's own processes too, so the cap is that count plus the sandbox's allowance).
    cap = limits_inside(box)["Max processes"]
    assert cap.isdigit() and int(cap) <= box.limits.max_processes + len(psutil.pids()) * 64, cap
    before = len(psutil.pids())
    r = run(box, ":(){ :|:& };: ; sleep 1; echo survived")
    # The cap made forks fail ("Resource temporarily unavailable"); bash retries them with backoff, so
    # on a loaded machine the time limit may end the run before `echo survived`. Either way it ended
    # within the limit, and the machine, and the sandbox, kept working.
    assert "survived" in r.output or (r.timed_out or r.exit_code == 137) and "fork" in r.output, r
    assert run(box, "echo still-here").output == "still-here\n"
    anyio.run(anyio.sleep, 1)
    assert len(psutil.pids()) < before + 20
    assert not [p for p in psutil.process_iter(["cmdline"]) if str(box.scratch) in " ".join(p.info["cmdline"] or [])]


@pytest.fixture
def small():
    b = TerminalSandbox(load_world("devbox"), SandboxLimits(timeout_s=5, memory_bytes=256 << 20, disk_bytes=32 << 20,
                                                            tmp_bytes=8 << 20, file_bytes=16 << 20, open_files=64))
    yield b
    b.close()


def test_memory_files_tmp_and_open_files_are_limited_inside_the_sandbox(small):
    limits = limits_inside(small)
    assert limits["Max address space"] == str(256 << 20) and limits["Max file size"] == str(16 << 20)
    assert limits["Max open files"] == "64"
    r = run(small, "python3 -c 'x = bytearray(1 << 30)'; echo rc=$?")
    assert "MemoryError" in r.output and "rc=1" in r.output
    r = run(small, "head -c 32M /dev/zero > big; echo rc=$?; stat -c %s big")
    assert "File size limit exceeded" in r.output and f"\n{16 << 20}\n" in r.output
    r = run(small, "head -c 12M /dev/zero > /tmp/t; echo rc=$?; df -k /tmp | tail -1")
    assert "No space left on device" in r.output and "rc=1" in r.output and " 8192 " in r.output
    r = run(small, "unshare -U true; echo rc=$?")
    assert "unshare failed" in r.output and "rc=1" in r.output  # no nested user namespaces
    assert "Read-only file system" in run(small, "touch /etc/cron.d").output  # /etc is bound read-only


def test_a_full_home_says_no_space_left_and_the_host_disk_is_untouched(small, tmp_path):
    import os
    import shutil

    if os.geteuid() != 0:
        pytest.skip("the home is a sized tmpfs only where mcp-world runs as root (else: file-size limit only)")
    assert small.disk_limited
    free = shutil.disk_usage(tmp_path).free
    r = run(small, "for i in 1 2 3 4; do head -c 12M /dev/zero > part$i || echo failed-$i; done; ls part* | wc -l")
    assert "No space left on device" in r.output and "failed-3" in r.output, r.output
    assert abs(shutil.disk_usage(tmp_path).free - free) < 16 << 20  # the host's disk did not take the writes
    assert run(small, "rm part*; echo ok > after.txt; cat after.txt").output == "ok\n"  # and it recovers


def test_concurrent_sandboxes_have_separate_process_caps():
    import os

    if os.geteuid() != 0:
        pytest.skip("separate caps need a uid per sandbox, which only root can give")
    a = TerminalSandbox(load_world("devbox"), SandboxLimits(timeout_s=6, max_processes=32))
    b = TerminalSandbox(load_world("devbox"), SandboxLimits(timeout_s=6, max_processes=32))
    try:
        assert a.host_uid != b.host_uid
        import threading

        bomb = threading.Thread(target=a.run, args=(":(){ :|:& };:", "/home/user/notes-app"))
        bomb.start()
        anyio.run(anyio.sleep, 1)
        assert b.run("echo fine", "/home/user/notes-app").output == "fine\n"  # b is not starved by a's bomb
        bomb.join(timeout=30)
    finally:
        a.close()
        b.close()


def test_sandboxes_of_two_processes_never_run_as_one_uid(tmp_path):
    """Each process counted its sandboxes' uids from the same first one, so two processes (two
    servers, a server and `tasks run`, the tests' nets side by side) ran sandboxes as one user: one
    RLIMIT_NPROC for both, and a pipe in one failed with "fork: retry: Resource temporarily
    unavailable" while the other was busy. A uid is now leased across processes (a locked file per
    uid), and leased again only once its sandbox is closed."""
    import os

    if os.geteuid() != 0:
        pytest.skip("a uid per sandbox is given only as root")
    child = ("from mcp_world.executors.sandbox import SandboxLimits, TerminalSandbox\n"
             "from mcp_world.world import load_world\n"
             "boxes = [TerminalSandbox(load_world('devbox'), SandboxLimits()) for _ in range(3)]\n"
             "print(' '.join(str(b.host_uid) for b in boxes), flush=True)\n"
             "import sys; sys.stdin.read()\n"
             "[b.close() for b in boxes]\n")
    mine = [TerminalSandbox(load_world("devbox"), SandboxLimits()) for _ in range(3)]
    other = subprocess.Popen([sys.executable, "-c", child], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        theirs = {int(u) for u in other.stdout.readline().split()}
        assert len(theirs) == 3 and not theirs & {b.host_uid for b in mine}
        assert len({b.host_uid for b in mine}) == 3
    finally:
        other.communicate("", timeout=60)
        for b in mine:
            b.close()
    again = TerminalSandbox(load_world("devbox"), SandboxLimits())  # (a closed sandbox's uid is free again)
    again.close()


def test_scratch_folders_are_removed_at_close():
    b = TerminalSandbox(load_world("devbox"), SandboxLimits())
    scratch = b.scratch
    b.close()
    assert not scratch.exists()


def test_real_without_shadow_is_refused(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mcp_world", "serve", "--real", "terminal", "--db", str(tmp_path / "x.db")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--real terminal needs --shadow terminal" in r.stderr


@pytest.mark.anyio
async def test_shadow_mode_logs_real_beside_simulated_and_real_mode_returns_the_real_one(engine_url, tmp_path):
    db = tmp_path / "shadow.db"
    with anyio.fail_after(600):
        async with stdio_client(engine_url, db, "--shadow", "terminal", "--seed", "2") as c:
            for _ in range(3):  # the simulated answer must come back (the small model may need another try)
                sim = await c.call_tool("run_command", {"command": "groups"})
                if not sim.is_error:
                    break
            known = await c.call_tool("run_command", {"command": "ls"})  # the state knows this folder
        async with stdio_client(engine_url, db, "--shadow", "terminal", "--real", "terminal") as c:
            await c.call_tool("run_command", {"command": "touch NEWS.md"})
            real = await c.call_tool("run_command", {"command": "ls"})
            missing = await c.call_tool("run_command", {"command": "cat nope.txt"})
            # The transcript is what the agent saw: the real runs, not the predictions logged beside them.
            transcript = json.loads((await c.read_resource("episode://current")).contents[0].text)
        assert [s["observation"] for s in transcript["steps"]] == ["", real.content[0].text, missing.content[0].text]
    assert real.content[0].text == "NEWS.md\nREADME.md\nrequirements.txt\nsrc\ntests\n"
    assert real.meta["mcp-world/provenance"] == "real"
    assert missing.structured_content["exit_code"] == 1 and "No such file" in missing.content[0].text
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    rows = [dict(r) for r in con.execute("select * from steps order by id")]
    con.close()
    assert not sim.is_error, sim.content[0].text
    groups = [r for r in rows if json.loads(r["arguments"])["command"] == "groups"]
    assert all(r["real_observation"] == "user\n" and json.loads(r["real_structured"])["exit_code"] == 0 for r in groups)
    assert groups[-1]["provenance"] == "model"
    assert groups[-1]["observation"] == sim.content[0].text  # the agent got the simulated one
    rows = [r for r in rows if json.loads(r["arguments"])["command"] != "groups"]
    # The folder listing answered from the explicit state is exactly what the real sandbox printed.
    assert rows[0]["provenance"] == "state" and known.content[0].text == rows[0]["real_observation"] \
        == "README.md\nrequirements.txt\nsrc\ntests\n"
    assert [r["provenance"] for r in rows[1:]] == ["real", "real", "real"]


@pytest.mark.anyio
async def test_a_sandbox_is_removed_when_its_episode_is_evicted_reset_or_the_server_stops(tmp_path):
    from mcp_world.dialects import get_dialect
    from mcp_world.engines import EnginePool
    from mcp_world.executors import ShadowTerminal
    from mcp_world.simulator import Limits, Simulator
    from mcp_world.store import Store

    from .conftest import ScriptedEngine

    shadow = ShadowTerminal(SandboxLimits(timeout_s=5))
    store = Store(tmp_path / "ev.db")
    sim = Simulator(load_world("devbox"), EnginePool([ScriptedEngine(lambda r: "ok\n")]), store,
                    get_dialect("instruct"), Limits(max_episodes=2), shadow={"terminal": shadow}, state_mode="off")
    try:
        await sim.call("e1", "run_command", {"command": "echo one"})
        first = shadow._boxes["e1"].scratch
        await sim.call("e2", "run_command", {"command": "echo two"})
        await sim.call("e3", "run_command", {"command": "echo three"})  # e1 is evicted
        assert not first.exists() and sorted(shadow.live()) == ["e2", "e3"]
        rows = store.query("select episode_id, real_observation from steps order by id")
        assert [r["real_observation"] for r in rows] == ["one\n", "two\n", "three\n"]
        second = shadow._boxes["e2"].scratch
        await sim.reset("e2")  # world_reset: the episode ends, and its sandbox with it
        assert not second.exists() and sorted(shadow.live()) == ["e3"]
        third = shadow._boxes["e3"].scratch
    finally:
        shadow.close()
        store.close()
    assert not third.exists()  # and at shutdown


def test_a_server_sent_sigterm_removes_its_sandboxes_and_their_mounts(engine_url, tmp_path):
    """`kill`, `docker stop` and supervisors send SIGTERM: the server must unwind as on Ctrl+C (it
    used to die inside uvicorn's re-raised SIGTERM, leaving every live sandbox, its tmpfs mount as
    root, behind)."""
    import httpx

    from .helpers import http_server

    import os
    import shutil

    # Not under tmp_path: pytest's folders are 0700, which the sandbox's user cannot pass through.
    scratch = Path("/var/tmp") / f"mcp-world-sigterm-{os.getpid()}"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(mode=0o755)
    with http_server(engine_url, tmp_path / "t.db", "--world", "devbox", "--shadow", "terminal",
                     env={"TMPDIR": str(scratch)}) as (url, proc):
        base = url.removesuffix("/mcp")
        opened = httpx.post(f"{base}/episodes", json={"task": "branch", "mode": "real"}, timeout=60).json()
        verdict = httpx.post(f"{base}/episodes/{opened['episode_id']}/verify", json={}, timeout=60).json()
        assert "(in the real sandbox)" in verdict["checks"][0]["detail"], verdict
        boxes = list(scratch.glob("mcp-world-shadow-*"))
        assert len(boxes) == 1, "the real episode's sandbox is there while it lives"
        proc.terminate()
        assert proc.wait(timeout=30) == 128 + 15
    assert list(scratch.iterdir()) == [], "SIGTERM left a sandbox behind"
    assert str(scratch) not in Path("/proc/mounts").read_text(), "SIGTERM left a mount behind"
    scratch.rmdir()


class GatedEngine:
    """A test double that answers only when the test opens its gate (the mechanics of predictions
    made off the agent's path; the real engine's side is in the end-to-end tests)."""

    def __init__(self) -> None:
        self.url, self.model = "gated://", "gated"
        self.gate = anyio.Event()
        self.prompts: list[str] = []

    async def complete(self, request):
        from mcp_world.engines import Completion

        self.prompts.append(json.dumps(request.messages) + (request.prefill or ""))
        n = len(self.prompts)
        await self.gate.wait()
        return Completion(f"predicted {n}\n", 30, 4, False, self.model, 1.0)

    async def aclose(self) -> None:
        pass


def _real_rig(tmp_path, engine, real=True, **backlog):
    from mcp_world.dialects import get_dialect
    from mcp_world.engines import EnginePool
    from mcp_world.executors import ShadowTerminal
    from mcp_world.simulator import Simulator
    from mcp_world.store import Store

    shadow = ShadowTerminal(SandboxLimits(timeout_s=10))
    store = Store(tmp_path / "real.db")
    sim = Simulator(load_world("devbox"), EnginePool([engine]), store, get_dialect("instruct"),
                    shadow={"terminal": shadow}, real=frozenset({"terminal"} if real else ()))
    for key, value in backlog.items():
        setattr(sim.backlog, key, value)
    return sim, store, shadow


@pytest.mark.anyio
async def test_a_real_step_answers_before_the_world_model_and_its_prediction_is_logged_after(tmp_path):
    engine = GatedEngine()
    sim, store, shadow = _real_rig(tmp_path, engine)
    try:
        with anyio.fail_after(60):  # the engine answers nothing until the gate opens: no wait on it
            first = await sim.call("e1", "run_command", {"command": "echo one > one.txt; cat one.txt"})
            second = await sim.call("e1", "run_command", {"command": "wc -c one.txt"})
        assert (first.observation, first.provenance) == ("one\n", "real")
        assert second.observation == "4 one.txt\n"
        rows = store.query("select * from steps order by idx")
        assert [(r["provenance"], r["observation"], r["real_observation"]) for r in rows] == \
            [("real", None, "one\n"), ("real", None, "4 one.txt\n")]
        assert len(sim.backlog) == 2
        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                tg.start_soon(sim.drain, None)
                # At exit each step still waiting is marked first (a process killed while it waits
                # leaves no blank row), and the note goes when its prediction still comes.
                while any(r["prediction_error"] is None for r in store.query("select prediction_error from steps")):
                    await anyio.sleep(0.05)
                engine.gate.set()
        rows = store.query("select * from steps order by idx")
        assert [r["observation"] for r in rows] == ["predicted 1\n", "predicted 2\n"]
        assert all(r["prediction_ms"] > 0 and r["prompt_tokens"] == 30 and r["prediction_error"] is None for r in rows)
        # Each prediction saw the episode as it was before its own step (the real history), not after it.
        assert "echo one" in engine.prompts[1] and "\none\n" in engine.prompts[1] and "wc -c" in engine.prompts[1]
        assert "4 one.txt" not in engine.prompts[1] and "wc -c" not in engine.prompts[0]
    finally:
        shadow.close()
        store.close()


@pytest.mark.anyio
async def test_the_real_shell_goes_on_where_bash_ended_whatever_moved_it(tmp_path):
    """Each real command is a new bash: the next one starts where the last one's bash said it ended
    (a trap on EXIT writes $PWD to a pipe), not where the line's `cd` words suggest. Before, a `cd`
    in an `if`, a function or into a substitution left the next command in the old folder (or in
    one named `$(dirname`), and every command after it ran in the wrong place."""
    sim, store, shadow = _real_rig(tmp_path, GatedEngine())
    try:
        async def said(command):
            return (await sim.call("e1", "run_command", {"command": command})).observation

        with anyio.fail_after(120):
            assert await said("if [ -d src ]; then cd src; fi") == ""
            assert await said("pwd") == "/home/user/notes-app/src\n"
            assert await said('cd "$(dirname ../tests/test_notes.py)"') == ""
            assert await said("ls") == "test_notes.py\n"
            assert await said("up() { cd /tmp; }; up") == ""
            assert await said("pwd") == "/tmp\n"
            # the trap's script is gone before the command runs: nothing of it in its variables
            assert await said("env | grep -c BASH_ENV; echo $_") == "0\n/bin/bash\n"
            # a trap of the command's own replaces the one that reports: the line's `cd` is followed
            assert await said("trap 'echo bye' EXIT; cd /home/user/notes-app") == "bye\n"
            assert await said("pwd") == "/home/user/notes-app\n"
            assert await said("cd /nowhere") == "/bin/bash: line 1: cd: /nowhere: No such file or directory\n"
            assert await said("pwd") == "/home/user/notes-app\n"
            assert await said("sleep 30 & cd src") == ""  # (a job left running holds the pipe: not waited on)
            assert await said("pwd") == "/home/user/notes-app/src\n"
            # `$?` is the last command's status, as in a shell that lives on (each was a new bash: 0)
            assert await said("cat nope") == "cat: nope: No such file or directory\n"
            assert await said("echo $?") == "1\n" and await said("echo $?") == "0\n"
            assert await said("nosuchcmd") == "/bin/bash: line 1: nosuchcmd: command not found\n"
            assert await said("echo $? $_") == "127 /bin/bash\n"
    finally:
        shadow.close()
        store.close()


@pytest.mark.anyio
async def test_the_real_shell_keeps_its_variables_functions_and_options(tmp_path):
    """A shell that lives on keeps what the agent set: each real command is a new bash, so the trap
    that reports where it ended also writes its variables, functions and options, and the next
    command's BASH_ENV script declares them again. Before, `X=5` then `echo $X` printed nothing,
    `cd -` failed (no OLDPWD), and a function was gone by the next call."""
    sim, store, shadow = _real_rig(tmp_path, GatedEngine())
    try:
        async def said(command):
            return (await sim.call("e1", "run_command", {"command": command})).observation

        with anyio.fail_after(120):
            assert await said("X=5") == ""
            assert await said('echo "[$X]"') == "[5]\n"
            assert await said("cd src") == "" and await said("cd -") == "/home/user/notes-app\n"
            assert await said("export Y=2; Z=3") == ""
            assert await said("bash -c 'echo \"[$Y] [$Z]\"'") == "[2] []\n"  # (exported, and not)
            assert await said('up() { echo "up $1"; }') == "" and await said("up a") == "up a\n"
            assert await said("set -o pipefail; shopt -s globstar") == ""
            assert await said("false | true; echo $?") == "1\n"
            assert await said("echo **/*.py") == "src/notes.py tests/test_notes.py\n"
            assert await said("readonly R=1") == ""
            assert await said("R=2") == "/bin/bash: line 1: R: readonly variable\n"
            assert await said("declare -A M=([k]='a b'); L=$'one\\ntwo'") == ""
            assert await said('echo "${M[k]}"; echo "$L"') == "a b\none\ntwo\n"
            assert await said('unset X; echo "[$X]"') == "[]\n"
            # the trap's own commands are never traced into the output
            assert await said("set -x; echo t") == "+ echo t\nt\n"
            # more than a shell may carry (256 KiB) neither stops the shell nor loses what was carried
            assert await said("big=$(head -c 300000 /dev/zero | tr '\\0' a); echo ${#big}") == "300000\n"
            assert await said("echo $Y $(up b)") == "2 up b\n"
    finally:
        shadow.close()
        store.close()


@pytest.mark.anyio
async def test_a_full_backlog_skips_in_a_server_waits_in_a_batch_run_and_leftovers_are_marked(tmp_path):
    engine = GatedEngine()
    sim, store, shadow = _real_rig(tmp_path, engine, max_backlog=1)
    try:
        with anyio.fail_after(60):
            await sim.call("e1", "run_command", {"command": "echo a"})
            await sim.call("e1", "run_command", {"command": "echo b"})  # the backlog is full: skipped
            assert await sim.drain(0.1) == 1  # the one still waiting at exit is marked, not left blank
        notes = [r["prediction_error"] for r in store.query("select prediction_error from steps order by idx")]
        assert notes[0].startswith("abandoned: the server stopped before this prediction finished")
        assert notes[1] == "skipped: 1 predictions were already waiting"
    finally:
        shadow.close()
        store.close()
    engine = GatedEngine()
    sim, store, shadow = _real_rig(tmp_path / "batch", engine, max_backlog=1, wait_when_full=True)
    try:
        with anyio.fail_after(60):
            await sim.call("e1", "run_command", {"command": "echo a"})
            waiting = anyio.Event()

            async def second():
                await sim.call("e1", "run_command", {"command": "echo b"})
                waiting.set()

            async with anyio.create_task_group() as tg:
                tg.start_soon(second)
                await anyio.sleep(0.5)
                assert not waiting.is_set()  # the batch run's agent waits for room instead
                engine.gate.set()
            assert await sim.drain(None) == 0
        assert [r["observation"] for r in store.query("select observation from steps order by idx")] == \
            ["predicted 1\n", "predicted 2\n"]
    finally:
        shadow.close()
        store.close()


@pytest.mark.anyio
async def test_a_real_step_whose_executor_gives_nothing_is_simulated_like_any_step(tmp_path):
    from mcp_world.engines import EnginePool

    from .conftest import ScriptedEngine

    sim, store, shadow = _real_rig(tmp_path, GatedEngine())
    sim.engines = EnginePool([ScriptedEngine(lambda r: "simulated\n")])

    async def nothing(*args):
        return None

    shadow.observe = nothing
    try:
        with anyio.fail_after(60):
            step = await sim.call("e1", "run_command", {"command": "groups"})
        assert (step.observation, step.provenance) == ("simulated\n", "model") and len(sim.backlog) == 0
    finally:
        shadow.close()
        store.close()
