"""A file's syntax tree in a one-liner the walkers follow (pyeval.py, pyrun.py): `ast.parse(TEXT)` of a file
the state knows, parsed by this Python (the sandbox's version), and `ast.walk`, `ast.dump`,
`ast.get_docstring` of what it made; a node's fields read as plain values (pyvalues._Node). Agents read a
module's functions and classes so (`[n.name for n in ast.walk(ast.parse(open(F).read())) if …]`).
"""

from __future__ import annotations

import ast
import warnings
from typing import Any

from .pyvalues import MAX_PARSED, Unknown, _library, _Node


def imports(code: str) -> set[str] | None:
    """The modules the code imports (None where it does not parse). A warning on the way (`"\\d"`) is
    not printed here: where it matters the walkers refuse the code."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} | \
        {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}


class Trees:
    """`ast.…` calls (a mixin of pyeval's walker: `self._tick`, `self._made`)."""

    _tick: Any
    _made: Any

    def _ast(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """`ast.parse(TEXT)` (a file's text, parsed by this Python: the sandbox's version), and
        `ast.walk`, `ast.dump`, `ast.get_docstring` of what it made."""
        if kwargs or len(args) != 1:
            raise Unknown(f"ast.{name}")
        if name == "parse":
            if not isinstance(args[0], str) or len(args[0]) > MAX_PARSED:
                raise Unknown("ast.parse")
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # (a warning Python would print: the model's)
                try:
                    return _Node(ast.parse(args[0]))
                except (Warning, SyntaxError):
                    raise Unknown("a warning, or ast's own error") from None
        if not isinstance(args[0], _Node):
            raise Unknown(f"ast.{name}")
        if name == "walk":
            nodes = []
            for node in ast.walk(args[0].node):
                self._tick()
                nodes.append(_Node(node))
            return self._made(nodes)
        if name == "dump":
            return self._made(ast.dump(args[0].node))
        return _library(ast.get_docstring, args[0].node)
