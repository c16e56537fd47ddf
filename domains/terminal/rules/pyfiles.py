"""Files a Python program opens, where the walkers follow it (pyeval.py, pyrun.py): read (`open(PATH)`,
a file the state knows) and written (`open(PATH, "w")`, or "a", "wt", "at", and its `write`,
`writelines`, `close`, `print(…, file=f)`, `with open(…) as f:`), in UTF-8 as the sandbox's Python.

The walker keeps what each file is given; what Python leaves in it when the program ends (its buffers
flushed on exit, after a traceback too: a file object is closed, and flushed, as the interpreter
finalizes) is `Files.written()`, for the state to follow (effects.py), as agents edit a project
with a one-liner or a script (`s = open(p).read(); open(p, "w").write(s.replace(a, b))`).

The model's, as before: a file the program opens to write where the state does not say Python may
(`Machine.may_write`: a folder the state knows whole, below the home or /tmp, not git's, no mode held),
one opened to write twice, one read while it is open to write (what reached it depends on buffers),
and bytes.
"""

from __future__ import annotations

import posixpath
from typing import Any

from .pyvalues import PythonError, Unknown, _File, _Opaque

MAX_FILES = 16
MAX_WRITTEN = 1_000_000  # characters, all files together
WRITE_MODES = frozenset({"w", "wt", "a", "at"})


class Written(_Opaque):
    """A file opened to write: its path, whether it was opened to append, what it was given (never handed
    to Python's own functions: printed, it would show an address)."""

    def __init__(self, path: str, append: bool) -> None:
        self.path, self.append = path, append
        self.parts: list[str] = []
        self.closed = False


class Files:
    """The files the walker's program opens (a mixin of pyeval's walker: `self.machine`, `self.opened`,
    `self._made`)."""

    machine: Any
    opened: list[Written]
    _made: Any

    def _open(self, args: list[Any], kwargs: dict[str, Any]) -> _File | Written:
        """`open(PATH[, MODE][, encoding=…])`: a file read whole, or one opened to write."""
        encoding = kwargs.get("encoding", "utf-8")
        if not args or not isinstance(args[0], str) or len(args) > 2 or set(kwargs) - {"encoding"} or \
                (len(args) == 2 and args[1] not in ("r", "rt", *WRITE_MODES)) or not isinstance(encoding, str) or \
                encoding.lower().replace("-", "").replace("_", "") != "utf8":
            raise Unknown("open")
        self._on_its_way(args[0])
        path = posixpath.normpath(posixpath.join(self.machine.cwd, args[0]))
        writing = len(args) == 2 and args[1] in WRITE_MODES
        if self._kind(path) == "dir":
            raise PythonError(IsADirectoryError(21, "Is a directory", args[0]))
        if self._kind(posixpath.dirname(path) if writing else path) == "absent" and \
                (writing or not any(w.path == path for w in self.opened)):
            raise PythonError(FileNotFoundError(2, "No such file or directory", args[0]))  # (named as given)
        if writing:
            return self._open_to_write(path, args[1])
        wrote = self._reading(path)
        text = self.machine.read(path) if wrote is None else wrote
        if text is None or "\r" in text:
            raise Unknown("a file the state does not know")  # (or universal newlines to apply)
        self._made(text)
        return _File(text)

    def _on_its_way(self, name: str) -> None:
        """Each folder on the way to `name`, as the kernel walks it (`..` after the folder it is in):
        a file there is Python's NotADirectoryError (`open("README.md/x")`), nothing there its
        FileNotFoundError. The walk stops at a name the state does not know."""
        at = self.machine.cwd if not name.startswith("/") else "/"
        for part in name.split("/")[:-1]:
            if part in ("", "."):
                continue
            at = posixpath.dirname(at) if part == ".." else posixpath.join(at, part)
            kind = self._kind(at)
            if kind == "file":
                raise PythonError(NotADirectoryError(20, "Not a directory", name))
            if kind == "absent":  # (`open("nope/../README.md")`: the kernel does not pass `nope`)
                raise PythonError(FileNotFoundError(2, "No such file or directory", name))
            if kind != "dir":
                return

    def _kind(self, path: str) -> str | None:
        """"dir", "file", "absent", or None (not known), as the state says (`Machine.kind`)."""
        kind = getattr(self.machine, "kind", None)
        return None if kind is None else kind(path)

    def _open_to_write(self, path: str, mode: str) -> Written:
        may = getattr(self.machine, "may_write", None)
        if may is None or not may(path) or any(w.path == path for w in self.opened) or len(self.opened) >= MAX_FILES:
            raise Unknown("a file written where the state does not follow it")
        file = Written(path, mode.startswith("a"))
        self.opened.append(file)
        return file

    def _reading(self, path: str) -> str | None:
        """A file the program wrote and closed, read back (None: one it did not open to write)."""
        file = next((w for w in self.opened if w.path == path), None)
        if file is None:
            return None
        if not file.closed or file.append:
            raise Unknown("a file read while it is written")
        return "".join(file.parts)

    def _into(self, file: Written, text: Any) -> int:
        """`file.write(text)`: the characters written."""
        if file.closed or not isinstance(text, str):
            raise Unknown("write()")
        if sum(len(p) for w in self.opened for p in w.parts) + len(text) > MAX_WRITTEN:
            raise Unknown("too much written")
        file.parts.append(text)
        return len(text)

    def _file_method(self, file: Written, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """`write`, `writelines`, `close`, `flush` of a file opened to write."""
        if kwargs or name == "write" and len(args) != 1 or name != "write" and name != "writelines" and args:
            raise Unknown(f"{name}()")
        if name == "write":
            return self._into(file, args[0])
        if name == "writelines":
            if len(args) != 1 or not isinstance(args[0], list | tuple):
                raise Unknown("writelines()")
            for line in args[0]:
                self._into(file, line)
            return None
        if name == "close":
            file.closed = True
        return None

    def written(self) -> list[tuple[str, str, bool]]:
        """(path, what it was given, appended) for each file the program wrote, in the order it opened them."""
        return [(w.path, "".join(w.parts), w.append) for w in self.opened]
