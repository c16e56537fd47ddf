"""The shadow terminal: each episode gets a scratch folder holding the world's seed (its files,
with contents where the world gives them), and every command runs there for real under
bubblewrap — no network, sized private /tmp and /dev/shm, /usr read-only, a generated /etc (no
host secrets) bound read-only, nothing writable outside the scratch folder, its own PID namespace,
no nested user namespaces, and limits on time, output, memory, file size, open files, processes
and (as root, where the home is a sized tmpfs) disk (limits.py says how each is enforced).
The scratch folder is removed when the episode ends, is evicted, or the server stops.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import logging
import os
import posixpath
import re
import select
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
from .base import RealObservation
from .limits import ChildLimits, Cgroup, sandbox_uid, tasks_of

log = logging.getLogger("mcp_world")
SHARED_ETC = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ssl", "/etc/localtime")  # bound read-only from the host


@dataclass(frozen=True)
class SandboxLimits:
    """Every bound on one sandbox (serve options in brackets; README "Security")."""

    timeout_s: float = 10.0  # the most any one real command may run [--shadow-timeout]
    max_output_bytes: int = 65_536
    uid: int = 1000  # the user inside the sandbox
    # Processes (and threads) at once. As root each sandbox runs as a host uid of its own, so this is
    # per sandbox (the kernel does not enforce RLIMIT_NPROC on root); as a normal user it is added
    # to the user's own count. A fork bomb meets "Resource temporarily unavailable".
    max_processes: int = 64
    memory_bytes: int = 512 << 20  # per process (RLIMIT_AS), and for the whole sandbox where a cgroup can be made
    disk_bytes: int = 256 << 20  # the writable home (a sized tmpfs, as root): "No space left on device"
    tmp_bytes: int = 64 << 20  # /tmp and /dev/shm, each a sized tmpfs
    file_bytes: int = 64 << 20  # the largest file a command may write (RLIMIT_FSIZE): "File too large"
    open_files: int = 256


@dataclass(frozen=True)
class RealResult:
    output: str
    exit_code: int
    timed_out: bool
    truncated: bool
    cwd: str | None = None  # where the shell ended (bash's $PWD); None where it did not say


# What a shell that lives on keeps from one command to the next, and bash cannot be handed back:
# its own counters and the variables it sets itself (the new shell's are its own).
_NOT_CARRIED = frozenset({"PWD", "SHLVL", "_", "LINENO", "RANDOM", "SRANDOM", "SECONDS", "EPOCHSECONDS",
                          "EPOCHREALTIME", "HISTCMD", "GROUPS", "FUNCNAME", "DIRSTACK", "PIPESTATUS", "SHELLOPTS",
                          "PPID", "UID", "EUID", "COMP_WORDBREAKS", "OPTIND"})
_OPTIONS = re.compile(r"(?:set -o (?:pipefail|nounset|noclobber|noglob|allexport)|"
                      r"shopt -s (?:globstar|nullglob|extglob|dotglob|failglob|nocaseglob|nocasematch))")
_DECLARED = re.compile(r"declare -([a-zA-Z-]+) ([A-Za-z_][A-Za-z0-9_]*)(?:=|$)")
MAX_SHELL_BYTES = 256 << 10  # what one shell may leave for the next: past it, nothing new is carried
_END = "mcp-world:end"


class _Where:
    """Where bash ends, and what it leaves: a trap on EXIT, set by a BASH_ENV script read from a
    pipe, writes its $PWD to a second pipe (so that a `cd` the line's text hides, `cd "$(dirname
    f)"`, in an `if` or a function, is followed), then its variables, functions and the options
    `_OPTIONS` names, which the next command's script declares again, as a shell that lives on keeps
    them. Says nothing where the shell was killed, `exec`ed, or set a trap of its own. The script
    also sets `$?` to the last command's status, and unsets BASH_ENV and puts `$_` back before the
    command runs."""

    def __init__(self, status: int = 0, carried: str = "") -> None:
        self.read = self.write = self.script = feed = -1
        self.said = b""
        self.drainer: threading.Thread | None = None
        try:
            self.read, self.write = os.pipe()
            self.script, feed = os.pipe()
            os.fchmod(self.script, 0o444)  # (the sandbox's uid opens it again, as /dev/fd/N)
            n = "__mcp_world_n"
            report = ("{ set +xve; } 2>/dev/null; { printf '%s\\0' \"$PWD\"; "
                      f"while IFS= read -r {n}; do declare -p -- \"${n}\"; printf '\\0'; done < <(compgen -v); "
                      f"printf 'functions\\0'; declare -f; printf '\\0'; shopt -p; set +o; printf '\\0{_END}\\0'; "
                      f"}} >&{self.write} 2>/dev/null")
            script = (f"unset BASH_ENV\n{carried}\ntrap {_q(report)} EXIT\n"
                      f"exec {self.script}<&-\n: /bin/bash\n" + (f"(exit {status})\n" if status else "")).encode()
            if len(script) > 60_000:  # (more than a pipe holds unread: made larger, where the kernel allows)
                with contextlib.suppress(OSError):
                    fcntl.fcntl(feed, fcntl.F_SETPIPE_SZ, 1 << 20)
                if len(script) > fcntl.fcntl(feed, fcntl.F_GETPIPE_SZ):
                    raise OSError("the shell's variables do not fit the pipe")
            os.write(feed, script)
        except OSError:
            self.close()
            raise
        finally:
            if feed >= 0:
                os.close(feed)

    @property
    def fds(self) -> tuple[int, int]:
        return self.script, self.write

    def started(self) -> None:
        """The child has its copies: the server's are closed (so the pipe ends with the sandbox), and
        what the trap writes is read as it comes (more than a pipe holds would stop the shell)."""
        for fd in (self.script, self.write):
            os.close(fd)
        self.script = self.write = -1
        self.drainer = threading.Thread(target=self._drain, args=(self.read,), daemon=True)
        self.drainer.start()

    def _drain(self, fd: int) -> None:
        end, tail = f"\0{_END}\0".encode(), b""
        try:
            while block := os.read(fd, 65536):
                if len(self.said) <= MAX_SHELL_BYTES:
                    self.said += block  # (past it, read on and let go: a full pipe would stop the shell)
                tail = (tail + block)[-len(end):]
                if tail == end:
                    return  # (a background job may hold the pipe open: the end is the trap's word)
        except OSError:
            return

    def ended(self) -> None:
        """The shell has exited: what its trap wrote is all read (or will not come)."""
        if self.drainer is not None:
            self.drainer.join(timeout=5)

    def cwd(self) -> str | None:
        """What the trap wrote first, once the shell has exited."""
        said = self.said.partition(b"\0")[0].decode("utf-8", errors="replace")
        ok = said.startswith("/") and len(said) <= 4096 and "\n" not in said and b"\0" in self.said
        return posixpath.normpath("/" + said.lstrip("/")) if ok else None  # (bash keeps `cd //tmp`'s two)

    def shell(self) -> str | None:
        """What the next command's script declares again: the variables the shell ended with (but
        for bash's own), its functions and options; None where it did not say
        all of it (killed, `exec`ed, a trap of its own, or more than MAX_SHELL_BYTES)."""
        if not self.said.endswith(f"\0{_END}\0".encode()) or len(self.said) > MAX_SHELL_BYTES:
            return None
        fields = self.said.decode("utf-8", errors="replace").split("\0")[1:-2]
        if len(fields) < 3 or fields[-3] != "functions":
            return None
        kept = [f.rstrip("\n") for f in fields[:-3] if (m := _DECLARED.match(f)) and
                m.group(2) not in _NOT_CARRIED and not m.group(2).startswith(("BASH", "__mcp_world"))]
        options = [ln for ln in fields[-1].splitlines() if _OPTIONS.fullmatch(ln)]
        return "\n".join([*kept, fields[-2].rstrip("\n"), *options])

    def close(self) -> None:
        for fd in (self.read, self.write, self.script):
            if fd >= 0:
                os.close(fd)
        self.read = self.write = self.script = -1


def bwrap_available() -> bool:
    return shutil.which("bwrap") is not None


class TerminalSandbox:
    """One episode's real machine: a scratch folder and the bubblewrap command line around it."""

    def __init__(self, world: World, limits: SandboxLimits, parent: Path | None = None, seed: Any = None) -> None:
        if not bwrap_available():
            raise MCPWorldError("shadow mode needs bubblewrap (bwrap): install it, e.g. `apt-get install bubblewrap`")
        self.world = world
        self.limits = limits
        self.seed = seed if seed is not None else world.seed_of("terminal")  # who and where the shell is
        self.home = f"/home/{self.seed.user}" if self.seed.user != "root" else "/root"
        self.scratch = Path(tempfile.mkdtemp(prefix="mcp-world-shadow-", dir=parent))
        self.skipped: list[str] = []  # seed files outside the home folder, which is all that is materialized
        self.root = os.geteuid() == 0
        self.uid_lease = sandbox_uid() if self.root else None  # (a uid of its own, across processes)
        self.host_uid = self.uid_lease.uid if self.uid_lease is not None else os.getuid()
        self.cgroup = Cgroup.create(limits.memory_bytes, limits.max_processes) if self.root else None
        self.sized: list[str] = []  # scratch folders on a sized tmpfs of their own (as root): home, tmp, …
        self.status = 0  # the agent's last command's exit status: `$?` in the next one (ShadowTerminal sets it)
        self.shell: str | None = None  # what the agent's last shell left for the next (`run`'s session)
        self.initial_commits: dict[str, int] = {}  # the seed's repositories: commits made when materialized
        try:
            self._materialize()
        except BaseException:
            self.close()
            raise

    def _materialize(self) -> None:
        # The sandbox's uid may pass through the scratch folder (to its home and the read-only /etc),
        # not list it; /etc stays root's.
        os.chmod(self.scratch, 0o711)
        (self.scratch / "home").mkdir()
        # /tmp lasts the episode, as on a real machine (`echo x > /tmp/f`, then `cat /tmp/f`), on a
        # tmpfs of its own where the mount is allowed.
        (self.scratch / "tmp").mkdir()
        os.chmod(self.scratch / "tmp", 0o1777)
        self._sized("tmp", self.limits.tmp_bytes, "1777")
        # The writable home on a sized tmpfs: a full disk is the sandbox's, not the host's.
        self._sized("home", self.limits.disk_bytes, "0755")
        home = self.scratch / self.home.lstrip("/")
        home.mkdir(parents=True, exist_ok=True)
        etc = self.scratch / "etc"
        etc.mkdir()
        u, uid = self.seed.user, self.limits.uid
        (etc / "passwd").write_text(f"root:x:0:0:root:/root:/bin/bash\n{u}:x:{uid}:{uid}::{self.home}:/bin/bash\n")
        (etc / "group").write_text(f"root:x:0:\n{u}:x:{uid}:\n")
        (etc / "hostname").write_text(self.seed.hostname + "\n")
        (etc / "hosts").write_text(f"127.0.0.1 localhost\n127.0.1.1 {self.seed.hostname}\n")
        for shared in SHARED_ETC:  # mount points for the host's harmless parts, made while /etc is ours to write
            if os.path.isdir(shared):
                (etc / Path(shared).name).mkdir(exist_ok=True)
            elif os.path.exists(shared):
                (etc / Path(shared).name).touch()
        for path, content in self.seed.files.items():
            target = self._inside(path)
            if target is None or not (path == self.home or path.startswith(self.home + "/")):
                self.skipped.append(path)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content or "")
        cwd = self._inside(self.seed.cwd)
        if cwd is not None and self.seed.cwd.startswith(self.home):
            cwd.mkdir(parents=True, exist_ok=True)
        if self.root:
            for path in [self.scratch / "home", *(self.scratch / "home").rglob("*")]:
                os.chown(path, self.host_uid, self.host_uid, follow_symlinks=False)
        for repo in self.seed.git:
            folder = self._inside(repo.path)
            if folder is None or not repo.path.startswith(self.home + "/"):
                self.skipped.append(repo.path)
                continue
            folder.mkdir(parents=True, exist_ok=True)
            name, _, email = repo.author.partition(" <")
            # At the seed's date, so the commit's id is the one the state computes (GitSeed.commit_hash).
            when = f"@{repo.epoch} +0000"
            script = (f"git init -q -b {_q(repo.branch)} && git add -A && "
                      f"GIT_AUTHOR_DATE={_q(when)} GIT_COMMITTER_DATE={_q(when)} "
                      f"git -c user.name={_q(name)} -c user.email={_q(email.rstrip('>'))} commit -q -m {_q(repo.message)}")
            result = self.run(script, repo.path)
            if result.exit_code != 0:
                raise MCPWorldError(f"could not create the world's git repository {repo.path}: {result.output.strip()}")
            self.initial_commits[repo.path] = 1

    @property
    def disk_limited(self) -> bool:
        """The home is a tmpfs of limits.disk_bytes."""
        return "home" in self.sized

    def _sized(self, folder: str, size: int, mode: str) -> None:
        """Mount a tmpfs of `size` bytes on the scratch folder's `folder` (as root, where allowed)."""
        if not self.root:
            return
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode={mode},nosuid,nodev",
                            f"mcp-world-{folder}", str(self.scratch / folder)], capture_output=True, text=True)
        if r.returncode == 0:
            self.sized.append(folder)
        else:
            log.info("the sandbox's %s is not size-limited (mount failed: %s)", folder, r.stderr.strip())

    def mounts(self) -> list[str]:
        """bwrap options for more places in the sandbox (a subclass's), made before its root turns read-only."""
        return []

    def environment(self) -> dict[str, str]:
        """More variables every command gets (a subclass's; they override the defaults)."""
        return {}

    def _inside(self, path: str) -> Path | None:
        """The host-side place of a path of the sandbox, or None when it would resolve outside the
        scratch folder (`..`, or a link made by an earlier step): checked before anything is created."""
        target = self.scratch / path.lstrip("/")
        try:
            target.resolve().relative_to(self.scratch.resolve())
        except ValueError:
            return None
        return target

    def _can_enter(self, cwd: str) -> bool:
        """Whether `cwd` is a folder inside the sandbox (its home and /tmp from the scratch folder,
        the rest of its file system from the read-only mounts)."""
        if not cwd.startswith("/") or "/../" in cwd + "/" or "\0" in cwd:
            return False
        if cwd in ("/", "/etc", "/dev", "/proc", "/bin", "/lib", "/lib64", "/sbin"):
            return True
        for inner in ("/home", "/tmp"):
            if cwd == inner or cwd.startswith(inner + "/"):
                return (self.scratch / cwd.lstrip("/")).is_dir()
        return (cwd == "/usr" or cwd.startswith("/usr/")) and os.path.isdir(cwd)  # bound read-only as it is

    def _removed(self, cwd: str) -> str | None:
        """The topmost missing folder of `cwd` when `cwd` was a folder of the home or /tmp that a
        command removed (`rm -rf` of the project under the shell), else None."""
        if not cwd.startswith(("/home/", "/tmp/")) or "/../" in cwd + "/" or "/./" in cwd + "/" or "\0" in cwd:
            return None
        path = cwd.rstrip("/")
        top = None
        while path not in ("/home", "/tmp") and not (self.scratch / path.lstrip("/")).is_dir():
            if (self.scratch / path.lstrip("/")).exists() or os.path.islink(self.scratch / path.lstrip("/")):
                return None  # a file or link there now: not a removed folder
            top, path = path, posixpath.dirname(path)
        return top

    def command(self, command: str, cwd: str, env: dict[str, str] | None = None,
                where: _Where | None = None) -> list[str]:
        removed = None
        if not self._can_enter(cwd):
            removed = self._removed(cwd)
            if removed is None:
                cwd = self.home
        shell = ["/bin/bash", "-c", command]
        if removed is not None:
            # A real shell stays in a folder removed under it: `pwd` prints the path, `ls` nothing.
            # Each command here starts a new process, so the folder is made, entered and removed
            # again first, and the command runs in that same shell (a new bash would fail to start there).
            shell = ["/bin/bash", "-c", 'mkdir -p -- "$1" && cd -- "$1" && rm -rf -- "$2" && eval "$3"',
                     "bash", cwd, removed, command]
            cwd = "/"
        args = [
            # --unshare-user with --disable-userns: the command cannot make nested user namespaces
            # (the kernel surface behind most container escapes).
            "bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
            "--clearenv", "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/sbin", "/sbin",
            "--bind", str(self.scratch / "etc"), "/etc",
        ]
        for shared in SHARED_ETC:
            if os.path.exists(shared):
                args += ["--ro-bind", shared, shared]
        args += ["--remount-ro", "/etc"]  # the generated /etc: read-only once the shared parts are in
        args += [
            "--bind", str(self.scratch / "home"), "/home",
            "--bind", str(self.scratch / "tmp"), "/tmp", "--proc", "/proc", "--dev", "/dev",
            "--size", str(self.limits.tmp_bytes), "--tmpfs", "/dev/shm", *self.mounts(),
            "--remount-ro", "/",  # the sandbox's own root: only /home, /etc (scratch) and /tmp stay writable
            "--uid", str(self.limits.uid), "--gid", str(self.limits.uid),
            "--hostname", self.seed.hostname, "--chdir", cwd,
            "--setenv", "HOME", self.home, "--setenv", "USER", self.seed.user, "--setenv", "LOGNAME", self.seed.user,
            "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8",
            "--setenv", "TERM", "dumb", "--setenv", "HOSTNAME", self.seed.hostname,
        ]
        for name, value in self.environment().items():
            args += ["--setenv", name, value]
        if where is not None:
            args += ["--setenv", "BASH_ENV", f"/dev/fd/{where.script}"]
        # What earlier steps exported (each command runs in a fresh shell; a real one keeps them).
        for name, value in list((env or {}).items())[:64]:
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", name) and len(value) <= 4096 and "\0" not in value:
                args += ["--setenv", name, value]
        return args + shell

    def run(self, command: str, cwd: str, timeout_s: float | None = None, env: dict[str, str] | None = None,
            stdin: bytes | None = None, max_output_bytes: int | None = None, session: bool = False) -> RealResult:
        """Run `command` in the sandbox (bash, in `cwd`); `stdin` is what it reads, `max_output_bytes`
        a larger output limit for the executor's own reads (default: the agent's). `session`: one of
        the agent's commands, which starts with the variables, functions and options the last one
        left (`_Where`; `env`, what the state says was exported, only until a shell has said them)
        and leaves its own for the next."""
        timeout = min(timeout_s or self.limits.timeout_s, self.limits.timeout_s)
        cap = max_output_bytes or self.limits.max_output_bytes
        carried = self.shell if session else None
        try:
            where: _Where | None = _Where(self.status, carried or "")
        except OSError:
            where = None  # (the folder the shell ends in is then followed from the line's text)
        try:
            result = self._run(self.command(command, cwd, None if carried else env, where), timeout, cap, stdin, where)
            if session and where is not None and not result.timed_out:
                self.shell = where.shell() or self.shell  # (one that did not say: the shell before it)
            return result
        finally:
            if where is not None:
                where.close()

    def _run(self, args: list[str], timeout: float, cap: int, stdin: bytes | None, where: _Where | None) -> RealResult:
        limits = self.child_limits(timeout)
        proc = subprocess.Popen(args, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, cwd=self.scratch, stderr=subprocess.STDOUT,
                                start_new_session=True, preexec_fn=limits.enter, pass_fds=where.fds if where else ())
        if where is not None:
            where.started()
        if stdin is not None:
            def feed() -> None:
                assert proc.stdin is not None
                try:
                    proc.stdin.write(stdin)
                    proc.stdin.close()
                except OSError:  # it exited (or closed its input) without reading it all
                    pass
            threading.Thread(target=feed, daemon=True).start()
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
                if size < cap:
                    chunks.append(block[: cap - size])
                size += len(block)
                if size >= cap:
                    truncated = True
                    _kill(proc)  # endless output: stop it here
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        timed_out = False
        try:
            _wait(proc, timeout)
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
            output += f"\n[mcp-world: output cut at {cap} bytes]\n"
        code = code if code is not None and code >= 0 else 128 + (-(code or 0))
        if where is not None and not timed_out:
            where.ended()
        ended = where.cwd() if where is not None and not timed_out else None
        return RealResult(output, code, timed_out, truncated, ended)

    def child_limits(self, timeout: float) -> ChildLimits:
        processes = self.limits.max_processes
        if not self.root:  # the kernel counts the user's processes, the server's own among them
            processes += tasks_of(os.getuid())
        return ChildLimits(memory_bytes=self.limits.memory_bytes, file_bytes=self.limits.file_bytes,
                           open_files=self.limits.open_files, cpu_seconds=int(timeout) + 5, processes=processes,
                           uid=self.host_uid if self.root else None, cgroup=self.cgroup)

    def close(self) -> None:
        while self.sized:
            subprocess.run(["umount", "-l", str(self.scratch / self.sized.pop())], capture_output=True)
        shutil.rmtree(self.scratch, ignore_errors=True)
        if self.cgroup is not None:
            self.cgroup.remove()
        if self.uid_lease is not None:
            self.uid_lease.release()


class SandboxReader:
    """Reads one episode's sandbox after the fact, for a task's checks (`verify` with real tools):
    every read is a command inside the sandbox, so a link the agent made to a host file reads what
    the sandbox sees (nothing of the host's). Answers are kept for the reader's life (one verify)."""

    def __init__(self, box: TerminalSandbox) -> None:
        self.box = box
        self._seen: dict[tuple[str, str], Any] = {}

    def _run(self, script: str, cwd: str | None = None) -> RealResult:
        return self.box.run(script, cwd or self.box.home)

    def _once(self, what: str, path: str, make: Any) -> Any:
        if (what, path) not in self._seen:
            self._seen[(what, path)] = make()
        return self._seen[(what, path)]

    def kind(self, path: str) -> str | None:
        """'file', 'dir', or None when nothing is there."""
        def make() -> str | None:
            p = _q(path)
            out = self._run(f"if [ -d {p} ]; then echo dir; elif [ -e {p} ] || [ -L {p} ]; then echo file; "
                            "else echo none; fi").output.strip()
            return out if out in ("file", "dir") else None
        return self._once("kind", path, make)

    def read(self, path: str) -> str | None:
        """A file's content (up to the sandbox's output limit), or None when it is not a readable file."""
        def make() -> str | None:
            p = _q(path)
            result = self._run(f"[ -f {p} ] && [ -r {p} ] || exit 3; cat -- {p}")
            return None if result.exit_code != 0 or result.timed_out else result.output
        return self._once("read", path, make)

    def git(self, path: str) -> dict[str, Any] | None:
        """{branch, branches, commits (subjects, oldest first), initial} of the repository at `path`."""
        def make() -> dict[str, Any] | None:
            result = self._run("git rev-parse --abbrev-ref HEAD && echo '\x1e' && "
                               "git for-each-ref --format='%(refname:short)' refs/heads && echo '\x1e' && "
                               "git log --reverse --format=%s", path)
            if result.exit_code != 0:
                return None
            parts = (result.output.split("\x1e") + ["", "", ""])[:3]
            lines = [[x for x in part.strip().splitlines() if x] for part in parts]
            return {"branch": lines[0][0] if lines[0] else "", "branches": lines[1], "commits": lines[2],
                    "initial": self.box.initial_commits.get(path, 0)}
        return self._once("git", path, make)


def _q(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _wait(proc: subprocess.Popen, timeout: float) -> None:
    """`proc.wait(timeout)` woken when the process ends (a pidfd), not by polling: Popen's own wait
    sleeps in doubling steps, which adds up to half again to a short command's time."""
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        proc.wait(timeout=timeout)
        return
    try:
        if not select.select([fd], [], [], timeout)[0]:
            raise subprocess.TimeoutExpired(proc.args, timeout)
        proc.wait()
    finally:
        os.close(fd)


def _kill(proc: subprocess.Popen) -> None:
    # bwrap runs in its own session and PID namespace: killing the group ends everything inside.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Sandboxes:
    """A real executor's sandboxes, one per episode, created on first use (off the event loop: a
    sandbox's git repository takes a real command to make) and removed when the episode ends, is
    evicted, or at close. Real commands run on a pool of their own, `workers` at a time, so they
    never take the threads the server needs for anything else. Subclasses say what runs (`observe`)
    and may make another kind of sandbox (`make`)."""

    uses_origins = False
    name = "shadow-terminal"

    @classmethod
    def from_options(cls, options: Any) -> Sandboxes:
        return cls(SandboxLimits(timeout_s=options.timeout_s, memory_bytes=options.memory_mib << 20,
                                 disk_bytes=options.disk_mib << 20, max_processes=options.processes))

    def __init__(self, limits: SandboxLimits = SandboxLimits(), workers: int = 4) -> None:
        from concurrent.futures import ThreadPoolExecutor

        if not bwrap_available():
            raise MCPWorldError("shadow mode needs bubblewrap (bwrap): install it, e.g. `apt-get install bubblewrap`")
        self.limits = limits
        self._boxes: dict[str, TerminalSandbox] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=self.name)

    def make(self, world: World) -> TerminalSandbox:
        return TerminalSandbox(world, self.limits)

    def sandbox(self, episode_id: str, world: World) -> TerminalSandbox:
        with self._lock:
            box = self._boxes.get(episode_id)
            if box is None:
                box = self._boxes[episode_id] = self.make(world)
            return box

    async def _in_pool(self, fn: Any, *args: Any) -> Any:
        import asyncio

        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    def end(self, episode_id: str) -> None:
        with self._lock:
            box = self._boxes.pop(episode_id, None)
        if box:
            box.close()

    def live(self) -> list[str]:
        """The episodes that have a sandbox now."""
        with self._lock:
            return list(self._boxes)

    def close(self) -> None:
        with self._lock:
            boxes, self._boxes = list(self._boxes.values()), {}
        for b in boxes:
            b.close()
        self._pool.shutdown(wait=False, cancel_futures=True)


class ShadowTerminal(Sandboxes):
    """The real shell: each `run_command` runs in the episode's sandbox."""

    async def observe(self, episode_id: str, world: World, tool: str, arguments: dict[str, Any],
                      state: dict[str, Any]) -> RealObservation | None:
        from ..domain import load_domain

        if tool != "run_command":
            return None
        box = await self._in_pool(self.sandbox, episode_id, world)
        command = str(arguments.get("command", ""))
        cwd = state.get("cwd", box.home)
        real = await self._in_pool(functools.partial(box.run, command, cwd, arguments.get("timeout_s"),
                                                       state.get("env") or {}, session=True))
        box.status = real.exit_code & 255
        home = state.get("home", box.home)
        # (where the shell said it ended; else following the line's `cd`s)
        after = real.cwd or load_domain("terminal").rules.next_cwd(command, cwd, home, real.exit_code)
        structured = {"output": real.output, "exit_code": real.exit_code, "cwd": after}
        return RealObservation(real.output, structured,
                               {**structured, "timed_out": real.timed_out, "truncated": real.truncated})

    def reader(self, episode_id: str, world: World) -> SandboxReader:
        """What reads the episode's sandbox (made now if the agent never ran a command: the seed's)."""
        return SandboxReader(self.sandbox(episode_id, world))
