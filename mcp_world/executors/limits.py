"""What bounds one sandbox's processes, applied in the child between fork and exec (`enter`).

    every user    rlimits: address space, file size, open files, CPU seconds, processes (as a normal
                  user the process count is the user's own processes plus the sandbox's allowance,
                  since the kernel counts per user)
    root          + the sandbox runs as a uid of its own (so the process cap is the sandbox's alone,
                  and no other sandbox's fork bomb can starve it), and, where the machine lets root
                  create them, a cgroup of its own capping the memory and the processes of the
                  whole sandbox together (cgroup v2, or v1's memory and pids controllers)
"""

from __future__ import annotations

import fcntl
import functools
import itertools
import logging
import os
import resource
import uuid
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger("mcp_world")
_UIDS = itertools.count()
UID_BASE = 200_000  # root: sandbox n runs as uid UID_BASE + n (no such user exists on the host)
UID_COUNT = 100_000
# (root) one file per uid a sandbox runs as, locked while it does, in whatever process
UID_LEASES = Path(os.environ.get("MCP_WORLD_UID_LEASES", "/run/mcp-world/uids"))


@dataclass
class Cgroup:
    """One sandbox's cgroup folders (one per hierarchy in v1, one in v2)."""

    folders: list[Path] = field(default_factory=list)

    @classmethod
    def create(cls, memory_bytes: int, max_processes: int) -> Cgroup | None:
        """A cgroup capping memory and processes, or None where this process may not create one."""
        if os.geteuid() != 0:
            return None
        name = f"mcp-world-{uuid.uuid4().hex[:12]}"
        own = _own_cgroups()
        made = cls()
        try:
            if "" in own and Path("/sys/fs/cgroup/cgroup.controllers").exists():  # v2
                base = Path("/sys/fs/cgroup") / own[""].lstrip("/")
                folder = base / name
                folder.mkdir()
                made.folders.append(folder)
                (folder / "memory.max").write_text(str(memory_bytes))
                (folder / "pids.max").write_text(str(max_processes))
                return made
            for controller, limit_file, value in (("memory", "memory.limit_in_bytes", memory_bytes),
                                                  ("pids", "pids.max", max_processes)):
                base = Path("/sys/fs/cgroup") / controller / own.get(controller, "/").lstrip("/")
                folder = base / name
                folder.mkdir()
                made.folders.append(folder)
                (folder / limit_file).write_text(str(value))
            return made
        except OSError as err:
            log.info("no cgroup for the sandbox (%s); its rlimits still apply", err)
            made.remove()
            return None

    def join(self) -> None:
        """Put the calling process (the child, before exec) into the cgroup."""
        for folder in self.folders:
            (folder / "cgroup.procs").write_text(str(os.getpid()))

    def remove(self) -> None:
        for folder in reversed(self.folders):
            try:
                folder.rmdir()
            except OSError:
                pass  # still has processes (being killed); the kernel keeps it until they are gone
        self.folders = []


def _own_cgroups() -> dict[str, str]:
    """This process's cgroup per controller ("" for the v2 hierarchy)."""
    found: dict[str, str] = {}
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for c in controllers.split(",") if controllers else [""]:
                found[c] = path
    except (OSError, ValueError):
        pass
    return found


@dataclass
class UidLease:
    """A host uid one sandbox runs as, held until `release` (or its process ends)."""

    uid: int
    fd: int | None = None

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def sandbox_uid() -> UidLease:
    """A uid no other sandbox on this machine runs as, in this process or another (two servers, a
    server and `tasks run`, the tests' nets run side by side): each is leased by an exclusive lock on
    a file of its own under UID_LEASES, which the kernel drops when the process ends. Before, each
    process counted from the same first uid, so two processes' sandboxes ran as one user: their
    processes counted against one RLIMIT_NPROC (one sandbox's pipeline failed with "fork: retry:
    Resource temporarily unavailable" while the other ran), and a uid was given again after 100,000."""
    start = next(_UIDS) + os.getpid() * 97
    folder = _lease_folder()
    for k in range(UID_COUNT if folder is not None else 0):
        n = (start + k) % UID_COUNT
        try:
            fd = os.open(folder / str(n), os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as err:
            log.warning("a sandbox uid could not be leased (%s): counted in this process", err)
            break
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return UidLease(UID_BASE + n, fd)
    return UidLease(UID_BASE + start % UID_COUNT)


@functools.lru_cache(maxsize=1)
def _lease_folder() -> Path | None:
    """Where the uid leases are kept (made once, root's alone); None, said once, where it cannot be."""
    try:
        UID_LEASES.mkdir(parents=True, exist_ok=True, mode=0o700)
        return UID_LEASES
    except OSError as err:
        log.warning("sandbox uids are not leased across processes (%s): counted in this process", err)
        return None


def tasks_of(uid: int) -> int:
    """How many tasks (threads included: RLIMIT_NPROC counts them) the user runs now."""
    n = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        if fields.get("Uid", "").split()[:1] == [str(uid)]:
            n += int(fields.get("Threads", "1").strip() or 1)
    return n


@dataclass(frozen=True)
class ChildLimits:
    memory_bytes: int
    file_bytes: int
    open_files: int
    cpu_seconds: int
    processes: int
    uid: int | None = None  # drop to this uid (and gid) when running as root
    cgroup: Cgroup | None = None

    def enter(self) -> None:
        """Run in the child between fork and exec: join the cgroup (as root), set the rlimits, drop the uid."""
        if self.cgroup is not None:
            self.cgroup.join()
        for which, value in ((resource.RLIMIT_AS, self.memory_bytes), (resource.RLIMIT_FSIZE, self.file_bytes),
                             (resource.RLIMIT_NOFILE, self.open_files), (resource.RLIMIT_CPU, self.cpu_seconds),
                             (resource.RLIMIT_NPROC, self.processes)):
            resource.setrlimit(which, (value, value))
        if self.uid is not None:
            os.setgroups([])
            os.setgid(self.uid)
            os.setuid(self.uid)
