"""The shadow terminal: each episode gets a scratch folder holding the world's seed (its files,
with contents where the world gives them), and every command runs there for real under
bubblewrap — no network, a private /tmp, /usr read-only, a generated /etc (no host secrets),
nothing writable outside the scratch folder, its own PID namespace, time and output limits.
The scratch folder is removed when the episode ends or the server stops.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import MCPWorldError
from ..world import World
from . import RealObservation


@dataclass(frozen=True)
class SandboxLimits:
    timeout_s: float = 10.0  # the most any one real command may run (the agent's timeout_s is capped by it)
    max_output_bytes: int = 65_536
    uid: int = 1000  # the user inside the sandbox
    # When mcp-world runs as root, sandboxes run as this unprivileged host user, so that the
    # process limit below applies (the kernel does not enforce RLIMIT_NPROC on root): a fork bomb
    # meets "Resource temporarily unavailable" instead of exhausting the machine.
    host_uid: int = 65534
    max_processes: int = 128


@dataclass(frozen=True)
class RealResult:
    output: str
    exit_code: int
    timed_out: bool
    truncated: bool


def bwrap_available() -> bool:
    return shutil.which("bwrap") is not None


class TerminalSandbox:
    """One episode's real machine: a scratch folder and the bubblewrap command line around it."""

    def __init__(self, world: World, limits: SandboxLimits, parent: Path | None = None) -> None:
        if not bwrap_available():
            raise MCPWorldError("shadow mode needs bubblewrap (bwrap): install it, e.g. `apt-get install bubblewrap`")
        self.world = world
        self.limits = limits
        self.seed = world.seed_of("terminal")
        self.home = f"/home/{self.seed.user}" if self.seed.user != "root" else "/root"
        self.scratch = Path(tempfile.mkdtemp(prefix="mcp-world-shadow-", dir=parent))
        self.skipped: list[str] = []  # seed files outside the home folder, which is all that is materialized
        self._materialize()

    def _materialize(self) -> None:
        (self.scratch / "home").mkdir()
        home = self.scratch / self.home.lstrip("/")
        home.mkdir(parents=True, exist_ok=True)
        etc = self.scratch / "etc"
        etc.mkdir()
        u, uid = self.seed.user, self.limits.uid
        (etc / "passwd").write_text(f"root:x:0:0:root:/root:/bin/bash\n{u}:x:{uid}:{uid}::{self.home}:/bin/bash\n")
        (etc / "group").write_text(f"root:x:0:\n{u}:x:{uid}:\n")
        (etc / "hostname").write_text(self.seed.hostname + "\n")
        (etc / "hosts").write_text(f"127.0.0.1 localhost\n127.0.1.1 {self.seed.hostname}\n")
        for path, content in self.seed.files.items():
            if not (path == self.home or path.startswith(self.home + "/")) or ".." in Path(path).parts:
                self.skipped.append(path)
                continue
            target = self.scratch / path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content or "")
        cwd = self.scratch / self.seed.cwd.lstrip("/")
        if self.seed.cwd.startswith(self.home):
            cwd.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            for path in [self.scratch, *self.scratch.rglob("*")]:
                os.chown(path, self.limits.host_uid, self.limits.host_uid, follow_symlinks=False)
        for repo in self.seed.git:
            if not repo.path.startswith(self.home + "/"):
                self.skipped.append(repo.path)
                continue
            (self.scratch / repo.path.lstrip("/")).mkdir(parents=True, exist_ok=True)
            name, _, email = repo.author.partition(" <")
            script = (f"git init -q -b {_q(repo.branch)} && git add -A && "
                      f"git -c user.name={_q(name)} -c user.email={_q(email.rstrip('>'))} commit -q -m {_q(repo.message)}")
            result = self.run(script, repo.path)
            if result.exit_code != 0:
                raise MCPWorldError(f"could not create the world's git repository {repo.path}: {result.output.strip()}")

    def command(self, command: str, cwd: str) -> list[str]:
        inside = self.scratch / cwd.lstrip("/")
        if not (cwd.startswith("/home/") or cwd == "/home") or not inside.is_dir():
            cwd = self.home
        args = [
            "bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/sbin", "/sbin",
            "--bind", str(self.scratch / "etc"), "/etc",
        ]
        for shared in ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ssl", "/etc/localtime"):
            if os.path.exists(shared):
                args += ["--ro-bind", shared, shared]
        args += [
            "--bind", str(self.scratch / "home"), "/home",
            "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev",
            "--remount-ro", "/",  # the sandbox's own root: only /home, /etc (scratch) and /tmp stay writable
            "--uid", str(self.limits.uid), "--gid", str(self.limits.uid),
            "--hostname", self.seed.hostname, "--chdir", cwd,
            "--setenv", "HOME", self.home, "--setenv", "USER", self.seed.user, "--setenv", "LOGNAME", self.seed.user,
            "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8",
            "--setenv", "TERM", "dumb", "--setenv", "HOSTNAME", self.seed.hostname,
            "/bin/bash", "-c", command,
        ]
        return args

    def run(self, command: str, cwd: str, timeout_s: float | None = None) -> RealResult:
        timeout = min(timeout_s or self.limits.timeout_s, self.limits.timeout_s)
        args = self.command(command, cwd)
        drop: dict = {}
        if os.geteuid() == 0:
            args = ["prlimit", f"--nproc={self.limits.max_processes}", "--", *args]
            drop = {"user": self.limits.host_uid, "group": self.limits.host_uid, "extra_groups": []}
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True, **drop)
        chunks: list[bytes] = []
        size = 0
        truncated = False

        def read() -> None:
            nonlocal size, truncated
            assert proc.stdout is not None
            while True:
                block = proc.stdout.read1(65536)
                if not block:
                    return
                if size < self.limits.max_output_bytes:
                    chunks.append(block[: self.limits.max_output_bytes - size])
                size += len(block)
                if size >= self.limits.max_output_bytes:
                    truncated = True
                    _kill(proc)  # endless output: stop it here
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill(proc)
            proc.wait(timeout=10)
        reader.join(timeout=10)
        output = b"".join(chunks).decode("utf-8", errors="replace")
        code = proc.returncode
        if timed_out:
            code = 124
            output += f"\n[mcp-world: the command was stopped after {timeout:.0f} s]\n"
        elif truncated:
            output += f"\n[mcp-world: output cut at {self.limits.max_output_bytes} bytes]\n"
        return RealResult(output, code if code is not None and code >= 0 else 128 + (-(code or 0)), timed_out, truncated)

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)


def _q(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _kill(proc: subprocess.Popen) -> None:
    # bwrap runs in its own session and PID namespace: killing the group ends everything inside.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class ShadowTerminal:
    """Sandboxes per episode, created on first use and removed at close."""

    uses_origins = False

    @classmethod
    def from_options(cls, options: Any) -> ShadowTerminal:
        return cls(SandboxLimits(timeout_s=options.timeout_s))

    def __init__(self, limits: SandboxLimits = SandboxLimits()) -> None:
        if not bwrap_available():
            raise MCPWorldError("shadow mode needs bubblewrap (bwrap): install it, e.g. `apt-get install bubblewrap`")
        self.limits = limits
        self._boxes: dict[str, TerminalSandbox] = {}
        self._lock = threading.Lock()

    def sandbox(self, episode_id: str, world: World) -> TerminalSandbox:
        with self._lock:
            box = self._boxes.get(episode_id)
            if box is None:
                box = self._boxes[episode_id] = TerminalSandbox(world, self.limits)
            return box

    async def observe(self, episode_id: str, world: World, tool: str, arguments: dict[str, Any],
                      state: dict[str, Any]) -> RealObservation | None:
        import asyncio

        from ..formats import next_cwd

        if tool != "run_command":
            return None
        box = self.sandbox(episode_id, world)
        command = str(arguments.get("command", ""))
        cwd = state.get("cwd", box.home)
        real = await asyncio.to_thread(box.run, command, cwd, arguments.get("timeout_s"))
        home = state.get("home", box.home)
        structured = {"output": real.output, "exit_code": real.exit_code,
                      "cwd": next_cwd(command, cwd, home, real.exit_code)}
        return RealObservation(real.output, structured,
                               {**structured, "timed_out": real.timed_out, "truncated": real.truncated})

    def end(self, episode_id: str) -> None:
        with self._lock:
            box = self._boxes.pop(episode_id, None)
        if box:
            box.close()

    def close(self) -> None:
        with self._lock:
            boxes, self._boxes = list(self._boxes.values()), {}
        for b in boxes:
            b.close()
