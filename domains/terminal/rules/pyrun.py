"""`python3 -c CODE` one-liners and `python3 FILE.py` scripts that import the project's own modules
and call their functions, as agents check their work (`python3 -c 'from src.notes import add;
print(add([], "x"))'`): pyeval.py's walker, taught the statements functions are made of — `def`,
`return`, `while`, `break`, `continue`, items and attributes assigned, lists and dicts changed in
place — classes (pyclass.py), and the import of a module from the folder first on Python's path
(the shell's, or the script's): its text, from the state, is walked as Python runs it, in its own
namespace, with `__name__` its name (so `if __name__ == "__main__":` does not run; in a script run,
it does). Nothing is ever run: only the plain values the code builds reach Python's own functions,
as in pyeval.py.

An error Python's own operations raise (`1/0`, `d["k"]`, `int("x")`), a failed `assert`, or a
`raise` of one of Python's exceptions or the project's (pyexcept.py) rises through the frames it was walked in, each
noting where it was (the innermost expression whose operation raised, the call running in a
caller): at the top it is Python's traceback, its lines and carets (pytraceback.py).

`*args` and `**kwargs` (and `*xs`, `**d` spread in a call), `global`, `try` (pyexcept.py) and
`with open(PATH) as f:` are followed too.

What is left to the model (`Unknown`): decorators (but pyclass.py's), other `with` statements,
`nonlocal`, generators (each refused when the function is called, not when it is defined), recursion
past RECURSION, a standard-library module used for anything but its name (importing one quietly is
followed: pyscript.HEADER_MODULES), a name read before its function binds it, an error rising
through a generator expression, a class body or a dataclass's own methods (frames of their own), or one
whose position Python takes from elsewhere (UNPLACED: an f-string's part, an unpacking).

An imported module is compiled into `__pycache__` beside it (`notes.cpython-311.pyc`), as Python
writes it: `compiled` lists the sources, for the state to add those files (effects.py).
"""

from __future__ import annotations

import ast
import functools
import operator
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import pyeval, pytraceback
from .pyfiles import Written
from .pyclass import Classes, _Bound, _Instance, _Super, _UserClass
from .pyexcept import Exceptions
from .pyimport import MAX_SOURCE, Imports, _ProjectModule
from .pyvalues import (FAILED, MAX_LEN, RAISED, UNPLACED, PythonError, Unknown, _File, _Function, _Module, _Opaque,
                       _plain, _printable, _python)

RECURSION = 100  # calls deep (Python allows 1,000; past this the model answers)
_LIST_CHANGES = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "copy",
                           "count", "index"})
_DICT_CHANGES = frozenset({"pop", "update", "setdefault", "clear", "copy", "keys", "values", "items", "get"})
_ANNOTATION_TYPES = frozenset({"int", "float", "str", "bool", "bytes", "list", "dict", "tuple", "set", "frozenset",
                               "object", "type", "None"})


@dataclass
class Project:
    """Where the project's modules are: `find(dotted)` gives a module's source path ('' for a folder
    Python takes as a namespace package, "?" for one there that cannot be walked, None where the
    shell's folder has none of that name), `read(path)` its text; `beside`: the names in the shell's
    folder an import may find (programs._module_names)."""
    find: Callable[[str], str | None]
    read: Callable[[str], str | None]
    beside: frozenset[str]
    compiled: list[str] = field(default_factory=list)


def run(code: str, machine: pyeval.Machine, project: Project) -> tuple[str, int] | None:
    """What `python3 -c CODE` prints and its exit code, or None where the walker does not decide
    it; the project modules it imported are in `project.compiled`. An error raised by the code's
    own top level (an `assert` of its own, `1/0`; not one in a function or a module, whose
    traceback shows their lines) is Python's traceback (pyeval.traceback)."""
    try:
        tree = _compiled(code, "<string>")
    except Unknown:
        return None
    walker = _Walker(machine, project)
    try:
        return walker.walk(tree)
    except _Jump:
        return None


def run_script(path: str, text: str, machine: pyeval.Machine, project: Project,
               shown: str | None = None) -> tuple[str, int] | None:
    """What `python3 PATH` prints and its exit code, walked as `__main__` (its folder first on the
    path: `project`'s); None where the walker does not decide it. An error it does not catch is
    Python's traceback (pytraceback.py), the script's file named `shown` (as Python names it)."""
    if len(text) > MAX_SOURCE:
        return None
    walker = _Walker(machine, project)
    try:
        walker._walk_module(text, path, walker.names, shown or path)
    except (Unknown, _Jump):
        return None
    except PythonError as raised:
        machine.written[:] = walker.written()  # (what it wrote before it failed: flushed as it exits)
        said = pytraceback.chain(raised, raised.frames[::-1], walker.sources)
        return None if said is None else ("".join(walker.out) + said, 1)  # (a script's stdout is flushed first)
    except (*RAISED, RecursionError, MemoryError):
        return None
    machine.written[:] = walker.written()
    return "".join(walker.out), 0


def _compiled(text: str, path: str) -> ast.Module:
    """The code's tree, where Python compiles it without an error or a warning (`return` outside a
    function parses, but does not compile; an invalid escape warns)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            tree = ast.parse(text, path)
            compile(tree, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, Warning):
        raise Unknown("code that does not compile") from None
    except SystemError:  # (CPython 3.11's "AST constructor recursion depth mismatch", deep in a walk: gh-106905)
        raise Unknown("code this Python could not parse here") from None
    return tree


class _Jump(Exception):
    """return, break or continue, on its way to where it lands."""


class _Return(_Jump):
    def __init__(self, value: Any) -> None:
        self.value = value


class _Break(_Jump):
    pass


class _Continue(_Jump):
    pass


class _UserFunction(_Function):
    """A function the project defines: its node, the namespace it was defined in, its defaults, and
    the frame it was defined inside (for a function nested in another)."""

    def __init__(self, node: ast.FunctionDef, module: dict[str, Any], defaults: list[Any],
                 kw_defaults: dict[str, Any], enclosing: list[dict[str, Any]]) -> None:
        super().__init__("user")
        self.node, self.module, self.defaults, self.kw_defaults, self.enclosing = \
            node, module, defaults, kw_defaults, enclosing
        self.local_names = _assigned(node)
        self.global_names = _globals(node)
        self.owner: _UserClass | None = None  # (a method: its class, for `super()`)
        self.filename = "<string>"  # (the file it is defined in, as a traceback names it)
        self.followed = True


@functools.lru_cache(maxsize=256)
def _lambda_def(node: ast.Lambda) -> ast.FunctionDef:
    """A lambda as the function it is: `def <lambda>(ARGS): return BODY`, at the lambda's place."""
    body = ast.copy_location(ast.Return(value=node.body), node.body)
    made = ast.FunctionDef(name="<lambda>", args=node.args, body=[body], decorator_list=[], returns=None,
                           type_comment=None)
    return ast.copy_location(made, node)


def _assigned(node: ast.FunctionDef) -> frozenset[str]:
    """The names a function binds (its locals, as Python's compiler decides them): its parameters and
    every name it assigns, outside the functions and comprehensions nested in it."""
    args = node.args
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    names.update(x.arg for x in (args.vararg, args.kwarg) if x)
    stack: list[ast.AST] = list(node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
            names.add(n.id)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(n.name)
            continue  # (its body is its own scope)
        elif isinstance(n, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return frozenset(names - _globals(node))


def _globals(node: ast.FunctionDef) -> frozenset[str]:
    """The names a function declares `global` (outside the functions nested in it)."""
    names: set[str] = set()
    stack: list[ast.AST] = list(node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Global):
            names.update(n.names)
        elif not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(n))
    return frozenset(names)


def _binds_otherwise(node: ast.FunctionDef, names: frozenset[str]) -> bool:
    """A global name bound other than by assignment (a def, a class, an import, `except … as`)."""
    for n in ast.walk(node):
        if n is not node and isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n.name in names \
                or isinstance(n, ast.ExceptHandler) and n.name in names or isinstance(n, ast.Import | ast.ImportFrom) \
                and any((a.asname or a.name).split(".")[0] in names for a in n.names):
            return True
    return False


class _Walker(Classes, Exceptions, Imports, pyeval._Walker):
    def __init__(self, machine: pyeval.Machine, project: Project) -> None:
        super().__init__(machine)
        self.project = project
        self.module = self.names  # (the namespace `global` names live in)
        self.enclosing: list[dict[str, Any]] = []
        self.local_names: frozenset[str] | None = None  # (inside a function: its locals)
        self.global_names: frozenset[str] = frozenset()  # (inside a function: the names it declares global)
        self.handling: list[PythonError] = []  # (the errors being handled: pyexcept.py)
        self.modules: dict[str, dict[str, Any]] = {}  # project modules imported: their namespaces
        self.loading: set[str] = set()  # (those whose body is being walked)
        self.depth = 0
        self.future_annotations = False
        self.names.update({"__name__": "__main__", "__package__": None})

    # names: the frame's own, the functions' it is nested in, the module's, the builtins
    def _scoped(self, name: str) -> Any:
        if name in self.names:
            return self.names[name]
        if self.local_names is not None and name in self.local_names:
            raise Unknown(f"{name} read before it is bound")  # (UnboundLocalError)
        for frame in reversed(self.enclosing):
            if name in frame:
                return frame[name]
        if name in self.module:
            return self.module[name]
        return super()._name(name)

    def execute(self, node: ast.stmt) -> None:
        try:
            self._statement(node)
        except PythonError as error:
            self._raised_here(error)
            if error.where is None:  # (raised by the statement's own operation: where Python shows it)
                error.where = node if isinstance(node, ast.Raise | ast.AugAssign | ast.Import | ast.ImportFrom) \
                    else UNPLACED
            raise

    def _statement(self, node: ast.stmt) -> None:
        self._tick()
        if isinstance(node, ast.FunctionDef):
            self._define(node)
        elif isinstance(node, ast.ClassDef):
            self._class(node)
        elif isinstance(node, ast.Return):
            raise _Return(None if node.value is None else self.evaluate(node.value))
        elif isinstance(node, ast.Break):
            raise _Break()
        elif isinstance(node, ast.Continue):
            raise _Continue()
        elif isinstance(node, ast.While) and not node.orelse:
            while self.evaluate(node.test):
                self._tick()
                if self._round(node.body):
                    break
        elif isinstance(node, ast.For) and not node.orelse:
            for item in self._iterate(self.evaluate(node.iter)):
                self._bind(node.target, item)
                if self._round(node.body):
                    break
        elif isinstance(node, ast.If):
            self._block(node.body if self.evaluate(node.test) else node.orelse)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
            container = _plain(self.evaluate(node.target.value))
            key = _plain(self.evaluate(node.target.slice))
            try:
                current = _python(operator.getitem, container, key)
            except PythonError as error:
                error.where = node.target  # (the item read, before the operation)
                raise
            self._store(container, key, self._binary(node.op, current, self.evaluate(node.value), inplace=True))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Attribute):
            owner = self.evaluate(node.target.value)
            current = self._class_attribute(owner, node.target.attr) if isinstance(owner, _Instance | _UserClass) else None
            if not isinstance(owner, _Instance | _UserClass):
                raise Unknown("attribute assignment")
            self._set_attribute(owner, node.target.attr, self._binary(node.op, current, self.evaluate(node.value),
                                                                      inplace=True))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            self._bind(node.target, self._binary(node.op, self._name(node.target.id), self.evaluate(node.value),
                                                 inplace=True))
        elif isinstance(node, ast.Global):
            pass  # (what it declares was read when the function was defined: _globals)
        elif isinstance(node, ast.Assert):
            if not self.evaluate(node.test):
                where = pytraceback.raised_at(node) or UNPLACED
                if node.msg is None:
                    raise PythonError(AssertionError(), where=where)
                message = self.evaluate(node.msg)
                if isinstance(message, _Opaque | _Function | _Module):
                    raise Unknown("a message of another kind")
                raise PythonError(AssertionError(_printable(message)), where=where)
        elif isinstance(node, ast.Raise):
            raise self._raise(node)
        elif isinstance(node, ast.Try):
            self._try(node)
        elif isinstance(node, ast.With) and all(isinstance(i.context_expr, ast.Call) for i in node.items):
            files = []
            for item in node.items:  # (`with open(PATH) as f:`: a file read or written, closed on the way out)
                value = self.evaluate(item.context_expr)
                if not isinstance(value, _File | Written):
                    raise Unknown("a context manager other than a file")
                files.append(value)
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, value)
            self._block(node.body)
            for value in files:
                if isinstance(value, Written):
                    value.closed = True
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.simple:
            if not self.future_annotations:
                self._annotation(node.annotation)
            if node.value is not None:
                self.names[node.target.id] = self.evaluate(node.value)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                self._import(alias.name, alias.asname)
        elif isinstance(node, ast.ImportFrom):
            self._import_from(node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            pass  # (a docstring)
        else:
            super().execute(node)

    def _round(self, body: list[ast.stmt]) -> bool:
        """One round of a loop's body; True where it breaks out."""
        try:
            self._block(body)
        except _Break:
            return True
        except _Continue:
            pass
        return False

    def _block(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self.execute(statement)

    def _bind(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Attribute):
            self._set_attribute(self.evaluate(target.value), target.attr, value)
        elif isinstance(target, ast.Subscript) and not isinstance(target.slice, ast.Slice):
            self._store(_plain(self.evaluate(target.value)), _plain(self.evaluate(target.slice)), value)
        elif isinstance(target, ast.Name) and target.id in self.global_names:
            self.module[target.id] = value
        else:
            super()._bind(target, value)

    def _store(self, container: Any, key: Any, value: Any) -> None:
        if not isinstance(container, list | dict):
            raise Unknown("item assignment")
        _python(operator.setitem, container, key, value)
        if len(container) > MAX_LEN:
            raise Unknown("too long")

    def _define(self, node: ast.FunctionDef) -> None:
        args = node.args
        if node.decorator_list:
            raise Unknown("a decorator")
        if not self.future_annotations:
            for a in args.posonlyargs + args.args + args.kwonlyargs + [x for x in (args.vararg, args.kwarg) if x]:
                if a.annotation is not None:
                    self._annotation(a.annotation)
            if node.returns is not None:
                self._annotation(node.returns)
        self.names[node.name] = self._function(node)

    def _function(self, node: ast.FunctionDef) -> _UserFunction:
        """The function `node` defines here: its defaults evaluated now, the frames it is nested in,
        its file; and whether a call of it is followed (what it needs that the walker does not
        follow is the model's, if it is called)."""
        args = node.args
        defaults = [self.evaluate(d) for d in args.defaults]
        kw_defaults = {a.arg: self.evaluate(d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
        enclosing = self.enclosing + ([self.names] if self.local_names is not None else [])
        func = _UserFunction(node, self.module, defaults, kw_defaults, enclosing)
        func.filename = self.filename
        func.followed = not (any(isinstance(n, ast.Yield | ast.YieldFrom | ast.Nonlocal | ast.Await)
                                 for n in ast.walk(node)) or _binds_otherwise(node, func.global_names))
        return func

    def _annotation(self, node: ast.expr) -> None:
        """An annotation Python evaluates without a word: names of builtin types or names bound,
        strings, `X[…]`, `X | Y` of those (anything else: the model's)."""
        if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str)):
            return
        if isinstance(node, ast.Name):
            if node.id not in _ANNOTATION_TYPES:
                self._name(node.id)  # (bound: a name not bound is a NameError)
            return
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            self._name(node.value.id)
            return
        if isinstance(node, ast.Subscript):
            self._annotation(node.value)
            for part in node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]:
                for item in part.elts if isinstance(part, ast.List) else [part]:
                    self._annotation(item)
            return
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr) and \
                not any(isinstance(side, ast.Constant) for side in (node.left, node.right)):
            self._annotation(node.left)
            self._annotation(node.right)
            return
        raise Unknown("annotation")

    def _attribute(self, value: Any, name: str) -> Any:
        if isinstance(value, _Instance | _UserClass | _Super):
            return self._class_attribute(value, name)
        if isinstance(value, _ProjectModule):
            if name not in value.names:
                raise Unknown(f"{value.name}.{name}")  # (AttributeError)
            return value.names[name]
        if isinstance(value, list) and name in _LIST_CHANGES or isinstance(value, dict) and name in _DICT_CHANGES:
            return _Function("method", value, name)
        return super()._attribute(value, name)

    def _call(self, node: ast.Call) -> Any:
        func = self.evaluate(node.func)
        if isinstance(func, _Function) and func.kind == "object_init":
            if node.args or node.keywords:
                raise Unknown("TypeError: object.__init__() takes exactly one argument")
            return None
        if isinstance(func, _UserClass | _Bound):
            args, kwargs = self._arguments(node)
            if isinstance(func, _UserClass):
                return self._instantiate(func, args, kwargs)
            if not isinstance(func.func, _UserFunction):
                raise Unknown("a method")
            return self._invoke(func.func, [func.first, *args], kwargs)
        if not isinstance(func, _UserFunction):
            result = super()._call(node, func)
            if isinstance(func, _Function) and func.kind == "method":
                target = func.what[0]
                if isinstance(target, list | dict) and len(target) > MAX_LEN:
                    raise Unknown("too long")
            return result
        args, kwargs = self._arguments(node)
        return self._invoke(func, args, kwargs)

    def _invoke(self, func: _UserFunction, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if not func.followed:
            raise Unknown("a function this walker does not follow (*args, a generator, global)")
        spec = func.node.args
        positional = [a.arg for a in spec.posonlyargs + spec.args]
        if len(args) > len(positional) and spec.vararg is None or set(kwargs) & {a.arg for a in spec.posonlyargs}:
            raise Unknown("TypeError")
        frame: dict[str, Any] = dict(zip(positional, args))
        extra: dict[str, Any] = {}
        for name, value in kwargs.items():
            if name in frame:
                raise Unknown("TypeError")
            if name in positional or name in [a.arg for a in spec.kwonlyargs]:
                frame[name] = value
            elif spec.kwarg is not None:
                extra[name] = value
            else:
                raise Unknown("TypeError")
        if spec.vararg is not None:
            frame[spec.vararg.arg] = tuple(args[len(positional):])
        if spec.kwarg is not None:
            frame[spec.kwarg.arg] = extra
        for name, value in zip(positional[len(positional) - len(func.defaults):], func.defaults):
            frame.setdefault(name, value)
        for name, value in func.kw_defaults.items():
            frame.setdefault(name, value)
        if any(name not in frame for name in positional + [a.arg for a in spec.kwonlyargs]):
            raise Unknown("TypeError: a missing argument")
        if self.depth >= RECURSION:
            raise Unknown("too deep")
        saved = (self.names, self.module, self.enclosing, self.local_names, self.current, self.filename,
                 self.global_names, self.frame_name)
        self.names, self.module, self.enclosing, self.local_names = frame, func.module, func.enclosing, func.local_names
        self.filename, self.global_names, self.frame_name = func.filename, func.global_names, func.node.name
        self.current = (func.owner, frame[positional[0]]) if func.owner is not None and positional and \
            positional[0] in frame else None
        self.depth += 1
        try:
            self._block(func.node.body)
        except _Return as returned:
            return returned.value
        except (_Break, _Continue):
            raise Unknown("break outside a loop")
        except PythonError as error:  # (rising to the caller: this frame shows where it was raised)
            error.frames.append((func.filename, func.node.name, error.where))
            error.where = None
            raise
        except FAILED:
            raise Unknown("an error of the walker's own") from None
        finally:
            self.names, self.module, self.enclosing, self.local_names, self.current, self.filename, \
                self.global_names, self.frame_name = saved
            self.depth -= 1
        return None

    def _name(self, name: str) -> Any:
        try:
            return self._scoped(name)
        except Unknown:
            if name == "super" and name not in self.module:
                return _Function("builtin", "super")
            raise

    def _builtin(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Python's own functions where an instance or a class is given: printed through its class's
        `__str__`/`__repr__`, `isinstance`, `type`, `super()`."""
        if name == "super":
            if args or kwargs or self.current is None:
                raise Unknown("super()")
            return _Super(*self.current)
        if name in ("str", "repr") and len(args) == 1 and isinstance(args[0], _Instance) and not kwargs:
            return self._text(args[0], name)
        if name == "print" and any(isinstance(a, _Instance) for a in args):
            args = [self._text(a, "str") if isinstance(a, _Instance) else a for a in args]
        elif name == "isinstance" and len(args) == 2 and isinstance(args[1], _UserClass):
            return isinstance(args[0], _Instance) and args[1] in args[0].cls.mro()
        elif name == "type" and len(args) == 1 and isinstance(args[0], _Instance):
            return args[0].cls
        return super()._builtin(name, args, kwargs)

    def _key(self, key: Any) -> Any:
        """`sorted(xs, key=lambda x: …)` (or a function of the project's): Python's own sort calls
        back into the walker for each item; the key it gets must be a plain value (an instance, a
        class or a function is opaque: plain values alone are handed to Python)."""
        if not isinstance(key, _UserFunction):
            return super()._key(key)
        return lambda item: _plain(self._invoke(key, [item], {}))

    def evaluate(self, node: ast.expr) -> Any:
        try:
            return self._expression(node)
        except PythonError as error:
            self._raised_here(error)
            if isinstance(node, ast.JoinedStr | ast.FormattedValue):
                error.where = UNPLACED  # (an f-string's parts: positions Python 3.11 draws its own way)
            elif error.where is None:  # (the innermost expression whose own operation raised it)
                error.where = node
            raise

    def _expression(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Lambda):
            return self._function(_lambda_def(node))  # (a function of its one expression: `<lambda>`)
        if isinstance(node, ast.FormattedValue):
            value = self.evaluate(node.value)
            if isinstance(value, _Instance):
                if node.format_spec is not None and node.conversion == -1:
                    raise Unknown("a format spec for an instance")
                text = self._text(value, "str" if node.conversion in (-1, 115) else "repr")
                spec = "" if node.format_spec is None else self.evaluate(node.format_spec)
                if node.conversion == 97:  # (!a: the repr, its other characters escaped)
                    text = text.encode("ascii", "backslashreplace").decode()
                return self._made(format(text, spec))
            return self._formatted(node, value)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and \
                isinstance(node.ops[0], ast.Eq | ast.NotEq | ast.Is | ast.IsNot):
            left, right = self.evaluate(node.left), self.evaluate(node.comparators[0])
            if isinstance(left, _Instance | _UserClass) or isinstance(right, _Instance | _UserClass):
                same = self._equal(left, right) if isinstance(node.ops[0], ast.Eq | ast.NotEq) else left is right
                return same if isinstance(node.ops[0], ast.Eq | ast.Is) else not same
            self._charge(_plain(left), _plain(right))
            return pyeval._compare(node.ops[0], left, right)
        return super().evaluate(node)

    def _walk_module(self, text: str, path: str, namespace: dict[str, Any], shown: str | None = None) -> None:
        """A module's body, in its namespace; `shown`: its file as a traceback names it (`path`)."""
        tree = _compiled(text, path)
        shown = shown or path
        self.sources[shown] = text
        saved = (self.names, self.module, self.enclosing, self.local_names, self.future_annotations, self.filename,
                 self.frame_name)
        self.names, self.module, self.enclosing, self.local_names = namespace, namespace, [], None
        self.future_annotations, self.filename, self.frame_name = False, shown, "<module>"
        try:
            self._block(tree.body)
        except _Jump:
            raise Unknown("return outside a function") from None
        except PythonError as error:  # (importlib's own frames are not shown: the importer's come next)
            error.frames.append((shown, "<module>", error.where))
            error.where = None
            raise
        except FAILED:
            raise Unknown("an error of the walker's own") from None
        finally:
            self.names, self.module, self.enclosing, self.local_names, self.future_annotations, self.filename, \
                self.frame_name = saved
