"""Commands that print nothing when they succeed, where the state says they will succeed (`silent`):
touch, mkdir, echo or printf into a file, export, cd into a known folder, rm, cp and mv of known
paths, sed -i of known files; and the refusal of a short option GNU coreutils does not have
(`invalid_option`)."""

from __future__ import annotations

import posixpath
import re
from typing import Any

from . import budget, eachpath, envprefix, machine, modes, sedscript, streams
from .state import (
    _PLAIN, TerminalState, _abs, _absent, _contents, _exists, _file_on_the_way, _in_repo, _kind, _nearest_folder,
    _Unknown, _within, _writable, refusing_long_paths)
from .variables import ASSIGNMENT, QUOTED_TILDE, READ_ONLY, _expand_words
from .line import PATH_EXPANSIONS, _expansions, _split, heredoc
from .folders import read_as_bash
from .programs import _compiles


# The options with which each silent command still prints nothing and succeeds; with any other
# option the state does not answer (the real tool may refuse it: `mkdir -r` is an error).
SILENT_FLAGS = {
    "touch": {"-c", "-a", "-m"}, "mkdir": {"-p", "--parents"}, "cd": set(), "export": set(), "unset": set(),
    "rm": {"-r", "-f", "-rf", "-fr", "-R", "-Rf", "-fR", "--recursive", "--force"},
    "cp": {"-r", "-R", "-a", "-p", "-f", "-rf", "-fr", "--recursive"}, "mv": {"-f", "-n"},
}


# GNU coreutils' short options, and those that take a value (the rest of the word is the value).
# An option outside the set is refused the same way every time, so the state answers it exactly.
SHORT_OPTIONS = {"mkdir": ("pvmZ", "m"), "touch": ("acdfhmrt", "drt"), "rm": ("fiIrRdv", ""),
                 "cp": ("abdfiHlLnPpRrsStTuvxZ", "St"), "mv": ("bfinStTuvZ", "St")}


def invalid_option(words: list[str]) -> str | None:
    """The error GNU coreutils prints for an unknown short option (`mkdir -r x`), or None."""
    known = SHORT_OPTIONS.get(words[0]) if words else None
    if known is None:
        return None
    valid, with_value = known
    for word in words[1:]:
        if word == "--":
            break
        if not word.startswith("-") or word.startswith("--") or word == "-":
            continue
        for ch in word[1:]:
            if ch not in valid:
                return f"{words[0]}: invalid option -- '{ch}'\nTry '{words[0]} --help' for more information.\n"
            if ch in with_value:
                break
    return None


def _apart(paths: list[str]) -> bool:
    """No path is named twice, or inside another (`mkdir a a`, `rm -r a a/b`: the second is refused)."""
    named = set(paths)
    if len(named) != len(paths):
        return False
    for path in paths:  # (each folder above it: in time of the paths' number, not its square)
        while path != (above := posixpath.dirname(path)):
            if above in named:
                return False
            path = above
    return True


@budget.bounded
@refusing_long_paths(lambda *_: None)
def silent(state: dict[str, Any], command: str) -> tuple[str, int] | None:
    """Commands that print nothing when they succeed, where the state says they will succeed:
    touch, mkdir, echo/printf into a file, export, cd into a known folder, rm/cp/mv of known paths;
    and those commands' refusal of an option they do not have."""
    prefixed = envprefix.split(state, command)  # (`LC_ALL=C touch x`: the command, those variables exported)
    if prefixed is not None:
        return silent(envprefix.scoped(state, prefixed[0]), prefixed[1])
    if not machine.followed(state, command) or streams.read(command) is not None or streams.unread(command):
        return None  # (a stream redirected: shell.answer's, through streams.py)
    s = TerminalState.model_validate(state)
    command = read_as_bash(state, command)
    fed = heredoc(command)
    parts = _split(fed.line if fed else command)
    if not parts:
        return None
    if fed and not fed.literal and ("$(" in fed.text or "`" in fed.text):
        return None  # (commands in the text run as it is fed: the model's)
    if len(parts) == 1 and not fed:
        refused = invalid_option(parts[0])
        if refused is not None:
            return refused, 1
    line = fed.line if fed else command
    if "$(" in line or "`" in line or QUOTED_TILDE.search(line):
        return None  # (`cd "~/x"`: the ~ is not the home there; the words here have lost their quotes)
    kinds = _expansions(line, s)  # a pattern or braces the shell expands: which paths, and so their refusals, not known
    if kinds is None or {"target glob", "target brace"} & kinds or \
            {"glob", "brace"} & kinds and any(p[0] not in ("echo", "printf") for p in parts):
        return None
    for n, words in enumerate(parts):
        try:
            words = _expand_words(words, line, s, strict=True)
        except _Unknown:
            return None
        cmd, args = words[0], words[1:]
        if "" in args and cmd not in ("echo", "printf"):
            return None  # (`touch ""`, `mkdir -p "$UNSET"`: an empty name, refused)
        if _kind(s.cwd, s) == "missing" and cmd not in ("cd", "export", "unset") and \
                not all(ASSIGNMENT.fullmatch(w) for w in words):
            return None  # (the shell's folder removed: nothing can be made in it)
        plain = [a for a in args if not a.startswith("-")]
        redirect = next((i for i, w in enumerate(words) if w in (">", ">>")), None)
        flags = [a for a in args if a.startswith("-")]
        if redirect is None and cmd in SILENT_FLAGS and not set(flags) <= SILENT_FLAGS[cmd]:
            return None  # an option the real tool may refuse (`mkdir -r`) or that prints: the model answers
        if redirect is not None:
            if words[0] == "printf" and (redirect < 2 or words[1].startswith("-")) or redirect + 2 < len(words):
                return None  # (no format: printf refuses; one like an option: its options; words after the target)
            fed_cat = fed is not None and n == len(parts) - 1 and words[:redirect] == ["cat"] and len(words) == 3
            target = _abs(words[redirect + 1], s) if redirect + 1 < len(words) else ""
            if (words[0] not in ("echo", "printf") and not fed_cat) or not _writable(target) or target in s.dirs or \
                    words[redirect + 1].endswith("/") or target not in s.files and posixpath.dirname(target) not in s.known_dirs:
                return None  # (into a folder, a name ending in /, or what may be one: bash's "Is a directory")
        elif cmd == "touch" and plain and all(posixpath.dirname(_abs(a, s)) in s.dirs and _writable(_abs(a, s)) and
                                              (not a.endswith("/") or _abs(a, s) in s.dirs) for a in plain):
            pass  # (`touch x/` of no folder x: refused)
        elif cmd == "mkdir" and plain and _apart([_abs(a, s) for a in plain]) and \
                all(("-p" in args or "--parents" in args) and _abs(a, s) in s.dirs or  # (`-p`: there already, fine)
                    not _exists(_abs(a, s), s) and not _file_on_the_way(_abs(a, s), s) and _writable(_abs(a, s)) and
                    ("-p" in args or posixpath.dirname(_abs(a, s)) in s.dirs) and
                    _nearest_folder(_abs(a, s), s) in s.known_dirs for a in plain):
            for a in plain:  # later parts of the line may write there (a new folder: known, and empty)
                folder = _abs(a, s)
                while folder not in s.dirs and folder != "/":
                    s.dirs.append(folder)
                    s.known_dirs.append(folder)
                    folder = posixpath.dirname(folder)
        elif cmd == "rmdir" and n == len(parts) - 1 and (gone := eachpath.outcome(cmd, args, s)) and \
                not gone.status:
            pass  # (empty folders the state knows; the last on the line: nothing after it looks at them)
        elif cmd == "git" and args[:1] == ["config"] and args[1:2] != ["--local"] and \
                [a for a in args[1:] if a != "--global"][:1] in (["user.name"], ["user.email"]) and \
                len([a for a in args[1:] if a != "--global"]) == 2 and (_in_repo(s) or "--global" in args):
            pass  # (setting who commits prints nothing)
        elif cmd == "unset" and args or cmd == "export" and args and \
                all(re.fullmatch(r"[A-Za-z_]\w*(=.*)?", a, re.S) for a in args):
            pass  # (`export b.txt`: not a valid identifier)
        elif all((m := ASSIGNMENT.fullmatch(w)) and m.group(1) not in READ_ONLY for w in words) and \
                not kinds & {"tilde", "quoted $"}:
            pass  # (`F=src/x.py`: a variable is set)
        elif cmd == "python3" and _compiles(s, args):
            pass
        elif cmd == "chmod" and modes.answer(args, s) is not None:
            modes.apply(s, args, 0)  # (later parts of the line run with it)
            if modes.held(s) and n < len(parts) - 1:
                return None
        elif cmd == "sed" and (edit := sedscript.in_place(args) if not kinds - PATH_EXPANSIONS - {"quoted $"}
                               else None) and edit.edit and all(_contents(f, s) is not None for f in edit.files):
            pass  # (a script that is always valid, on files the state knows)
        elif cmd == "sed" and len(parts) == 1 and edit and edit.edit and len(edit.files) == 1 and \
                _PLAIN.fullmatch(edit.files[0]) and _absent(_abs(edit.files[0], s), s):
            return f"sed: can't read {edit.files[0]}: No such file or directory\n", 2
        elif cmd == "cd" and len(plain) == 1 and _abs(plain[0], s) in s.dirs and not plain[0].startswith("//"):
            s.cwd = _abs(plain[0], s)  # later parts of the line run there
        elif cmd == "rm" and plain and "*" not in "".join(plain) and _apart([_abs(a, s) for a in plain]) and \
                not any(posixpath.basename(a.rstrip("/")) in (".", "..") for a in plain) and \
                all(_exists(_abs(a, s), s) and _writable(_abs(a, s)) and
                    (_abs(a, s) in s.files or "-r" in "".join(args) or "-rf" in args) or
                    "f" in "".join(f[1:] for f in flags) and _absent(_abs(a, s), s) and _writable(_abs(a, s))
                    for a in plain):  # (-f: what is not there is no error)
            pass
        elif cmd in ("cp", "mv") and len(plain) == 2 and _abs(plain[0], s) in s.files and _writable(_abs(plain[1], s)) and \
                (cmd == "cp" or _writable(_abs(plain[0], s))) and \
                (posixpath.dirname(_abs(plain[1], s)) in s.dirs and not plain[1].endswith("/") or _abs(plain[1], s) in s.dirs) and \
                _abs(plain[0], s) not in (_abs(plain[1], s), posixpath.join(_abs(plain[1], s), posixpath.basename(plain[0]))):
            pass  # (onto itself: "are the same file", refused)
        elif cmd in ("cp", "mv") and len(plain) == 2 and \
                _folder_placed(s, cmd, args, _abs(plain[0], s), _abs(plain[1], s)):
            pass
        else:
            return None
    return "", 0


def _folder_placed(s: TerminalState, cmd: str, args: list[str], src: str, dst: str) -> bool:
    """`mv DIR DST` (`cp -r DIR DST`) that succeeds silently: DST is not there, in a folder that is (a
    rename), or is a folder holding nothing of that name (into it); not into itself, nor the shell's
    own folder or one above it moved."""
    if src not in s.dirs or not _writable(src) or not _writable(dst) or \
            cmd == "cp" and not {"-r", "-R", "-a", "-rf", "-fr", "--recursive"} & set(args):
        return False
    if dst in s.dirs:
        dst = posixpath.join(dst, posixpath.basename(src))
    return _absent(dst, s) and posixpath.dirname(dst) in s.dirs and not _within(dst, src) and \
        not (cmd == "mv" and _within(s.cwd, src))
