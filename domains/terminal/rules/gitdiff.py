"""`git diff` as git prints it, for the changes whose hunks no diff algorithm can place otherwise:
lines added at the end of a file, one block of lines rewritten, inserted or taken out between lines
both sides keep (whose old and new lines share none, and that could not slide up or down), a file
emptied or written anew with no line in common, a file added or removed. Anything else (several
blocks, or lines that git's Myers diff and its heuristics could place in more than one way) is left
to the model. Checked byte for byte against git in the sandbox (benchmarks/state_vs_real.py) and
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
    return _one_block(a, b)


def _one_block(a: list[str], b: list[str]) -> tuple[str, int, int] | None:
    """One block of lines changed between the lines both files begin and end with (the usual edit:
    a line rewritten, some inserted or taken out): its hunk, where no diff can place it otherwise —
    the block's old and new lines share none (the common part is then the beginning and the end,
    as any shortest diff has it), and neither side could slide up or down (its last line is not the
    line above it, its first not the line below: git's heuristics would choose there)."""
    if len(a) > MAX_COUNTED or len(b) > MAX_COUNTED:
        return None
    top = 0
    while top < min(len(a), len(b)) and a[top] == b[top]:
        top += 1
    end = 0
    while end < min(len(a), len(b)) - top and a[-1 - end] == b[-1 - end]:
        end += 1
    gone, came = a[top:len(a) - end], b[top:len(b) - end]
    above, below = (a[top - 1] if top else None), (a[len(a) - end] if end else None)
    if set(gone) & set(came) or any(side and (side[-1] == above or side[0] == below) for side in (gone, came)):
        return None
    before, after = a[max(0, top - CONTEXT):top], a[len(a) - end:len(a) - end + CONTEXT]
    start = top - len(before) + 1
    func = next((line.rstrip()[:FUNC_WIDTH].rstrip() for line in reversed(a[:start - 1]) if _FUNC.match(line)), "")
    old_count, new_count = len(before) + len(gone) + len(after), len(before) + len(came) + len(after)
    head = f"@@ -{_range(start if old_count else start - 1, old_count)} +{_range(start if new_count else start - 1, new_count)} @@"
    body = "".join(" " + line for line in before) + "".join("-" + line for line in gone) + \
        "".join("+" + line for line in came) + "".join(" " + line for line in after)
    return f"{head}{' ' + func if func else ''}\n{body}", len(came), len(gone)


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
