"""Exceptions for pyrun.py's walker: `raise` of one of Python's own exceptions, and `try` statements
that catch them, as Python does — handlers matched by class (a name, a tuple of names, a bare
`except:`), the exception bound to `as NAME` (and unbound after the handler), `else`, `finally`
(run on every way out: normally, on an error rising on, on `return`, `break` or `continue`).

Only PythonError is ever caught: an error Python's own operations raised on the code's values, or
one the code raised. The walker's own refusals (`Unknown`) pass through every handler, as do its own
errors. An error raised while another is handled (or rises through a `finally`) has it for its
context, and `raise X from e` for its cause (`from None`: neither shown): uncaught, its traceback
is the chain Python prints (pytraceback.chain). A bare `raise` raises the handled one again, as it
was caught. Left to the model: a cause other than the error being handled, `except*`, a `finally`
that returns or jumps.
"""

from __future__ import annotations

import ast
import builtins
import functools
from typing import Any

from .pyvalues import WALKED, PythonError, Unknown, _plain, _printable

# What `raise` may raise here: Python's own exceptions whose message is str() of their arguments (not
# SystemExit, which exits without a traceback, nor StopIteration, which generators turn into another)
EXCEPTIONS = {e.__name__: e for e in (Exception, ValueError, TypeError, KeyError, IndexError, LookupError, RuntimeError,
                                      NotImplementedError, ZeroDivisionError, ArithmeticError, AssertionError,
                                      AttributeError, OSError, FileNotFoundError, PermissionError, UnicodeError)}
# What a handler may name: every exception class of Python's builtins
CLASSES = {name: value for name, value in vars(builtins).items()
           if isinstance(value, type) and issubclass(value, BaseException)}
_JUMPS = (ast.Return, ast.Break, ast.Continue)


@functools.lru_cache(maxsize=64)  # (each holds its statement, and the code in it: a few)
def _jumps(node: ast.Try) -> bool:
    """Its `finally` returns, breaks or continues (looked at once per statement, not per run of it)."""
    return any(isinstance(n, _JUMPS) for s in node.finalbody for n in ast.walk(s))


class Exceptions:
    """Mixed into pyrun.py's walker (which gives `evaluate`, `_block`, `_scoped`, `names`,
    `filename`, `frame_name`)."""

    handling: list[PythonError]  # (the errors being handled, innermost last: pyrun's walker makes it)

    def _exception_class(self, node: ast.expr, known: dict[str, type]) -> type:
        """The exception class `node` names: Python's own (`known`, where the code did not rebind
        the name) or one the project defined (WALKED)."""
        if isinstance(node, ast.Name):
            try:
                value = self._scoped(node.id)  # type: ignore[attr-defined]
            except Unknown:
                if node.id in known:
                    return known[node.id]
                raise
        else:
            value = self.evaluate(node)  # type: ignore[attr-defined]
        if isinstance(value, type) and getattr(value, WALKED, False):
            return value
        raise Unknown("an exception class this walker does not know")

    def _define_exception(self, node: ast.ClassDef) -> bool:
        """`class NotFound(KeyError): \"\"\"…\"\"\"` (a body of a docstring or `pass`): made a real
        exception class, named for its module as Python names it; False for any other class."""
        if len(node.bases) != 1 or node.keywords or node.decorator_list or not all(
                isinstance(s, ast.Pass) or isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                for s in node.body):
            return False
        try:
            base = self._exception_class(node.bases[0], CLASSES)
        except Unknown:
            return False
        if not issubclass(base, Exception) or base in (StopIteration, StopAsyncIteration):
            return False
        module = self.module.get("__name__")  # type: ignore[attr-defined]
        doc = ast.get_docstring(ast.Module(body=node.body, type_ignores=[]), clean=False) if node.body else None
        self.names[node.name] = type(node.name, (base,), {  # type: ignore[attr-defined]
            "__module__": module, "__qualname__": node.name, "__doc__": doc, WALKED: True})
        return True

    def _exception(self, node: ast.expr) -> BaseException:
        """What `raise NAME` or `raise NAME(ARGS)` raises: one of Python's own exceptions or of a class
        the project defined, its arguments plain values (str() of it is then Python's)."""
        call = node if isinstance(node, ast.Call) else None
        if call is not None and (call.keywords or any(isinstance(a, ast.Starred) for a in call.args)):
            raise Unknown("an exception made with keywords")
        cls = self._exception_class(call.func if call is not None else node, EXCEPTIONS)
        evaluate = self.evaluate  # type: ignore[attr-defined]
        args = [_printable(_plain(evaluate(a))) for a in call.args] if call is not None else []
        return cls(*args)

    def _try(self, node: ast.Try) -> None:
        if _jumps(node):
            raise Unknown("a finally that jumps")
        try:
            self._handled(node)
        except PythonError as error:
            if node.finalbody:
                self._finally(node.finalbody, rising=error)
            raise
        except Unknown:
            raise
        except BaseException:  # (a return, break or continue on its way out; the walker's own errors)
            self._finally(node.finalbody, rising=None)
            raise
        self._finally(node.finalbody, rising=None)

    def _handled(self, node: ast.Try) -> None:
        try:
            self._block(node.body)  # type: ignore[attr-defined]
        except PythonError as error:
            for handler in node.handlers:
                if self._catches(handler.type, error.error):
                    error.caught_in = (self.filename, self.frame_name)  # type: ignore[attr-defined]
                    error.caught_depth = self.depth  # type: ignore[attr-defined]
                    self._handle(handler, error)
                    return
            raise
        self._block(node.orelse)  # type: ignore[attr-defined]

    def _catches(self, node: ast.expr | None, error: BaseException) -> bool:
        if node is None:
            return True  # (a bare `except:`)
        classes = node.elts if isinstance(node, ast.Tuple) else [node]
        return any(isinstance(error, self._exception_class(c, CLASSES)) for c in classes)

    def _handle(self, handler: ast.ExceptHandler, error: PythonError) -> None:
        names: dict[str, Any] = self.names  # type: ignore[attr-defined]
        if handler.name:
            names[handler.name] = error.error
        self.handling.append(error)
        try:
            self._block(handler.body)  # type: ignore[attr-defined]
        finally:
            self.handling.pop()
            if handler.name:
                names.pop(handler.name, None)  # (Python unbinds it, so the traceback's frames are freed)

    def _finally(self, body: list[ast.stmt], rising: PythonError | None) -> None:
        """`finally`'s body; `rising`: the error rising through it, which is then the one being
        handled (what a bare `raise` there raises again, and the context of any other)."""
        if rising is not None:
            rising.caught_in = (self.filename, self.frame_name)  # type: ignore[attr-defined]
            rising.caught_depth = self.depth  # type: ignore[attr-defined]
            self.handling.append(rising)
        try:
            self._block(body)  # type: ignore[attr-defined]
        finally:
            if rising is not None:
                self.handling.pop()

    def _raised_here(self, error: PythonError) -> None:
        """An error seen first where it was raised: the one being handled then is its context (as
        Python sets `__context__` when it is raised, caught later or not)."""
        if error.context is None and not error.frames and self.handling and self.handling[-1] is not error:
            error.context = self.handling[-1]

    def _raise(self, node: ast.Raise) -> PythonError:
        """What `raise X`, `raise X from e`, `raise X from None` and a bare `raise` (the error being
        handled, again, as it was caught) raise."""
        if node.exc is None:
            if not self.handling or self.handling[-1].caught_depth != self.depth:  # type: ignore[attr-defined]
                raise Unknown("raise with no error being handled, or one handled in another frame")
            return self.handling[-1]
        raised = PythonError(self._exception(node.exc), where=node)
        if node.cause is not None:
            if isinstance(node.cause, ast.Constant) and node.cause.value is None:
                raised.suppress_context = True
            else:
                cause = self.evaluate(node.cause)  # type: ignore[attr-defined]
                found = [e for e in self.handling if e.error is cause]
                if not found:
                    raise Unknown("a cause other than an error being handled")
                raised.cause, raised.suppress_context = found[-1], True
        return raised
