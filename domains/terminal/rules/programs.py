"""Which programs only read and which may write (`_writes`, `_reads_only`), and what a program the
state cannot follow may have written (`_program_ran`: the files its text names); `python3 -m
py_compile`, which the state follows (`_compiles`); where Python finds the project's modules and
what a run of them the walker follows prints and compiles (`_find_module`, `_script_run`,
`_project_run`: pyscript.py, pyrun.py); the archive `tar` or `zip` creates."""

from __future__ import annotations

import ast
import posixpath
import re
import sys

from . import awk, pycheck, pyeval, pyjson, pymain, pyrun, pyscript, pysyntax, sedscript, stdlib_imports
from .machine import environ_value
from .repository import BRANCH_LISTING, GIT_PIPED_READS
from .state import TerminalState, _abs, _absent, _children, _contents, _forget_writes, _Unknown, _within, _writable
from .output import shell_words


# Programs that only read (with the options agents use): after them the state stays as it was.
READS = frozenset({
    "ls", "cat", "echo", "printf", "pwd", "cd", "grep", "egrep", "fgrep", "rg", "find", "head", "tail", "wc", "sort",
    "uniq", "cut", "tr", "diff", "cmp", "file", "stat", "du", "df", "whoami", "id", "hostname", "date", "env",
    "printenv", "which", "type", "history", "tree", "less", "more", "nl", "column", "basename", "dirname",
    "realpath", "readlink", "uname", "uptime", "ps", "free", "true", "false", "test", "[", "[[", "seq", "sleep",
    "export", "unset", "alias", "clear", "man", "help", "jq", "md5sum", "sha1sum", "sha256sum", "sha512sum", "od",
    "xxd", "hexdump", "strings", "awk", "sed", "locale", "groups", "w", "who", "top", "lsb_release", "nproc", "tac",
})


# Programs that run what they are fed (a here-document's text is then a script)
INTERPRETERS = frozenset({"python", "python3", "bash", "sh", "zsh", "dash", "node", "perl", "ruby", "php", "sqlite3",
                          "psql", "mysql", "ssh", "sudo", "su", "xargs", "git", "make", "env", "source", "."})


MODELLED = frozenset({"touch", "mkdir", "rm", "rmdir", "mv", "cp", "tar", "zip", "git", "tee"})


def _writes(program: str, args: list[str], s: TerminalState | None) -> bool:
    """Whether this program, with these arguments, may change files (beyond what `apply` models), run
    in the state's folder (None: a folder not known)."""
    if program in ("python3", "python") and s is not None and (pycheck.reads_only(args) and
                                                                _no_shadowing(s, _imported(args)) or
                                                                len(args) == 1 and _absent(_abs(args[0], s), s)):
        return False  # (a script that is not there runs nothing)
    if program == "python3" and s is not None and args and (ran := _script_run(args[0], s, args[1:])) is not None \
            and not ran[2] and not ran[3]:
        return False  # (it stops, or ends, before anything of it runs; or pyrun.py followed it, importing nothing)
    if program == "python3" and s is not None and args[:2] == ["-m", "json.tool"] and \
            pyjson.tool(_unfed(args[2:])) is not None and _no_shadowing(s, {"runpy", "json.tool"}):
        return False  # (it reads, and prints: no output file)
    if program == "xargs":  # as the program it runs (echo without one): past xargs' own options
        i = 0
        while i < len(args) and args[i].startswith("-"):
            i += 2 if args[i] in ("-n", "-I", "-P", "-L", "-d", "-s", "-a", "-E") else 1
        return i < len(args) and _writes(args[i], args[i + 1:], s)
    if program == "git" and args[:1] and (args[0] in GIT_PIPED_READS or args[0] == "branch" and args[1:] and
                                           set(args[1:]) <= BRANCH_LISTING):
        return False  # (`git log | head`: reads the repository; status may refresh the index's stat data only)
    if program == "command" and args[:1] in (["-v"], ["-V"]):
        return False  # (`command -v git`: where a program is, as `which` says)
    if program not in READS:
        return True
    if program == "sed":
        return sedscript.may_write(args)
    if program in ("awk", "perl") and any(a.startswith(("-i", "--in-place")) for a in args):
        return True
    if program == "awk":
        return awk.may_write(args)
    if program == "find" and args.count("-exec") == 1 and not {"-delete", "-execdir", "-ok", "-fprint"} & set(args):
        run = [a for a in args[args.index("-exec") + 1:] if a not in ("{}", ";", "+")]
        return not run or _writes(run[0], run[1:], s)  # (as the command it runs)
    if program == "find" and {"-delete", "-exec", "-execdir", "-ok", "-fprint"} & set(args):
        return True
    return program == "sort" and any(a.startswith("-o") for a in args)


def _unfed(args: list[str]) -> list[str]:
    """The arguments but a `< FILE` among them (`python3 -m json.tool < f`: what it reads, not an argument)."""
    at = args.index("<") if "<" in args else len(args)
    return args[:at] + args[at + 2:]


def _imported(args: list[str]) -> set[str] | None:
    """The modules `python3 -c CODE` imports (none for `--version`); None where not known."""
    if args[:1] != ["-c"]:
        return set()
    return pyeval.imports(args[1]) if len(args) > 1 else None


def _compiles(s: TerminalState, args: list[str]) -> bool:
    """`python3 -m py_compile FILE…` succeeds, printing nothing (py_compiled)."""
    ran = py_compiled(s, args)
    return ran is not None and ran[:2] == ("", 0)


def py_compiled(s: TerminalState, args: list[str]) -> tuple[str, int, list[str]] | None:
    """What `python3 -m py_compile [-q] FILE…` prints, its exit code and the files it compiled: each in
    turn, its bytecode to `__pycache__` beside it, until one does not compile (its syntax error, as
    py_compile words it: pysyntax.py), is not there or is a folder (the OSError's words); then it exits 1
    (`-q`: saying nothing). Each file is known and compiled by the server's own Python (3.11 like the
    sandbox's; compiling runs nothing), and nothing in the folder stands in for the standard library.
    Bytecode is named for the server's Python (as the sandbox's: cpython-311). None where not decided."""
    if args[:2] != ["-m", "py_compile"] or len(args) < 3 or not _no_shadowing(s, {"runpy", "py_compile"}) or \
            "python3" in s.defined or {"PATH", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"} & set(s.env):
        return None
    quiet = bool({"-q", "--quiet"} & set(args[2:]))
    names = [a for a in args[2:] if a not in ("-q", "--quiet")]
    if not names or any(a.startswith("-") for a in names):
        return None  # (`-`: the names read from stdin; another option: argparse's)
    compiled: list[str] = []
    for name in names:
        path = _abs(name, s)
        if path in s.dirs or _absent(path, s):
            said = f"[Errno 21] Is a directory: {name!r}" if path in s.dirs else \
                f"[Errno 2] No such file or directory: {name!r}"
            return ("" if quiet else said), 1, compiled
        text = _contents(name, s) if name.endswith(".py") else None
        folder = posixpath.dirname(path)
        if text is None or len(text) > MAX_COMPILED or folder not in s.dirs or \
                posixpath.join(folder, "__pycache__") in s.files or not _within(folder, s.home):
            return None
        if pysyntax.compiles(text, warned_too=True):
            compiled.append(name)
            continue
        said = pysyntax.py_compile_error(text, name)
        return None if said is None else (("" if quiet else said), 1, compiled)
    return "", 0, compiled


MAX_COMPILED = 1_000_000


def _script(name: str, s: TerminalState, argv: list[str]) -> tuple[str, int] | None:
    """What `python3 NAME ARGS…` prints and its exit code, where the state decides them (_script_run)."""
    ran = _script_run(name, s, argv)
    return None if ran is None else ran[:2]


def _script_run(name: str, s: TerminalState, argv: list[str] | None = None) -> \
        tuple[str, int, list[str], list[tuple[str, str, bool]]] | None:
    """What `python3 NAME ARGS…` prints, its exit code, the project modules it imports (compiled beside
    them) and the files it writes (pyfiles.py): where the file decides them before anything of it runs
    (a syntax error: pysyntax.py; pyscript.py), or where pyrun.py follows all it does; None otherwise."""
    path = _abs(name, s)
    text = s.files.get(path)
    if name.startswith("-") or path in s.dirs or text is None or "python3" in s.defined or "PATH" in s.env:
        return None
    refused = pysyntax.error(text, _as_python_shows(name, s)) if _plain_python(s) else None
    if refused is not None:
        return refused, 1, [], []  # (nothing of it ran)
    folder = posixpath.dirname(path)  # (first on the script's path)
    quiet = folder in s.known_dirs and _plain_python(s)
    decided = pyscript.run(_as_python_shows(name, s), text, _beside(s, folder) if quiet else None)
    if decided is not None or not quiet:
        return None if decided is None else (*decided, [], [])
    project = _project(s, folder)
    machine = _machine(s, list(argv or []), name)
    said = pyrun.run_script(path, text, machine, project, _as_python_shows(name, s))
    if said is None or not _compilable(project.compiled, s):
        return None
    return *said, project.compiled, machine.written


def module_run(s: TerminalState, args: list[str]) -> \
        tuple[str, int, list[str], list[tuple[str, str, bool]]] | None:
    """`python3 -m MODULE ARGS…` of a module of the project's (pymain.py): what it prints, its exit code,
    the modules compiled (the packages above it, it, what it imports) and the files it writes."""
    if args[:1] != ["-m"] or len(args) < 2 or "python3" in s.defined or not _plain_python(s) or \
            s.cwd not in s.known_dirs or not _no_shadowing(s, {"runpy"}):
        return None
    path = _found(s, args[1], [s.cwd, *(python_path(s) or [])])
    if not path or path == "?":
        return None  # (not the project's: the machine's site-packages may hold it)
    project = _project(s)
    machine = _machine(s, args[2:], path)  # (sys.argv[0]: the module's full path)
    said = pymain.run(args[1], path, machine, project)
    if said is None or not _compilable(project.compiled, s):
        return None
    return *said, project.compiled, machine.written


def _as_python_shows(name: str, s: TerminalState) -> str:
    """A script's path as Python prints it: made absolute by putting the shell's folder before it,
    not normalized (`//x.py` in `/`, `/home/u/./x.py`)."""
    return name if name.startswith("/") else s.home + name[1:] if name.startswith("~/") else f"{s.cwd}/{name}"


def _compilable(sources: list[str], s: TerminalState) -> bool:
    """Python may write each imported module's bytecode beside it (in the home, no file `__pycache__`)."""
    return all(_within(posixpath.dirname(p), s.home) and posixpath.join(posixpath.dirname(p), "__pycache__")
               not in s.files for p in sources)


def _find_module(s: TerminalState, dotted: str, root: str) -> str | None:
    """Where Python finds a module whose path starts with `root` (the shell's folder for `python3 -c`,
    a script's own), as its path finder looks: a package's `__init__.py`, else a module `m.py`, else a
    folder taken as a namespace package (""); "?" for one there that is not walked here (compiled,
    an extension, in a folder not known whole); None where the folder has nothing of that name (a
    standard-library name: the standard library's, where nothing beside stands in for it)."""
    parts = dotted.split(".")
    if parts[0] in sys.stdlib_module_names or not all(p.isidentifier() for p in parts):
        return None
    folder = root
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if folder not in s.known_dirs:
            return "?"
        here = posixpath.join(folder, part)
        others = [c for c in _children(folder, s) if c.startswith(part + ".") and c != part + ".py"]
        if here in s.dirs and any(posixpath.join(here, "__init__" + x) in s.files for x in (".so", ".pyc")) or \
                any(c.endswith((".so", ".pyc", ".pyw")) for c in others):
            return "?"
        if here in s.dirs and posixpath.join(here, "__init__.py") in s.files:
            folder = here
            if last:
                return posixpath.join(here, "__init__.py")
        elif here + ".py" in s.files and here + ".py" not in s.dirs:
            return here + ".py" if last else "?"  # (a module is no package: `m.x` of m.py fails)
        elif here in s.dirs:
            folder = here  # (a namespace package's part)
            if last:
                return ""
        else:
            return None if i == 0 else "?"
    return "?"


def _project(s: TerminalState, root: str | None = None) -> pyrun.Project:
    """What Python may import from the folder first on its path (`root`; the shell's folder for
    `python3 -c`) and the ones PYTHONPATH puts after it."""
    roots = [s.cwd if root is None else root, *(python_path(s) or [])]
    return pyrun.Project(lambda dotted: _found(s, dotted, roots), lambda path: _contents(path, s),
                         _beside(s, roots[0]))


def python_path(s: TerminalState) -> list[str] | None:
    """The folders PYTHONPATH puts on Python's path after the first, as it searches them (relative to the
    shell's folder; "" the shell's folder; one that is not there, or not a folder, searches nothing):
    [] where it is not set; None where one is not known here (nor known not to be there)."""
    value = s.env.get("PYTHONPATH")
    if value is None:
        return []
    if "~" in value or "$" in value:
        return None
    folders = []
    for part in value.split(":"):
        path = _abs(part or ".", s)
        if path in s.dirs:
            folders.append(path)
        elif path not in s.files and not _absent(path, s):
            return None
    return folders


def _plain_python(s: TerminalState) -> bool:
    """Python runs as the state follows it: the machine's python3, and no variable of its own but a
    PYTHONPATH whose folders are known (python_path) and PYTHONDONTWRITEBYTECODE (nothing compiled)."""
    return "PATH" not in s.env and python_path(s) is not None and \
        all(k in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE") or not k.startswith("PYTHON") for k in s.env)


def _beside(s: TerminalState, first: str) -> frozenset[str]:
    """The names an import may find before the standard library: in the folder first on the path and
    in PYTHONPATH's, each known whole (every standard-library name where one is not)."""
    added = python_path(s)
    roots = [first, *(added or [])]
    if added is None or any(root not in s.known_dirs for root in roots):
        return frozenset(sys.stdlib_module_names)
    return frozenset().union(*(_module_names(root, s) for root in roots))


def _found(s: TerminalState, dotted: str, roots: list[str]) -> str | None:
    """Where Python's path finder finds a module along `roots` (_find_module in each): the first module
    or regular package; a namespace package ("") only where none of them holds one of the name."""
    spread = False
    for root in roots:
        found = _find_module(s, dotted, root)
        if found == "":
            spread = True
        elif found is not None:
            return "?" if spread and "." in dotted else found  # (a namespace package's part after another's)
    return "" if spread else None


def _project_run(s: TerminalState, args: list[str], program: str = "-c") -> \
        tuple[tuple[str, int], list[str], list[tuple[str, str, bool]]] | None:
    """`python3 -c CODE …` where pyrun.py follows everything the code does: what it prints and its
    exit code, the project modules it imports (their sources, each compiled beside it) and the files it
    writes (pyfiles.py); None otherwise. Walked once: the answer and what it changes both come from here.
    `program`: sys.argv[0] (a program read from a here-document's: `fed_to_python`)."""
    if args[:1] != ["-c"] or len(args) < 2 or len(args[1]) > pycheck.MAX_CODE or "python3" in s.defined or \
            not _plain_python(s):
        return None
    refused = pysyntax.error(args[1], "<string>" if program == "-c" else "<stdin>")
    if refused is not None:
        return (refused, 1), [], []  # (it does not compile: nothing of it ran)
    project = _project(s)
    machine = _machine(s, args[2:], program)
    said = pyrun.run(args[1], machine, project)
    return (said, project.compiled, machine.written) if said is not None and _compilable(project.compiled, s) else None


def fed_to_python(words: list[str]) -> tuple[str, list[str]] | None:
    """`python3` or `python3 - ARGS…`, its program fed by a here-document: (sys.argv[0], the rest)."""
    if words == ["python3"]:
        return "", []
    return ("-", words[2:]) if words[:2] == ["python3", "-"] else None


def _machine(s: TerminalState, argv: list[str], program: str = "-c") -> pyeval.Machine:
    """What a Python program the walkers follow may read (the files the state knows) and write."""
    return pyeval.Machine(s.cwd, lambda path: _contents(path, s), argv, program, lambda path: _may_write(path, s),
                          kind=lambda path: _python_sees(path, s), environ=lambda name: environ_value(name, s))


def _python_sees(path: str, s: TerminalState) -> str | None:
    """"dir" where a folder is, "file" where a file is, "absent" where nothing is (nor a folder on its
    way: Python's FileNotFoundError either way), None where not known."""
    if path in s.dirs:
        return "dir"
    if path in s.files:
        return "file"
    while path != "/" and path not in s.dirs:
        if _absent(path, s):
            return "absent"
        path = posixpath.dirname(path)
    return None


def _may_write(path: str, s: TerminalState) -> bool:
    """Python opens `path` to write and the state follows what it leaves there: a file, or nothing, in a
    folder the state knows whole below the home or /tmp (not git's), where no mode is held, by a name the
    file system takes (a longer one: Python's OSError, the model's)."""
    return len(path) < 4096 and all(len(part) <= 255 for part in path.split("/")) and \
        _writable(path) and posixpath.dirname(path) in s.known_dirs and path not in s.dirs and not s.modes and \
        not any(_within(path, d) and d != path for d in s.deleted)  # (a file removed: made again)


def _module_names(folder: str, s: TerminalState) -> frozenset[str]:
    """The names an import may find in a folder the state knows whole: `m` for `m.py`, `m.pyc`, an
    extension `m.cpython-311-x86_64-linux-gnu.so`, a folder `m` (a package, or part of one)."""
    names = set()
    for child in _children(folder, s):
        if posixpath.join(folder, child) in s.dirs:
            names.add(child)
        elif child.endswith((".py", ".pyc", ".pyw", ".so")):
            names.add(child.split(".")[0])
    return frozenset(names)


def _no_shadowing(s: TerminalState, modules: set[str] | None = None) -> bool:
    """Python started here imports the standard library from it: the folder is known whole and holds
    no module of a name importing `modules` may look up (a `types.py` is imported, and compiled into
    `__pycache__`, by any `import ast`: stdlib_imports.py has each module's names), nor do the folders
    PYTHONPATH adds. `modules` None, or one not in that table: every standard-library name."""
    if s.cwd not in s.known_dirs or python_path(s) is None:
        return False
    return not _looked_up(modules) & _beside(s, s.cwd)


def _looked_up(modules: set[str] | None) -> frozenset[str]:
    """The top-level names Python may look for on its path importing `modules` (stdlib_imports.py)."""
    if modules is None or stdlib_imports.PYTHON != f"{sys.version_info[0]}.{sys.version_info[1]}" or \
            any(m not in stdlib_imports.NAMES for m in modules):
        return frozenset(sys.stdlib_module_names)
    return frozenset().union(*(stdlib_imports.NAMES[m] for m in modules))


def _reads_only(command: str, s: TerminalState) -> bool:
    """Every program of a pipeline or list only reads (and nothing is redirected into a file), those
    of its substitutions too."""
    if "$(" in command:
        from .substitution import spans  # (which reads this module)
        found = spans(command)
        if not found or not all(span.kind != "command" or _reads_only(span.body, s) for span in found):
            return False
        outside, at = [], 0
        for span in found:  # (each stands as a plain word where the line is read for its programs)
            outside += [command[at:span.start], "x"]
            at = span.end
        command = "".join(outside) + command[at:]
    words = _unsilenced(shell_words(command))
    if words is None or any(w in (">", ">>", "&>", ">|") or "$(" in w or "`" in w for w in words):
        return False
    stages: list[list[str]] = [[]]
    for w in words:
        if w in ("|", "||", "&&", ";", "&", "(", ")", "|&"):
            stages.append([])
        elif stages[-1] or not re.fullmatch(r"\w+=.*", w):  # skip `NAME=value` before a program
            stages[-1].append(w)
    stages = [_unkeyworded(st) for st in stages]
    if any(st is None for st in stages) or not any(stages):
        return False
    stages = [st for st in stages if st]
    here = None if any(st[0] == "cd" for st in stages) else s  # python's folder: known unless the line moves
    return not any(_writes(st[0], st[1:], here) for st in stages)  # type: ignore[index]


def ran_in_a_pipe(command: str, s: TerminalState) -> bool:
    """A pipeline whose stages only read but for the program it starts with (`python3 -m pytest 2>&1 |
    tail`): what that may have written is forgotten as for it run alone (_program_ran: one that runs
    no git leaves what git tracks followed); True where it was such a pipeline."""
    words = None if "$(" in command or "`" in command else _unsilenced(shell_words(command))
    if words is None or any(w in (">", ">>", "&>", ">|", "||", "&&", ";", "&", "(", ")", "<", "<<") for w in words):
        return False
    stages: list[list[str]] = [[]]
    for w in (w for w in words if w != "2>&1"):
        if w in ("|", "|&"):
            stages.append([])
        else:
            stages[-1].append(w)
    if len(stages) < 2 or not all(stages) or any(st[0] == "cd" or re.fullmatch(r"\w+=.*", st[0]) for st in stages):
        return False
    first = stages[0]  # (the one that writes must be first: a later one may run what the pipe feeds it)
    if any(_writes(st[0], st[1:], s) for st in stages[1:]) or first[0] in MODELLED or first[0] in _WRAPPERS or \
            not _writes(first[0], first[1:], s):
        return False
    _program_ran(s, first[0], first[1:])
    return True


_WRAPPERS = frozenset({"xargs", "sudo", "su", "env", "ssh", "source", ".", "exec", "nohup", "timeout", "time", "nice"})


def _unsilenced(words: list[str] | None) -> list[str] | None:
    """The words without their redirections that write nothing (`2>/dev/null`, `>/dev/null 2>&1`)."""
    if words is None:
        return None
    out: list[str] = []
    i = 0
    while i < len(words):
        after = words[i + 1] if i + 1 < len(words) else None
        if words[i] in (">", ">>", "&>", ">|") and after == "/dev/null" or words[i] == ">&" and after in ("1", "2"):
            if out[-1:] in (["1"], ["2"]):
                out.pop()  # (the descriptor's number, a word of its own here: `2`)
            i += 2
            continue
        out.append(words[i])
        i += 1
    return out


_OPENING = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{"})


def _unkeyworded(stage: list[str]) -> list[str] | None:
    """A stage of a line read for its programs, the shell's own words before them taken off (`do
    grep x "$f"`: grep); [] for one that runs none (`done`, `fi`, `for f in *.py`, `read -r line`);
    None for what is not followed (`case`, a function, a loop's `break`)."""
    while stage and (stage[0] in _OPENING or re.fullmatch(r"\w+=.*", stage[0], re.S)):
        stage = stage[1:]  # (and `NAME=value` before a program: `while IFS= read -r l`)
    if not stage or stage[0] in ("done", "fi", "}") and stage[1:2] in ([], ["<"]) or stage[0] == "read" or \
            stage[0] == "for" and len(stage) >= 3 and stage[2] == "in":
        return []
    return None if stage[0] in ("case", "esac", "function", "select", "break", "continue", "for") else stage


# What a script may use to reach files it does not name: walks, patterns, listings, a shell's loop
_WALKS = re.compile(r"\b(?:walk|glob|rglob|iglob|listdir|scandir|iterdir|xargs|for\s+\w+\s+in)\b|\bfind\s+[\w./~-]|"
                    r"\*\.\w|\*/|/\*|[\"'][^\"'\n]*\*")  # (not `x * 2`, nor `text.find(…)`)


def _named_in(text: str, s: TerminalState) -> list[str]:
    """The files a script (a program's text: a file run, `-c CODE`, a here-document fed to it) may
    write, that the state knows, or knows were removed: each it names (its path, from the shell's folder
    or whole, or its name alone: `Path('src') / 'notes.py'`); where it walks folders or uses patterns,
    every file below the shell's folder."""
    if _WALKS.search(text):
        return [p for p in s.files if _within(p, s.cwd)]
    words = set(re.findall(r"[\w.~/-]+", text[:MAX_SCRIPT]))
    named = [p for p in s.files if posixpath.basename(p) in words or posixpath.relpath(p, s.cwd) in words or p in words
             or p.startswith(s.home + "/") and "~/" + p[len(s.home) + 1:] in words]
    if s.deleted:  # (a path removed that it names, or one below it: it may make it again)
        paths = set()
        for w in words:
            try:
                paths |= {_abs(w, s)} if "/" in w and not w.startswith("~") else set()
            except _Unknown:  # (`nope/.`, a path the rules do not read: any removed one, made again perhaps)
                return named + list(s.deleted)
        named += [d for d in s.deleted if posixpath.basename(d) in words or any(_within(p, d) for p in paths)]
    return named


MAX_SCRIPT = 1_000_000  # characters of a script read for the names it holds (past them: every file below)


def _program_ran(s: TerminalState, cmd: str, args: list[str]) -> None:
    """What a program the state cannot follow may have written, beside the files it is given: what
    its text names (python3 -c CODE, a script run, the Makefile), every file below the folder where
    that text is not known; a module run (`python3 -m pytest`) or another program: the files given
    alone (a test run writes caches, and a program its own files, far more often than the
    project's). One that runs no git leaves what git tracks followed."""
    code = args[args.index("-c") + 1] if "-c" in args[:-1] else None
    plain = [a for a in args if not a.startswith("-") and a != code]  # (the code run is no path it writes)
    script = plain[0] if plain and cmd in INTERPRETERS and code is None and args[:1] != ["-m"] else \
        "Makefile" if cmd == "make" else None
    text = code if code is not None else _contents(script, s) if script else None
    named = _named_in(text, s) if text is not None else [p for p in s.files if _within(p, s.cwd)] if script else []
    runs_no_git = cmd in ("python", "python3", "node", "perl", "ruby", "php") and \
        not re.search(r"\bgit\b|subprocess|system|popen|exec", text or "")
    _forget_writes(s, None, [_abs(a, s) for a in plain] + named, index_kept=runs_no_git)
    _compiled_where_it_ran(s, cmd)


def _compiled_where_it_ran(s: TerminalState, cmd: str) -> None:
    """A python run outside the home and /tmp (which `_forget_writes` forgets) may have compiled what
    it imported from the shell's folder, and the packages below it, into `__pycache__` there: even
    where it then failed (an import of `pkg.missing` compiles `pkg/__init__.py` first)."""
    if cmd in ("python", "python3") and not (_within(s.cwd, s.home) or _within(s.cwd, "/tmp")):
        s.known_dirs = [d for d in s.known_dirs if not _within(d, s.cwd)]


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


# python -m of a module that is not installed: nothing ran, nothing was written
_NOT_RUN = re.compile(r"(?:/usr(?:/local)?/bin/)?python[0-9.]*: No module named [\w.]+\n?")
_NOT_FOUND = re.compile(r'Traceback \(most recent call last\):\n  File "<string>", line 1, in <module>\n'
                        r"ModuleNotFoundError: No module named '(\w+)'\n")


def _ran_nothing(words: list[str], output: str) -> bool:
    """Python stopped before anything ran: `-m` of a module that is not there, or `-c CODE` whose first
    statement imports a top-level module no finder found (`import nosuchmodule`: nothing of it, or
    of anything else, was run, so nothing was written)."""
    if _NOT_RUN.fullmatch(output):
        return True
    found = _NOT_FOUND.fullmatch(output)
    if found is None or words[1:2] != ["-c"] or len(words) < 3 or len(words[2]) > pycheck.MAX_CODE:
        return False
    try:
        first = ast.parse(words[2]).body[:1]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    top = first[0].names[0].name if first and isinstance(first[0], ast.Import) else \
        first[0].module if first and isinstance(first[0], ast.ImportFrom) and not first[0].level else None
    return top is not None and first[0].lineno == 1 and top.split(".")[0] == found.group(1)
