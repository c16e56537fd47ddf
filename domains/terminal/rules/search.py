"""`find` and `grep -r` over a tree the shell state knows whole, as GNU findutils and grep print them.

Both walk folders in the order the file system hands them out (readdir): on ext4 a hash order no
state can know; on tmpfs, where the shadow sandbox keeps the home and /tmp, newest first. So an
answer is given where that order is known (the state saw every entry of the tree made:
TerminalState.order) or cannot show: when at most one path (find) or one file (grep) comes out, or
when what follows in the pipe does not depend on the order (`| wc -l`, `| sort`). The caller is
told which (`ordered`).

The tree must be known whole: every folder below the top listed entirely, every file's contents
known (for grep), and no home folder inside (its dot files are not in the state). A repository's
`.git` folder holds files the state does not list (objects, refs, hooks); a tree holding one is
answered only for name patterns no file there can have (`*.py`, `setup.cfg`), and grep only with
`--include` of such a pattern. Every answer is checked byte for byte against the sandbox
(benchmarks/state_vs_real.py).
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from dataclasses import dataclass, field

from . import grepbytes, grepfile

MAX_PATHS = 5_000  # a larger tree is the model's
# Extensions of files git itself keeps under .git (hooks' samples, packs and their indexes, locks)
GIT_EXTENSIONS = frozenset({"sample", "pack", "idx", "rev", "keep", "lock", "bitmap", "promisor", "mtimes", "bundle"})
_SAFE_NAME = re.compile(r"[A-Za-z0-9_*?-][A-Za-z0-9_.*?-]*\.([A-Za-z0-9]+)")
_WORD = re.compile(r"[A-Za-z0-9_ :,=()'\"#@%/-]+")  # a grep pattern that is a fixed string as it is
_PATH = re.compile(r"[A-Za-z0-9._/+-]+")


@dataclass
class Tree:
    """What is below a top folder: (path relative to it, is a folder), in byte order; and whether a
    repository's .git folder is among them (its contents unlisted)."""
    top: str  # the top as the command wrote it: what every printed path starts with
    entries: list[tuple[str, bool]]
    git_inside: bool
    git_dirs: list[str] = field(default_factory=list)  # the .git folders in it (relative to the top)
    ordered: bool = False  # entries in the order the file system hands them out (TerminalState.order)
    # the entries of every .git in it, each folder itself among them, where each is as its seed
    # commit left it (gitfiles.py): where they come in the walk is not known
    git_entries: list[tuple[str, bool]] | None = None
    # (with them) what each file there holds, as far as it is known (gitfiles.Entry): what grep may match
    git_bytes: list[bytes] | None = None
    # Where the walk's order is known with .git's in it (gitfiles.walk): every entry in that order, .git's
    # too, and what each file there holds (by its path relative to the top)
    walk: list[tuple[str, bool]] | None = None
    git_data: dict[str, bytes | None] = field(default_factory=dict)
    unplaced: str | None = None  # (in the walk) the index, where `git status` may have moved it in .git


def safe_in_git(pattern: str, refs: list[str]) -> bool:
    """No file under a .git folder can have a name matching `pattern`: `*.ext` or `name.ext` with an
    extension git does not use, and no branch or tag (files under .git/refs) of that shape."""
    m = _SAFE_NAME.fullmatch(pattern)
    return bool(m) and m.group(1).lower() not in GIT_EXTENSIONS and \
        not any(fnmatch.fnmatchcase(posixpath.basename(r), pattern) for r in refs)


def find(args: list[str], tree_of, refs: list[str], absent) -> tuple[str, bool, int] | None:
    """`find [TOP] [-maxdepth N] [-mindepth N] [-type f|d] [-name P|-iname P] [-path P]`, each test
    also negated (`-not`, `!`): the paths printed, whether their order is known, and the exit code;
    None: not answered here. `tree_of(top)` gives the Tree below `top` or None; `absent(top)`,
    whether nothing is there."""
    top, rest = (args[0], args[1:]) if args and not args[0].startswith("-") and args[0] != "!" else (".", args)
    if not _PATH.fullmatch(top) or top.endswith("//"):
        return None
    if "-prune" in rest:
        pruning = _pruning(rest, tree_of)
        if pruning is None:
            return None
        rest, tree_of = pruning
    depth_max, depth_min, kind = None, 0, None
    tests: list[tuple[str, str, bool]] = []  # (name | iname | path, pattern, negated)
    i, tests_seen, negated = 0, False, False
    while i < len(rest):
        opt = rest[i]
        if opt in ("-not", "!"):
            if negated:
                return None
            negated = True
            i += 1
            continue
        value = rest[i + 1] if i + 1 < len(rest) else None
        if value is None:
            return None
        if opt in ("-maxdepth", "-mindepth"):
            if tests_seen or negated or not value.isdigit():
                return None  # (after a test GNU find warns about the order: not written here)
            if opt == "-maxdepth":
                depth_max = int(value)
            else:
                depth_min = int(value)
        elif opt == "-type" and value in ("f", "d") and kind is None and not negated:
            kind, tests_seen = value, True
        elif opt in ("-name", "-iname") and "/" not in value and value:
            tests.append((opt[1:], value, negated))
            tests_seen = True
        elif opt in ("-path", "-wholename") and value:
            tests.append(("path", value, negated))
            tests_seen = True
        else:
            return None
        negated = False
        i += 2
    if negated:
        return None
    if any(kind_ == "iname" and not p.isascii() for kind_, p, _ in tests):
        return None
    tree = tree_of(top)
    if tree is None:
        return (f"find: ‘{top}’: No such file or directory\n", True, 1) if absent(top) else None

    def shown(path: str) -> str:
        return path if path == tree.top else (tree.top.rstrip("/") + "/" + path if tree.top != "/" else "/" + path)

    def passes(path: str, name: str, is_dir: bool) -> bool:
        if kind and (kind == "d") != is_dir:
            return False
        for what, pattern, negative in tests:
            hit = fnmatch.fnmatchcase(path, pattern) if what == "path" else \
                fnmatch.fnmatchcase(name.lower(), pattern.lower()) if what == "iname" else fnmatch.fnmatchcase(name, pattern)
            if hit == negative:
                return False
        return True

    if tree.git_inside and tree.git_entries is None:
        # What is under .git is not listed: answered only where no test could pass there, and .git
        # itself is not printed (where it comes in the walk is not known)
        names = [p for what, p, neg in tests if what == "name" and not neg]
        safe = bool(names) and all(safe_in_git(p, refs) for p in names)
        for git in tree.git_dirs:
            probes = [(shown(git + "/HEAD"), "HEAD", False), (shown(git + "/objects/pack"), "pack", True),
                      (shown(git + "/refs/heads/main"), "main", False)]
            hidden = any(neg and what == "path" and all(fnmatch.fnmatchcase(q, p) for q, _, _ in probes)
                         for what, p, neg in tests)
            if not (safe or hidden) or passes(shown(git), ".git", True) and \
                    (depth_max is None or git.count("/") + 1 <= depth_max) and git.count("/") + 1 >= depth_min:
                return None
    def printed(entries: list[tuple[str, bool]]) -> list[str]:
        out = []
        for rel, is_dir in entries:
            depth = 0 if rel == "." else rel.count("/") + 1
            if depth < depth_min or (depth_max is not None and depth > depth_max):
                continue
            name = (posixpath.basename(tree.top.rstrip("/")) or tree.top) if rel == "." else posixpath.basename(rel)
            path = tree.top if rel == "." else shown(rel)
            if passes(path, name, is_dir):
                out.append(path)
        return out

    if tree.walk is not None:  # (.git's entries in their place)
        out = printed([(".", True)] + tree.walk)
        moved = tree.unplaced is not None and shown(tree.unplaced) in out  # (`git status` may have moved it)
        return "".join(p + "\n" for p in out), len(out) <= 1 or tree.ordered and not moved, 0
    out = printed([(".", True)] + tree.entries)
    in_git = printed(tree.git_entries or [])  # (where in the walk: not known)
    return "".join(p + "\n" for p in out + in_git), len(out + in_git) <= 1 or tree.ordered and not in_git, 0


def _not_in_git(word: str, fold: bool, held: list[bytes] | None) -> bool:
    """No file under .git can match `word` (a search in it prints nothing, wherever it comes in the
    walk): it is in none of the bytes known to be there. Of the index, only what does not depend on
    the files' stat data is known (gitfiles.py): a word of four or more letters is taken as not
    lying in the twenty-four bytes of times, device and inode beside each path."""
    if held is None or len(word) < 4:
        return False
    probe = word.lower().encode() if fold else word.encode()
    return not any(probe in (data.lower() if fold else data) for data in held)


_GLOB = re.compile(r"[A-Za-z0-9_.*?-]+")


def _walked(args: list[str], tree_of) -> tuple[list[str], object] | None:
    """`--exclude-dir=GLOB` and `--exclude=GLOB` (each as often as given) taken out of grep's
    arguments, and `tree_of` giving the tree as grep then walks it: a folder whose name matches an
    `--exclude-dir` skipped with all below it (`.git`: its repository then not inside), a file whose
    name matches an `--exclude` not read. None: a glob not read here, or one that could match the top
    folder itself (grep skips a folder named on its line by its name's end)."""
    dirs = [a[len("--exclude-dir="):] for a in args if a.startswith("--exclude-dir=")]
    files = [a[len("--exclude="):] for a in args if a.startswith("--exclude=")]
    if not dirs and not files:
        return args, tree_of
    if not all(_GLOB.fullmatch(g) for g in dirs + files):
        return None
    kept = [a for a in args if not a.startswith(("--exclude-dir=", "--exclude="))]

    def skips(rel: str, is_dir: bool) -> bool:
        parts = rel.split("/")
        return any(fnmatch.fnmatchcase(p, g) for p in (parts if is_dir else parts[:-1]) for g in dirs) or \
            not is_dir and any(fnmatch.fnmatchcase(parts[-1], g) for g in files)

    def walked(top: str) -> Tree | None:
        tree = tree_of(top)
        ends = {posixpath.basename(posixpath.normpath(top)), top, ".", ".."}
        if tree is None or any(fnmatch.fnmatchcase(e, g) for e in ends for g in dirs):
            return None
        return _without(tree, skips)
    return kept, walked


def _without(tree: Tree, left_out) -> Tree:
    """The tree without the entries `left_out(rel, is_dir)` says a walk skips (each with all below it);
    a repository whose .git is skipped is then not inside."""
    gits = [g for g in tree.git_dirs if not left_out(g, True)]
    walk = None if tree.walk is None else [e for e in tree.walk if not left_out(*e)]
    return Tree(tree.top, [e for e in tree.entries if not left_out(*e)], bool(gits), gits, tree.ordered,
                tree.git_entries if gits else None, tree.git_bytes if gits else None, walk,
                tree.git_data if gits else {}, tree.unplaced if gits else None)


def _binary_skipped(args: list[str]) -> tuple[list[str], bool]:
    """`-I` taken out of grep's flags: a binary file is then skipped, not reported as matching."""
    out, skip = [], False
    for a in args:
        if a.startswith("-") and not a.startswith("--") and "I" in a:
            skip, a = True, a.replace("I", "")
            if a == "-":
                continue
        out.append(a)
    return out, skip


def _pruning(rest: list[str], tree_of) -> tuple[list[str], object] | None:
    """`find TOP [-maxdepth N] TESTS -prune -o REST -print`, TESTS of `-path P`, `-name P`, `-type d`
    (`-path ./.git -prune -o -name '*.py' -print`): REST, and `tree_of` giving the tree without what
    is pruned (an entry TESTS pass, and all below it; `.git`: its repository then not inside). None:
    another form (without `-print`, find prints what it pruned too)."""
    at = rest.index("-prune")
    lead = 0
    while lead < at and rest[lead] in ("-maxdepth", "-mindepth"):
        lead += 2
    tests = rest[lead:at]
    if rest[at + 1:at + 2] != ["-o"] or rest[-1:] != ["-print"] or "-prune" in rest[at + 1:] or not tests or \
            len(tests) % 2 or any(t not in ("-path", "-name", "-type") for t in tests[::2]) or \
            any(t == "-type" and v != "d" for t, v in zip(tests[::2], tests[1::2])):
        return None
    pairs = list(zip(tests[::2], tests[1::2]))

    def walked(top: str) -> Tree | None:
        tree = tree_of(top)
        if tree is None:
            return None

        def pruned(rel: str, is_dir: bool) -> bool:
            parts = rel.split("/")
            return any(all(fnmatch.fnmatchcase(_joined(top, "/".join(parts[:k])), v) if t == "-path" else
                           fnmatch.fnmatchcase(parts[k - 1], v) if t == "-name" else is_dir or k < len(parts)
                           for t, v in pairs) for k in range(1, len(parts) + 1))

        if all(fnmatch.fnmatchcase(top, v) if t == "-path" else
               fnmatch.fnmatchcase(posixpath.basename(top), v) if t == "-name" else True for t, v in pairs):
            return None  # (the top itself pruned)
        return _without(tree, pruned)
    return rest[:lead] + rest[at + 2:-1], walked


def _joined(top: str, rel: str) -> str:
    """A path below `top` as find prints it."""
    return top.rstrip("/") + "/" + rel if top != "/" else "/" + rel


def grep_r(args: list[str], tree_of, read, refs: list[str]) -> tuple[str, bool, int] | None:
    """`grep -r[nlhiwoI] [--include=GLOB] [--exclude-dir=GLOB…] [--exclude=GLOB…] WORD [DIR…]`: the
    lines printed, whether their order is known (matches in one file at most), and the exit code;
    None: not answered here. `read(path)` gives a file's contents (path relative to the shell's
    folder, as grep names it). Several folders are searched one after the other, as grep takes them."""
    walked = _walked(args, tree_of)
    if walked is None:
        return None
    args, tree_of = walked
    args, skip_binary = _binary_skipped(args)
    if skip_binary:
        read = _text_only(read)
    joined = _patterns_joined(args)
    if joined is None:
        return None
    args = joined
    operands = [i for i, a in enumerate(args) if not a.startswith("-")]
    if len(operands) == 2 and _PATH.fullmatch(args[operands[1]]) and tree_of(args[operands[1]]) is None:
        return _one_file(args, operands, read)
    if len(operands) > 2:
        if len(operands) > 16 or any(tree_of(args[i]) is None for i in operands[1:]):
            return None  # (a file among them, or a folder not known whole)
        shared = [a for i, a in enumerate(args) if i not in operands[1:]]
        each = [grep_r([*shared, args[i]], tree_of, read, refs) for i in operands[1:]]  # (as walked, read)
        if any(e is None or e[2] > 1 for e in each):
            return None
        return "".join(e[0] for e in each), all(e[1] for e in each), 0 if any(e[2] == 0 for e in each) else 1
    flags: set[str] = set()
    include: str | None = None
    words: list[str] = []
    for a in args:
        if a.startswith("--include="):
            if include is not None:
                return None
            include = a[len("--include="):]
        elif a.startswith("-") and len(a) > 1:
            flags |= set(a[1:]) if not a.startswith("--") else {"-"}
        else:
            words.append(a)
    if not flags & {"r", "R"} or not words or len(words) > 2:
        return None
    literals = _literals(words[0], flags)
    if literals is None or not flags <= set("rRnlhiwoEF"):
        return _grep_r_pattern(args, tree_of, read, refs)
    if "l" in flags and ("o" in flags or "n" in flags):
        return None
    top = words[1] if len(words) == 2 else None
    if top is not None and (not _PATH.fullmatch(top) or top.startswith("-")):
        return None
    tree = tree_of(top or ".")
    if tree is None:
        return None
    # (.git walked in its place: each of its files searched as the others, but for the index's stat
    # data, which a word of four letters or more is taken as not lying in: _not_in_git)
    walked = tree.walk is not None and tree.git_inside and min(map(len, literals)) >= 4
    if tree.git_inside and (include is None or not safe_in_git(include, refs)) and not walked and \
            not all(_not_in_git(word, "i" in flags, tree.git_bytes) for word in literals):
        return None
    if include is not None and not _SAFE_NAME.fullmatch(include) and not _PATH.fullmatch(include):
        return None
    fold = "i" in flags
    bounds = ("(?<![A-Za-z0-9_])", "(?![A-Za-z0-9_])") if "w" in flags else ("", "")
    # (the longest first: grep's match at a place is its longest)
    either = "|".join(re.escape(w.lower() if fold else w) for w in sorted(literals, key=len, reverse=True))
    probe = re.compile(bounds[0] + "(?:" + either + ")" + bounds[1])
    out: list[str] = []
    files_hit, moved = 0, False
    for rel, is_dir in tree.walk if walked else tree.entries:  # type: ignore[union-attr]
        if is_dir or (include is not None and not fnmatch.fnmatchcase(posixpath.basename(rel), include)):
            continue
        found = grepbytes.in_git_file(_named(top, rel), tree.git_data[rel], probe, flags, skip_binary) \
            if rel in tree.git_data else grepbytes.words_in(*_file(read, top, rel), probe, flags)
        if found is None:
            return None
        out += found[0]
        files_hit += found[1]
        moved = moved or bool(found[0]) and rel == tree.unplaced  # (the index shown: `git status` may have moved it)
    return "".join(out), (files_hit <= 1 or tree.ordered) and not moved, 0 if files_hit else 1


def _one_file(args: list[str], operands: list[int], read) -> tuple[str, bool, int] | None:
    """`grep -rn WORD FILE`: a file named alone is grepped as grep greps it without -r (its lines
    without its name). None where it is not a file the state knows, or an option may choose it."""
    text = read(args[operands[1]])
    if text is None or any(a.startswith("--") for a in args):
        return None  # (--include/--exclude apply to a file named too)
    flags = [f for f in (a.replace("r", "").replace("R", "") for a in args if a.startswith("-")) if f != "-"]
    said = grepfile.search([*flags, "--", args[operands[0]], args[operands[1]]], [text])
    return None if said is None else (said[0], True, said[1])


MAX_WORDS = 64  # (of a pattern of words between bars: more are the model's, not a regular expression compiled)
_LITERAL = re.compile(r"[A-Za-z0-9_ :,='\"#@%/-]+")  # (no character a regular expression reads as its own)


def _literals(pattern: str, flags: set[str]) -> list[str] | None:
    """The words a pattern matches any of, where it is only that: a fixed string (`-F`, or one
    without the characters a regular expression reads), or words between `\\|` (`-E`: `|`), as
    agents look for `TODO\\|FIXME`; None: a regular expression (grepfile's)."""
    if "F" in flags:
        parts = [pattern]
    elif "E" in flags:
        parts = pattern.split("|")
    else:
        parts = pattern.split("\\|")
    shape = _WORD if "F" in flags or "E" not in flags else _LITERAL  # (in a basic one `(` is itself)
    return parts if len(parts) <= MAX_WORDS and all(shape.fullmatch(p) for p in parts) else None


def _patterns_joined(args: list[str]) -> list[str] | None:
    """`-e A -e B` written as one pattern (`A\\|B`, `-E`: `A|B`) where each is a word; None where
    one is not (or `-e` is written with its pattern, `-eA`)."""
    if "-e" not in args:
        return None if any(a.startswith("-") and not a.startswith("--") and "e" in a for a in args) else args
    out, given, i = [], [], 0
    while i < len(args):
        if args[i] == "-e":
            if i + 1 == len(args) or not _LITERAL.fullmatch(args[i + 1]) or args[i + 1].startswith("-"):
                return None  # (`-e -in`: a pattern that would read as options once joined)
            given.append(args[i + 1])
            i += 2
            continue
        out.append(args[i])
        i += 1
    if any(a.startswith("-") and not a.startswith("--") and set(a[1:]) & set("eFf") for a in out):
        return None
    ere = any(a.startswith("-") and not a.startswith("--") and "E" in a for a in out)
    at = next((k for k, a in enumerate(out) if not a.startswith("-")), len(out))
    return out[:at] + [("|" if ere else "\\|").join(given)] + out[at:]


def _grep_r_pattern(args: list[str], tree_of, read, refs: list[str]) -> tuple[str, bool, int] | None:
    """`grep -r[nlhiwoxvcEF] [--include=GLOB] PATTERN [DIR]` of a regular expression (or a fixed
    string of other characters), over a tree with no repository in it (what .git holds is not all
    known), or only files no repository holds included: each file grepped in the walk's order as grep
    greps one file among several (grepfile.py: each line after the file's name), the exit code 0
    where any file has a line selected."""
    letters, words, include = "", [], None
    for a in args:
        if a.startswith("--include=") and include is None:
            include = a[len("--include="):]
        elif a.startswith("-") and len(a) > 1:
            if a.startswith("--") or not set(a[1:]) <= set("rRnlhiwoxvcEF"):
                return None  # (context's `--` runs across files; -e, -m, --include: not here)
            letters += a[1:].replace("r", "").replace("R", "")
        else:
            words.append(a)
    pattern, top = words[0], words[1] if len(words) == 2 else None
    if top is not None and (not _PATH.fullmatch(top) or top.startswith("-")) or pattern.startswith("-"):
        return None
    tree = tree_of(top or ".")
    if include is not None and not _SAFE_NAME.fullmatch(include) and not _PATH.fullmatch(include):
        return None
    # (.git walked in its place: its text files grepped as the others; a binary one (the index, the
    # objects) only where it cannot hold what every match holds, a word of four or more letters)
    needed = grepbytes.required(pattern, letters) if tree is not None and tree.walk is not None and \
        "v" not in letters else None
    walked = needed is not None and len(needed) >= 4
    if tree is None or tree.git_inside and (include is None or not safe_in_git(include, refs)) and not walked:
        return None
    flags = ([f"-{''.join(dict.fromkeys(letters))}"] if letters else []) + ([] if "h" in letters else ["-H"])
    out: list[str] = []
    files_hit, moved = 0, False  # (moved: the index shown, where `git status` may have moved it)
    for rel, is_dir in tree.walk if walked else tree.entries:  # type: ignore[union-attr]
        if is_dir or (include is not None and not fnmatch.fnmatchcase(posixpath.basename(rel), include)):
            continue
        if rel in tree.git_data:
            data = tree.git_data[rel]
            binary = None if data is None or b"\0" not in data else \
                grepbytes.binary_matches(data, pattern, letters, needed)  # type: ignore[arg-type]
            if data is None or binary is None and b"\0" in data or binary and "c" in letters:
                return None  # (a binary file that may match; -c of one that does)
            moved = moved or rel == tree.unplaced and bool(binary or "c" in letters)  # (-c shows it at 0)
            if binary:
                name = _named(top, rel)
                out.append(name + "\n" if "l" in letters else f"grep: {name}: binary file matches\n")
                files_hit += 1
                continue
            probe = (needed.lower() if "i" in letters else needed).encode()  # type: ignore[union-attr]
            text = "" if b"\0" in data else grepbytes.lines_holding(data, lambda line: probe in (
                line.lower() if "i" in letters else line))
            if text is None:
                return None  # (a binary one matches nothing: `-c` counts 0)
            said = grepfile.search([*flags, "--", pattern, _named(top, rel)], [text])
            if said is None:
                return None
            out.append(said[0])
            files_hit += said[1] == 0
            continue
        name, text = _file(read, top, rel)
        if text is None:
            return None
        said = grepfile.search([*flags, "--", pattern, name], [text])
        if said is None:
            return None
        out.append(said[0])
        files_hit += said[1] == 0
    return "".join(out), (files_hit <= 1 and "c" not in letters or tree.ordered) and not moved, 0 if files_hit else 1


_SKIPPED = ""  # (what `_text_only` reads of a binary file: grep -I finds nothing in it)


def _text_only(read):
    """`read` as `grep -I` reads: a binary file known as such is read as holding nothing."""
    def text(path: str) -> str | None:
        data = read(path)
        return _SKIPPED if data is not None and ("\0" in data or "\ufffd" in data) else data
    return text


def _named(top: str | None, rel: str) -> str:
    """A file below the top as grep names it."""
    return rel if top is None else (top.rstrip("/") + "/" + rel if top != "/" else "/" + rel)


def _file(read, top: str | None, rel: str) -> tuple[str, str | None]:
    """A file below the top as grep names it, and its text; None where grep would not read it as
    text (not known, binary, or bytes that were not UTF-8: "binary file matches")."""
    text = read(rel if top is None else posixpath.join(top, rel))
    return _named(top, rel), None if text is None or "\0" in text or "\ufffd" in text else text


def missing_top(args: list[str], exists) -> str | None:
    """`grep -r WORD DIR` where DIR is known not to exist: grep's message (exit 2)."""
    words = [a for a in args if not a.startswith("-")]
    flags = "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))
    if not set(flags) <= set("rRnlhiwocI") or \
            any(a.startswith("--") and not a.startswith(("--include=", "--exclude-dir=", "--exclude=")) for a in args):
        return None  # (-s would keep the message back)
    if len(words) == 2 and _PATH.fullmatch(words[1]) and exists(words[1]) is False:
        return f"grep: {words[1]}: No such file or directory\n"
    return None
