"""Whether a `python3 -c` one-liner can only read: then the shell state keeps what it knows across it
(folder listings, the repository's changes). Decided from the code's syntax tree, never by running
it: only modules that cannot write are imported, `os` only for what reads, `open` only to read, and
nothing that reaches around the check (exec, eval, __import__, getattr, dunder attributes).
"""

from __future__ import annotations

import ast

# Modules whose functions neither write files nor start programs
READ_MODULES = frozenset({
    "sys", "os", "os.path", "json", "math", "cmath", "re", "ast", "collections", "itertools", "functools", "string",
    "textwrap", "datetime", "time", "platform", "statistics", "decimal", "fractions", "random", "operator",
    "typing", "dataclasses", "enum", "hashlib", "base64", "binascii", "struct", "pprint", "keyword", "locale",
    "unicodedata", "calendar", "heapq", "bisect", "array", "copy", "numbers", "difflib", "html", "uuid", "zlib",
    "token", "fnmatch", "glob", "shlex", "colorsys",
})
OS_READS = frozenset({
    "getcwd", "listdir", "path", "environ", "getenv", "sep", "linesep", "pathsep", "name", "cpu_count", "getpid",
    "getppid", "uname", "walk", "scandir", "stat", "lstat", "access", "getuid", "getgid", "geteuid", "getegid",
    "getlogin", "devnull", "curdir", "pardir", "fspath", "fsencode", "fsdecode", "get_terminal_size", "times",
    "R_OK", "W_OK", "X_OK", "F_OK", "extsep", "altsep", "defpath", "sched_getaffinity", "getloadavg",
})
BLOCKED_NAMES = frozenset({"exec", "eval", "compile", "__import__", "getattr", "setattr", "delattr", "vars",
                           "globals", "locals", "__builtins__", "breakpoint", "input", "memoryview", "help"})
# Attributes that write, start programs or reach other modules, whatever they hang on (`os` has its
# own list above; a file opened to write is refused where it is opened)
BLOCKED_PREFIXES = ("write_", "mkdir", "makedirs", "unlink", "rmdir", "chmod", "chown", "symlink", "truncate",
                    "touch", "spawn", "exec", "fork", "kill")
BLOCKED_ATTRIBUTES = frozenset({"modules", "system", "popen", "startfile", "putenv", "unsetenv", "builtins", "os",
                                "posix", "shutil", "subprocess", "io", "pathlib", "codecs", "tempfile", "open"})
DUNDERS_READ = frozenset({"__name__", "__version__", "__doc__", "__file__", "__all__"})
READ_MODES = frozenset({"r", "rt", "rb", "tr", "br"})
MAX_CODE = 4_000


def reads_only(args: list[str]) -> bool:
    """`python3 ARGS` only reads: `--version`/`-V`, or `-c CODE [argument…]` whose code passes."""
    if args in (["--version"], ["-V"]):
        return True
    if len(args) < 2 or args[0] != "-c" or len(args[1]) > MAX_CODE:
        return False
    try:
        tree = ast.parse(args[1])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    nodes = list(ast.walk(tree))
    # `os` is read only through its reading attributes: never passed on, renamed or stored
    os_uses = sum(isinstance(n, ast.Name) and n.id == "os" for n in nodes)
    os_reads = sum(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "os" for n in nodes)
    return os_uses == os_reads and all(_reads(node) for node in nodes)


def _reads(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return all(a.name in READ_MODULES and not (a.name.startswith("os") and a.asname) for a in node.names)
    if isinstance(node, ast.ImportFrom):
        if node.level or node.module not in READ_MODULES:
            return False
        return node.module != "os" or all(a.name in OS_READS for a in node.names)
    if isinstance(node, ast.Name):
        return node.id not in BLOCKED_NAMES
    if isinstance(node, ast.Attribute):
        if node.attr.startswith("__") and node.attr not in DUNDERS_READ:
            return False
        if isinstance(node.value, ast.Name) and node.value.id == "os":
            return node.attr in OS_READS
        return node.attr not in BLOCKED_ATTRIBUTES and not node.attr.startswith(BLOCKED_PREFIXES)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open":
        mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
        if len(node.args) > 2 or any(k.arg not in ("mode", "encoding", "errors") for k in node.keywords):
            return False
        return mode is None or isinstance(mode, ast.Constant) and mode.value in READ_MODES
    return True
