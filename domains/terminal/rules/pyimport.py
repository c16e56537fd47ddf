"""Imports for pyrun.py's walker: a module of the project (found in the folder first on Python's
path: `Project.find`) is walked as Python imports it — its packages first, each `__init__.py`, a
submodule bound in its package once imported, relative imports within a package, `from m import
name` of a name or a submodule — and its bytecode noted as written into `__pycache__` before its
body runs (`Project.compiled`). A standard-library module is imported quietly, and stays opaque:
its name alone (pyscript.HEADER_MODULES), where nothing in the shell's folder stands in for what
importing it looks up (stdlib_imports.py).

Left to the model: a circular import, `import *`, a module past MAX_SOURCE characters or past
MAX_MODULES in one run, one the state does not know, a name a module does not define.
"""

from __future__ import annotations

import ast
import sys
from typing import Any

from . import pyeval, pyscript, pysyntax, stdlib_imports
from .pyvalues import PythonError, Unknown, _Function, _Module

MAX_MODULES = 20  # project modules imported by one command
MAX_SOURCE = 200_000  # characters of a project module walked


class Imports:
    """Mixed into pyrun.py's walker (which gives `project`, `modules`, `loading`, `names`, `module`,
    `future_annotations`, `_walk_module`)."""

    def _import(self, dotted: str, asname: str | None) -> None:
        if self._load(dotted) is None:
            if dotted in pyeval._MODULES and not self._shadowed(dotted):
                super().execute(ast.Import(names=[ast.alias(name=dotted, asname=asname)]))
            else:
                library = self._library(dotted)
                self.names[asname or dotted.split(".")[0]] = library if asname else _Module(dotted.split(".")[0])
            return
        self.names[asname or dotted.split(".")[0]] = self.modules_by_name(dotted if asname else dotted.split(".")[0])

    def _import_from(self, node: ast.ImportFrom) -> None:
        if node.module == "__future__":
            self.future_annotations = self.future_annotations or any(a.name == "annotations" for a in node.names)
            return
        dotted = node.module or ""
        if node.level:
            package = str(self.module.get("__package__") or "")
            if not package or node.level > package.count(".") + 1:
                raise Unknown("a relative import beyond the package")
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            dotted = f"{base}.{dotted}" if dotted else base
        if self._load(dotted) is None:
            if node.level:
                raise Unknown(dotted)
            if dotted in pyeval._MODULES and not self._shadowed(dotted):
                super().execute(node)
                return
            library = self._library(dotted)
            for alias in node.names:
                if alias.name == "*" or not hasattr(sys.modules[library.name], alias.name):
                    raise Unknown(f"{dotted}.{alias.name}")
                self.names[alias.asname or alias.name] = _Function("opaque", dotted, alias.name)
            return
        module = self.modules_by_name(dotted)
        for alias in node.names:
            if alias.name == "*":
                raise Unknown("import *")
            if alias.name in module.names:
                self.names[alias.asname or alias.name] = module.names[alias.name]
            elif self._load(f"{dotted}.{alias.name}") is not None:  # (a submodule)
                self.names[alias.asname or alias.name] = self.modules_by_name(f"{dotted}.{alias.name}")
            else:
                raise Unknown(f"ImportError: {alias.name}")

    def _library(self, dotted: str) -> _Module:
        """A standard-library module imported for its name alone (pyscript.HEADER_MODULES, where
        nothing in the shell's folder stands in for it)."""
        if not pyscript._importable(dotted, self.project.beside):
            raise Unknown(dotted)
        return _Module(dotted)

    def _shadowed(self, dotted: str) -> bool:
        """Something in the shell's folder may stand in for what importing this module looks up."""
        return bool(stdlib_imports.NAMES.get(dotted, frozenset(sys.stdlib_module_names)) & self.project.beside)

    def modules_by_name(self, dotted: str) -> _ProjectModule:
        if dotted in self.loading:
            raise Unknown("a module partly imported (a circular import)")
        return _ProjectModule(dotted, self.modules[dotted])

    def _load(self, dotted: str) -> str | None:
        """Import a project module (its packages first), as Python would: None where `dotted` is not
        the project's (the standard library's, or not found here)."""
        parts = dotted.split(".")
        for i in range(1, len(parts) + 1):
            name = ".".join(parts[:i])
            if name in self.modules:
                if name in self.loading and i == len(parts):
                    raise Unknown("a module partly imported (a circular import)")
                continue  # (a package whose `__init__.py` imports its own submodule: being walked)
            path = self.project.find(name)
            if path is None:
                if i == 1:
                    return None
                raise Unknown(f"ModuleNotFoundError: {name}")
            if path == "?":
                raise Unknown(f"{name}: not a module walked here")
            if len(self.modules) >= MAX_MODULES:
                raise Unknown("too many modules")
            is_package = path == "" or path.endswith("/__init__.py")
            namespace: dict[str, Any] = {"__name__": name,
                                         "__package__": name if is_package else name.rpartition(".")[0]}
            self.modules[name] = namespace
            if path:
                text = self.project.read(path)
                if text is None or len(text) > MAX_SOURCE:
                    raise Unknown("a module the state does not know")
                broken = pysyntax.raised(text, path)
                if broken is not None:  # (nothing of it runs, nor is it compiled; the import fails)
                    del self.modules[name]
                    raise PythonError(broken)
                self.loading.add(name)
                self.project.compiled.append(path)  # (its bytecode is written before its body runs)
                self._walk_module(text, path, namespace)
                self.loading.discard(name)
            if i > 1:  # (a submodule is bound in its package once imported)
                self.modules[".".join(parts[:i - 1])][parts[i - 1]] = _ProjectModule(name, namespace)
        return dotted


class _ProjectModule(_Module):
    """A project module once imported: its namespace."""

    def __init__(self, name: str, names: dict[str, Any]) -> None:
        super().__init__(name)
        self.names = names
