"""What Python 3.11 prints for a program that does not compile: nothing of it runs, so the message is
all it prints (exit 1), and nothing is written (not even `__pycache__`).

    python3 -c 'def f(:'          File "<string>", line 1 … SyntaxError: invalid syntax
    python3 bad.py                File "/home/user/app/bad.py", line 1 … (the path as Python shows it)
    python3 - <<'EOF' …           File "<stdin>", line 3 …
    python3 -m py_compile bad.py  File "bad.py", line 1 …, or `Sorry: IndentationError: … (bad.py, line 2)`

The error is this Python's own: the code goes to `compile` (which runs nothing), so it holds only
where this Python is the world's (stdlib_imports.PYTHON, as the sandbox's), and only for text Python
reads as given here: no byte-order mark, encoding declaration, carriage return or NUL, no warning on
the way (`"\\d"`: Python may print it first), no line past ASCII quoted (where the interpreter puts its
caret then depends on how it read the line). `-c` hands Python the code with a newline after it.
It is drawn as the interpreter draws it (`_drawn`, after CPython's pythonrun.c), which is not
quite the `traceback` module's: a subclass (IndentationError) gets one caret, a tab is dropped from
the caret line, and the text is measured in bytes. Checked against python3 by
benchmarks/pysyntax_vs_python.py.
"""

from __future__ import annotations

import re
import sys
import traceback
import warnings

from . import stdlib_imports

MAX_SOURCE = 1_000_000  # characters compiled here (past them: the model's)
_DECLARED = re.compile(r"^[ \t\f]*#.*?coding[:=]", re.MULTILINE)  # (PEP 263, on the first two lines)


def error(code: str, filename: str) -> str | None:
    """The lines Python prints where `code` (named `filename` as Python shows it: `<string>`, `<stdin>`
    or the script's path) does not compile; None where it compiles, or where this Python may not
    print what the world's would."""
    sure, found = _compiled(code + "\n" if filename == "<string>" else code, filename,
                            "" if filename == "<string>" else "read" if filename == "<stdin>" else "file")
    return _drawn(found) if sure and found is not None else None


def raised(code: str, path: str) -> SyntaxError | None:
    """The error Python raises importing the module at `path` that does not compile, with what it
    prints of it at the end of a traceback (`drawn`); None where it compiles, or where not sure."""
    sure, found = _compiled(code, path, "file")
    drawn = _drawn(found) if sure and found is not None else None
    if found is None or drawn is None:
        return None
    found.drawn = drawn  # type: ignore[attr-defined]
    return found


def py_compile_error(code: str, name: str) -> str | None:
    """What `python3 -m py_compile NAME` prints where NAME does not compile (py_compile's own wording:
    a SyntaxError drawn by the traceback module, a subclass of it as `Sorry: KIND: MESSAGE (FILE, line
    N)`, no newline after either)."""
    sure, found = _compiled(code, name, "file", as_bytes=True)  # (its loader compiles the file's bytes)
    if not sure or found is None:
        return None
    if type(found) is SyntaxError:
        return "".join(traceback.format_exception_only(SyntaxError, found))
    return f"Sorry: {type(found).__name__}: {found}"


def compiles(code: str, warned_too: bool = False) -> bool:
    """The code compiles as the world's Python reads it: quietly (no warning), or where `warned_too`
    with a warning Python would not show (py_compile's, for a module not `__main__`)."""
    return _compiled(code, "<string>", "", warned_too=warned_too) == (True, None)


def readable(code: str) -> bool:
    """Python reads `code` as it is given here, and this Python is the world's."""
    head = "\n".join(code.split("\n", 2)[:2])
    return stdlib_imports.PYTHON == f"{sys.version_info[0]}.{sys.version_info[1]}" and len(code) <= MAX_SOURCE and \
        not code.startswith("\ufeff") and "\r" not in code and "\0" not in code and not _DECLARED.search(head)


# Where this process compiles: a name no file can have (a path through a device), so that Python never
# reads a line of the host's own for its message (it opens the file an error names, to quote it)
_NOWHERE = "/dev/null/mcp-world.py"
MAX_LINE = 1000  # characters of the line quoted from a file (Python reads a longer one in parts)


def _compiled(code: str, filename: str, source: str, as_bytes: bool = False, warned_too: bool = False) -> \
        tuple[bool, SyntaxError | None]:
    """(sure, the SyntaxError — or IndentationError, TabError — compiling raises, None where it
    compiles). Not sure where the text is not `readable` or the compiler warned on the way (but for
    `warned_too`, where it compiled).
    `source`: "file" where the code is the file `filename`, whose line Python quotes; "read" where
    Python reads it line by line from elsewhere (stdin), so the parser quotes the line alone and an
    error found after parsing nothing; "" for a string (`-c`), whose parser quotes what it holds."""
    if not readable(code):
        return False, None
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        try:
            compile(code.encode() if as_bytes else code, _NOWHERE, "exec", dont_inherit=True)
        except SyntaxError as raised:
            found: SyntaxError | None = raised
        except (ValueError, RecursionError, MemoryError, SystemError):  # (SystemError: gh-106905, deep in 3.11)
            return False, None
        else:
            found = None
    if found is None or warned:
        return found is None and warned_too or not warned, None
    found.filename = filename
    if (source == "file" or source == "read" and found.text is not None) and found.lineno is not None and \
            not str(found.msg).startswith("f-string"):
        # (an f-string's expression is parsed on its own: the parser's text, `(len(x y))`, is quoted)
        lines = code.split("\n")
        if not 0 < found.lineno <= len(lines) or len(lines[found.lineno - 1]) > MAX_LINE:
            return False, None
        ended = source == "file" and found.lineno < len(lines)  # (the file's line read with its newline)
        found.text = lines[found.lineno - 1] + ("\n" if ended else "")
    if found.text is not None and not found.text.isascii():
        return False, None  # (a line past ASCII: where Python places the carets depends on how it read it)
    found.args = (found.msg, (filename, found.lineno, found.offset, found.text, found.end_lineno, found.end_offset))
    return True, found


def _drawn(error: SyntaxError) -> str | None:
    """The error as Python's own printer writes it: the file and line, the line's text (its indent
    taken off) with carets under the columns (a subclass's: one), then the kind and message."""
    if error.lineno is None or type(error).__module__ != "builtins":
        return None
    shown = f'  File "{error.filename or "<string>"}", line {error.lineno}\n'
    if error.text is not None:
        offset = error.offset if error.offset is not None else -1
        end_line, end = (error.end_lineno or error.lineno, error.end_offset or -1) if type(error) is SyntaxError \
            else (error.lineno, -1)
        size = len(error.text.encode())
        end = min(size if end_line > error.lineno else end, size + 1)
        shown += _text(offset, end, error.text.encode())
    return shown + f"{type(error).__name__}{': ' if error.msg else ''}{error.msg}\n"


def _text(offset: int, end: int, text: bytes) -> str:
    """The line and its carets (print_error_text): offsets are Python's, the text is walked in bytes."""
    carets = end - offset if end > 0 and end > offset else 1
    offset -= 1
    stripped = text.lstrip(b" \t\f")
    offset -= len(text) - len(stripped)
    text = stripped
    size = len(text) - 1 if text.endswith(b"\n") else len(text)
    offset = min(offset, size)
    while b"\n" in text and text.index(b"\n") < offset:  # (past newlines the text holds before the offset)
        skip = text.index(b"\n") + 1
        text, size, offset = text[skip:], size - skip, offset - skip
    line = "    " + text.decode(errors="replace") + ("" if text[size:size + 1] == b"\n" else "\n")
    return line if offset < 0 else line + "    " + " " * offset + "^" * carets + "\n"
