"""`python3 -m PACKAGE.MODULE ARGS…` of the project's own module, walked by pyrun.py as Python's runpy
runs it: the shell's folder first on the path (then PYTHONPATH's), the packages above the module
imported first (their `__init__.py` run, and compiled into `__pycache__`), then the module itself
run as `__main__` (`__package__` its package, so its relative imports work), its own bytecode written
beside it too (runpy reads the module through the import system, which caches it), and `sys.argv[0]`
its full path.

    python3 -m src.notes add "buy milk"      (the devbox world's README says so)

Only a run that ends well is answered here: an error's traceback passes through runpy's frozen frames,
whose lines are the world's Python's own; a package run (`-m pkg`: its `__main__`), a module not found
in the project (the machine's site-packages may hold it) and a namespace package are the model's.
"""

from __future__ import annotations

from . import pyeval, pyrun
from .pyrun import MAX_SOURCE, Project, PythonError, Unknown


def run(dotted: str, path: str, machine: pyeval.Machine, project: Project) -> tuple[str, int] | None:
    """What the run prints and its exit code, the module at `path` (project.find(dotted)), or None
    where the walker does not decide it; the modules compiled on the way are in `project.compiled`."""
    text = project.read(path)
    if text is None or len(text) > MAX_SOURCE or path.endswith("/__init__.py"):
        return None
    walker = pyrun._Walker(machine, project)
    package = dotted.rpartition(".")[0]
    try:
        if package and walker._load(package) is None:
            return None
        project.compiled.append(path)  # (cached by the import system as runpy reads it, before it runs)
        walker.names.update({"__name__": "__main__", "__package__": package})
        walker._walk_module(text, path, walker.names)
    except (Unknown, pyrun._Jump, PythonError, *pyrun.RAISED, RecursionError, MemoryError):
        return None  # (a traceback through runpy's frames: the model's)
    machine.written[:] = walker.written()
    return "".join(walker.out), 0
