"""The state after one simple command, its words expanded (`_apply_one`): the files and folders
touch, mkdir, rm, mv and cp make, move and remove; what a redirect, tee, sed -i and python3 -m
py_compile write; what ls and cat showed; cd, export, git (history.py). A command that failed may
still have done part of its work (`_partly_done`), or opened the file it writes to
(`_redirected_anyway`)."""

from __future__ import annotations

import fnmatch
import posixpath
import re
import shlex
import sys
from typing import Any

from . import eachpath, envprefix, history, missing, modes, sedscript
from .state import (
    WRITABLE, TerminalState, _abs, _absent, _changed, _children, _contents, _exists, _forget_writes, _globbed, _in_repo,
    _made, _remove, _touched, _writable, _Unknown, _within, _write)
from .variables import ASSIGNMENT, assign, _expand, _expand_words, forget_assigned
from .line import PATH_EXPANSIONS, Heredoc, _echo_text, _split, _tildes
from .programs import (MODELLED, _archive_target, _named_in, _program_ran, _project_run, _script_run,
                       _writes, fed_to_python, module_run, py_compiled)


FILE_COMMANDS = frozenset({"touch", "mkdir", "rm", "rmdir", "cp", "mv"})


RECURSIVE = re.compile(r"-[a-zA-Z]*[rRa][a-zA-Z]*|--recursive|--archive")


def _redirected_anyway(s: TerminalState, words: list[str], kinds: set[str] | None, output: str) -> None:
    """A command that failed (or was not found) still had its output file opened first: `> f` made or
    emptied it, `>> f` made it if missing; what it holds now is not known (what was written before
    the failure). Unless opening it failed (bash says so, naming it; a name ending in /)."""
    at = next((i for i, w in enumerate(words) if w in (">", ">>")), None)
    if at is None or at + 1 >= len(words) or words[at + 1].endswith("/"):
        return
    named = words[at + 1]
    if any(f"bash: line 1: {name}: " in output for name in (named, s.home + named[1:] if named[:2] == "~/" else named)):
        return  # (as bash names it: `~/x` as the home's x)
    if kinds is None or {"target glob", "target brace", "target quoted $", "variable"} & kinds:
        _forget_writes(s, None)  # (where it wrote: not known)
        return
    target = _abs(_expand(words[at + 1], s), s)
    if posixpath.dirname(target) in s.dirs and target not in s.dirs and _writable(target):  # (not the read-only root)
        _write(s, target, None)


def _partly_done(s: TerminalState, words: list[str], kinds: set[str] | None) -> None:
    """A file command that failed may have done part of its work: `rm a nope` removes a, `mkdir x
    nope/y` makes x, `rm -r` of a mount empties it. Where it names several paths, or works
    recursively, whether each is there, what is under it and what its folder lists are no longer known."""
    s.seen = {}  # (what it made or removed may not be any path the state knows)
    operands = [w for w in words[1:] if not w.startswith("-")]
    if len(operands) < 2 and not any(RECURSIVE.fullmatch(w) for w in words[1:] if w.startswith("-")) and \
            words[0] != "mv":
        return  # (one path, refused: nothing done)
    if kinds is None or not kinds <= PATH_EXPANSIONS | {"glob"} or \
            any(w.startswith("-") and not re.fullmatch(r"-[a-zA-Z]+", w) for w in words[1:]):
        _forget_writes(s, None, list(s.files) if words[0] in ("rm", "mv") else None)
        return  # (braces, variables, options with values: which paths, not known; what it removed, neither)
    paths: list[str] = []
    for w in operands:
        folder, _, pattern = _expand(w, s).rpartition("/")
        if not any(c in pattern for c in "*?[") and not any(c in folder for c in "*?["):
            paths.append(_abs(_expand(w, s), s))
        elif any(c in folder for c in "*?[") or "[^" in pattern:
            paths.append(s.cwd if not w.startswith(("/", "~")) else "/")  # (a pattern above the last part)
        else:  # (what the pattern matched of the paths the state knows; the folder's listing: not known)
            where = _abs(folder or ".", s) if folder or not w.startswith("/") else "/"
            s.known_dirs = [d for d in s.known_dirs if d != where]
            paths += [posixpath.join(where, n) for n in _globbed(where, s)
                      if fnmatch.fnmatchcase(n, pattern) and (pattern.startswith(".") or not n.startswith("."))]
    recursive = any(RECURSIVE.fullmatch(w) for w in words[1:] if w.startswith("-"))
    paths = [p for p in paths if not (words[0] == "rm" and not recursive and p in s.dirs)]  # (`rm DIR`: refused)
    if "/" in paths:
        _forget_writes(s, None, list(s.files))
        return
    for path in paths:  # (each before any is forgotten: what the last commit had there is still known)
        _touched(s, path)
    for path in paths:
        mount = path in WRITABLE  # (/home, /tmp: mounts, never removed themselves; only what is in them)

        def gone(p: str, path: str = path, mount: bool = mount) -> bool:
            return _within(p, path) and not (mount and p == path)

        s.files = {p: c for p, c in s.files.items() if not gone(p)}
        s.dirs = [d for d in s.dirs if not gone(d) or d == s.cwd]
        s.known_dirs = [d for d in s.known_dirs if not _within(d, path) and (mount or d != posixpath.dirname(path))]
        s.deleted = [d for d in s.deleted if not gone(d)]
        s.order = [p for p in s.order if not gone(p)]
        s.times = {p: when for p, when in s.times.items() if not gone(p)}


def not_followed(state: dict[str, Any], command: str, output: str, exit_code: int, cwd_after: str) -> dict[str, Any]:
    """The state after a line the rules do not follow (a path the kernel refuses; any line while a
    mode refuses the user a right, modes.py): what it may have written and set, forgotten."""
    s = TerminalState.model_validate(state)
    _forget_writes(s, None, _named_in(command, s))
    forget_assigned(s, command)
    s.cwd, s.status = cwd_after or s.cwd, exit_code & 255
    return s.model_dump()


def _refused_before_anything(s: TerminalState, command: str, output: str, exit_code: int) -> bool:
    """The command failed as missing.py said it would, before it did anything (all but rm of
    several paths, which removes the others)."""
    parts = _split(command)
    if not parts or len(parts) != 1 or any(c in command for c in "*?[]{}\\$`"):
        return False
    try:
        words = _tildes([_expand(w, s, strict=True) for w in parts[0]], command, s)
    except _Unknown:
        return False
    plain = [w for w in words[1:] if not w.startswith("-")]
    return not (words[0] in ("rm", "chmod", *eachpath.COMMANDS) and len(plain) > 1) and \
        missing.refused(words, s) == (output, exit_code)


def done_in_turn(s: TerminalState, words: list[str], line: str, kinds: set[str] | None, output: str,
                 exit_code: int) -> bool:
    """touch, mkdir or rmdir of several paths failed for some as eachpath.py says it would (`touch x
    nope/y`): the others were made or removed, each as it alone would be."""
    if words[0] not in eachpath.COMMANDS or kinds is None or kinds - PATH_EXPANSIONS:
        return False
    try:
        words = _expand_words(words, line, s, strict=True)
    except _Unknown:
        return False
    said = eachpath.outcome(words[0], words[1:], s)
    if said is None or (said.output, said.status) != (output, exit_code):
        return False
    if said.done:
        _apply_one(s, [words[0], *[w for w in words[1:] if w.startswith("-")], *said.done], None)
    return True


def _apply_one(s: TerminalState, words: list[str], output: str | None, fed: Heredoc | None = None,
               kinds: set[str] | None = frozenset()) -> None:  # type: ignore[assignment]
    """The state after one simple command (`words`, expanded). `kinds`: what the shell expanded in its
    line beside known variables (_expansions; None: not known): where that leaves the paths a
    command writes or removes unknown, what it may have changed is forgotten, and what echo and
    printf write is known only where the shell passed their words as written."""
    if words and words[0] in ("source", ".", "eval"):  # (run in the shell, not followed here: what it set)
        forget_assigned(s, shlex.join(words))
    if words and all(ASSIGNMENT.fullmatch(w) for w in words):  # (`F=x.py`: a variable, no program)
        assign(s, words, kinds is not None and not kinds & {"variable", "target variable", "tilde", "quoted $"})
        return
    lead = next(i for i, w in enumerate(words) if not ASSIGNMENT.fullmatch(w)) if words else 0
    if lead:  # (`CI=1 python3 x.py` in a list: the program, those variables in its environment alone)
        before, assigned = {"env": dict(s.env), "vars": dict(s.vars)}, dict(w.split("=", 1) for w in words[:lead])
        scoped = envprefix.scoped(before, assigned)
        s.env, s.vars = scoped["env"], scoped["vars"]
        _apply_one(s, words[lead:], output, fed, kinds)
        after = envprefix.restored(before, {"env": s.env, "vars": s.vars}, assigned)
        s.env, s.vars = after["env"], after["vars"]
        return
    if _unplaced(s, words, kinds):
        return
    redirect = next((i for i, w in enumerate(words) if w in (">", ">>")), None)
    if redirect is not None:
        literal = kinds is not None and not kinds - {"target tilde", "target backslash"}
        _redirect(s, words, redirect, fed, literal)
        rest = words[:redirect] + words[redirect + 2:]
        if rest and rest[0] in FILE_COMMANDS:  # (`mkdir d > log`: the folder made too, not only the log)
            _apply_one(s, rest, None, kinds=kinds)
        return
    cmd, args = words[0], words[1:]
    plain = [a for a in args if not a.startswith("-")]
    if cmd == "git" and not (s.git is not None and _in_repo(s)):
        modes.after_git(s, history._git_args(args))  # (in the repository, history.py does, where not followed)
    if cmd == "tee" and fed is not None:
        for a in plain:
            _write(s, _abs(a, s), fed.text if fed.literal else None, "-a" in args or "--append" in args)
    elif cmd == "touch":
        _touch(s, args, plain)
    elif cmd == "mkdir":
        _mkdir(s, args, plain)
    elif cmd in ("rm", "rmdir"):
        _rm(s, plain)
    elif cmd in ("mv", "cp"):
        _move_or_copy(s, cmd, args, plain)
    elif cmd in ("tar", "zip") and _archive_target(cmd, args):
        _write(s, _abs(_archive_target(cmd, args), s), None)  # an archive now exists; its bytes are unknown
    elif cmd in ("cat", "ls") and output is not None:
        _shown(s, cmd, args, plain, output, kinds)
    elif cmd == "cd" and len(args) <= 1:
        old, back = s.cwd, s.vars.get("OLDPWD")
        # (the rest of the line runs there)
        s.cwd = s.home if not args else _abs(args[0], s) if args != ["-"] else back or s.cwd
        s.vars["OLDPWD"] = old if args != ["-"] or back else None  # (bash's, for `cd -`)
    elif cmd == "export":
        for a in args:
            k, sep, v = a.partition("=")
            if sep:
                s.env[k] = v
                s.vars.pop(k, None)
            elif s.vars.get(k) is not None:  # (`F=x; export F`)
                s.env[k] = s.vars.pop(k)  # type: ignore[assignment]
    elif cmd == "unset":
        for a in args:
            s.env.pop(a, None)
            s.vars.pop(a, None)
    elif cmd == "chmod":
        modes.apply(s, args, 0)
    elif cmd == "git" and history.apply(s, words, output):
        pass
    elif cmd == "sed" and (edit := sedscript.in_place(args)) is not None:  # (it rewrites the files it is given)
        for name in edit.files:
            text = _contents(name, s)
            _write(s, _abs(name, s), edit.edit(text) if edit.edit and text is not None else None)
            _made(s, _abs(name, s))  # sed -i writes a new file and renames it over the old one
    elif cmd == "python3" and (compiled := py_compiled(s, args)) is not None and compiled[1] == 0:
        _compiled(s, compiled[2])
    elif cmd == "python3" and args[:1] == ["-m"] and (ran := module_run(s, args)) is not None:
        _compiled(s, ran[2], imported=True)  # (the packages above it, it, and what it imports: pymain.py)
        _wrote(s, ran[3])
    elif cmd == "python3" and args and (script := _script_run(args[0], s, args[1:])) is not None:
        _compiled(s, script[2], imported=True)  # (a script pyrun.py follows: the modules it imports)
        _wrote(s, script[3])
    elif cmd == "python3" and args[:1] == ["-c"] and _writes(cmd, args, s) and (ran := _project_run(s, args)):
        _compiled(s, ran[1], imported=True)  # (a one-liner that imports the project's modules: pyrun.py)
        _wrote(s, ran[2])
    elif cmd not in MODELLED and _writes(cmd, args, s):  # python, make, sed -i…: may write anything
        _program_ran(s, cmd, args)


def _unplaced(s: TerminalState, words: list[str], kinds: set[str] | None) -> bool:
    """A command that writes or removes paths the shell expanded in ways the state does not follow
    (`mkdir -p a/{b,c}`, `touch $RANDOM`, `cp x src/*`, `echo x* >> f`): which paths, or what, is
    not known. What it may have changed is forgotten; True where it was such a command."""
    writes = words[0] in FILE_COMMANDS or ">" in words or ">>" in words or \
        words[0] not in MODELLED and _writes(words[0], words[1:], s)  # (sed -i, python…: the files they name)
    allowed = PATH_EXPANSIONS | ({"glob"} if words[0] == "rm" and ">" not in words and ">>" not in words else set())
    if words[0] in ("echo", "printf") and (">" in words or ">>" in words):  # (its words are what it writes, not paths)
        allowed |= {"glob", "brace", "tilde", "quoted $", "variable"}
    if words[0] == "sed":  # (`'/^$/d'`: a `$` single quotes keep is sed's own, a line's end or the last line)
        allowed |= {"quoted $"}
    if not writes or kinds is not None and kinds <= allowed:
        return False
    named = [w for w in words[1:] if w and w not in (">", ">>") and not w.startswith("-")]
    _forget_writes(s, None, [_abs(w, s) for w in named])
    s.known_dirs = [d for d in s.known_dirs if d != s.cwd and all(d != posixpath.dirname(_abs(w, s)) for w in named)]
    if kinds is None or {"variable", "target variable"} & kinds:
        roots = [s.home, "/tmp"]  # (a path from a variable the state does not know: anywhere it writes)
    else:  # a pattern or braces: any file under the folder they start in
        roots = [_abs(w[:m.start()], s) if w[:m.start()].endswith("/") or not w[:m.start()] else
                 posixpath.dirname(_abs(w[:m.start()], s)) for w in named if (m := re.search(r"[*?\[{]", w))]
    for root in roots:
        _forget_writes(s, root)
        if words[0] in ("mv", "rm", "rmdir"):  # what is still there under it: not known either
            s.files = {p: c for p, c in s.files.items() if not _within(p, root) or p == root}
            s.dirs = [d for d in s.dirs if not _within(d, root) or d == root]
    return True


def _redirect(s: TerminalState, words: list[str], redirect: int, fed: Heredoc | None, literal: bool) -> None:
    """`CMD > FILE` (or `>>`): what echo, printf, `cat` of a here-document and `:` write is known
    (`literal`: the shell passed their words as written); what another program writes is not, and
    the program may write more than its output."""
    if redirect + 1 >= len(words):
        return
    target, append = _abs(words[redirect + 1], s), words[redirect] == ">>"
    cmd = words[:redirect] + words[redirect + 2:]  # (`echo a > f b` writes "a b")
    if cmd == ["cat"] and fed is not None:
        _write(s, target, fed.text if fed.literal else None, append)  # (expanded by the shell: not known)
    elif cmd and cmd[0] in ("echo", "printf"):
        _write(s, target, _echo_text(cmd[1:], cmd[0] == "printf") if literal else None, append)
    elif cmd in ([], [":"], ["true"]):
        _write(s, target, "", append)  # `: > file`: emptied (or, appending, as it was)
    else:
        if cmd[0] not in MODELLED and _writes(cmd[0], cmd[1:], s):
            _program_ran(s, cmd[0], cmd[1:])  # (`python3 fix.py > log.txt`: it may write more than its output)
        _write(s, target, None, append)  # something was written; what exactly, the model knows


def _touch(s: TerminalState, args: list[str], plain: list[str]) -> None:
    """touch: a new empty file where the state knows none was there; a new time for what was."""
    for a in plain:
        p = _abs(a, s)
        if p in s.dirs:
            _changed(s, p)  # (a folder: its time)
        elif p not in s.files and (_absent(p, s) or posixpath.dirname(p) in s.known_dirs):
            _write(s, p, "")
        elif p not in s.files:  # (a name in a folder not known whole: a file made, or a folder or file there)
            _touched(s, p)
            s.known_dirs = [d for d in s.known_dirs if d != p]
            s.seen = {}
        elif args == plain:
            _changed(s, p)
        else:
            s.times.pop(p, None)  # (-d, -r, -t: another time)


def _mkdir(s: TerminalState, args: list[str], plain: list[str]) -> None:
    """mkdir (-p: with the parents it makes); a folder made where its parent's listing is known is
    known whole."""
    parents = "-p" in args or "--parents" in args or any(re.fullmatch(r"-[a-zA-Z]*p[a-zA-Z]*", a) for a in args)
    for a in plain:
        chain = [_abs(a, s)]  # the folder, then (with -p) each missing parent up to one that exists
        while parents and posixpath.dirname(chain[-1]) not in ("/", chain[-1]) and \
                not _exists(posixpath.dirname(chain[-1]), s):
            chain.append(posixpath.dirname(chain[-1]))
        for d in reversed(chain):  # from the top: a folder made where the listing was known is known
            # `mkdir x` fails on an existing x, so x is new; `mkdir -p x` does not, so x is new only
            # where its parent's listing is known
            new = d not in s.dirs and (posixpath.dirname(d) in s.known_dirs or (d == chain[0] and not parents))
            if d not in s.dirs:
                s.dirs.append(d)
                _made(s, d)
            if new and d not in s.known_dirs:
                s.known_dirs.append(d)  # a new folder holds only what is made in it: fully known
            if d in s.deleted:
                s.deleted.remove(d)


def _rm(s: TerminalState, plain: list[str]) -> None:
    """rm and rmdir, of paths or of a pattern within one folder."""
    for a in plain:
        pattern = _abs(a, s)
        folder, name = posixpath.split(pattern)
        if not any(c in a for c in "*?["):
            matches = [pattern]
        elif any(c in folder for c in "*?[") or "[^" in name:
            _forget_writes(s, None)  # (what the pattern matched: not known)
            return
        else:  # as bash expands it: within the folder, dot files only for a pattern starting with a dot
            # (in a folder not known whole: what it matched of the paths the state knows is gone,
            # and the folder's listing stays unknown)
            matches = [posixpath.join(folder, n) for n in _globbed(folder, s)
                       if fnmatch.fnmatchcase(n, name) and (name.startswith(".") or not n.startswith("."))]
        for p in matches:
            _remove(s, p)


def _move_or_copy(s: TerminalState, cmd: str, args: list[str], plain: list[str]) -> None:
    """mv and cp: where the state knows what goes where, each file and folder goes there (`_placed`);
    elsewhere what may have changed is forgotten."""
    if any(a.startswith("--") or re.fullmatch(r"-\w*[tST]\w*", a) for a in args) or \
            any("/.git/" in _abs(a, s) + "/" for a in plain):  # (into or out of git's own folder: not followed)
        for a in plain:
            _touched(s, _abs(a, s))
        _forget_writes(s, None)  # (`-t DIR`, `-S SUFFIX`, `-T`, long options: which path is which, not followed)
    elif len(plain) > 2:  # (several into a folder: each as it alone would go)
        if _abs(plain[-1], s) in s.dirs:
            for source in plain[:-1]:
                _apply_one(s, [cmd, *[a for a in args if a.startswith("-")], source, plain[-1]], None)
        else:
            _partly_done(s, [cmd, *args], None)
    elif len(plain) == 2 and (
            _abs(plain[1], s) not in s.dirs and _abs(plain[1], s) not in s.files and not _absent(_abs(plain[1], s), s) and
            posixpath.dirname(_abs(plain[1], s)) not in s.known_dirs or not _exists(_abs(plain[0], s), s)):
        # (onto what may be a folder: into it, or onto a file: not known which; or what it moved, not known)
        s.deleted = [d for d in s.deleted if not _within(d, _abs(plain[1], s))]
        _forget_writes(s, posixpath.dirname(_abs(plain[1], s)))
        if cmd == "mv":
            _forget_writes(s, posixpath.dirname(_abs(plain[0], s)))
            if set(args) - set(plain) <= {"-f"} and _abs(plain[0], s) != s.cwd:
                _remove(s, _abs(plain[0], s))  # (wherever it went, it is not where it was)
    elif len(plain) == 2:
        _placed(s, cmd, args, _abs(plain[0], s), _abs(plain[1], s))


def _placed(s: TerminalState, cmd: str, args: list[str], src: str, dst: str) -> None:
    """`mv|cp SRC DST` where the state knows SRC and whether DST is a folder: the files and folders
    under SRC go to DST (into it, where it is a folder), with their times as the command keeps them."""
    _touched(s, dst)  # also where the files it moves are not known one by one
    if cmd == "mv":
        _touched(s, src)
    if dst in s.dirs:
        dst = posixpath.join(dst, posixpath.basename(src))
    _modes_placed(s, cmd, args, src, dst)
    if src in s.dirs:  # (a folder removed there before: what is under it now is what came, not nothing)
        s.deleted = [d for d in s.deleted if not _within(d, dst)]
    moved = {p: c for p, c in s.files.items() if p == src or p.startswith(src + "/")}
    whole = src in s.files and src not in s.dirs  # one file (a folder's copy is made in cp's own order)
    if not whole or cmd == "mv":
        s.order = [p for p in s.order if not _within(p, dst)]  # (replaced, or made in an order not known)
    for p, c in moved.items():
        if not whole:  # (before it is written: what the last commit had there, nothing or another file)
            _touched(s, dst + p[len(src):])
        _write(s, dst + p[len(src):], c, learnt=not whole)
    if src in s.dirs:  # a folder: the folders in it go too (empty ones as well), known where they were
        for d in [d for d in s.dirs if _within(d, src)]:
            if dst + d[len(src):] not in s.dirs:
                s.dirs.append(dst + d[len(src):])
            if d in s.known_dirs and dst + d[len(src):] not in s.known_dirs:
                s.known_dirs.append(dst + d[len(src):])
        if cmd == "mv":
            s.dirs = [d for d in s.dirs if not _within(d, src)]
            s.known_dirs = [d for d in s.known_dirs if not _within(d, src)]
    kept = s.times.get(src)  # a rename keeps the file's time; so does cp -p or -a
    if cmd == "mv":
        for p in moved:
            del s.files[p]
        s.order = [p for p in s.order if not _within(p, src)]
        if whole:
            _made(s, dst)  # a rename: the newest entry of its folder
        _changed(s, posixpath.dirname(src))
        if src not in s.deleted:
            s.deleted.append(src)
    folder = posixpath.relpath(dst, s.git.repo) if s.git is not None and dst in s.dirs else None
    if folder is not None and s.git is not None and s.git.base.get(folder) == "" and folder not in s.git.index:
        del s.git.base[folder]  # (a folder there now, not a file the last commit lacked)
    s.times = {p: t for p, t in s.times.items() if not (_within(p, src) and cmd == "mv" or _within(p, dst))}
    if whole and (cmd == "mv" or {"-p", "-a", "--preserve", "--archive"} & set(args)):
        if kept is not None:
            s.times[dst] = kept
    elif whole:
        _changed(s, dst)
    _changed(s, posixpath.dirname(dst))


def _modes_placed(s: TerminalState, cmd: str, args: list[str], src: str, dst: str) -> None:
    """The modes of what `mv`/`cp` put at `dst` (modes.py): mv keeps them; cp makes a new file with
    its source's less the umask (all of it with -p/-a), and a file it writes over keeps its own."""
    if not s.modes:
        return
    placed = {p: dst + p[len(src):] for p in [*s.files, *s.dirs] if _within(p, src)}
    if cmd == "mv":
        modes.removed(s, dst)
        for p in [p for p in s.modes if _within(p, src)]:
            s.modes[dst + p[len(src):]] = s.modes.pop(p)
        return
    preserved = bool({"-p", "-a", "--preserve", "--archive"} & set(args))
    for p, to in placed.items():
        modes.copied(s, p, to, preserved, made=not _exists(to, s))


def _walked_to_its_failure(s: TerminalState, args: list[str], output: str, exit_code: int,
                           fed: str | None = None) -> bool:
    """`python3 -c CODE`, `python3 FILE.py` or `python3 - <<EOF` (`fed`: its text) that failed as pyrun.py
    walked it (its traceback): what it imported before is compiled beside each module, and what it wrote
    before it failed is in its files (pyfiles.py). True where so."""
    python = fed_to_python(["python3", *args]) if fed is not None else None
    if args[:2] == ["-m", "py_compile"]:  # (the files before the one it refused: compiled)
        ran = py_compiled(s, args)
        said, compiled = (ran[:2], ran[2]) if ran is not None else (None, [])
        if said == (output, exit_code):
            _compiled(s, compiled)
        return said == (output, exit_code)
    if python is not None or args[:1] == ["-c"]:
        ran = _project_run(s, ["-c", fed, *python[1]], python[0]) if python is not None else _project_run(s, args)
        said, compiled, written = ran if ran is not None else (None, [], [])  # type: ignore[arg-type]
    else:
        script = _script_run(args[0], s, args[1:]) if args else None
        said, compiled, written = (script[:2], script[2], script[3]) if script is not None else (None, [], [])
    if said != (output, exit_code):
        return False
    _compiled(s, compiled, imported=True)
    _wrote(s, written)  # (what it wrote before it failed)
    return True


def fed_python(s: TerminalState, text: str, python: tuple[str, list[str]], output: str | None) -> bool:
    """`python3 - <<EOF` whose program the walkers followed to its end (printing `output`, where it is
    the line's alone): what it imported is compiled beside each module, and what it wrote is in its
    files. True where so."""
    ran = _project_run(s, ["-c", text, *python[1]], python[0])
    if ran is None or ran[0][1] != 0 or output is not None and ran[0][0] != output:
        return False
    _compiled(s, ran[1], imported=True)
    _wrote(s, ran[2])
    return True


def _wrote(s: TerminalState, written: list[tuple[str, str, bool]]) -> None:
    """What a Python program the walkers followed left in the files it wrote (pyfiles.py)."""
    for path, text, append in written:
        _write(s, path, text, append)


def _compiled(s: TerminalState, names: list[str], imported: bool = False) -> None:
    """`python3 -m py_compile NAMES…` (`py_compiled`): each file's bytecode in `__pycache__` beside it.
    A module `imported` is compiled only where its bytecode is not there yet or is older than it
    (Python writes it anew, and renames it over the old one), and not at all under PYTHONDONTWRITEBYTECODE."""
    if imported and s.env.get("PYTHONDONTWRITEBYTECODE"):
        return
    for name in names:
        source = _abs(name, s)
        folder = posixpath.join(posixpath.dirname(source), "__pycache__")
        if folder not in s.dirs:
            s.dirs.append(folder)
            _made(s, folder)
            if posixpath.dirname(folder) in s.known_dirs:
                s.known_dirs.append(folder)
        if folder in s.deleted:  # (made again after it was removed)
            s.deleted.remove(folder)
        compiled = posixpath.join(folder, f"{posixpath.basename(source)[:-3]}.{sys.implementation.cache_tag}.pyc")
        if imported and compiled in s.files and s.times.get(source, 0) < s.times.get(compiled, 0):
            continue  # (up to date: read, not written)
        _write(s, compiled, None)  # (its bytes: not known)
        _made(s, compiled)  # (written beside it, then renamed over it: the newest entry)


def _shown(s: TerminalState, cmd: str, args: list[str], plain: list[str], output: str, kinds: set[str] | None) -> None:
    """What `cat FILE` showed is what the file holds; what `ls` listed is the folder's listing,
    where the state knows each name (a name it does not know may be a file or a folder: neither is
    learnt, and the listing is not known)."""
    if cmd == "cat" and len(plain) == 1 and not args[0].startswith("-") and \
            kinds is not None and kinds <= PATH_EXPANSIONS:  # (`cat *.txt`: which file it read, not known)
        p = _abs(plain[0], s)
        if p not in s.dirs:
            _write(s, p, output, learnt=True)
    elif cmd == "ls" and not plain and "-" not in "".join(args):
        names = output.splitlines()  # (one a line, to a pipe: a name may hold spaces)
        if sorted(names) != sorted(n for n in _children(s.cwd, s) if not n.startswith(".")):
            s.known_dirs = [d for d in s.known_dirs if d != s.cwd]  # (names it did not know, or not all it knew)
            if not args:
                s.seen[s.cwd] = output
        elif s.cwd not in s.known_dirs:
            s.known_dirs.append(s.cwd)
