"""The terminal domain's state and the small shell interpreter over it.

    cwd, home, files (path -> contents, or None when only existence is known), the folders, the
    folders whose whole listing is known, deleted paths, environment variables, git (branch,
    branches, commits, staged)

`answer` gives the output when the state alone determines it (`pwd`, `cat` of a file whose contents
this episode established, `ls` of a fully known folder, `echo`, `git branch`, `git log --oneline`);
`silent` the empty output of commands that print nothing when the state says they succeed; `apply`
the state after a command printed what it printed.
"""

from __future__ import annotations

import fnmatch
import hashlib
import posixpath
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .output import shell_words


class GitState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    repo: str = ""  # the repository's folder
    branch: str = "main"
    branches: list[str] = Field(default_factory=lambda: ["main"])
    commits: list[str] = Field(default_factory=list)  # messages, newest last
    staged: list[str] = Field(default_factory=list)


class TerminalState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cwd: str
    home: str
    files: dict[str, str | None] = Field(default_factory=dict)
    dirs: list[str] = Field(default_factory=list)
    known_dirs: list[str] = Field(default_factory=list)  # folders whose whole listing is known
    deleted: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    git: GitState | None = None




def _split(command: str) -> list[list[str]] | None:
    """Simple commands joined by && or ; (None when the line has pipes or anything fancier)."""
    words = shell_words(command)
    if words is None:
        return None
    parts: list[list[str]] = [[]]
    for w in words:
        if w in ("&&", ";"):
            parts.append([])
        elif w in ("|", "||", "&", "(", ")", "<", "<<", "|&") or "$(" in w or "`" in w:
            return None
        else:
            parts[-1].append(w)
    return [p for p in parts if p]


def _abs(path: str, s: TerminalState) -> str:
    if path.startswith("~"):
        path = s.home + path[1:]
    return posixpath.normpath(path if path.startswith("/") else posixpath.join(s.cwd, path))


def _exists(path: str, s: TerminalState) -> bool:
    return path in s.files or path in s.dirs


def _children(folder: str, s: TerminalState) -> list[str]:
    names = set()
    for p in list(s.files) + s.dirs:
        if p != folder and posixpath.dirname(p) == folder:
            names.add(posixpath.basename(p))
    return sorted(names, key=lambda n: (n.lstrip(".").lower(), n))


def _expand(word: str, s: TerminalState) -> str:
    def var(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        if name == "HOME":
            return s.home
        if name == "PWD":
            return s.cwd
        return s.env.get(name, "")

    return re.sub(r"\$\{(\w+)\}|\$(\w+)", var, word)


def _echo_text(args: list[str], printf: bool) -> str:
    if printf:
        fmt = args[0] if args else ""
        return fmt.encode("utf-8").decode("unicode_escape") if "\\" in fmt else fmt
    newline = True
    if args and args[0] == "-n":
        newline, args = False, args[1:]
    return " ".join(args) + ("\n" if newline else "")


def answer(state: dict[str, Any], command: str) -> tuple[str, int] | None:
    """The output and exit code when the state alone determines them; None: ask the model."""
    s = TerminalState.model_validate(state)
    parts = _split(command)
    if not parts or len(parts) != 1:
        return None
    if any(c in w for w in parts[0] for c in "*?[]{}\\") or ("'" in command and "$" in command) or \
            any(w.startswith("~") for w in parts[0][1:] if parts[0][0] == "echo"):
        return None  # globs, braces, escapes and quoting subtleties: the shell's business, the model's call
    words = [_expand(w, s) for w in parts[0]]
    cmd, args = words[0], words[1:]
    if ">" in words or ">>" in words:
        return None  # writes: state changes, the output is empty; let apply() record it, answer ""
    if cmd == "pwd" and not args:
        return s.cwd + "\n", 0
    if cmd == "echo" and all(not a.startswith("-") or a == "-n" for a in args):
        return _echo_text(args, False), 0
    if cmd == "cat" and len(args) == 1 and not args[0].startswith("-"):
        path = _abs(args[0], s)
        if path in s.deleted or (posixpath.dirname(path) in s.known_dirs and not _exists(path, s)):
            return f"cat: {args[0]}: No such file or directory\n", 1
        if path in s.dirs:
            return f"cat: {args[0]}: Is a directory\n", 1
        content = s.files.get(path)
        return (content, 0) if content is not None else None
    if cmd == "ls" and len(args) <= 1 and not any(a.startswith("-") and a not in ("-1",) for a in args):
        target = [a for a in args if a != "-1"]
        folder = _abs(target[0], s) if target else s.cwd
        if folder in s.files:
            return target[0] + "\n", 0
        if folder not in s.known_dirs:
            if target and (folder in s.deleted or posixpath.dirname(folder) in s.known_dirs and not _exists(folder, s)):
                return f"ls: cannot access '{target[0]}': No such file or directory\n", 2
            return None
        names = [n for n in _children(folder, s) if not n.startswith(".")]
        return ("".join(n + "\n" for n in names), 0)
    if cmd == "git" and args[:1] == ["branch"] and len(args) == 1 and s.git and _in_repo(s):
        return "".join(("* " if b == s.git.branch else "  ") + b + "\n" for b in sorted(s.git.branches)), 0
    if cmd == "git" and args[:2] == ["log", "--oneline"] and len(args) <= 4 and s.git and s.git.commits and _in_repo(s):
        n = len(s.git.commits)
        if len(args) > 2:
            m = re.fullmatch(r"-n(\d+)|-(\d+)", "".join(args[2:]))
            if not m:
                return None
            n = int(m.group(1) or m.group(2))
        lines = [f"{_hash(msg, i)} {msg}" for i, msg in enumerate(s.git.commits)][::-1][:n]
        return "".join(line + "\n" for line in lines), 0
    return None


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


def silent(state: dict[str, Any], command: str) -> tuple[str, int] | None:
    """Commands that print nothing when they succeed, where the state says they will succeed:
    touch, mkdir, echo/printf into a file, export, cd into a known folder, rm/cp/mv of known paths;
    and those commands' refusal of an option they do not have."""
    s = TerminalState.model_validate(state)
    parts = _split(command)
    if not parts:
        return None
    if len(parts) == 1:
        refused = invalid_option(parts[0])
        if refused is not None:
            return refused, 1
    for words in parts:
        words = [_expand(w, s) for w in words]
        cmd, args = words[0], words[1:]
        plain = [a for a in args if not a.startswith("-")]
        redirect = next((i for i, w in enumerate(words) if w in (">", ">>")), None)
        flags = [a for a in args if a.startswith("-")]
        if redirect is None and cmd in SILENT_FLAGS and not set(flags) <= SILENT_FLAGS[cmd]:
            return None  # an option the real tool may refuse (`mkdir -r`) or that prints: the model answers
        if redirect is not None:
            if words[0] not in ("echo", "printf") or redirect + 1 >= len(words) or \
                    posixpath.dirname(_abs(words[redirect + 1], s)) not in s.dirs:
                return None
        elif cmd == "touch" and plain and all(posixpath.dirname(_abs(a, s)) in s.dirs for a in plain):
            pass
        elif cmd == "mkdir" and plain and all(not _exists(_abs(a, s), s) and
                                              ("-p" in args or posixpath.dirname(_abs(a, s)) in s.dirs) for a in plain):
            pass
        elif cmd in ("export", "unset") and args:
            pass
        elif cmd == "cd" and len(plain) == 1 and _abs(plain[0], s) in s.dirs:
            s.cwd = _abs(plain[0], s)  # later parts of the line run there
        elif cmd == "rm" and plain and "*" not in "".join(plain) and all(_exists(_abs(a, s), s) and
                                                                         (_abs(a, s) in s.files or "-r" in "".join(args)
                                                                          or "-rf" in args) for a in plain):
            pass
        elif cmd in ("cp", "mv") and len(plain) == 2 and _abs(plain[0], s) in s.files and \
                (posixpath.dirname(_abs(plain[1], s)) in s.dirs or _abs(plain[1], s) in s.dirs):
            pass
        else:
            return None
    return "", 0


def _in_repo(s: TerminalState) -> bool:
    return bool(s.git) and (s.cwd == s.git.repo or s.cwd.startswith(s.git.repo.rstrip("/") + "/"))


def _hash(message: str, index: int) -> str:
    return hashlib.sha1(f"{index}:{message}".encode()).hexdigest()[:7]


def apply(state: dict[str, Any], command: str, output: str, exit_code: int, cwd_after: str) -> dict[str, Any]:
    """The state after `command` printed `output` (exit code `exit_code`)."""
    s = TerminalState.model_validate(state)
    parts = _split(command) or []
    for words in parts:
        if exit_code != 0 and len(parts) == 1:
            break
        words = [_expand(w, s) for w in words]
        _apply_one(s, words, output if len(parts) == 1 else None)
    s.cwd = cwd_after or s.cwd
    return s.model_dump()


def _write(s: TerminalState, path: str, content: str | None, append: bool = False) -> None:
    if append:
        old = s.files.get(path, "" if path not in s.files else None)
        content = None if old is None or content is None else old + content
    s.files[path] = content
    if path in s.deleted:
        s.deleted.remove(path)
    parent = posixpath.dirname(path)
    if parent not in s.dirs:
        s.dirs.append(parent)


def _archive_target(cmd: str, args: list[str]) -> str | None:
    """The archive `tar -czf NAME …` / `tar czf NAME …` / `zip [-r] NAME …` creates (None: not a create)."""
    if cmd == "zip":
        plain = [a for a in args if not a.startswith("-")]
        return plain[0] if plain else None
    if not args:
        return None
    flags = args[0].lstrip("-")
    if "c" not in flags or "f" not in flags:
        return None
    # The file name follows the bundled flags (`czf NAME`) or `-f NAME` / `--file=NAME` later.
    for i, a in enumerate(args):
        if a.startswith("--file="):
            return a.split("=", 1)[1]
        if a == "-f" and i + 1 < len(args):
            return args[i + 1]
    return args[1] if len(args) > 1 and flags.endswith("f") else None


def _remove(s: TerminalState, path: str) -> None:
    for p in [p for p in s.files if p == path or p.startswith(path.rstrip("/") + "/")]:
        del s.files[p]
    s.dirs = [d for d in s.dirs if not (d == path or d.startswith(path.rstrip("/") + "/"))]
    s.known_dirs = [d for d in s.known_dirs if not (d == path or d.startswith(path.rstrip("/") + "/"))]
    if path not in s.deleted:
        s.deleted.append(path)


def _apply_one(s: TerminalState, words: list[str], output: str | None) -> None:
    redirect = next((i for i, w in enumerate(words) if w in (">", ">>")), None)
    if redirect is not None:
        if redirect + 1 >= len(words):
            return
        target, append = _abs(words[redirect + 1], s), words[redirect] == ">>"
        cmd = words[:redirect]
        if cmd and cmd[0] in ("echo", "printf"):
            _write(s, target, _echo_text(cmd[1:], cmd[0] == "printf"), append)
        else:
            _write(s, target, None, append)  # something was written; what exactly, the model knows
        return
    cmd, args = words[0], words[1:]
    plain = [a for a in args if not a.startswith("-")]
    if cmd == "touch":
        for a in plain:
            p = _abs(a, s)
            if p not in s.files:
                _write(s, p, "")
    elif cmd == "mkdir":
        for a in plain:
            p = _abs(a, s)
            for d in [p] + [posixpath.dirname(p)] * ("-p" in args):
                if d not in s.dirs:
                    s.dirs.append(d)
            if p not in s.known_dirs:
                s.known_dirs.append(p)  # a new folder is empty: fully known
            if p in s.deleted:
                s.deleted.remove(p)
    elif cmd in ("rm", "rmdir"):
        for a in plain:
            pattern = _abs(a, s)
            matches = [p for p in list(s.files) + s.dirs if fnmatch.fnmatch(p, pattern)] if "*" in a else [pattern]
            for p in matches:
                _remove(s, p)
    elif cmd in ("mv", "cp") and len(plain) == 2:
        src, dst = _abs(plain[0], s), _abs(plain[1], s)
        if dst in s.dirs:
            dst = posixpath.join(dst, posixpath.basename(src))
        moved = {p: c for p, c in s.files.items() if p == src or p.startswith(src + "/")}
        for p, c in moved.items():
            _write(s, dst + p[len(src):], c)
        if cmd == "mv":
            for p in moved:
                del s.files[p]
            if src not in s.deleted:
                s.deleted.append(src)
    elif cmd in ("tar", "zip") and _archive_target(cmd, args):
        _write(s, _abs(_archive_target(cmd, args), s), None)  # an archive now exists; its bytes are unknown
    elif cmd == "cat" and len(plain) == 1 and output is not None and not args[0].startswith("-"):
        p = _abs(plain[0], s)
        if p not in s.dirs:
            _write(s, p, output)  # what cat showed is what the file holds
    elif cmd == "ls" and not plain and output is not None and "-" not in "".join(args):
        for name in output.split():
            p = posixpath.join(s.cwd, name)
            if not _exists(p, s):
                s.files.setdefault(p, None)
        if s.cwd not in s.known_dirs:
            s.known_dirs.append(s.cwd)
    elif cmd == "export":
        for a in args:
            k, sep, v = a.partition("=")
            if sep:
                s.env[k] = v
    elif cmd == "unset":
        for a in args:
            s.env.pop(a, None)
    elif cmd == "git" and s.git is not None and _in_repo(s):
        sub = args[:1]
        if sub == ["add"]:
            s.git.staged = sorted(set(s.git.staged) | set(plain[1:]))
        elif sub == ["commit"] and "-m" in args[:-1]:
            s.git.commits.append(args[args.index("-m") + 1])
            s.git.staged = []
        elif sub in (["checkout"], ["switch"]):
            create = "-b" in args or "-c" in args
            name = plain[-1] if len(plain) > 1 else None
            if name:
                if create and name not in s.git.branches:
                    s.git.branches.append(name)
                if name in s.git.branches:
                    s.git.branch = name
        elif sub == ["branch"] and len(plain) == 2 and not args[1].startswith("-"):
            if plain[1] not in s.git.branches:
                s.git.branches.append(plain[1])
