"""`git diff` as git prints it: each file's patch (its hunks, with git's three lines of context,
hunks within six lines of each other merged, the function line after the @@, "\\ No newline at end
of file"), `--stat`, `--name-only`, `--name-status`. Where the changes go is xdiff.py's (git's own
diff, written in Python). Binary files, files past MAX_LINES, names git would quote, and the rare
change where git's diff cuts its search short are left to the model. Checked byte for byte against
git in the sandbox (benchmarks/state_vs_real.py) and against git on generated edits
(tests/test_gitdiff.py).
"""

from __future__ import annotations

import re

from . import xdiff

CONTEXT = 3
FUNC_WIDTH = 80  # git keeps at most this many bytes of the line named after a hunk's @@
STAT_WIDTH = 80  # the terminal width git assumes when its output is not a terminal
_FUNC = re.compile(r"[A-Za-z_$]")  # git's default: a line starting with a letter, `_` or `$` names a hunk


def _range(start: int, count: int) -> str:
    return f"{start}" if count == 1 else f"{start},{count}"


def hunks(old: str, new: str) -> tuple[str, int, int] | None:
    """The hunk text and the lines added and removed, as git prints them (xdiff.py places the
    changes as git's diff does); None for binary text, longer files, or where git would have cut its
    search short."""
    if "\0" in old or "\0" in new:
        return None  # ("Binary files … differ": not written here)
    a, b = xdiff.lines(old), xdiff.lines(new)
    if len(a) > MAX_LINES or len(b) > MAX_LINES:
        return None
    script = xdiff.changes(a, b)
    if script is None:
        return None
    out, added, removed = [], 0, 0
    k = 0
    while k < len(script):  # a hunk: the changes within 2 * CONTEXT lines of each other (xdl_get_hunk)
        last = k
        while last + 1 < len(script) and script[last + 1][0] - sum(script[last][:2]) <= 2 * CONTEXT:
            last += 1
        i1, _, i2, _ = script[k]
        e = script[last]
        after = min(CONTEXT, len(a) - (e[0] + e[1]), len(b) - (e[2] + e[3]))
        s1, s2 = max(i1 - CONTEXT, 0), max(i2 - CONTEXT, 0)
        e1, e2 = e[0] + e[1] + after, e[2] + e[3] + after
        func = _func_line(a, s1 - 1)
        if func is None:
            return None
        body, at = [" " + line for line in b[s2:i2]], i2
        for j1, c1, j2, c2 in script[k:last + 1]:
            body += [" " + line for line in b[at:j2]]
            body += ["-" + line for line in a[j1:j1 + c1]] + ["+" + line for line in b[j2:j2 + c2]]
            removed, added, at = removed + c1, added + c2, j2 + c2
        body += [" " + line for line in b[at:e2]]
        head = f"@@ -{_range(s1 + 1 if e1 > s1 else s1, e1 - s1)} +{_range(s2 + 1 if e2 > s2 else s2, e2 - s2)} @@"
        out.append(f"{head}{' ' + func if func else ''}\n" +
                   "".join(line if line.endswith("\n") else line + NO_NEWLINE for line in body))
        k = last + 1
    return "".join(out), added, removed


NO_NEWLINE = "\n\\ No newline at end of file\n"
MAX_LINES = 5000  # lines a side (past them: the model's)


def _func_line(a: list[str], start: int) -> str | None:
    """The line git names after a hunk's @@: the nearest old line at or above `start` that starts
    with a letter, `_` or `$`, its first FUNC_WIDTH bytes without the spaces that end them ("" for
    none; None where that cut would split a character)."""
    for line in reversed(a[:start + 1] if start >= 0 else []):
        if _FUNC.match(line):
            cut = line.encode("utf-8", "surrogateescape")[:FUNC_WIDTH].rstrip(b" \t\n\v\f\r")
            try:
                return cut.decode("utf-8")
            except UnicodeDecodeError:
                return None
    return ""


def patch(path: str, old: str | None, new: str | None, old_id: str, new_id: str,
          modes: tuple[str, str] = ("100644", "100644")) -> tuple[str, int, int] | None:
    """One file's part of `git diff` (None for a side that does not exist; `modes`: each side's, as
    git records them), and its lines added and removed; None where it is not certain."""
    found = hunks(old or "", new or "")
    if found is None:
        return None
    body, added, removed = found
    short = (old_id or "0" * 40)[:7] + ".." + (new_id or "0" * 40)[:7]
    out = f"diff --git a/{path} b/{path}\n"
    if old is None:
        out += f"new file mode {modes[1]}\nindex {short}\n"
    elif new is None:
        out += f"deleted file mode {modes[0]}\nindex {short}\n"
    elif modes[0] != modes[1]:  # (a mode changed: said first; the index line then has no mode, or is not there)
        out += f"old mode {modes[0]}\nnew mode {modes[1]}\n" + (f"index {short}\n" if old_id != new_id else "")
    else:
        out += f"index {short} {modes[0]}\n"
    if body:
        out += f"--- {'/dev/null' if old is None else 'a/' + path}\n+++ {'/dev/null' if new is None else 'b/' + path}\n" + body
    return out, added, removed


_NAME = re.compile(r"[A-Za-z0-9._/+@=,-]+")  # a path git writes as it is (others it quotes)


def body(changes: list[tuple[str, str | None, str | None, str, str]], form: str,
         modes: dict[str, tuple[str, str]] | None = None) -> str | None:
    """What `git diff` (or `git show` after its header) prints for the changed files, in the order
    given — (path, old text, new text, old blob id, new blob id), a text None where that side has no
    file; `modes`: each side's of a path where one is not 100644 — as patches, `--stat`, `--numstat`,
    `--shortstat`, `--name-only` (`names`) or `--name-status` (`status`); None where one is not
    certain, or git would quote a name."""
    out: list[str] = []
    rows: list[tuple[str, int, int]] = []
    for path, old, new, old_id, new_id in changes:
        if not _NAME.fullmatch(path):
            return None
        if form == "patch":
            found = patch(path, old, new, old_id, new_id, (modes or {}).get(path, ("100644", "100644")))
            if found is None:
                return None
            out.append(found[0])
        elif form in ("stat", "numstat", "shortstat"):
            counted = counts(old or "", new or "")
            if counted is None:
                return None
            rows.append((path, *counted))
        elif form == "names":
            out.append(path + "\n")
        else:
            out.append(f"{'A' if old is None else 'D' if new is None else 'M'}\t{path}\n")
    if form == "numstat":
        return "".join(f"{added}\t{removed}\t{path}\n" for path, added, removed in rows)
    if form == "shortstat":
        return shortstat(len(rows), sum(r[1] for r in rows), sum(r[2] for r in rows)) if rows else ""
    return stat(rows) if form == "stat" else "".join(out)


def stat(rows: list[tuple[str, int, int]]) -> str:
    """`git diff --stat` for (path, added, removed) rows, as git 2.39's show_stats lays them out on
    its 80 columns: where a name, the count and the +/- graph do not fit, the graph gets at most
    3/8 of the width and is scaled, and a long name is cut from the left to "..." and its last
    folders."""
    if not rows:
        return ""
    longest = max(len(p) for p, _, _ in rows)
    most = max(a + r for _, a, r in rows)
    digits = len(str(most))
    width = max(STAT_WIDTH, 16 + 6 + digits)
    name_width, graph_width = longest, most
    if name_width + digits + 6 + graph_width > width:
        graph_width = min(graph_width, max(width * 3 // 8 - digits - 6, 6))
        if name_width > width - digits - 6 - graph_width:
            name_width = width - digits - 6 - graph_width
        else:
            graph_width = width - digits - 6 - name_width
    lines = []
    for path, added, removed in rows:
        lines.append(f" {_stat_name(path, name_width)} | {added + removed:>{digits}} "
                     f"{_graph(added, removed, graph_width, most)}".rstrip() + "\n")
    return "".join(lines) + shortstat(len(rows), sum(a for _, a, _ in rows), sum(r for _, _, r in rows))


def _stat_name(path: str, width: int) -> str:
    """A name in a diffstat's column: padded, or cut to "..." and its end from the first slash there."""
    if len(path) <= width:
        return path.ljust(width)
    room = max(width - 3, 0)
    tail = path[len(path) - room:] if room else ""
    if "/" in tail:
        tail = tail[tail.index("/"):]
    return "..." + tail.ljust(room)


def _graph(added: int, removed: int, width: int, most: int) -> str:
    """The +/- graph of one row, scaled as git scales it where the largest change is wider than the
    graph's room (each side at least one mark where it is not 0)."""
    if width <= most:
        def scaled(n: int) -> int:
            return 0 if not n else 1 + n * (width - 1) // most
        total = max(scaled(added + removed), 2 if added and removed else 0)
        if added < removed:
            added = scaled(added)
            removed = total - added
        else:
            removed = scaled(removed)
            added = total - removed
    return "+" * added + "-" * removed


def shortstat(files: int, added: int, removed: int) -> str:
    """The summary line of a diffstat, as git writes it (both counts when both are 0)."""
    summary = f" {files} file{'s' if files != 1 else ''} changed"
    if added or not removed:
        summary += f", {added} insertion{'s' if added != 1 else ''}(+)"
    if removed or not added:
        summary += f", {removed} deletion{'s' if removed != 1 else ''}(-)"
    return summary + "\n"


def counts(old: str, new: str) -> tuple[int, int] | None:
    """Lines added and removed between two texts, as git's diff counts them (`--stat`); None for
    binary text, longer files, or where git would have cut its search short."""
    if "\0" in old or "\0" in new:
        return None
    a, b = xdiff.lines(old), xdiff.lines(new)
    if not a or not b:  # (a file added, emptied or removed: every line counts)
        return len(b), len(a)
    if len(a) > MAX_LINES or len(b) > MAX_LINES:
        return None
    script = xdiff.changes(a, b)
    return None if script is None else (sum(c[3] for c in script), sum(c[1] for c in script))
