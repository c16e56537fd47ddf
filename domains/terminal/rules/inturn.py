"""Several files read in turn, some of them not there or folders: `cat a nope b`, `head -5 a nope`,
`wc -l a docs` (coreutils 9.1, as the sandbox has them). Agents type these to read what a project
may have (`cat setup.py pyproject.toml requirements.txt 2>/dev/null`).

Each tool writes a file's part whole before it opens the next, so its output and its complaints
come down one pipe in the order of the names. The answer is kept as its pieces, each marked as a
complaint (the errors) or not, so that a redirection of either stream shows what it would
(streams.split). Each name is plain, or a pattern that matched nothing (`missing.named`: between
' ' in a complaint), and the state knows what is at it and what a file there holds; otherwise the
line is the model's.
"""

from __future__ import annotations

from . import filters
from .missing import IS_DIR, named, what_is_at
from .state import _PLAIN, TerminalState, _contents

Pieces = list[tuple[str, bool]]  # (text, a complaint: written to the errors)
TOOLS = frozenset({"cat", "head", "wc"})


def answer(words: list[str], s: TerminalState) -> tuple[str, int] | None:
    """What `words` (expanded) prints, where it reads several names in turn; None: not such a line."""
    found = pieces(words, s)
    return None if found is None else ("".join(t for t, _ in found), int(any(err for _, err in found)))


def pieces(words: list[str], s: TerminalState) -> Pieces | None:
    """The pieces of what `cat NAME…`, `head [-n N|-N] NAME…` or `wc [-lwc] NAME…` prints, each
    name in turn (several names); None where the line is not one of these or a name is not known."""
    if not words or words[0] not in TOOLS or words[0] in s.defined:
        return None
    if words[0] == "cat":
        names = words[1:]
    elif words[0] == "head":
        counted = filters._count(words[1:])
        if counted is None or counted[0] == 0:
            return None
        lines, names = counted
    else:
        which = filters.wc_which([w for w in words[1:] if w.startswith("-")])
        names = [w for w in words[1:] if not w.startswith("-")]
        if which is None:
            return None
    if len(names) < 2 or any(n.startswith("-") or named(n) is None for n in names):
        return None
    found = [(n, what_is_at(n, s)) for n in names]
    texts = {n: _contents(n, s) for n, why in found if why == "file"}
    if any(why is None or why in ("file", "dir") and not _PLAIN.fullmatch(n) for n, why in found) or \
            None in texts.values():
        return None  # (a pattern that matched nothing is not there; a name there is plain)
    if words[0] == "cat":
        return [(texts[n], False) if why == "file" else
                (f"cat: {named(n)}: {IS_DIR if why == 'dir' else why}\n", True) for n, why in found]
    if words[0] == "head":
        return _head(found, texts, lines)  # type: ignore[arg-type]
    return _wc(found, texts, which)  # type: ignore[arg-type]


def _head(found: list[tuple[str, str]], texts: dict[str, str], lines: int) -> Pieces:
    """Each file under its header (a blank line before every header but the first written), a
    folder's header and then its complaint, a name not there its complaint alone."""
    out: Pieces = []
    headed = False
    for name, why in found:
        if why not in ("file", "dir"):
            out.append((f"head: cannot open '{name}' for reading: {why}\n", True))
            continue
        out.append((("\n" if headed else "") + f"==> {name} <==\n", False))
        headed = True
        if why == "dir":
            out.append((f"head: error reading '{name}': {IS_DIR}\n", True))
        else:
            out.append(("".join(texts[name].splitlines(keepends=True)[:lines]), False))
    return out


def _wc(found: list[tuple[str, str]], texts: dict[str, str], which: str) -> Pieces:
    """Each file's counts, a folder's complaint and then its zero counts, a name not there its
    complaint alone, then the total. The columns are as wide as the digits of the files' total size,
    or 7 where a name is a folder (GNU wc's width where it cannot size what it reads)."""
    counts = {n: [filters._wc_count(t, w) for w in which] for n, t in texts.items()}
    width = 7 if any(why == "dir" for _, why in found) else len(str(sum(len(t.encode()) for t in texts.values())))

    def row(values: list[int], name: str) -> str:
        return " ".join(f"{v:>{width}}" for v in values) + f" {name}\n"
    out: Pieces = []
    for name, why in found:
        if why == "file":
            out.append((row(counts[name], name), False))
        elif why == "dir":
            out += [(f"wc: {name}: {IS_DIR}\n", True), (row([0] * len(which), name), False)]
        else:
            out.append((f"wc: {named(name)}: {why}\n", True))
    out.append((row([sum(c[i] for c in counts.values()) for i in range(len(which))], "total"), False))
    return out
