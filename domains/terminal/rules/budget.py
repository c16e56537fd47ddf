"""What one line may cost the state before the model answers it instead.

The state runs loops, conditions and lists command by command, and a command inside a loop is run
again to answer it, to follow its folder and to apply it. Nested loops multiply: `for i in 1 2; do`
eight deep, with an `if` between, ran for minutes on one core. The rules now run in a worker thread
(simulator.py), so other episodes are answered meanwhile, but the episode itself waited, and the
core was taken from everyone. Two things bound it:

- **One line's work** (`WORK`): each command evaluated and each loop turn spends a unit of a budget
  opened by the outermost call (`answer`, `silent`, `cwd_after`, `apply`). Past it every rule says
  "not known" and the model answers the line, as for any line the state cannot run. A count, not a
  clock: the same line gets the same answer on any machine and under any load.
- **A compound run once per state** (`remembered`): within one outermost call, the same compound
  command on the same state document is run once, and answering, following and applying it read
  that run. Without it each level of nesting ran its body three times.

`heard` lists the commands a loop ran and what each printed, for a loop piped on (compound.py): what
goes down the pipe is what they printed to their standard output only.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from typing import Any, Callable, Iterator, TypeVar

WORK = 4_096  # commands evaluated and loop turns, in all, for one line (a 64-turn loop of 3 commands is ~200)

T = TypeVar("T")


Heard = tuple[str, tuple[str, int]] | None  # a command and what it printed; None: one not heard (run before)


class _Scope:
    __slots__ = ("left", "runs", "heard")

    def __init__(self) -> None:
        self.left = WORK
        self.runs: dict[tuple[int, str], tuple[dict[str, Any], Any, list[Heard] | None]] = {}
        self.heard: list[Heard] | None = None


_scope: contextvars.ContextVar[_Scope | None] = contextvars.ContextVar("terminal_rules_budget", default=None)


def bounded(fn: Callable[..., T]) -> Callable[..., T]:
    """An entry point of the rules: opens the line's budget where no call around it has."""
    @functools.wraps(fn)
    def entered(*args: Any, **kwargs: Any) -> T:
        if _scope.get() is not None:
            return fn(*args, **kwargs)
        token = _scope.set(_Scope())
        try:
            return fn(*args, **kwargs)
        finally:
            _scope.reset(token)
    return entered


def spend(units: int = 1) -> bool:
    """Take `units` of the line's work; False once it is spent (the caller then knows nothing)."""
    scope = _scope.get()
    if scope is None:
        return True
    scope.left -= units
    return scope.left >= 0


def remembered(state: dict[str, Any], command: str, run: Callable[[], T]) -> T:
    """`run()`'s result for `command` on this very state document, run once in the line's scope. The
    state is kept beside the result so that its id is not reused while the scope lasts."""
    scope = _scope.get()
    if scope is None:
        return run()
    key = (id(state), command)
    if key in scope.runs:
        if scope.runs[key][2] is not scope.heard:
            hear(None)  # (its commands ran before this hearing: not heard now)
        return scope.runs[key][1]
    result = run()
    scope.runs[key] = (state, result, scope.heard)
    return result


@contextlib.contextmanager
def heard() -> Iterator[list[Heard]]:
    """The commands evaluated inside the block, in turn, each with what it printed and its status
    (`hear`); [None] outside a line's scope (nothing can be heard)."""
    scope = _scope.get()
    if scope is None:
        yield [None]
        return
    saved, scope.heard = scope.heard, []
    try:
        yield scope.heard
    finally:
        scope.heard = saved


def hear(entry: Heard) -> None:
    scope = _scope.get()
    if scope is not None and scope.heard is not None:
        scope.heard.append(entry)
