"""Reading, counting and searching files the state knows, and short pipelines of text filters over
them, computed exactly as GNU coreutils and grep print them (C.UTF-8 locale, no terminal):

    cat -n F · head [-n N|-N] F · tail [-n N|-N] F · sed -n 'A,Bp' F · wc -l|-c|-w F
    grep [-n] [-c] [-v] [-i] WORD F · and any of them (or `cat F`, `ls`) piped into
    head, tail, wc, grep, sort (sortkeys.py), uniq [-c|-d|-u], tr (trset.py), cut -d D -f LIST / -c LIST,
    tac, md5sum / sha1sum / sha256sum / sha512sum, python3 -m json.tool (pyjson.py)
    `ls`, `find` and `grep -r` as the first stage, computed by the shell state (search.py)

Anything else — a regular expression, an option not listed, a file whose contents the state does
not know, a glob, a variable — is left to the model (None). Every answer here is checked byte for
byte against the real sandbox over the recorded corpus (benchmarks/state_vs_real.py).
"""

from __future__ import annotations

import hashlib
import re
import sys
from typing import Callable

from . import awk, grepbytes, grepfile, pyjson, sedscript, sortkeys, trset
from .output import shell_words, single_quoted
from .variables import _outside_single_quotes

_LINES = re.compile(r"-(\d+)")


def _lines(text: str) -> list[str]:
    """Lines with their newline; a last line without one stays as it is."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _count(args: list[str], default: int = 10) -> tuple[int, list[str]] | None:
    """`-n N`, `-nN`, `-N`: the count, and the other arguments (None: an option not understood)."""
    n, rest, i = default, [], 0
    while i < len(args):
        a = args[i]
        if a == "-n" and i + 1 < len(args) and args[i + 1].isdigit():
            n, i = int(args[i + 1]), i + 2
            continue
        if a.startswith("-n") and a[2:].isdigit():
            n = int(a[2:])
        elif _LINES.fullmatch(a):
            n = int(a[1:])
        elif a.startswith("-"):
            return None
        else:
            rest.append(a)
        i += 1
    return n, rest


class _Unknown(Exception):
    pass


def _ranges(spec: str) -> list[tuple[int, int]] | None:
    """cut's LIST (`1`, `1,3`, `2-`, `-2`, `1-3`): 1-based ranges, or None where cut would refuse it."""
    out = []
    for part in spec.split(","):
        m = re.fullmatch(r"(\d*)-?(\d*)", part)
        if not m or not part or part == "-":
            return None
        if "-" in part:
            low, high = int(m.group(1) or 1), int(m.group(2)) if m.group(2) else sys.maxsize
        else:
            low = high = int(m.group(1))
        if low < 1 or high < low:
            return None
        out.append((low, high))
    return out


def _cut(args: list[str]) -> tuple[Callable[[str], tuple[str, int]], list[str]] | None:
    """`cut -d D -f LIST` and `cut -c LIST` (the options joined to their values or not)."""
    delim, fields, chars, files, i = "\t", None, None, [], 0
    while i < len(args):
        a = args[i]
        if a[:2] in ("-d", "-f", "-c") and len(a) == 2:
            if i + 1 >= len(args):
                return None
            a, i = a + args[i + 1], i + 1
        if a.startswith("-d") and len(a) == 3:
            delim = a[2]
        elif a.startswith("-f") and fields is None:
            fields = _ranges(a[2:])
            if fields is None:
                return None
        elif a.startswith("-c") and chars is None:
            chars = _ranges(a[2:])
            if chars is None:
                return None
        elif a.startswith("-"):
            return None
        else:
            files.append(a)
        i += 1
    if (fields is None) == (chars is None) or (chars is not None and any(a.startswith("-d") for a in args)):
        return None

    def keep(n: int, ranges: list[tuple[int, int]]) -> bool:
        return any(low <= n <= high for low, high in ranges)

    def run(text: str) -> tuple[str, int]:
        out = []
        for line in (x.rstrip("\n") for x in _lines(text)):
            if chars is not None:
                if not line.isascii():
                    raise _Unknown  # (GNU cut -c counts bytes)
                out.append("".join(c for n, c in enumerate(line, 1) if keep(n, chars)) + "\n")
            elif delim not in line:
                out.append(line + "\n")  # a line without the delimiter is printed whole
            else:
                out.append(delim.join(f for n, f in enumerate(line.split(delim), 1) if keep(n, fields)) + "\n")
        return "".join(out), 0

    return run, files


def _wc_count(text: str, which: str) -> int:
    return text.count("\n") if which == "l" else len(text.encode()) if which == "c" else len(text.split())


def wc_which(options: list[str]) -> str | None:
    """wc's counts from its options (`-l`, `-wc`, none: all three), in the order it prints them."""
    letters = "".join(o[1:] for o in options)
    if any(not o.startswith("-") or len(o) < 2 or o.startswith("--") for o in options) or set(letters) - set("lwc"):
        return None
    return "".join(c for c in "lwc" if c in letters) or "lwc"


def wc_files(names: list[str], texts: list[str], which: str) -> str:
    """`wc [-l|-w|-c…] NAME…` of files: one count of one file is not padded; otherwise each count is,
    to the width of the files' total size in bytes (GNU wc sizes its columns from what it may have
    to count), and with several files a total follows."""
    counts = [[_wc_count(t, w) for w in which] for t in texts]
    if len(names) == 1 and len(which) == 1:
        return f"{counts[0][0]} {names[0]}\n"
    width = len(str(sum(len(t.encode()) for t in texts)))
    rows = counts + ([[sum(c[i] for c in counts) for i in range(len(which))]] if len(names) > 1 else [])
    return "".join(" ".join(f"{c:>{width}}" for c in row) + f" {name}\n"
                   for row, name in zip(rows, names + ["total"]))


# `cat`'s options that show what is not seen: (line ends as `$`, tabs as `^I`, other control characters)
CAT_SHOWING = {"-A": (True, True, True), "--show-all": (True, True, True), "-vET": (True, True, True),
               "-e": (True, False, True), "-E": (True, False, False), "--show-ends": (True, False, False),
               "-t": (False, True, True), "-T": (False, True, False), "--show-tabs": (False, True, False),
               "-v": (False, False, True), "--show-nonprinting": (False, False, True)}


def _cat_shown(text: str, ends: bool, tabs: bool, others: bool) -> str:
    """`cat -A` and its parts on ASCII text: a control character as `^X` (DEL `^?`), a tab as `^I`,
    each line's end as `$` (a last line without its newline gets none)."""
    if not text.isascii():
        raise _Unknown  # (bytes past ASCII are shown as `M-…`: not written here)

    def shown(c: str) -> str:
        if c == "\t":
            return "^I" if tabs else c
        if c == "\n":
            return "$\n" if ends else c
        if others and (ord(c) < 32 or ord(c) == 127):
            return "^?" if ord(c) == 127 else "^" + chr(ord(c) + 64)
        return c

    return "".join(map(shown, text))


def _filter(words: list[str]) -> tuple[Callable[[str], tuple[str, int]], list[str]] | None:
    """A stage that reads text: its function, and the files it names (empty: it reads its input)."""
    cmd, args = words[0], words[1:]
    if cmd in ("head", "tail") and any(a.startswith("-c") or a.startswith("+") for a in args):
        return _bytes_or_from(cmd, args)
    if cmd == "awk":
        parsed = awk.command(args)
        if parsed is None:
            return None
        program, fs, assigns, named = parsed
        return (lambda text: awk.run(program, text, fs, assigns)), named
    spaced = args[:1] == ["-n"] and args[1:2] and args[1][:1] == "-" and args[1][1:].isdigit()
    if cmd == "head" and (spaced or args[:1] and args[0][:3] == "-n-" and args[0][3:].isdigit()):
        but = int(args[1][1:] if spaced else args[0][3:])  # (`head -n -N`: all but the last N lines)
        files = args[2:] if spaced else args[1:]
        return (lambda text: ("".join(_lines(text)[:-but] if but else _lines(text)), 0)), files
    if cmd in ("head", "tail"):
        parsed = _count(args)
        if parsed is None:
            return None
        n, files = parsed

        def cut(text: str) -> tuple[str, int]:
            lines = _lines(text)
            return "".join(lines[:n] if cmd == "head" else (lines[-n:] if n else [])), 0

        return cut, files
    if cmd == "wc":
        files = [a for a in args if not a.startswith("-")]
        which = wc_which([a for a in args if a.startswith("-")])
        if which is None:
            return None

        def wc(text: str) -> tuple[str, int]:
            if files:
                return wc_files(files, [text], which), 0
            counts = [_wc_count(text, w) for w in which]
            return (f"{counts[0]}\n" if len(counts) == 1 else " ".join(f"{c:>7}" for c in counts) + "\n"), 0

        return wc, files
    if cmd == "grep":
        return grepfile.grep(args)
    every = 1 if args[:1] == ["-ba"] else 2 if args[:2] == ["-b", "a"] else 0  # (nl numbering every line)
    if cmd == "cat" and args[:1] == ["-n"] and len(args) == 2 or cmd == "nl" and every and len(args) <= every + 1:
        def numbered(text: str) -> tuple[str, int]:
            if cmd == "nl" and (text and not text.endswith("\n") or _NL_SECTION.search(text)):
                raise _Unknown  # (nl ends the last line; cat -n leaves it as it was)
            return "".join(f"{n:6d}\t{line}" for n, line in enumerate(_lines(text), 1)), 0

        return numbered, args[every:] if cmd == "nl" else args[-1:]
    if cmd == "nl" and len(args) <= 1 and not any(a.startswith("-") for a in args):
        def body(text: str) -> tuple[str, int]:
            """nl's default: the lines with text numbered, an empty one shown as seven spaces."""
            if text and not text.endswith("\n") or _NL_SECTION.search(text):
                raise _Unknown  # (a section's delimiter line restarts the count: nl's own ways)
            out, n = [], 0
            for line in _lines(text):
                if line == "\n":
                    out.append("       \n")
                else:
                    n += 1
                    out.append(f"{n:6d}\t{line}")
            return "".join(out), 0

        return body, args
    if cmd == "cat" and len(args) <= 1 and not any(a.startswith("-") for a in args):
        return (lambda text: (text, 0)), args
    if cmd == "cat" and len(args) <= 2 and args[0] in CAT_SHOWING:
        ends, tabs, others = CAT_SHOWING[args[0]]
        return (lambda text: (_cat_shown(text, ends, tabs, others), 0)), args[1:]
    if cmd == "sed":
        found = sedscript.program(args)
        if found is None or len(found[1]) > 1:
            return None  # (several files are one stream to sed: not followed here)
        commands, files, quiet = found

        def sed(text: str) -> tuple[str, int]:
            printed = sedscript.run(commands, text, quiet)
            if printed is None:
                raise _Unknown
            return printed, 0

        return sed, files
    if cmd == "sort":
        found = sortkeys.sorter(args)
        if found is None:
            return None
        ordered, files = found

        def sort(text: str) -> tuple[str, int]:
            said = ordered(text)
            if said is None:
                raise _Unknown
            return said

        return sort, files
    if cmd == "uniq" and [a for a in args if a.startswith("-")] in ([], ["-c"], ["-d"], ["-u"]) and len(args) <= 2:
        files = [a for a in args if not a.startswith("-")]
        args = [a for a in args if a.startswith("-")]

        def uniq(text: str) -> tuple[str, int]:
            runs: list[list] = []
            for line in (x.rstrip("\n") for x in _lines(text)):
                if runs and runs[-1][0] == line:
                    runs[-1][1] += 1
                else:
                    runs.append([line, 1])
            # (-d: the repeated lines, once each; -u: those not repeated)
            kept = [(line, c) for line, c in runs if (args != ["-d"] or c > 1) and (args != ["-u"] or c == 1)]
            return "".join((f"{c:7d} {line}\n" if args == ["-c"] else line + "\n") for line, c in kept), 0

        return uniq, files
    if cmd == "cut":
        return _cut(args)
    if cmd == "tac" and len(args) <= 1 and not any(a.startswith("-") for a in args):
        return (lambda text: ("".join(reversed(_lines(text))), 0)), args  # (a last line with no newline: first)
    if cmd in _DIGESTS and len(args) <= 1 and not any(a.startswith("-") or "\\" in a for a in args):
        name = args[0] if args else "-"
        return (lambda text: (f"{hashlib.new(_DIGESTS[cmd], text.encode()).hexdigest()}  {name}\n", 0)), args
    if cmd == "tr":
        run = trset.tr(args)
        return None if run is None else (run, [])
    if words[:3] == ["python3", "-m", "json.tool"]:
        return pyjson.tool(words[3:])
    return None


_DIGESTS = {"md5sum": "md5", "sha1sum": "sha1", "sha256sum": "sha256", "sha512sum": "sha512"}
_NL_SECTION = re.compile(r"^(\\:){1,3}$", re.M)  # (nl's logical page delimiters: `\:\:\:`, `\:\:`, `\:`)


def _bytes_or_from(cmd: str, args: list[str]) -> tuple[Callable[[str], tuple[str, int]], list[str]] | None:
    """`head -c N`, `tail -c N` (bytes: of ASCII text only) and `tail -n +N` (from line N on)."""
    files, options, i = [], [], 0
    while i < len(args):
        if args[i] in ("-c", "-n") and i + 1 < len(args):
            options.append(args[i] + args[i + 1])
            i += 1
        elif args[i].startswith(("-", "+")):
            options.append(args[i])
        else:
            files.append(args[i])
        i += 1
    options = " ".join(options)
    by_bytes = re.fullmatch(r"-c(\d+)", options)
    from_line = re.fullmatch(r"-n\+(\d+)|\+(\d+)", options) if cmd == "tail" else None
    if len(files) > 1 or not (by_bytes or from_line):
        return None

    def cut(text: str) -> tuple[str, int]:
        if by_bytes:
            if not text.isascii():
                raise _Unknown  # (a character cut in two)
            n = int(by_bytes.group(1))
            return (text[:n] if cmd == "head" else text[len(text) - n:] if n else ""), 0
        first = int(next(g for g in from_line.groups() if g is not None))
        return "".join(_lines(text)[max(first, 1) - 1:]), 0

    return cut, files


# git's reads whose output to a pipe is what they print alone (no colours, no pager there)
GIT_PIPED = frozenset({"log", "ls-files", "show", "status", "diff", "branch", "blame", "grep"})


_FED = re.compile(r"<[ \t]*([A-Za-z0-9_./-]+)(?=[ \t|]|$)")  # `< FILE`, a plain name


def _fed(command: str) -> tuple[int, int, str] | None:
    """Where the line's one `< FILE` is (start, end, the file's plain name), in its first command,
    outside quotes; None where it has none, or more, or any other `<`."""
    found, quote = None, ""
    for i, c in enumerate(command):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "|" and found is None:
            return None
        elif c == "<":
            if found is not None:
                return None
            m = _FED.match(command, i)
            if m is None:
                return None
            found = (i, m.end(), m.group(1))
    return found


SPONGES = frozenset({"wc", "sort", "tail", "tac"})  # (each prints once what comes before it has ended)


def answer(command: str, read: Callable[[str], str | None],
           source: Callable[[list[str]], tuple[str, bool, int] | None]) -> tuple[str, int] | None:
    """The output and exit code of `command` when every file it reads is known (`read(name)`: the
    file's contents or None) and so is what a first stage the shell state computes prints
    (`source(words)`: `ls`, `find`, `grep -r`; its text, whether its lines' order is known, and its
    exit code); None: the model answers. Lines in an unknown order are answered only through a
    stage their order cannot change (`wc`, `sort`)."""
    command = single_quoted(command)  # (`tr " " "\\n"`, `awk "{print NF}"`: as if single-quoted, the same)
    bare = _outside_single_quotes(command)  # (an awk program's `$1`, `{}` and `>` are its own)
    fed = _fed(command)
    if fed is not None and read(fed[2]) is not None:  # (`wc -l < f | …` prints what `cat f | wc -l | …` does)
        command = f"cat {fed[2]} | " + command[:fed[0]] + " " + command[fed[1]:]
        bare = _outside_single_quotes(command)
    if bare is None or any(c in bare for c in "$`\\{}~<>;&\n") or "||" in bare or not _globs_quoted(command):
        return None
    words = shell_words(command)
    if not words:
        return None
    stages: list[list[str]] = [[]]
    for w in words:
        if w == "|":
            stages.append([])
        else:
            stages[-1].append(w)
    if any(not st for st in stages) or len(stages) > 8:
        return None
    text: str | None = None
    code, refused = 0, ""
    try:
        ordered, last_fixed, from_xargs = True, False, False
        for n, stage in enumerate(stages):
            if n == 0 and (stage[0] in ("find", "ls") or stage[0] == "grep" and _recursive(stage) or
                           stage[0] == "du" and len(stages) > 1 or
                           stage[:1] == ["git"] and stage[1:2] and stage[1] in GIT_PIPED and len(stages) > 1 or
                           stage[0] in ("echo", "printf") and len(stages) > 1 or
                           stage[0] == "cat" and len(stage) > 2 and len(stages) > 1 and
                           not any(w.startswith("-") for w in stage[1:])):  # (several files)
                if stage[0] == "ls" and len(stages) == 1:
                    return None  # `ls` alone is the shell's own rule
                computed = source(stage)
                if computed is None:
                    return None
                text, ordered, code = computed
                if code != 0 and len(stages) > 1:  # (a top that is not there: said to the terminal, none to the pipe)
                    refused, text = text, ""
                elif stage[0] == "grep" and len(stages) > 1 and "binary file matches" in text:
                    told = grepbytes.binary_told(stage, text)
                    head = _count(stages[1][1:]) if stages[1][0] == "head" else None
                    if told is None or not any(later[0] in SPONGES for later in stages[1:]) and \
                            not (head and not head[1] and grepbytes.ahead_of_head(text, head[0])):
                        return None  # (grep's messages on the terminal while the pipe prints: in which order?)
                    text, refused = told  # (all said before a command that waits for the end prints)
                continue
            if stage[:2] == ["xargs", "wc"] and n > 0 and len(stage) == 3 and stage[2] in ("-l", "-c", "-w"):
                which = stage[2][1:]
                # the names come in; their counts go out in that order, the total last
                names = [line.rstrip("\n") for line in _lines(text or "")]
                texts = [read(name) for name in names]
                if not names or any(t is None or not re.fullmatch(r"[A-Za-z0-9._/+-]+", nm)
                                    for t, nm in zip(texts, names)) or len(names) > 500:
                    return None  # (no names: wc counts its own empty input; odd names: xargs splits them)
                text, code = wc_files(names, texts, which), 0
                ordered = ordered if len(names) > 1 else True
                last_fixed = len(names) > 1  # the total: last, whatever the order above it
                from_xargs = True
                continue
            if stage[:2] in (["xargs", "grep"], ["xargs", "cat"]) and n > 0 and (stage[1] == "grep" or len(stage) == 2):
                names = [line.rstrip("\n") for line in _lines(text or "")]  # (each a word: xargs hands them on)
                texts = [read(name) for name in names]
                if not names or any(t is None or not re.fullmatch(r"[A-Za-z0-9._/+-]+", nm)
                                    for t, nm in zip(texts, names)) or len(names) > 500 or _recursive(stage[1:]):
                    return None
                if stage[1] == "cat":
                    text, code = "".join(texts), 0  # type: ignore[arg-type]
                else:
                    alone = _filter(["grep", *stage[2:], names[0]]) if len(names) == 1 else None
                    found = grepfile.grep_files([*stage[2:], *names], read) if len(names) > 1 else \
                        None if alone is None or alone[1] != names[:1] else alone[0](texts[0])
                    if found is None:
                        return None
                    text, code = found[0], 0 if found[1] == 0 else 123  # (xargs: 123 where the command failed)
                from_xargs = True
                continue
            if from_xargs and stage[0] == "head":
                return None  # (head may close the pipe before wc has written: "xargs: wc: terminated by signal 13")
            if not ordered:
                if not (stage[0] in ("wc", "sort") or
                        last_fixed and stage[0] == "tail" and stage[1:] in (["-1"], ["-n", "1"], ["-n1"])):
                    return None  # (head, uniq, grep -n… would show the order the file system gave)
                ordered = True
            last_fixed = False
            if n == 0 and stage[0] == "grep" and not _recursive(stage):
                several = grepfile.grep_files(stage[1:], read)
                if several is not None:
                    text, code = several
                    continue
            found = _filter(stage)
            if found is None:
                return None
            run, files = found
            if n == 0 and stage[0] == "wc" and len(files) > 1:
                texts = [read(name) for name in files]
                if any(t is None for t in texts):
                    return None
                text, code = wc_files(files, texts, wc_which([a for a in stage[1:] if a.startswith("-")]) or "lwc"), 0
                continue
            if n == 0 and stage[0] == "awk" and not files and len(stages) == 1:
                text, code = run(None)  # (a program of BEGIN alone reads nothing; one that reads: not answered)
                continue
            if n == 0 and stage[0] in ("head", "tail") and len(files) > 1:
                if stage[0] == "tail" and any(re.fullmatch(r"-\d+", a) for a in stage[1:]) or \
                        (_count(stage[1:]) or (1, []))[0] == 0:
                    return None  # ("tail: option used in invalid context -- 1": -N is for one file; -n 0: its own ways)
                texts = [read(name) for name in files]
                if any(t is None for t in texts):
                    return None
                # each after its name, a blank line before every name but the first (as coreutils writes them)
                text = "".join(("\n" if i else "") + f"==> {name} <==\n" + run(t)[0]
                               for i, (name, t) in enumerate(zip(files, texts)) if t is not None)
                code = 0
                continue
            if n == 0:
                if len(files) != 1:
                    return None
                text = read(files[0])
                if text is None:
                    return None
            elif files:
                return None  # a later stage reading a file of its own: not a filter of the pipe
            assert text is not None
            text, code = run(text)
            if code != 0 and n < len(stages) - 1 and stage[0] == "python3":  # (json.tool's complaint: on the
                refused, text = refused + text, ""  # terminal, before what the stages after it print at its end)
    except (_Unknown, grepfile.Unknown, awk.Unknown, pyjson.Unknown):
        return None
    if len(stages) == 1 and stages[0][0] == "cat" and not (stages[0][1:2] == ["-n"] or
                                                           stages[0][1:2] and stages[0][1] in CAT_SHOWING):
        return None  # plain cat is the shell's own rule
    if not ordered:
        return None
    return refused + text, code


def _recursive(words: list[str]) -> bool:
    return any(w.startswith("-") and not w.startswith("--") and set(w[1:]) & {"r", "R"} for w in words[1:])


def _globs_quoted(command: str) -> bool:
    """Every `*`, `?` and `[` of the line is inside quotes (the shell expands the others)."""
    quote = ""
    for c in command:
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "*?[]":
            return False
    return True
