"""Which lines git's diff takes as removed and added between two texts: the choices of git's own
xdiff (its Myers diff, as `git diff`, `git show` and `git log -p` run it by default), written here
in Python from how xdiff works, step by step, so that the state's `git diff` places every change
where git places it:

1. **Preparing** (xprepare.c): lines are equal where their bytes are (the newline included: a last
   line without one differs from the same line with it). The lines both files share at their start
   and end are set aside. Of the rest, a line the other file lacks is changed outright; a line the
   other file has many times (at least about the square root of its line count) is changed too
   where it sits among lines of the first kind (the "multiple match" rule and its window of 100).
2. **The Myers diff** (xdiffi.c) on the lines left: divide and conquer on the middle snake, each
   box first shrunk by the lines equal at its two ends. Past an edit cost of 256, git cuts its
   search short with heuristics: not followed here (None), as a file with that many changed lines
   is the model's anyway.
3. **Compacting** (xdl_change_compact, each side in turn): each group of changed lines slides up
   and down over equal lines, merging with the groups it meets; it settles where it lines up with
   a change on the other side, else where the indent heuristic (on by default since git 2.14)
   scores its two edges best, else as high as it goes.

Checked against this machine's git on generated edits (tests/test_gitdiff.py) and in the sandbox
(benchmarks/state_vs_real.py). GNU diff's own algorithm differs; gnudiff.py uses this one only where
every minimal diff shows the same lines.
"""

from __future__ import annotations

from collections import Counter


MAX_COST = 256  # xdiff's XDL_MAX_COST_MIN and XDL_HEUR_MIN_COST: past this edit cost it may guess
MAX_EQLIMIT = 1024
SIMSCAN_WINDOW = 100
KPDIS_RUN = 4
MAX_INDENT = 200
MAX_BLANKS = 20
MAX_SLIDING = 100
# The indent heuristic's weights (xdiffi.c's, found on a corpus by its author): larger is worse
START_OF_FILE_PENALTY = 1
END_OF_FILE_PENALTY = 21
TOTAL_BLANK_WEIGHT = -30
POST_BLANK_WEIGHT = 6
RELATIVE_INDENT_PENALTY = -4
RELATIVE_INDENT_WITH_BLANK_PENALTY = 10
RELATIVE_OUTDENT_PENALTY = 24
RELATIVE_OUTDENT_WITH_BLANK_PENALTY = 17
RELATIVE_DEDENT_PENALTY = 23
RELATIVE_DEDENT_WITH_BLANK_PENALTY = 17
INDENT_WEIGHT = 60
_SPACE = " \t\n\v\f\r"  # C's isspace


class _CutShort(Exception):
    """git's Myers diff would have settled for a path its heuristics chose."""


def lines(text: str) -> list[str]:
    """A text's records as xdiff reads them: split after each newline (and nothing else: a `\\r` or a
    form feed stays inside its line), a last line without one kept as it is."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def changes(a: list[str], b: list[str]) -> list[tuple[int, int, int, int]] | None:
    """git's edit script between the lines `a` and `b`: (first old line, lines removed, first new
    line, lines added) for each change, in order, counted from 0; None where git would have cut its
    search short."""
    ids: dict[str, int] = {}
    ha1 = [ids.setdefault(x, len(ids)) for x in a]
    ha2 = [ids.setdefault(x, len(ids)) for x in b]
    n1, n2 = len(ha1), len(ha2)
    # changed[k + 1]: whether line k changed (with a 0 kept on either side: rows -1 and n)
    rchg1, rchg2 = [0] * (n1 + 2), [0] * (n2 + 2)
    start, lim = 0, min(n1, n2)
    while start < lim and ha1[start] == ha2[start]:
        start += 1
    tail = 0
    while tail < lim - start and ha1[n1 - 1 - tail] == ha2[n2 - 1 - tail]:
        tail += 1
    kept1 = _kept(ha1, Counter(ha2), start, n1 - tail - 1, rchg1)
    kept2 = _kept(ha2, Counter(ha1), start, n2 - tail - 1, rchg2)
    try:
        _myers(kept1, kept2, ha1, ha2, rchg1, rchg2)
    except _CutShort:
        return None
    _compact(ha1, rchg1, rchg2, a)
    _compact(ha2, rchg2, rchg1, b)
    script: list[tuple[int, int, int, int]] = []
    i1, i2 = n1, n2
    while i1 >= 0 or i2 >= 0:
        if (i1 >= 0 and rchg1[i1]) or (i2 >= 0 and rchg2[i2]):
            l1, l2 = i1, i2
            while i1 > 0 and rchg1[i1]:
                i1 -= 1
            while i2 > 0 and rchg2[i2]:
                i2 -= 1
            script.append((i1, l1 - i1, i2, l2 - i2))
        i1, i2 = i1 - 1, i2 - 1
    return script[::-1]


def _bogosqrt(n: int) -> int:
    i = 1
    while n > 0:
        i, n = i << 1, n >> 2
    return i


def _kept(ha: list[int], other: Counter, dstart: int, dend: int, rchg: list[int]) -> list[int]:
    """The lines between the common ends that go to the Myers diff; the others are marked changed:
    those the other file lacks, and those it has many times that sit among them."""
    mlim = min(_bogosqrt(len(ha)), MAX_EQLIMIT)
    dis = [0] * (len(ha) + 1)
    for i in range(dstart, dend + 1):
        nm = other[ha[i]]
        dis[i] = 0 if nm == 0 else 2 if nm >= mlim else 1
    kept = []
    for i in range(dstart, dend + 1):
        if dis[i] == 1 or dis[i] == 2 and not _among_unmatched(dis, i, dstart, dend):
            kept.append(i)
        else:
            rchg[i + 1] = 1
    return kept


def _among_unmatched(dis: list[int], i: int, s: int, e: int) -> bool:
    """xdl_clean_mmatch: a line of many matches is dropped where the runs around it hold lines of no
    match, and few of many."""
    s, e = max(s, i - SIMSCAN_WINDOW), min(e, i + SIMSCAN_WINDOW)
    runs = []
    for step, bound in ((-1, s), (1, e)):
        none, many, r = 0, 1, 1
        while (i + step * r >= bound) if step < 0 else (i + r <= bound):
            d = dis[i + step * r]
            if d == 0:
                none += 1
            elif d == 2:
                many += 1
            else:
                break
            r += 1
        if none == 0:
            return False
        runs.append((none, many))
    none, many = runs[0][0] + runs[1][0], runs[0][1] + runs[1][1]
    return many * KPDIS_RUN < many + none


def _myers(kept1: list[int], kept2: list[int], ha1: list[int], ha2: list[int],
           rchg1: list[int], rchg2: list[int]) -> None:
    """xdl_recs_cmp: divide and conquer on the middle snake, marking the lines left unmatched."""
    h1, h2 = [ha1[i] for i in kept1], [ha2[i] for i in kept2]
    n1, n2 = len(h1), len(h2)
    size = n1 + n2 + 3
    base = n2 + 1  # (diagonal d is at index d + base)
    kvdf, kvdb = [0] * (size + 2), [0] * (size + 2)
    boxes = [(0, n1, 0, n2, False)]
    while boxes:
        off1, lim1, off2, lim2, need_min = boxes.pop()
        while off1 < lim1 and off2 < lim2 and h1[off1] == h2[off2]:
            off1, off2 = off1 + 1, off2 + 1
        while off1 < lim1 and off2 < lim2 and h1[lim1 - 1] == h2[lim2 - 1]:
            lim1, lim2 = lim1 - 1, lim2 - 1
        if off1 == lim1:
            for k in range(off2, lim2):
                rchg2[kept2[k] + 1] = 1
        elif off2 == lim2:
            for k in range(off1, lim1):
                rchg1[kept1[k] + 1] = 1
        else:
            i1, i2 = _split(h1, off1, lim1, h2, off2, lim2, kvdf, kvdb, base, need_min)
            boxes.append((i1, lim1, i2, lim2, True))
            boxes.append((off1, i1, off2, i2, True))


def _split(h1: list[int], off1: int, lim1: int, h2: list[int], off2: int, lim2: int,
           kvdf: list[int], kvdb: list[int], base: int, need_min: bool) -> tuple[int, int]:
    """xdl_split: where the forward and backward searches meet (the middle snake)."""
    dmin, dmax = off1 - lim2, lim1 - off2
    fmid, bmid = off1 - off2, lim1 - lim2
    odd = (fmid - bmid) & 1
    fmin = fmax = fmid
    bmin = bmax = bmid
    kvdf[fmid + base] = off1
    kvdb[bmid + base] = lim1
    big = 1 << 62
    ec = 0
    while True:
        ec += 1
        if not need_min and ec >= MAX_COST:
            raise _CutShort
        if fmin > dmin:
            fmin -= 1
            kvdf[fmin - 1 + base] = -1
        else:
            fmin += 1
        if fmax < dmax:
            fmax += 1
            kvdf[fmax + 1 + base] = -1
        else:
            fmax -= 1
        for d in range(fmax, fmin - 1, -2):
            i1 = kvdf[d - 1 + base] + 1 if kvdf[d - 1 + base] >= kvdf[d + 1 + base] else kvdf[d + 1 + base]
            i2 = i1 - d
            while i1 < lim1 and i2 < lim2 and h1[i1] == h2[i2]:
                i1, i2 = i1 + 1, i2 + 1
            kvdf[d + base] = i1
            if odd and bmin <= d <= bmax and kvdb[d + base] <= i1:
                return i1, i2
        if bmin > dmin:
            bmin -= 1
            kvdb[bmin - 1 + base] = big
        else:
            bmin += 1
        if bmax < dmax:
            bmax += 1
            kvdb[bmax + 1 + base] = big
        else:
            bmax -= 1
        for d in range(bmax, bmin - 1, -2):
            i1 = kvdb[d - 1 + base] if kvdb[d - 1 + base] < kvdb[d + 1 + base] else kvdb[d + 1 + base] - 1
            i2 = i1 - d
            while i1 > off1 and i2 > off2 and h1[i1 - 1] == h2[i2 - 1]:
                i1, i2 = i1 - 1, i2 - 1
            kvdb[d + base] = i1
            if not odd and fmin <= d <= fmax and i1 <= kvdf[d + base]:
                return i1, i2


def _indent(line: str) -> int:
    """A line's indent (a tab to the next multiple of 8), -1 for a blank line, at most MAX_INDENT."""
    ret = 0
    for c in line:
        if c not in _SPACE:
            return ret
        if c == " ":
            ret += 1
        elif c == "\t":
            ret += 8 - ret % 8
        if ret >= MAX_INDENT:
            return MAX_INDENT
    return -1


def _blanks(texts: list[str], rows: range) -> tuple[int, int]:
    """How many blank lines come first along `rows`, and the indent of the line after them (-1 for
    none; 0 past MAX_BLANKS)."""
    blank = 0
    for i in rows:
        indent = _indent(texts[i])
        if indent != -1:
            return blank, indent
        blank += 1
        if blank == MAX_BLANKS:
            return blank, 0
    return blank, -1


def _score(texts: list[str], split: int) -> tuple[int, int]:
    """The indent heuristic's (effective indent, penalty) of a split above line `split`."""
    n = len(texts)
    end_of_file = split >= n
    indent = -1 if end_of_file else _indent(texts[split])
    pre_blank, pre_indent = _blanks(texts, range(split - 1, -1, -1))
    post_blank, post_indent = _blanks(texts, range(split + 1, n))
    penalty = 0
    if pre_indent == -1 and pre_blank == 0:
        penalty += START_OF_FILE_PENALTY
    if end_of_file:
        penalty += END_OF_FILE_PENALTY
    blanks_after = 1 + post_blank if indent == -1 else 0
    total_blank = pre_blank + blanks_after
    penalty += TOTAL_BLANK_WEIGHT * total_blank + POST_BLANK_WEIGHT * blanks_after
    effective = indent if indent != -1 else post_indent
    if effective != -1 and pre_indent != -1:
        if effective > pre_indent:
            penalty += RELATIVE_INDENT_WITH_BLANK_PENALTY if total_blank else RELATIVE_INDENT_PENALTY
        elif effective < pre_indent:
            if post_indent != -1 and post_indent > effective:  # (likely a block's start)
                penalty += RELATIVE_OUTDENT_WITH_BLANK_PENALTY if total_blank else RELATIVE_OUTDENT_PENALTY
            else:  # (likely a block's end)
                penalty += RELATIVE_DEDENT_WITH_BLANK_PENALTY if total_blank else RELATIVE_DEDENT_PENALTY
    return effective, penalty


class _Group:
    """A run of changed lines (start, end: the first unchanged line after it) in one file."""

    def __init__(self, ha: list[int], rchg: list[int]) -> None:
        self.ha, self.rchg, self.n = ha, rchg, len(ha)
        self.start = self.end = 0
        while rchg[self.end + 1]:
            self.end += 1

    def next(self) -> bool:
        if self.end == self.n:
            return False
        self.start = self.end + 1
        self.end = self.start
        while self.rchg[self.end + 1]:
            self.end += 1
        return True

    def previous(self) -> bool:
        if self.start == 0:
            return False
        self.end = self.start - 1
        self.start = self.end
        while self.rchg[self.start]:
            self.start -= 1
        return True

    def down(self) -> bool:
        if self.end < self.n and self.ha[self.start] == self.ha[self.end]:
            self.rchg[self.start + 1] = 0
            self.rchg[self.end + 1] = 1
            self.start, self.end = self.start + 1, self.end + 1
            while self.rchg[self.end + 1]:
                self.end += 1
            return True
        return False

    def up(self) -> bool:
        if self.start > 0 and self.ha[self.start - 1] == self.ha[self.end - 1]:
            self.start, self.end = self.start - 1, self.end - 1
            self.rchg[self.start + 1] = 1
            self.rchg[self.end + 1] = 0
            while self.rchg[self.start]:
                self.start -= 1
            return True
        return False


def _compact(ha: list[int], rchg: list[int], rchg_other: list[int], texts: list[str]) -> None:
    """xdl_change_compact on one file, the other file's groups kept in step."""
    g = _Group(ha, rchg)
    go = _Group([0] * (len(rchg_other) - 2), rchg_other)
    while True:
        if g.end != g.start:
            while True:
                size = g.end - g.start
                matching_other = -1
                while g.up():
                    go.previous()
                earliest_end = g.end
                if go.end > go.start:
                    matching_other = g.end
                while g.down():
                    go.next()
                    if go.end > go.start:
                        matching_other = g.end
                if size == g.end - g.start:
                    break
            if g.end == earliest_end:
                pass  # (it cannot move)
            elif matching_other != -1:
                while go.end == go.start:  # (back to line up with the other side's change)
                    g.up()
                    go.previous()
            else:
                best_shift, best = -1, (0, 0)
                shift = max(earliest_end, g.end - size - 1, g.end - MAX_SLIDING)
                while shift <= g.end:
                    e1, p1 = _score(texts, shift)
                    e2, p2 = _score(texts, shift - size)
                    score = (e1 + e2, p1 + p2)
                    if best_shift == -1 or \
                            INDENT_WEIGHT * ((score[0] > best[0]) - (score[0] < best[0])) + score[1] - best[1] <= 0:
                        best, best_shift = score, shift
                    shift += 1
                while g.end > best_shift:
                    g.up()
                    go.previous()
        if not g.next():
            break
        go.next()
