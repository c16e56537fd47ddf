"""`python3 FILE.py` where what the run does is known before anything of the file runs: a file of
nothing but a docstring, comments, `from __future__` imports, names bound to literals and quiet
imports of the standard library prints nothing; one where a relative import follows them
(`from ._core import X`: a package's module run as a script) fails there, as Python 3.11 prints it.
Nothing else ran, so nothing was written either (not even `__pycache__`: the script itself is not
compiled to a file, and the standard library's modules are compiled where Python is installed).
Python's start-up imports what it needs before the script's folder is on its path, so nothing there
stands in for it.

A standard-library import is taken only where it is sure to succeed and print nothing: a module of
HEADER_MODULES (each imports without a word, nor a deprecation warning, on 3.11), no file or folder
beside the script of a name importing it may look up (stdlib_imports.py has them: the script's
folder is first on the path), and each name a `from` import asks for is there (as this Python, the
sandbox's version, has it). Blocks that do not run are passed over: `if TYPE_CHECKING:`, and the
handlers of a `try:` whose body is such imports. Checked against the sandbox's Python
(benchmarks/state_vs_real.py).
"""

from __future__ import annotations

import ast
import functools
import importlib
import re
import sys
import types
import warnings

from . import stdlib_imports

MAX_SOURCE = 1_000_000  # characters of a script parsed here (past them: the model's)
RELATIVE = "ImportError: attempted relative import with no known parent package\n"

# What a module's header imports, that imports quietly on 3.11 (no output, no warning, nothing
# written beside the script); scripts/stdlib_imports.py lists what each looks up
HEADER_MODULES = frozenset({
    "abc", "argparse", "ast", "base64", "binascii", "bisect", "codecs", "collections", "collections.abc",
    "contextlib", "copy", "dataclasses", "datetime", "decimal", "enum", "errno", "fnmatch", "fractions", "functools",
    "glob", "hashlib", "heapq", "html", "importlib", "importlib.metadata", "inspect", "io", "itertools", "json", "keyword", "logging",
    "math", "numbers", "operator", "os", "os.path", "pathlib", "platform", "pprint", "random", "re", "shlex",
    "shutil", "stat", "string", "struct", "subprocess", "sys", "tempfile", "textwrap", "threading", "time",
    "traceback", "types", "typing", "unicodedata", "urllib", "urllib.parse", "uuid", "warnings", "weakref", "zlib",
})


@functools.lru_cache(maxsize=16)  # (asked when the step is answered and again when it is applied)
def run(path: str, text: str, beside: frozenset[str] | None = None) -> tuple[str, int] | None:
    """What `python3 PATH` prints and its exit code, where the file (`text`) decides them before it
    runs anything; None otherwise (a syntax error's message, anything that runs, is the model's).
    `beside`: the names the script's folder holds that an import may find (`m` for `m.py`, a folder
    `m`); None where the folder is not known whole (then no import is taken)."""
    if len(text) > MAX_SOURCE or text.startswith("\ufeff") or "\0" in text:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (`"\d"`: a warning Python may print first: the model's)
            tree = ast.parse(text)
            compile(tree, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, Warning):
        return None
    body, at = tree.body, 0
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
            isinstance(body[0].value.value, str):
        at = 1  # (the docstring)
    future = False
    while at < len(body) and isinstance(body[at], ast.ImportFrom) and body[at].module == "__future__":
        future = future or any(a.name == "annotations" for a in body[at].names)  # type: ignore[union-attr]
        at += 1
    bound: dict[str, object] = {}  # (names the quiet statements bound, to what where it matters)
    while at < len(body) and (_literal(body[at], future, bound) or _quiet(body[at], beside, bound)):
        at += 1  # (`__version__ = "1.0"`, `import os`: names bound, nothing else done)
    if at == len(body):
        return "", 0
    first = body[at]
    if not isinstance(first, ast.ImportFrom) or first.level == 0:
        return None
    line = re.split(r"\r\n|\r|\n", text)[first.lineno - 1]
    if not line.isascii() or first.end_col_offset is None:
        return None  # (offsets count bytes: a line of other characters is not placed here)
    shown = line.lstrip(" \t\f")  # (the line as Python shows it: its indent taken off, not what trails it)
    indent = len(line) - len(shown)
    # its span on that line (to the line's last character that is not a space, where it goes on below)
    end = first.end_col_offset if first.end_lineno == first.lineno else len(line.rstrip(" \t\x0b\x0c"))
    marks = ""
    if (first.col_offset, end) != (indent, len(line)):
        # (a statement shorter than its line, `from . import x  # why`: marked with carets)
        marks = "    " + " " * (first.col_offset - indent) + "^" * (end - first.col_offset) + "\n"
    return f'Traceback (most recent call last):\n  File "{path}", line {first.lineno}, in <module>\n' \
           f"    {shown}\n{marks}{RELATIVE}", 1


def _quiet(node: ast.stmt, beside: frozenset[str] | None, bound: dict[str, object]) -> bool:
    """An import of the standard library sure to succeed and print nothing, or a block that does not
    run (`if TYPE_CHECKING:`; a `try:` of such imports, whose handlers are not reached)."""
    if beside is None:
        return False
    if isinstance(node, ast.Import):
        for alias in node.names:
            if not _importable(alias.name, beside):
                return False
            top = alias.name.split(".")[0]
            bound[alias.asname or top] = sys.modules[alias.name if alias.asname else top]
        return True
    if isinstance(node, ast.ImportFrom):
        if node.level or not node.module or not _importable(node.module, beside):
            return False
        module = sys.modules[node.module]
        for alias in node.names:
            if alias.name == "*":
                return False  # (what it binds is not followed here)
            value = getattr(module, alias.name, _MISSING)
            if value is _MISSING or isinstance(value, types.ModuleType) and \
                    not _importable(f"{node.module}.{alias.name}", beside):
                return False  # (a name it lacks fails; a submodule is imported anew)
            bound[alias.asname or alias.name] = value
        return True
    if isinstance(node, ast.If):
        test = node.test
        checking = isinstance(test, ast.Name) and test.id == "TYPE_CHECKING" and \
            bound.get(test.id, _MISSING) is False or \
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING" and \
            isinstance(test.value, ast.Name) and bound.get(test.value.id) is sys.modules.get("typing")
        return checking and not node.orelse  # (its body never runs)
    if isinstance(node, ast.Try):
        return not node.orelse and not node.finalbody and bool(node.body) and \
            all(isinstance(n, (ast.Import, ast.ImportFrom)) and _quiet(n, beside, bound) for n in node.body)
    return False


_MISSING = object()


def _importable(name: str, beside: frozenset[str]) -> bool:
    """A module of HEADER_MODULES that nothing beside the script stands in for, loaded here (this
    Python is the sandbox's version: stdlib_imports.PYTHON)."""
    if name not in HEADER_MODULES or name not in stdlib_imports.NAMES or \
            stdlib_imports.PYTHON != f"{sys.version_info[0]}.{sys.version_info[1]}" or \
            stdlib_imports.NAMES[name] & beside:
        return False
    try:
        importlib.import_module(name)  # (the standard library's own, from this Python: none beside it)
    except ImportError:
        return False
    return True


def _literal(node: ast.stmt, future: bool, bound: dict[str, object] | None = None) -> bool:
    """A name bound to a literal (`X = 1`, `A = B = ("a", "b")`), or declared or bound with an
    annotation where annotations are not evaluated (`x: str`, `x: int = 2` under `from __future__
    import annotations`, as the version files setuptools-scm writes): nothing runs."""
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, ast.AnnAssign) and future and node.simple:
        if node.value is None:
            return True  # (`version: str`: a name declared, nothing bound)
        targets, value = [node.target], node.value
    else:
        return False
    try:
        literal = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    if not all(isinstance(t, ast.Name) for t in targets):
        return False
    if bound is not None:
        bound.update((t.id, literal) for t in targets if isinstance(t, ast.Name))  # (`TYPE_CHECKING = False`)
    return True
