"""`stat -c FORMAT NAME…` (`--format=FORMAT`; coreutils 9.1, as the sandbox has it): each name's line
of what the state knows of it, as `ls -l` shows it (folders._Rows: size, mode, links, owner). A
directive the state does not know (an inode, a device, a time) leaves the line to the model; a name
not there is refused in its turn.
"""

from __future__ import annotations

import re

from . import machine, missing, modes
from .folders import _Rows
from .state import _PLAIN, TerminalState, _abs

_DIRECTIVE = re.compile(r"%(.)")
_KNOWN = set("snaAUGFhugbB%")  # (not %Y: the second the world was made is the sandbox's own)


def answer(args: list[str], s: TerminalState) -> tuple[str, int] | None:
    """What `stat -c FORMAT NAME…` prints and its exit code; None: the model's."""
    if args[:1] == ["-c"] and len(args) >= 3:
        fmt, names = args[1], args[2:]
    elif args[:1] and args[0].startswith("--format=") and len(args) >= 2:
        fmt, names = args[0].removeprefix("--format="), args[1:]
    else:
        return None
    if "\\" in fmt or any(d not in _KNOWN for d in _DIRECTIVE.findall(fmt)) or "%" in _DIRECTIVE.sub("", fmt) or \
            any(n.startswith("-") or not _PLAIN.fullmatch(n) for n in names):
        return None
    rows, out, code = _Rows(s), [], 0
    for name in names:
        path = _abs(name, s)
        why = missing.what_is_at(name, s)
        if why in (missing.NO_ENTRY, missing.NOT_DIR):
            out.append(f"stat: cannot statx '{name}': {why}\n")
            code = 1
            continue
        row = rows.row(path, name) if why in ("file", "dir") else None
        mode = modes.of(path, s)
        if row is None or mode is None:
            return None
        out.append(_DIRECTIVE.sub(lambda m: _value(m.group(1), name, row, mode, why == "dir", s), fmt) + "\n")
    return "".join(out), code


def _value(code: str, name: str, row, mode: int, folder: bool, s: TerminalState) -> str:
    user = machine._user(s)
    return {"s": str(row.size), "n": name, "a": format(mode & 0o7777, "o"), "A": row.mode, "U": user, "G": user,
            "F": "directory" if folder else "regular empty file" if row.size == 0 else "regular file",
            "h": str(row.links), "u": str(machine.UID), "g": str(machine.UID), "b": str(row.blocks * 2),
            "B": "512", "%": "%"}[code]
