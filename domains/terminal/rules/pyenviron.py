"""`os.environ` and `os.getenv` in a program the walkers follow (pyeval.py, pyrun.py): a variable's value
where the state knows what the program's environment holds (machine.environ_value: the episode's
exports and the machine's own, `NAME=VALUE cmd` for the command alone), or that it is not there.

    CI=1 python3 -c 'import os; print(os.environ.get("CI"))'        1
    python3 -c 'import os; print(os.getenv("TOKEN", "none"))'       none (where the episode set none)

`os.environ.get(NAME[, DEFAULT])`, `os.environ[NAME]` (of a variable there), `NAME in os.environ` and
`os.getenv(NAME[, DEFAULT])`. Left to the model: a value the state does not know (set by the machine
and not followed, or by a command it could not follow), the locale's variables (Python may set
LC_CTYPE itself, coercing a C locale), `os.environ[NAME]` of one not there (its traceback passes
through os.py's frames), and the environment as a whole (listed, iterated, printed).
"""

from __future__ import annotations

from typing import Any, Callable

from .pyvalues import Unknown, _Opaque

Lookup = Callable[[str], tuple[bool, str | None]]  # (known, the value: None where not there)


class Environ(_Opaque):
    """`os.environ`: read one name at a time (never handed to Python's own functions)."""

    def __init__(self, lookup: Lookup | None) -> None:
        self.lookup = lookup

    def value(self, name: Any) -> str | None:
        """The variable's value, None where it is not there; Unknown where the state does not know."""
        if not isinstance(name, str) or self.lookup is None or name.startswith(("LC_", "LANG")) or not name:
            raise Unknown("a variable not followed")
        known, value = self.lookup(name)
        if not known:
            raise Unknown(f"${name}")
        return value

    def item(self, name: Any) -> str:
        """`os.environ[NAME]`."""
        value = self.value(name)
        if value is None:
            raise Unknown("KeyError from os.py")  # (its traceback shows `<frozen os>`'s frame)
        return value

    def get(self, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """`os.environ.get(NAME[, DEFAULT])` and `os.getenv(NAME[, DEFAULT])` (`key`, `default` by keyword)."""
        given = dict(zip(("key", "default"), args), **kwargs) if len(args) <= 2 else None
        if given is None or set(given) - {"key", "default"} or "key" not in given:
            raise Unknown("get's arguments")
        value = self.value(given["key"])
        return given.get("default") if value is None else value
