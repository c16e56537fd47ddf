"""The state's folders as `ls`, `find`, `grep -r` and the shell's patterns see them: a listing of a
folder known whole (`ls`, `ls -R`, several folders), `ls -l` (the sandbox's tmpfs sizes and links,
the times each step ran), the tree find walks, and the names a pattern matches.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re

from . import braces, filters, gitfiles, listing, modes, search
from . import state as st
from .line import backquoted
from .state import _PLAIN, _QUOTABLE, TerminalState, _abs, _children, _contents, _exists, _globbed, _within


def _listing(folder: str, s: TerminalState) -> str | None:
    """What `ls` prints for a folder whose whole listing is known."""
    if folder not in s.known_dirs:
        return None
    return "".join(n + "\n" for n in _children(folder, s) if not n.startswith("."))


MAX_LISTED = 200  # folders `ls -R` lists from the state at most


def _ls(args: list[str], s: TerminalState) -> str | None:
    """What `ls ARGS` prints where the state knows it: the folder's names (`ls`, `ls -1`), or every
    folder below it too (`ls -R [DIR]`), as GNU ls writes them to a pipe."""
    if all(a == "-1" for a in args):
        return _listing(s.cwd, s)
    if any(a in ("-d", "-1d", "-d1") for a in args) and all(a in ("-d", "-1", "-1d", "-d1") or not a.startswith("-")
                                                             for a in args):
        named = [a for a in args if not a.startswith("-")] or ["."]  # (`-d`: each named as it is, folders too)
        if any(not _PLAIN.fullmatch(n) or not _exists(_abs(n, s), s) or n.endswith("/") and _abs(n, s) not in s.dirs
               for n in named):
            return None
        return "".join(n + "\n" for n in sorted(named, key=lambda n: n.encode()))
    if args[:1] != ["-R"] or len(args) > 2 or (len(args) == 2 and (args[1].startswith("-") or args[1].endswith("/")
                                                                  or not _PLAIN.fullmatch(args[1]))):
        return None
    shown = args[1] if len(args) == 2 else "."
    top = _abs(shown, s)
    sections: list[str] = []

    def walk(folder: str, name: str) -> bool:
        if folder not in s.known_dirs or len(sections) > MAX_LISTED:
            return False  # (a tree deeper or wider than that: the model's)
        names = [n for n in _children(folder, s) if not n.startswith(".")]
        sections.append(f"{name}:\n" + "".join(n + "\n" for n in names))
        return all(walk(posixpath.join(folder, n), f"{name}/{n}" if name != "/" else f"/{n}")
                   for n in names if posixpath.join(folder, n) in s.dirs)

    return "\n".join(sections) if walk(top, shown) else None


def _tree(top: str, s: TerminalState) -> search.Tree | None:
    """Everything below the folder `top`, when the state knows the whole tree (search.Tree): every
    folder in it listed whole, no home in it (a home's dot files are not in the state)."""
    folder = _abs(top, s)
    if folder not in s.known_dirs or _within(s.home, folder) or any(_within(folder, d) for d in s.deleted):
        return None
    repos = [r for r in ([s.git.repo] if s.git else []) + s.other_repos if _within(r, folder)]
    below: dict[str, list[str]] = {}  # each folder's entries, in one pass over what the state holds
    for p in set(s.files) | set(s.dirs):
        if p != folder and _within(p, folder):
            below.setdefault(posixpath.dirname(p), []).append(p)
    if sum(map(len, below.values())) > search.MAX_PATHS:
        return None
    known, folders = set(s.known_dirs), set(s.dirs)
    made = {p: i for i, p in enumerate(s.order)}
    ordered = True
    entries: list[tuple[str, bool]] = []

    def inside(here: str) -> list[str] | None:
        """The entries of `here` as find and grep visit them: newest first; byte order where the
        creation order is not known."""
        nonlocal ordered
        if here not in known:
            return None
        found = [p for p in below.get(here, []) if posixpath.basename(p) != ".git"]
        if len(found) < len(below.get(here, [])):
            repos.append(here)
        if all(p in made for p in found):
            return sorted(found, key=lambda p: -made[p])
        ordered = False
        return sorted(found, key=lambda p: p.encode())

    top_entries = inside(folder)
    if top_entries is None:
        return None
    walking = [iter(top_entries)]  # each folder's contents right after it (no recursion: trees may be deep)
    while walking:
        path = next(walking[-1], None)
        if path is None:
            walking.pop()
            continue
        entries.append((path[len(folder):].lstrip("/"), path in folders))
        if path in folders:
            deeper = inside(path)
            if deeper is None:
                return None
            walking.append(iter(deeper))
    if not ordered:  # (the order does not matter to what is then answered: one path, or an order-free pipe)
        entries.sort(key=lambda e: e[0].encode())
    git_dirs = sorted({posixpath.join(r, ".git")[len(folder):].lstrip("/") for r in repos})
    laid = gitfiles.of_repository(s) if s.git is not None and set(repos) == {s.git.repo} else None
    in_git = [] if not repos else None if laid is None else _git_entries(laid, folder, s)
    tree = search.Tree(top=top, entries=entries, git_inside=bool(repos), ordered=ordered, git_dirs=git_dirs,
                       git_entries=in_git, git_bytes=[e.data for e in laid.values() if e.data] if laid else None)
    if ordered and laid is not None and s.git is not None and posixpath.join(s.git.repo, ".git") in made:
        _walked_with_git(tree, laid, made, s)
    return tree


def _walked_with_git(tree: search.Tree, laid: dict[str, gitfiles.Entry], made: dict[str, int],
                     s: TerminalState) -> None:
    """The tree's walk with the repository's .git in it (search.Tree.walk): .git where it was made
    among the entries of the repository's top (after the world's files, before what the episode
    made), its own entries in gitfiles.walk's order."""
    inside = gitfiles.walk(s)
    if inside is None or s.git is None:
        return
    folder = _abs(tree.top, s)
    git = posixpath.join(s.git.repo, ".git")[len(folder):].lstrip("/")
    repo, when = posixpath.dirname(git), made[posixpath.join(s.git.repo, ".git")]
    at = None  # before the first of the repository top's entries made before it (newest first)
    for i, (rel, _) in enumerate(tree.entries):
        if posixpath.dirname(rel) == repo and made[posixpath.join(folder, rel)] < when:
            at = i
            break
    if at is None:  # (else after the last entry below the repository's top, or the top itself)
        below = [i + 1 for i, (rel, _) in enumerate(tree.entries)
                 if not repo or rel == repo or rel.startswith(repo + "/")]
        at = below[-1] if below else 0
    walk = tree.entries[:at] + [(git, True)] + [(f"{git}/{path}", folder_) for path, folder_ in inside] + \
        tree.entries[at:]
    tree.walk = walk
    tree.git_data = {f"{git}/{path}": laid[path].data for path, folder_ in inside if not folder_}
    tree.unplaced = f"{git}/index" if s.git.index_moved else None


def _git_entries(laid: dict[str, gitfiles.Entry], folder: str, s: TerminalState) -> list[tuple[str, bool]]:
    """The entries of the repository's .git (`laid`: as the world's seed commit left it, gitfiles.py)
    relative to `folder`, .git itself among them."""
    git = posixpath.join(s.git.repo, ".git")[len(folder):].lstrip("/")  # type: ignore[union-attr]
    return [(git, True)] + [(f"{git}/{rel}", entry.size is None) for rel, entry in laid.items()]


_LONG_FLAGS = re.compile(r"-[lahdSr]+")


def _one_a_line(names: list[str]) -> str | None:
    return "".join(n + "\n" for n in names)


def _folders(names: list[str], s: TerminalState, one, files=_one_a_line,
             folders_as_files: bool = False) -> tuple[str, int] | None:
    """`ls` given several names, as GNU ls prints them: each one not there first, in the order given
    (its complaint, and status 2), then the files as one list (`files(names)`), then each folder's
    listing (`one(name)`) under its name, files and folders each in the order ls sorts names (`ls -d`:
    folders among the files). None where any is not known, or is given twice."""
    if len(set(names)) < len(names):
        return None
    missing, plain, folders = [], [], []
    for name in names:
        kind = st._kind(_abs(name, s), s)
        if kind == "dir" and _abs(name, s) in s.dirs:
            (plain if folders_as_files else folders).append(name)
        elif kind == "file" and not name.endswith("/"):
            plain.append(name)
        elif kind == "missing" and _QUOTABLE.fullmatch(name):
            missing.append(name)
        else:
            return None
    order = (lambda n: n.encode()) if st._c_locale(s) else (lambda n: (n.lstrip(".").lower(), n))
    listed = [(n, one(n)) for n in sorted(folders, key=order)]
    shown = [files(sorted(plain, key=order))] if plain else []
    if any(x is None for _, x in listed) or None in shown:
        return None
    said = "\n".join(shown + [f"{n}:\n{x}" for n, x in listed])
    return "".join(f"ls: cannot access '{n}': No such file or directory\n" for n in missing) + said, 2 if missing else 0


def every_name(folder: str, s: TerminalState, almost: bool) -> str | None:
    """`ls -a` (`-A`: without `.` and `..`) of a folder the state knows whole, dot files and all."""
    names = _children(folder, s) if folder in s.known_dirs and folder != s.home else None
    if names is None or any(n.startswith(".") for n in names) and not st._c_locale(s):
        return None  # (a dot file's place among the others: in bytes where the locale is C, else strcoll's)
    if (s.git and folder == s.git.repo) or folder in s.other_repos:
        if not st._c_locale(s):
            return None
        names = [".git", *names]  # a repository's top: git keeps everything in .git
    everything = names if almost else [".", "..", *names]
    if st._c_locale(s):
        everything.sort(key=lambda n: n.encode())  # (in bytes: `*.txt` comes before `.`)
    return "".join(n + "\n" for n in everything)


def _long(args: list[str], s: TerminalState) -> tuple[str, int] | None:
    """`ls -l [-a] [-h] [-d] [-S] [-r] [PATH…]` where the state knows every entry's size, links and
    time (listing.py): a folder's rows under `total`, a file's row alone; several names as `_folders`
    lays them out (the files' rows one table); `-d`: each name's own row, folders too, in one table;
    `-S`, `-r` (one name): the largest first, backwards."""
    flags = "".join(a[1:] for a in args if a.startswith("-"))
    names = [a for a in args if not a.startswith("-")]
    if "l" not in flags or not all(_LONG_FLAGS.fullmatch(a) for a in args if a.startswith("-")) or \
            not all(_PLAIN.fullmatch(n) for n in names) or not st._c_locale(s) or "LS_COLORS" in s.env:
        return None
    if any((not _within(_abs(n, s), s.home) or any(_within(_abs(n, s), d) for d in s.deleted)) and
           st._kind(_abs(n, s), s) != "missing" for n in names or ["."]):
        return None  # (elsewhere: modes, owners and sizes the state does not hold)
    rows = _Rows(s)

    def table(shown: list[tuple[str, str]], total: bool, also: list[tuple[str, str]] = ()) -> str | None:
        found, sizing = [rows.row(path, name) for path, name in shown], [rows.row(path, name) for path, name in also]
        if None in found or None in sizing:
            return None
        return listing.render(found, int(st.clock()), posixpath.basename(s.home),  # type: ignore[arg-type]
                              "h" in flags, total=total, also=tuple(sizing))  # type: ignore[arg-type]

    def files(given: list[str]) -> str | None:
        return table([(_abs(n, s), n) for n in given], total=False,
                     also=[(_abs(n, s), n) for n in names if _abs(n, s) in s.dirs and n not in given])

    def folder(name: str) -> str | None:
        inside = rows.entries(_abs(name, s))
        if inside is None:
            return None
        here = _abs(name, s)
        shown = [(p, posixpath.basename(p)) for p in inside]
        if "a" in flags:
            shown += [(here, "."), (posixpath.dirname(here), "..")]
        else:
            shown = [(p, n) for p, n in shown if not n.startswith(".")]
        shown.sort(key=lambda e: e[1].encode())
        if "S" in flags:  # (the largest first; the names in order among the same size)
            sized = {p: rows.row(p, n) for p, n in shown}
            if None in sized.values():
                return None
            shown.sort(key=lambda e: -sized[e[0]].size)  # type: ignore[union-attr]
        return table(shown[::-1] if "r" in flags else shown, total=True)

    if set(flags) & set("Sr") and (len(names) > 1 or "d" in flags):
        return None  # (several names sorted by size, or backwards: not written here)
    if "d" in flags:
        return _folders(names or ["."], s, folder, files, folders_as_files=True)
    if len(names) > 1 or names and st._kind(_abs(names[0], s), s) == "missing":
        return _folders(names, s, folder, files)  # (a name not there: its complaint)
    target = _abs(names[0], s) if names else s.cwd
    if names and names[0].endswith("/") and names[0] != "/" and target not in s.dirs:
        return None
    said = files(names) if target in s.files and target not in s.dirs else folder(names[0] if names else ".")
    return None if said is None else (said, 0)


class _Rows:
    """`ls -l`'s row of each path the state knows the size, links, mode and time of."""

    def __init__(self, s: TerminalState):
        self.s = s
        self.repos = {r for r in ([s.git.repo] if s.git else []) + s.other_repos}

    def entries(self, folder: str) -> list[str] | None:
        if folder not in self.s.known_dirs:
            return None
        inside = [posixpath.join(folder, n) for n in _children(folder, self.s)]
        return inside + ([posixpath.join(folder, ".git")] if folder in self.repos else [])

    def row(self, path: str, name: str) -> listing.Row | None:
        s = self.s
        when = s.times.get(path)
        mode = modes.of(path, s)
        if when is None or mode is None:
            return None
        if path in s.files and path not in s.dirs:
            content = s.files[path]
            return None if content is None else \
                listing.file_row(name, len(content.encode()), when, modes.text(mode, False))
        if posixpath.basename(path) == ".git" and posixpath.dirname(path) in self.repos:
            return listing.folder_row(name, listing.GIT_DIR_ENTRIES, listing.GIT_DIR_FOLDERS, when,
                                      modes.text(mode, True))
        inside = self.entries(path)
        if inside is None or path not in s.dirs:
            return None
        folders = sum(1 for p in inside if p in s.dirs or p.endswith("/.git"))
        return listing.folder_row(name, len(inside), folders, when, modes.text(mode, True))


def read_as_bash(state: dict, command: str) -> str:
    """The line as bash reads it before running it, as far as the state follows: backquotes as `$(…)`,
    braces expanded (braces.py), and where the line is one simple command, its patterns expanded in
    the folders the state knows whole (`ls src/*.py tests/*.py`, `echo *`, `rm *.log`, `cat */x.md`). A list's commands are each read so as they run (on the
    state the ones before them left: `touch a.txt && ls *.txt`), a loop's words as it runs them."""
    command = braces.expanded(backquoted(command))
    if "*" not in command and "?" not in command or "$" in command or "`" in command:
        return command  # (`$(( x * 2 ))`: a substitution's words are not the line's)
    from .streams import masked

    bare = masked(command)
    if bare is None or re.search(r"[|;&()<>\n]|\[\[|(?:^|\s)[A-Za-z_]\w*\+?=", bare):
        return command  # (a list, a pipe, a redirection, an assignment: each as it runs)
    return _unexpanded(command, TerminalState.model_validate(state), matched_only=True)


def _unexpanded(command: str, s: TerminalState, matched_only: bool = False) -> str:
    """The command with each unquoted pattern word expanded as bash does it, where the state knows
    whole the folder it matches in (the shell's, or the one a plain path before its last part names:
    `src/*.py`): the paths it matches, sorted; none, the word as it is (`grep -r x --include=*.py .`).
    Elsewhere the command stays as it is (and is not followed); `matched_only`: a pattern that matches
    nothing stays as typed (the rules that read patterns themselves then answer it: `ls *.xyz`)."""
    if not any(c in command for c in "*?[") or "\n" in command:
        return command
    out, quote, start = [], "", 0
    words: list[tuple[int, int]] = []
    for i, c in enumerate(command + " "):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in " \t":
            if i > start:
                words.append((start, i))
            start = i + 1
    last = 0
    for a, b in words:
        word = command[a:b]
        if not any(c in word for c in "*?[") or any(c in word for c in "'\"\\$`"):
            continue
        if len(word) > MAX_PATTERN:
            return command  # (fnmatch's pattern grows in time as its length squared: `[[[[…` of 15,000 took 8 s)
        only_folders = word.endswith("/") and "/" not in word[:-1]  # (`*/`: the folders, each with its slash)
        folder, _, pattern = word[:-1].rpartition("/") if only_folders else word.rpartition("/")
        if any(c in folder for c in "*?[") or word.endswith("/") and not only_folders:
            deep = _matched(word, s)  # (`*/*.py`, `src/*/`, `*/notes.py`: a pattern above the last part)
            if deep is None:
                return command
            out += [command[last:a], " ".join(f"'{n}'" for n in deep) if deep else
                    word if matched_only else f"'{word}'"]
            last = b
            continue
        if any(c in word for c in "|;&<>(){}") or any(c in folder for c in "*?[~") or \
                word.endswith("/") and not only_folders or "/" in word and not folder.strip("/") and not only_folders:
            return command  # (operators inside the word, a pattern above the last part, `~`, `/*`: not followed)
        where = _abs(folder, s) if "/" in word and not only_folders else s.cwd
        if where not in s.known_dirs:
            return command
        names = [n + "/" if only_folders else n for n in _globbed(where, s) if
                 (pattern.startswith(".") or not n.startswith(".")) and fnmatch.fnmatchcase(n, pattern) and
                 (not only_folders or posixpath.join(where, n) in s.dirs or n == ".git")]
        if any(not _NAME.fullmatch(n.removesuffix("/")) for n in names):
            return command
        # (in ls's order: bash's, in C)
        matched = [f"{folder}/{n}" if "/" in word and not only_folders else n for n in names]
        out += [command[last:a], " ".join(f"'{n}'" for n in matched) if matched else
                word if matched_only else f"'{word}'"]
        last = b
    return "".join(out) + command[last:]


MAX_PATTERN = 1024  # characters of a pattern word expanded here (a name is at most 255: a longer one is the model's)
_FOLDER = re.compile(r"/?[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*")  # (a folder named before a pattern)
_NAME = re.compile(r"[A-Za-z0-9._+@,=-]+")  # (a name bash prints, and the rules read back, as it is)


def _matched(word: str, s: TerminalState) -> list[str] | None:
    """What bash expands a pattern word with patterns in more than its last part to (`*/*.py`,
    `src/*/`, `*/notes.py`, `../*/x`): part by part, each pattern matched in the folders the parts
    before it reached (a folder the state must know whole), the paths as typed; `/` at the end keeps
    the folders; the whole list sorted, as bash sorts it (in C: `a-b/y` before `a/x`); [] for none.
    None where not known: another locale, a folder not known whole, a bracket class, a name the
    rules would not read back as it is."""
    if not st._c_locale(s) or any(c in word for c in "|;&<>(){}~") or "[:" in word or "[^" in word or \
            "//" in word or word.startswith("-"):
        return None
    parts = word.split("/")
    ends_in_folder = parts[-1] == ""
    parts = parts[:-1] if ends_in_folder else parts
    reached = [("/", "/")] if parts[0] == "" else [("", s.cwd)]
    for i, part in enumerate(parts[1:] if parts[0] == "" else parts):
        after: list[tuple[str, str]] = []
        for text, path in reached:
            if path in s.files and path not in s.dirs:
                continue  # (a file: nothing below it)
            if not any(c in part for c in "*?["):
                after.append((text + part, posixpath.normpath(posixpath.join(path, part))))
                continue
            if path not in s.known_dirs:
                return None
            for n in _globbed(path, s):
                if (part.startswith(".") or not n.startswith(".")) and fnmatch.fnmatchcase(n, part):
                    if not _NAME.fullmatch(n):
                        return None
                    after.append((text + n, posixpath.join(path, n)))
        reached = [(text + "/", path) for text, path in after]
    found = []
    for text, path in reached:
        text = text if ends_in_folder else text[:-1]
        if any(_within(path, d) for d in s.deleted) or not _exists(path, s):
            if posixpath.dirname(path) not in s.known_dirs:
                return None  # (whether it is there: not known)
            continue
        if ends_in_folder and path not in s.dirs and posixpath.basename(path) != ".git":
            continue
        found.append(text)
    return sorted(found, key=str.encode)


def _glob(pattern: str, s: TerminalState) -> list[str] | None:
    """The names the shell expands PATTERN to in its folder (or in one folder it names: `src/*.py`,
    the names with that folder before them), when the state knows that folder whole (in the order
    bash sorts them); None: not known here."""
    prefix, _, last = pattern.rpartition("/")
    if not re.fullmatch(r"[A-Za-z0-9._*?-]+", last) or prefix and not _FOLDER.fullmatch(prefix):
        return None
    folder = _abs(prefix, s) if prefix else s.cwd
    if folder not in s.known_dirs:
        return None
    return [f"{prefix}/{n}" if prefix else n for n in _globbed(folder, s) if fnmatch.fnmatchcase(n, last) and
            (last.startswith(".") or not n.startswith("."))]


def _wc_glob(option: str, pattern: str, s: TerminalState) -> tuple[str, int] | None:
    """`wc -l|-c|-w PATTERN`: the files the shell expands it to, counted (filters.wc_files)."""
    names = _glob(pattern, s)
    if not names:
        return None  # (no match: wc is given the pattern itself; the model's)
    texts = [_contents(n, s) for n in names]
    if any(t is None for t in texts):
        return None  # a folder among them, or a file not known
    return filters.wc_files(names, texts, option[1:]), 0


def _ls_glob(pattern: str, s: TerminalState) -> tuple[str, int] | None:
    """`ls PATTERN` (one pattern, in the shell's folder, the state knowing it whole): the shell
    expands it and ls lists the files it matched, then each folder's names; none matched, ls is
    given the pattern itself and cannot find it."""
    names = _glob(pattern, s)
    if names is None:
        return None
    if not names:
        return (f"ls: cannot access '{pattern}': No such file or directory\n", 2) if _QUOTABLE.fullmatch(pattern) else None
    folders = [n for n in names if posixpath.join(s.cwd, n) in s.dirs]
    out = [n + "\n" for n in names if n not in folders]
    for n in folders:
        inner = _listing(posixpath.join(s.cwd, n), s)
        if inner is None:
            return None
        out.append(inner if len(names) == 1 else ("\n" if out else "") + f"{n}:\n" + inner)
    return "".join(out), 0
