"""`git diff` as git prints it, for the changes whose hunks no diff algorithm can place otherwise:
lines added at the end of a file, any change that only one diff can make (the two sides' longest
common subsequence is one matching: lines rewritten, inserted or taken out, in one place or
several), a file emptied or written anew with no line in common, a file added or removed. Anything
else (lines that git's Myers diff and its heuristics could place in more than one way: a line
inserted beside an equal one, lines moved) is left to the model. Checked byte for byte against git in the sandbox (benchmarks/state_vs_real.py) and
against git on generated edits (tests/test_state.py).
"""

from __future__ import annotations

import re

CONTEXT = 3
FUNC_WIDTH = 80  # git keeps at most this many bytes of the line named after a hunk's @@
STAT_WIDTH = 80  # the terminal width git assumes when its output is not a terminal
_FUNC = re.compile(r"[A-Za-z_$]")  # git's default: a line starting with a letter, `_` or `$` names a hunk


def _range(start: int, count: int) -> str:
    return f"{start}" if count == 1 else f"{start},{count}"


def hunks(old: str, new: str) -> tuple[str, int, int] | None:
    """The hunk text and the lines added and removed, or None where git's placement is not certain."""
    if "\0" in old or "\0" in new or (old and not old.endswith("\n")) or (new and not new.endswith("\n")):
        return None  # binary, or "\ No newline at end of file": not written here
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    if a == b:
        return "", 0, 0
    if b[:len(a)] == a and not (a and b[-1] == a[-1]):  # lines added at the end: the last lines before
        # them are the context (unless the last added is the line above them: git may slide them up)
        context = a[-CONTEXT:]
        start = len(a) - len(context) + 1 if a else 0
        func = next((line.rstrip()[:FUNC_WIDTH].rstrip() for line in reversed(a[:start - 1]) if _FUNC.match(line)), "") \
            if start > 1 else ""
        head = f"@@ -{_range(start, len(context))} +{_range(start if a else 1, len(context) + len(b) - len(a))} @@"
        body = "".join(" " + line for line in context) + "".join("+" + line for line in b[len(a):])
        return f"{head}{' ' + func if func else ''}\n{body}", len(b) - len(a), 0
    if not set(a) & set(b):  # written anew: every line goes, every line comes
        head = f"@@ -{_range(1 if a else 0, len(a))} +{_range(1 if b else 0, len(b))} @@\n"
        return head + "".join("-" + line for line in a) + "".join("+" + line for line in b), len(b), len(a)
    return _one_way(a, b)


def _one_way(a: list[str], b: list[str]) -> tuple[str, int, int] | None:
    """The hunks of a change that only one diff can make: the longest common subsequence of the
    two sides' lines is one matching, so git's Myers diff (shortest, on files this small) finds it
    and no change can slide up or down (a slide is another matching as long). Its changes are
    shown with three lines of context, a hunk taking in the next change within six."""
    n, m = len(a), len(b)
    if n > MAX_COUNTED or m > MAX_COUNTED:
        return None
    # longest[i][j]: the longest common subsequence of a[i:] and b[j:]; ways: how many matchings
    # make it (counted to 2)
    longest = [[0] * (m + 1) for _ in range(n + 1)]
    ways = [[1] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below, way, way_below = longest[i], longest[i + 1], ways[i], ways[i + 1]
        for j in range(m - 1, -1, -1):
            best = max(below[j], row[j + 1], below[j + 1] + 1 if a[i] == b[j] else 0)
            count = (way_below[j + 1] if a[i] == b[j] and below[j + 1] + 1 == best else 0) + \
                (way_below[j] if below[j] == best else 0) + (way[j + 1] if row[j + 1] == best else 0) - \
                (way_below[j + 1] if below[j + 1] == best else 0)
            row[j], way[j] = best, min(count, 2)
    if ways[0][0] != 1 or n + m - 2 * longest[0][0] > MAX_CHANGED:
        return None
    pairs, i, j = [], 0, 0  # the one matching, walked from the start
    while i < n and j < m:
        if a[i] == b[j] and longest[i][j] == longest[i + 1][j + 1] + 1:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif longest[i + 1][j] == longest[i][j]:
            i += 1
        else:
            j += 1
    pairs.append((n, m))
    groups, i, j = [], 0, 0  # (old from, old to, new from, new to) of each change
    for x, y in pairs:
        if x > i or y > j:
            groups.append((i, x, j, y))
        i, j = x + 1, y + 1
    out, added, removed = [], 0, 0
    k, done = 0, 0  # (the old lines up to `done` are in a hunk already)
    while k < len(groups):
        last = k
        while last + 1 < len(groups) and groups[last + 1][0] - groups[last][1] <= 2 * CONTEXT:
            last += 1
        before = min(CONTEXT, groups[k][0] - done)  # (lines both sides keep: as many above on each)
        end_old = min(groups[last][1] + CONTEXT, n)
        body, at = [], groups[k][0] - before
        for g in groups[k:last + 1]:
            body += [" " + line for line in a[at:g[0]]]
            body += ["-" + line for line in a[g[0]:g[1]]] + ["+" + line for line in b[g[2]:g[3]]]
            removed, added, at = removed + g[1] - g[0], added + g[3] - g[2], g[1]
        body += [" " + line for line in a[at:end_old]]
        old_count = sum(1 for line in body if line[0] != "+")
        new_count = sum(1 for line in body if line[0] != "-")
        old_start, new_start = groups[k][0] - before + 1, groups[k][2] - before + 1
        func = next((line.rstrip()[:FUNC_WIDTH].rstrip() for line in reversed(a[:old_start - 1])
                     if _FUNC.match(line)), "")
        head = f"@@ -{_range(old_start if old_count else old_start - 1, old_count)} " \
               f"+{_range(new_start if new_count else new_start - 1, new_count)} @@"
        out.append(f"{head}{' ' + func if func else ''}\n" + "".join(body))
        k, done = last + 1, groups[last][1]
    return "".join(out), added, removed


MAX_CHANGED = 200  # lines added and removed: past them git's diff may settle for a longer script


def patch(path: str, old: str | None, new: str | None, old_id: str, new_id: str) -> tuple[str, int, int] | None:
    """One file's part of `git diff` (None for a side that does not exist), and its lines added and
    removed; None where it is not certain."""
    found = hunks(old or "", new or "")
    if found is None:
        return None
    body, added, removed = found
    short = (old_id or "0" * 40)[:7] + ".." + (new_id or "0" * 40)[:7]
    out = f"diff --git a/{path} b/{path}\n"
    if old is None:
        out += f"new file mode 100644\nindex {short}\n"
    elif new is None:
        out += f"deleted file mode 100644\nindex {short}\n"
    else:
        out += f"index {short} 100644\n"
    if body:
        out += f"--- {'/dev/null' if old is None else 'a/' + path}\n+++ {'/dev/null' if new is None else 'b/' + path}\n" + body
    return out, added, removed


_NAME = re.compile(r"[A-Za-z0-9._/+@=,-]+")  # a path git writes as it is (others it quotes)


def body(changes: list[tuple[str, str | None, str | None, str, str]], form: str) -> str | None:
    """What `git diff` (or `git show` after its header) prints for the changed files, in the order
    given — (path, old text, new text, old blob id, new blob id), a text None where that side has no
    file — as patches, `--stat`, `--name-only` (`names`) or `--name-status` (`status`); None where
    one is not certain, or git would quote a name."""
    out: list[str] = []
    rows: list[tuple[str, int, int]] = []
    for path, old, new, old_id, new_id in changes:
        if not _NAME.fullmatch(path):
            return None
        if form == "patch":
            found = patch(path, old, new, old_id, new_id)
            if found is None:
                return None
            out.append(found[0])
        elif form == "stat":
            counted = counts(old or "", new or "")
            if counted is None:
                return None
            rows.append((path, *counted))
        elif form == "names":
            out.append(path + "\n")
        else:
            out.append(f"{'A' if old is None else 'D' if new is None else 'M'}\t{path}\n")
    return stat(rows) if form == "stat" else "".join(out)


def stat(rows: list[tuple[str, int, int]]) -> str | None:
    """`git diff --stat` for (path, added, removed) rows; None where git would scale the graph down."""
    if not rows:
        return ""
    name = max(len(p) for p, _, _ in rows)
    most = max(a + r for _, a, r in rows)
    digits = len(str(most))
    if 1 + name + 3 + digits + 1 + most + 1 > STAT_WIDTH:
        return None  # git shortens names and scales the +/- graph to fit: not written here
    lines = [f" {p:<{name}} | {a + r:>{digits}} {'+' * a}{'-' * r}".rstrip() + "\n" for p, a, r in rows]
    return "".join(lines) + shortstat(len(rows), sum(a for _, a, _ in rows), sum(r for _, _, r in rows))


def shortstat(files: int, added: int, removed: int) -> str:
    """The summary line of a diffstat, as git writes it (both counts when both are 0)."""
    summary = f" {files} file{'s' if files != 1 else ''} changed"
    if added or not removed:
        summary += f", {added} insertion{'s' if added != 1 else ''}(+)"
    if removed or not added:
        summary += f", {removed} deletion{'s' if removed != 1 else ''}(-)"
    return summary + "\n"


MAX_COUNTED = 400  # lines a side: longer files' changes are counted by the model


def counts(old: str, new: str) -> tuple[int, int] | None:
    """Lines added and removed between two texts by a shortest edit (git's Myers diff finds one on
    files this small); None for larger files or binary ones."""
    if "\0" in old or "\0" in new:
        return None
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    if not a or not b:  # (a file added, emptied or removed: every line counts)
        return len(b), len(a)
    if len(a) > MAX_COUNTED or len(b) > MAX_COUNTED:
        return None
    while a and b and a[0] == b[0]:
        a, b = a[1:], b[1:]
    while a and b and a[-1] == b[-1]:
        a, b = a[:-1], b[:-1]
    row = [0] * (len(b) + 1)  # the longest common subsequence, one row at a time
    for x in a:
        prev = 0
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], prev + 1 if x == y else max(row[j], row[j - 1])
    common = row[-1]
    return len(b) - common, len(a) - common
