"""Classes for pyrun.py's walker: a project's classes defined, instantiated and used as Python
does — `__init__`, methods, class attributes, `@staticmethod`, `@classmethod`, `@property` (its
getter), single inheritance with `super()`, `@dataclass` (its `__init__`, `__repr__` and `__eq__`,
without options or `field()`), and an instance printed through its `__str__` or `__repr__`. Nothing
is run: class bodies and methods are walked like functions.

Left to the model (`Unknown`): metaclasses and class keywords, several bases, other decorators, an
instance printed without `__str__`/`__repr__` (an address), compared with `==` where its class
defines `__eq__` itself, or handed to Python's own functions (sorting, hashing, `in`).
"""

from __future__ import annotations

import ast
from typing import Any

from .pyvalues import FAILED, PythonError, Unknown, _Function, _Opaque, _printable

_BUILTIN_BASES = frozenset({"object"})
_DECORATORS = frozenset({"staticmethod", "classmethod", "property"})


class _UserClass(_Opaque):
    """A class the project defines: its name, its one base (or none), its namespace."""

    def __init__(self, name: str, base: _UserClass | None, names: dict[str, Any]) -> None:
        self.name, self.base, self.names = name, base, names
        self.fields: list[tuple[str, Any]] | None = None  # (a dataclass's fields, with their defaults)

    def mro(self) -> list[_UserClass]:
        out, cls = [], self
        while cls is not None:
            out.append(cls)
            cls = cls.base
        return out

    def lookup(self, name: str, after: _UserClass | None = None) -> Any:
        """The attribute as the class's bases give it (past `after`, for `super()`); KeyError where none has it."""
        chain = self.mro()
        if after is not None:
            chain = chain[chain.index(after) + 1:]
        for cls in chain:
            if name in cls.names:
                return cls.names[name]
        raise KeyError(name)


class _Instance(_Opaque):
    def __init__(self, cls: _UserClass) -> None:
        self.cls = cls
        self.attrs: dict[str, Any] = {}


class _Wrapped(_Opaque):
    """`@staticmethod`, `@classmethod` or `@property` around a function."""

    def __init__(self, kind: str, func: Any) -> None:
        self.kind, self.func = kind, func


class _Bound(_Function):
    """A method taken from an instance (or a class method from its class): the function and what
    comes first in its arguments."""

    def __init__(self, func: Any, first: Any) -> None:
        super().__init__("bound")
        self.func, self.first = func, first


class _Super(_Opaque):
    def __init__(self, owner: _UserClass, obj: Any) -> None:
        self.owner, self.obj = owner, obj


class Classes:
    """What pyrun's walker does with classes (mixed into it: `self` is the walker)."""

    current: tuple[_UserClass, Any] | None = None  # (the method being walked: its class, its first argument)

    def _class(self, node: ast.ClassDef) -> None:
        if self._define_exception(node):  # type: ignore[attr-defined]
            return
        if node.keywords or len(node.bases) > 1 or getattr(self, "local_names", None) is not None:
            raise Unknown("a class this walker does not follow")
        dataclass = False
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) and not decorator.args and \
                not decorator.keywords else decorator
            if not self._is_dataclass(self.evaluate(target)):  # type: ignore[attr-defined]
                raise Unknown("a class decorator")
            dataclass = True
        base = None
        if node.bases:
            found = self.evaluate(node.bases[0])  # type: ignore[attr-defined]
            if isinstance(found, _UserClass):
                base = found
            elif not (isinstance(node.bases[0], ast.Name) and node.bases[0].id in _BUILTIN_BASES and
                      isinstance(found, _Function) and found.kind == "builtin"):
                raise Unknown("a base this walker does not follow")
        names: dict[str, Any] = {"__module__": self.module.get("__name__"), "__qualname__": node.name}  # type: ignore[attr-defined]
        cls = _UserClass(node.name, base, names)
        saved = self.names  # type: ignore[has-type]
        self.names = names  # (the class body's own namespace; its methods do not see it)
        try:
            for statement in node.body:
                self._class_statement(statement, cls)
        except FAILED:
            raise Unknown("an error in a class body (its traceback shows its lines)") from None
        finally:
            self.names = saved
        if "__init_subclass__" in names or "__set_name__" in names or any(
                "__init_subclass__" in c.names for c in cls.mro()[1:]):
            raise Unknown("a class hook")
        if dataclass:
            self._make_dataclass(node, cls)
        elif base is not None and base.fields is not None:
            cls.fields = base.fields  # (a dataclass's subclass: its __init__, __repr__ and __eq__ are inherited)
        self.names[node.name] = cls

    def _class_statement(self, node: ast.stmt, cls: _UserClass) -> None:
        if isinstance(node, ast.FunctionDef):
            wrap = None
            for decorator in node.decorator_list:
                if not isinstance(decorator, ast.Name) or decorator.id not in _DECORATORS or wrap or \
                        decorator.id in self.names or decorator.id in self.module:  # type: ignore[attr-defined]
                    raise Unknown("a method decorator")
                wrap = decorator.id
            plain = ast.FunctionDef(name=node.name, args=node.args, body=node.body, decorator_list=[],
                                    returns=node.returns, type_comment=None)
            ast.copy_location(plain, node)
            self._define(plain)  # type: ignore[attr-defined]
            func = self.names[node.name]
            func.owner = cls
            if wrap:
                self.names[node.name] = _Wrapped(wrap, func)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.simple:
            if "ClassVar" in ast.dump(node.annotation) or "InitVar" in ast.dump(node.annotation):
                raise Unknown("ClassVar")
            self.execute(node)  # type: ignore[attr-defined]
            self.names.setdefault("__annotations__", {})[node.target.id] = \
                self.names.get(node.target.id, _NO_DEFAULT) if node.value is not None else _NO_DEFAULT
        elif isinstance(node, ast.Assign | ast.Pass) or \
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            self.execute(node)  # type: ignore[attr-defined]
        else:
            raise Unknown("a class body statement")

    def _is_dataclass(self, value: Any) -> bool:
        return isinstance(value, _Function) and value.kind == "opaque" and value.what == ("dataclasses", "dataclass")

    def _make_dataclass(self, node: ast.ClassDef, cls: _UserClass) -> None:
        """`@dataclass`: the fields are the annotated names, in order (a base dataclass's first)."""
        if any(n in cls.names for n in ("__init__", "__repr__", "__eq__")):
            raise Unknown("a dataclass that defines what @dataclass writes")
        fields = list(cls.base.fields or []) if cls.base is not None else []
        if cls.base is not None and cls.base.fields is None:
            raise Unknown("a dataclass whose base is not one")
        for name, default in cls.names.get("__annotations__", {}).items():
            if isinstance(default, _Opaque | _Function) or isinstance(default, list | dict):
                raise Unknown("a field default @dataclass refuses or shares")
            fields = [f for f in fields if f[0] != name] + [(name, default)]
        seen_default = False
        for _, default in fields:
            if default is _NO_DEFAULT and seen_default:
                raise Unknown("TypeError: non-default argument follows default argument")
            seen_default = seen_default or default is not _NO_DEFAULT
        cls.fields = fields

    def _instantiate(self, cls: _UserClass, args: list[Any], kwargs: dict[str, Any]) -> _Instance:
        obj = _Instance(cls)
        try:
            init = cls.lookup("__init__")
        except KeyError:
            init = None
        if init is None and cls.fields is not None:
            if len(args) > len(cls.fields):
                raise Unknown("TypeError")
            given = dict(zip([f[0] for f in cls.fields], args))
            for name, value in kwargs.items():
                if name in given or name not in dict(cls.fields):
                    raise Unknown("TypeError")
                given[name] = value
            for name, default in cls.fields:
                if name not in given and default is _NO_DEFAULT:
                    raise Unknown("TypeError: a missing argument")
                obj.attrs[name] = given.get(name, default)
        elif init is None:
            if args or kwargs:
                raise Unknown("TypeError: the class takes no arguments")
        else:
            if not hasattr(init, "node") or self._invoke(init, [obj, *args], kwargs) is not None:  # type: ignore[attr-defined]
                raise Unknown("__init__")
        return obj

    def _class_attribute(self, value: Any, name: str) -> Any:
        """An attribute read from an instance, a class or `super()`: what the project's classes
        define (a dunder only where one of them defines it: `__dict__`, `__class__`… are the model's)."""
        if isinstance(value, _Super):
            try:
                found = value.obj.cls.lookup(name, after=value.owner) if isinstance(value.obj, _Instance) else \
                    value.obj.lookup(name, after=value.owner)
            except (KeyError, ValueError):
                if name == "__init__":
                    return _Function("object_init")  # (object's: takes nothing, does nothing)
                raise Unknown(f"AttributeError: {name}") from None
            return self._bind_to(found, value.obj)
        if isinstance(value, _Instance):
            if name in value.attrs:
                return value.attrs[name]
            try:
                return self._bind_to(value.cls.lookup(name), value)
            except KeyError:
                raise Unknown(f"AttributeError: {name}") from None
        if name == "__name__" or name == "__qualname__":
            return value.name
        try:
            found = value.lookup(name)
        except KeyError:
            raise Unknown(f"AttributeError: {name}") from None
        if isinstance(found, _Wrapped):
            if found.kind == "property":
                raise Unknown("a property of the class")
            return found.func if found.kind == "staticmethod" else _Bound(found.func, value)
        return found

    def _bind_to(self, found: Any, obj: Any) -> Any:
        """An attribute found on the class, as reading it from `obj` gives it."""
        cls = obj.cls if isinstance(obj, _Instance) else obj
        if isinstance(found, _Wrapped):
            if found.kind == "staticmethod":
                return found.func
            if found.kind == "classmethod":
                return _Bound(found.func, cls)
            if not isinstance(obj, _Instance):
                raise Unknown("a property of the class")
            return self._invoke(found.func, [obj], {})  # type: ignore[attr-defined]
        if hasattr(found, "node") and isinstance(obj, _Instance):
            return _Bound(found, obj)  # (a function: a method)
        return found

    def _set_attribute(self, target: Any, name: str, value: Any) -> None:
        if isinstance(target, _Instance):
            try:
                if isinstance(target.cls.lookup(name), _Wrapped):
                    raise Unknown("a property set")
            except KeyError:
                pass
            target.attrs[name] = value
        elif isinstance(target, _UserClass):
            target.names[name] = value
        else:
            raise Unknown("attribute assignment")

    def _text(self, obj: _Instance, how: str) -> str:
        """What str() (or repr()) of an instance gives, through the methods its class defines."""
        for name in ("__str__", "__repr__") if how == "str" else ("__repr__",):
            try:
                method = obj.cls.lookup(name)
            except KeyError:
                continue
            said = self._invoke(method, [obj], {})  # type: ignore[attr-defined]
            if not isinstance(said, str):
                raise Unknown(f"{name} returned no string")
            return said
        if obj.cls.fields is not None:  # (a dataclass's repr)
            try:
                shown = [f"{n}={self._text_of(obj.attrs[n])}" for n, _ in obj.cls.fields]
                return f"{obj.cls.name}(" + ", ".join(shown) + ")"
            except PythonError:
                raise Unknown("an error in a field's repr (dataclasses' own frames come between)") from None
        raise Unknown("an instance printed: its address")

    def _text_of(self, value: Any) -> str:
        return self._text(value, "repr") if isinstance(value, _Instance) else repr(_printable(value))

    def _equal(self, left: Any, right: Any) -> bool:
        """`==` with an instance: a dataclass's fields, else the same object (no `__eq__` of its own)."""
        for side in (left, right):
            if isinstance(side, _Instance):
                try:
                    side.cls.lookup("__eq__")
                    raise Unknown("__eq__")
                except KeyError:
                    pass
        if isinstance(left, _Instance) and isinstance(right, _Instance) and left.cls.fields is not None:
            if left.cls is not right.cls:
                return False
            return all(self._equal(left.attrs[n], right.attrs[n]) if isinstance(left.attrs[n], _Instance) else
                       not isinstance(right.attrs[n], _Instance) and left.attrs[n] == right.attrs[n]
                       for n, _ in left.cls.fields)
        return left is right


class _NoDefault:
    def __repr__(self) -> str:
        return "<no default>"


_NO_DEFAULT = _NoDefault()
