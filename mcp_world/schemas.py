"""JSON-schema validation that no schema or argument can turn against the server.

* Patterns (`pattern`, `patternProperties`) run on RE2 (`google-re2`), which matches in linear
  time: `(a|aa)*c` against a long line of `a`s answers at once instead of freezing every client
  (Python's `re` backtracks, and holds the GIL while it does, so a thread does not help). A pattern
  RE2 cannot run (lookaround, backreferences) is refused in world files and mirrored schemas
  (`check_portable`); in a domain's own schemas, which are code the operator installed, it falls
  back to Python's `re`.
* References: only local ones (`#/...`). The registry retrieves nothing, so a schema that names a
  remote or `file://` reference cannot make the server fetch anything or wait on it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

import re2
from jsonschema import ValidationError, validators
from jsonschema.exceptions import SchemaError
from referencing import Registry
from referencing.exceptions import NoSuchResource

__all__ = ["check_portable", "compile_pattern", "validator"]


def _refuse(uri: str) -> Any:
    raise NoSuchResource(ref=uri)


_REGISTRY: Registry = Registry(retrieve=_refuse)  # type: ignore[call-arg]


_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a refused pattern is reported to whoever gave it, not to the server's stderr
_OPTIONS.max_mem = 8 << 20  # a compiled pattern's memory: 8 MiB


@functools.lru_cache(maxsize=4096)
def compile_pattern(pattern: str, trusted: bool = False) -> Any:
    """A compiled pattern that matches in linear time; Python's `re` only for trusted patterns RE2
    cannot run. re2.error / re.error when it does not compile."""
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error:
        if not trusted:
            raise
        return re.compile(pattern)


def _pattern(trusted: bool):
    def check(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
        if not validator.is_type(instance, "string"):
            return
        try:
            rx = compile_pattern(pattern, trusted)
        except (re2.error, re.error):
            yield ValidationError(f"the schema's pattern {pattern!r} cannot be checked")
            return
        if not rx.search(instance):
            yield ValidationError(f"{instance[:200]!r} does not match {pattern!r}")
    return check


def _pattern_properties(trusted: bool):
    def check(validator: Any, patterns: dict[str, Any], instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
        if not validator.is_type(instance, "object"):
            return
        for pattern, subschema in patterns.items():
            try:
                rx = compile_pattern(pattern, trusted)
            except (re2.error, re.error):
                yield ValidationError(f"the schema's pattern {pattern!r} cannot be checked")
                continue
            for key, value in instance.items():
                if rx.search(key):
                    yield from validator.descend(value, subschema, path=key, schema_path=pattern)
    return check


@functools.lru_cache(maxsize=64)
def _extended(base: type, trusted: bool) -> type:
    return validators.extend(base, {"pattern": _pattern(trusted), "patternProperties": _pattern_properties(trusted)})


def validator(schema: dict[str, Any], trusted: bool = False) -> Any:
    """A validator for `schema` (its own draft) with linear-time patterns and no reference retrieval."""
    base = validators.validator_for(schema)
    return _extended(base, trusted)(schema, registry=_REGISTRY)


def check_portable(schema: dict[str, Any]) -> None:
    """Refuse (ValueError) what a schema from a world file or an upstream server may not contain:
    references beyond the schema itself and patterns RE2 cannot run; SchemaError-invalid schemas too."""
    try:
        validators.validator_for(schema).check_schema(schema)
    except SchemaError as err:
        raise ValueError(f"not a valid JSON schema: {err.message}") from None
    for key, value in _walk(schema):
        if key == "$ref" and isinstance(value, str) and not value.startswith("#"):
            raise ValueError(f"$ref {value!r} points outside the schema; only local references (#/...) are accepted")
        if key in ("pattern",) and isinstance(value, str):
            _linear(value)
        if key == "patternProperties" and isinstance(value, dict):
            for p in value:
                _linear(p)


def _linear(pattern: str) -> None:
    try:
        compile_pattern(pattern)
    except re2.error as err:
        raise ValueError(f"pattern {pattern!r} is not accepted: it needs a backtracking engine ({err}); "
                         "use RE2 syntax (no lookaround, no backreferences)") from None


def _walk(node: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for k, v in node.items():
            yield k, v
            yield from _walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v)
