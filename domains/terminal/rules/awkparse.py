"""The awk programs the terminal state walks (awk.py), read: tokens, then a tree of tuples by awk's
grammar as far as the walker goes. What is not written here (getline, functions of the program's
own, redirections, range patterns, `for (k in a)`, regular expressions with an escape) raises
`Unknown`, and the model answers."""

from __future__ import annotations

import re
from typing import Any

ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "/": "/", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
KEYWORDS = {"BEGIN", "END", "print", "printf", "if", "else", "for", "while", "next", "exit", "in"}
FUNCTIONS = {"length", "substr", "index", "toupper", "tolower", "split", "sub", "gsub", "sprintf", "int"}


class Unknown(Exception):
    """Not a program (or a text) this walker answers for."""


def tokens(src: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    i = 0
    while i < len(src):
        c = src[i]
        if c in " \t":
            i += 1
        elif c == "\\" and src[i + 1:i + 2] == "\n":
            i += 2
        elif c == "#":
            while i < len(src) and src[i] != "\n":
                i += 1
        elif c in "\n;":
            out.append(("nl" if c == "\n" else ";", c))
            i += 1
        elif c == '"':
            text, i = _string(src, i + 1)
            out.append(("str", text))
        elif c == "/" and not _after_operand(out):
            j = i + 1
            while j < len(src) and src[j] != "/":
                if src[j] in "\\\n":
                    raise Unknown("an escape in a regular expression")
                j += 1
            if j >= len(src):
                raise Unknown("an unclosed regular expression")
            out.append(("ere", src[i + 1:j]))
            i = j + 1
        elif c.isdigit() or c == "." and src[i + 1:i + 2].isdigit():
            m = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?").match(src, i)
            assert m is not None
            if src[m.end():m.end() + 1].isalpha() or src[m.end():m.end() + 1] == "_":
                raise Unknown("a number written another way")
            out.append(("num", float(m.group())))
            i = m.end()
        elif c.isalpha() or c == "_":
            m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").match(src, i)
            assert m is not None
            word = m.group()
            out.append((word if word in KEYWORDS else "func" if word in FUNCTIONS else "name", word))
            i = m.end()
        else:
            for op in ("+=", "-=", "*=", "/=", "%=", "^=", "==", "<=", ">=", "!=", "!~", "&&", "||", "++", "--",
                       "{", "}", "(", ")", "[", "]", ",", "+", "-", "*", "/", "%", "^", "!", ">", "<", "~", "?",
                       ":", "=", "$"):
                if src.startswith(op, i):
                    out.append((op, op))
                    i += len(op)
                    break
            else:
                raise Unknown(f"{c!r} in the program")
    out.append(("eof", None))
    return out


def _after_operand(out: list[tuple[str, Any]]) -> bool:
    return bool(out) and out[-1][0] in ("num", "str", "name", ")", "]", "++", "--", "ere") and \
        not (out[-1][0] in ("++", "--") and len(out) > 1 and out[-2][0] not in ("name", "]", ")"))


def _string(src: str, i: int) -> tuple[str, int]:
    text = []
    while i < len(src) and src[i] != '"':
        if src[i] == "\n":
            raise Unknown("a newline in a string")
        if src[i] == "\\":
            nxt = src[i + 1:i + 2]
            if nxt not in ESCAPES:
                raise Unknown("an escape written another way")
            text.append(ESCAPES[nxt])
            i += 2
        else:
            text.append(src[i])
            i += 1
    if i >= len(src):
        raise Unknown("an unclosed string")
    return "".join(text), i + 1


class Parser:
    """awk's grammar, as far as this walker goes: pattern-action items, statements, expressions by
    awk's precedence (assignment, ?:, ||, &&, in, ~, comparison, concatenation, + -, * / %, unary,
    ^, ++ --, $)."""

    def __init__(self, src: str) -> None:
        self.toks = tokens(src)
        self.i = 0
        self.in_print = 0  # (inside print's arguments, not in parentheses: > and | redirect)

    def peek(self, k: int = 0) -> str:
        return self.toks[min(self.i + k, len(self.toks) - 1)][0]

    def take(self, kind: str | None = None) -> Any:
        tok = self.toks[self.i]
        if kind is not None and tok[0] != kind:
            raise Unknown(f"expected {kind}, found {tok[0]}")
        self.i += 1
        return tok[1]

    def skip_ends(self) -> None:
        while self.peek() in ("nl", ";"):
            self.i += 1

    def skip_nl(self) -> None:
        while self.peek() == "nl":
            self.i += 1

    def program(self) -> list[tuple[Any, Any]]:
        items = []
        self.skip_ends()
        while self.peek() != "eof":
            if self.peek() in ("BEGIN", "END"):
                when = self.take()
                self.skip_nl()
                items.append((when, self.block()))
            else:
                pattern = None if self.peek() == "{" else self.expr()
                if self.peek() == ",":
                    raise Unknown("a range pattern")
                items.append((("pattern", pattern), self.block() if self.peek() == "{" else None))
            self.skip_ends()
        return items

    def block(self) -> list[Any]:
        self.take("{")
        body = []
        self.skip_ends()
        while self.peek() != "}":
            body.append(self.statement())
            self.skip_ends()
        self.take("}")
        return body

    def simple_end(self) -> None:
        if self.peek() in (";", "nl"):
            self.i += 1
        elif self.peek() not in ("}", "eof"):
            raise Unknown(f"{self.peek()} after a statement")

    def statement(self) -> Any:
        kind = self.peek()
        if kind == "{":
            return ("block", self.block())
        if kind == "if":
            self.take()
            self.take("(")
            cond = self.expr()
            self.take(")")
            self.skip_nl()
            then = self.statement()
            save = self.i
            self.skip_ends()
            if self.peek() == "else":
                self.take()
                self.skip_nl()
                return ("if", cond, then, self.statement())
            self.i = save
            return ("if", cond, then, None)
        if kind == "while":
            self.take()
            self.take("(")
            cond = self.expr()
            self.take(")")
            self.skip_nl()
            return ("for", None, cond, None, self.statement())
        if kind == "for":
            self.take()
            self.take("(")
            if self.peek() == "(" or self.peek() == "name" and self.peek(1) == "in":
                raise Unknown("for (key in array): each awk has its own order")
            init = None if self.peek() == ";" else self.expr()
            self.take(";")
            cond = None if self.peek() == ";" else self.expr()
            self.take(";")
            step = None if self.peek() == ")" else self.expr()
            self.take(")")
            self.skip_nl()
            return ("for", init, cond, step, self.statement())
        if kind in ("next", "exit"):
            self.take()
            code = self.expr() if kind == "exit" and self.peek() not in (";", "nl", "}", "eof") else None
            self.simple_end()
            return (kind, code)
        if kind in ("print", "printf"):
            self.take()
            self.in_print += 1
            args = []
            if self.peek() == "(" and self._parenthesized_list():
                self.take("(")
                self.in_print -= 1
                args = self.expr_list(")")
                self.take(")")
                self.in_print += 1
            elif self.peek() not in (";", "nl", "}", "eof"):
                args = self.expr_list(None)
            self.in_print -= 1
            if self.peek() in (">", "|"):
                raise Unknown("output sent elsewhere")
            self.simple_end()
            if kind == "printf" and not args:
                raise Unknown("printf without a format")
            return (kind, args)
        e = self.expr()
        self.simple_end()
        return ("expr", e)

    def _parenthesized_list(self) -> bool:
        """print (a, b) [end]: the parentheses hold print's whole list."""
        depth, j = 0, self.i
        while j < len(self.toks):
            kind = self.toks[j][0]
            depth += kind in ("(", "[")
            depth -= kind in (")", "]")
            if depth == 0:
                return self.toks[j + 1][0] in (";", "nl", "}", "eof", ">", "|")
            j += 1
        return False

    def expr_list(self, closing: str | None) -> list[Any]:
        out = [self.expr()]
        while self.peek() == ",":
            self.take()
            self.skip_nl()
            out.append(self.expr())
        return out

    def expr(self) -> Any:
        return self.assignment()

    def assignment(self) -> Any:
        left = self.ternary()
        if self.peek() in ("=", "+=", "-=", "*=", "/=", "%=", "^="):
            if left[0] not in ("var", "index", "field"):
                raise Unknown("an assignment to something else")
            op = self.take()
            return ("assign", op, left, self.assignment())
        return left

    def ternary(self) -> Any:
        cond = self.binary(0)
        if self.peek() == "?":
            self.take()
            self.skip_nl()
            a = self.ternary()
            self.skip_nl()
            self.take(":")
            self.skip_nl()
            return ("?", cond, a, self.ternary())
        return cond

    LEVELS = [("||",), ("&&",), ("in",), ("~", "!~"), ("<", "<=", "!=", "==", ">", ">="), ("concat",),
              ("+", "-"), ("*", "/", "%")]

    def binary(self, level: int) -> Any:
        if level == len(self.LEVELS):
            return self.unary()
        ops = self.LEVELS[level]
        if ops == ("concat",):
            left = self.binary(level + 1)
            while self.peek() in ("num", "str", "ere", "name", "func", "$", "(", "++", "--") and \
                    not (self.peek() == "name" and self.peek(1) == "in"):
                if self.peek() == "ere":
                    raise Unknown("a regular expression joined to text")
                left = ("concat", left, self.binary(level + 1))
            return left
        left = self.binary(level + 1)
        while self.peek() in ops:
            if self.in_print and self.peek() == ">":
                return left  # (print's redirection: refused by the statement)
            op = self.take()
            if op in ("&&", "||"):
                self.skip_nl()
            if op == "in":
                left = ("in", left, self.take("name"))
                continue
            right = self.binary(level + 1)
            if ops[0] in ("<", "~") and self.peek() in ops:
                raise Unknown("comparisons in a row")
            left = (op, left, right)
        return left

    def unary(self) -> Any:
        kind = self.peek()
        if kind in ("!", "-", "+"):
            self.take()
            return ("neg" if kind == "-" else "not" if kind == "!" else "plus", self.unary())
        return self.power()

    def power(self) -> Any:
        base = self.postfix()
        if self.peek() == "^":
            self.take()
            return ("^", base, self.unary_power())
        return base

    def unary_power(self) -> Any:
        if self.peek() in ("-", "+", "!"):
            kind = self.take()
            return ("neg" if kind == "-" else "not" if kind == "!" else "plus", self.unary_power())
        return self.power()

    def postfix(self) -> Any:
        if self.peek() in ("++", "--"):
            op = self.take()
            target = self.primary()
            if target[0] not in ("var", "index", "field"):
                raise Unknown("++ of something else")
            return ("pre", op, target)
        e = self.primary()
        if self.peek() in ("++", "--") and e[0] in ("var", "index", "field"):
            return ("post", self.take(), e)
        return e

    def primary(self) -> Any:
        kind = self.peek()
        if kind == "num":
            return ("num", self.take())
        if kind == "str":
            return ("str", self.take())
        if kind == "ere":
            return ("ere", self.take())
        if kind == "$":
            self.take()
            if self.peek() in ("++", "--"):
                raise Unknown("$++")
            return ("field", self.primary() if self.peek() != "-" else self.unary())
        if kind == "(":
            self.take()
            saved, self.in_print = self.in_print, 0
            e = self.expr()
            if self.peek() == ",":
                raise Unknown("(a, b) in array")
            self.take(")")
            self.in_print = saved
            return ("group", e)
        if kind == "func":
            name = self.take()
            if self.peek() != "(":
                if name == "length":
                    return ("call", "length", [])
                raise Unknown(f"{name} without parentheses")
            self.take("(")
            saved, self.in_print = self.in_print, 0
            args = [] if self.peek() == ")" else self.expr_list(")")
            self.take(")")
            self.in_print = saved
            return ("call", name, args)
        if kind == "name":
            name = self.take()
            if name in ("getline", "system", "close", "delete", "fflush", "srand", "rand", "function", "func",
                        "match", "printf", "do", "break", "continue", "return", "nextfile", "ENVIRON", "FILENAME",
                        "RS", "ARGV", "ARGC", "RSTART", "RLENGTH", "CONVFMT", "OFMT", "SUBSEP"):
                raise Unknown(f"{name}: not walked here")
            if self.peek() == "[":
                self.take()
                subscript = self.expr()
                if self.peek() == ",":
                    raise Unknown("a subscript of several parts")
                self.take("]")
                return ("index", name, subscript)
            if self.peek() == "(":
                raise Unknown("a function of the program's own")
            return ("var", name)
        raise Unknown(f"{kind} where a value was expected")
