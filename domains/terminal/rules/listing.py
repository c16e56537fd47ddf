"""`ls -l` as GNU ls prints it where the shadow sandbox keeps the home: a tmpfs, where a folder's
size is 40 bytes and 20 an entry, a file takes whole 4 KiB pages, files are 644 and folders 755,
owned by the user (checked byte for byte in the sandbox by benchmarks/state_vs_real.py)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

# The repository's .git folder as git (2.39, the sandbox's) leaves it after the world's first commit:
# branches/ COMMIT_EDITMSG config description HEAD hooks/ index info/ logs/ objects/ refs/
GIT_DIR_ENTRIES, GIT_DIR_FOLDERS = 11, 6
SIX_MONTHS = 31556952 // 2  # (older, or in the future: the year is shown instead of the time)


@dataclass
class Row:
    name: str
    mode: str
    links: int
    size: int
    blocks: int  # 1 KiB blocks, for `total`
    when: int


def file_row(name: str, size: int, when: int, mode: str = "-rw-r--r--") -> Row:
    return Row(name, mode, 1, size, -(-size // 4096) * 4, when)


def folder_row(name: str, entries: int, folders: int, when: int, mode: str = "drwxr-xr-x") -> Row:
    """A folder holding `entries` entries, `folders` of them folders (each names it as `..`)."""
    return Row(name, mode, 2 + folders, 40 + 20 * entries, 0, when)


def render(rows: list[Row], now: int, user: str, human: bool, total: bool, also: tuple[Row, ...] = ()) -> str:
    """The rows in their order, each column as wide as its widest cell (of `also`'s too: GNU ls sizes
    the table of the files named on its line by every name there, the folders listed after it too);
    `total` first for a folder."""
    def cells(r: Row) -> tuple[str, str, str, str, str]:
        recent = now - SIX_MONTHS < r.when <= now
        stamp = time.strftime("%b %e %H:%M" if recent else "%b %e  %Y", time.gmtime(r.when))
        return r.mode, str(r.links), human_size(r.size) if human else str(r.size), stamp, r.name
    shown = [cells(r) for r in rows]
    links, sizes = (max((len(c[i]) for c in shown + [cells(r) for r in also]), default=0) for i in (1, 2))
    out = "".join(f"{mode} {n:>{links}} {user} {user} {size:>{sizes}} {stamp} {name}\n"
                  for mode, n, size, stamp, name in shown)
    if total:
        blocks = sum(r.blocks for r in rows)
        out = f"total {human_size(blocks * 1024) if human else blocks}\n" + out
    return out


def human_size(size: int) -> str:
    """A size as `ls -h` writes it: bytes below 1 KiB, else rounded up to one decimal under 10 of a
    unit (4.1K), to a whole one above (12K)."""
    if size < 1024:
        return str(size)
    value = float(size)
    for unit in "KMGTPE":
        value /= 1024
        tenths = math.ceil(value * 10 - 1e-9)
        if tenths < 100:
            return f"{tenths / 10:.1f}{unit}"
        whole = math.ceil(value - 1e-9)
        if whole < 1024:
            return f"{whole}{unit}"
    return str(size)
