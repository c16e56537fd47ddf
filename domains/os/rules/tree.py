"""The os domain's observation: the desktop's accessibility tree (DESIGN.md: one node per line,
indented by depth: role, name, states, bounds), e.g.

    desktop "GNOME" (0, 0, 1920, 1080)
      frame "notes.txt - Text Editor" [active] (0, 32, 960, 1048)
        push button "Save" [enabled, focusable] (880, 40, 72, 32)
        text "buy milk" [editable, focused, multi-line] (0, 80, 960, 1000)

Roles are AT-SPI role names (lower case, words separated by spaces); a name is a double-quoted
string with `\\"`, `\\\\` and `\\n` escapes (editable text shows its contents as its name); states,
when any, are a bracketed comma-separated list; bounds are `(x, y, width, height)` in screen pixels.
Two spaces per level; one root.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from mcp_world.rules import Call, FormatError, Parsed

_LINE = re.compile(
    r'^(?P<indent>(?:  )*)(?P<role>[a-z][a-z ]*[a-z]) "(?P<name>(?:[^"\\\n]|\\.)*)"'
    r"(?: \[(?P<states>[a-z][a-z, -]*)\])? \((?P<x>-?\d+), (?P<y>-?\d+), (?P<w>\d+), (?P<h>\d+)\)$")
DEFAULT_ROOT = 'desktop "Desktop" (0, 0, 1920, 1080)'


@dataclass
class Node:
    depth: int
    role: str
    name: str
    states: list[str]
    bounds: tuple[int, int, int, int]

    def line(self) -> str:
        states = f" [{', '.join(self.states)}]" if self.states else ""
        x, y, w, h = self.bounds
        return f'{"  " * self.depth}{self.role} "{quote(self.name)}"{states} ({x}, {y}, {w}, {h})'

    def contains(self, px: int, py: int) -> bool:
        x, y, w, h = self.bounds
        return x <= px < x + w and y <= py < y + h


def quote(name: str) -> str:
    return json.dumps(name, ensure_ascii=False)[1:-1]


def _unquote(name: str) -> str:
    try:
        return json.loads(f'"{name}"')
    except ValueError:
        return name


def parse_tree(text: str) -> list[Node]:
    """The nodes of a tree, or FormatError saying which line is wrong and what is accepted."""
    nodes: list[Node] = []
    for n, line in enumerate(text.strip("\n").split("\n"), 1):
        m = _LINE.match(line.rstrip())
        if not m:
            raise FormatError(f'line {n} is not a node `role "name" [states] (x, y, width, height)` '
                              f"indented two spaces per level: {line[:100]!r}")
        depth = len(m.group("indent")) // 2
        if not nodes and depth:
            raise FormatError("the tree's first line is its root, not indented")
        if nodes and depth == 0:
            raise FormatError(f"line {n} is a second root; a tree has one")
        if nodes and depth > nodes[-1].depth + 1:
            raise FormatError(f"line {n} is indented more than one level below the line above")
        states = [s.strip() for s in (m.group("states") or "").split(",") if s.strip()]
        nodes.append(Node(depth, m.group("role"), _unquote(m.group("name")), states,
                          (int(m.group("x")), int(m.group("y")), int(m.group("w")), int(m.group("h")))))
    return nodes


def render_tree(nodes: list[Node]) -> str:
    return "".join(n.line() + "\n" for n in nodes)


def tree_structured(nodes: list[Node]) -> dict:
    focused = next((n.name for n in nodes if "focused" in n.states), None)
    active = next((n.name for n in nodes if n.depth == 1 and "active" in n.states), None)
    return {"node_count": len(nodes), "windows": [n.name for n in nodes if n.depth == 1],
            "active_window": active, "focused": focused}


class TreeOutput:
    def prefill(self, call: Call) -> str:
        # The root (the desktop itself) stays the same all episode; the domain's grammar continues it.
        tree = call.state.get("tree") or DEFAULT_ROOT
        return tree.split("\n", 1)[0] + "\n"

    def parse(self, raw: str, call: Call) -> Parsed:
        text = raw.replace("\r\n", "\n")
        fence = re.fullmatch(r"\s*```[a-z]*\n(.*?)\n?```\s*", text, re.S)
        if fence:
            text = fence.group(1)
        root = self.prefill(call)
        if not text.startswith(root.rstrip("\n")):
            text = root + text.lstrip("\n")
        lines = text.strip("\n").split("\n")
        repaired = False
        if call.truncated and len(lines) > 1 and not _LINE.match(lines[-1]):
            lines.pop()  # the node being written when the answer was cut off
            repaired = True
        nodes = parse_tree("\n".join(lines))
        if len(nodes) < 2:
            raise FormatError("the tree has only its root; a desktop shows at least one window or panel")
        return Parsed(render_tree(nodes), tree_structured(nodes), repaired)
