"""The os domain's state: the desktop's current accessibility tree and what the agent did to it.

Answered from here (no model call): the tree of an unchanged desktop, a click on a check box (its
`checked` state flips, and it takes the focus) and a click on an editable node (the focus moves
there). Typing, opening, closing and everything an application does in reply is the world model's
to predict (`answer` says why).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mcp_world.rules import Parsed

from .tree import Node, parse_tree, render_tree, subtree_end, tree_structured

TOGGLES = ("check box", "toggle button", "check menu item", "radio button", "switch")  # apply() reads their state
CHECKS = ("check box", "switch")  # a click flips these, and nothing else (answer())


class DesktopState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tree: str = ""
    typed: list[str] = Field(default_factory=list)
    toggles: dict[str, bool] = Field(default_factory=dict)  # name -> checked
    hotkeys: list[str] = Field(default_factory=list)


def find(nodes: list[Node], target: str) -> Node | None:
    """The node a click means: `x,y` picks the deepest node there in the topmost window there (the
    later of two windows is drawn over the earlier); otherwise a node's name (exact, then
    case-insensitive, then a unique substring)."""
    m = re.fullmatch(r"\s*\(?\s*(\d+)\s*,\s*(\d+)\s*\)?\s*", target)
    if m:
        px, py = int(m.group(1)), int(m.group(2))
        top = max((i for i, n in enumerate(nodes) if n.depth == 1 and n.contains(px, py)), default=None)
        if top is None:
            return None
        inside = [n for n in nodes[top:subtree_end(nodes, top)] if n.contains(px, py)]
        return max(inside, key=lambda n: n.depth)
    for same in (lambda n: n.name == target, lambda n: n.name.lower() == target.strip().lower()):
        hit = next((n for n in nodes if same(n)), None)
        if hit is not None:
            return hit
    partial = [n for n in nodes if target.strip().lower() in n.name.lower()] if target.strip() else []
    return partial[0] if len(partial) == 1 else None


def _window_of(nodes: list[Node], node: Node) -> Node | None:
    i = next(k for k, n in enumerate(nodes) if n is node)
    return next((nodes[k] for k in range(i, -1, -1) if nodes[k].depth == 1), None)


def _menu_open(nodes: list[Node]) -> bool:
    """A menu is open: a menu node with its items showing under it, or a popup window of one."""
    return any(n.role == "menu" and i + 1 < len(nodes) and nodes[i + 1].depth > n.depth
               for i, n in enumerate(nodes))


def answer(state: dict[str, Any], tool: str, arguments: dict[str, Any]) -> Parsed | None:
    """What the state answers exactly (checked against real applications read through AT-SPI by
    benchmarks/state_vs_real.py): the tree of an unchanged desktop, and in the active window with
    no menu open, a click on a check box (its `checked` state flips and, focusable, it takes the
    focus) and a click on an editable node (the focus moves there). Typing is not answered: real text goes in at the caret, which the tree does
    not show, and applications answer it in ways of their own (a `*` in the title, a search's
    matches); a toggle button may be a calculator's key. Those are the model's to predict."""
    s = DesktopState.model_validate(state)
    if not s.tree:
        return None
    nodes = parse_tree(s.tree)
    if tool == "desktop_get_tree":
        return Parsed(render_tree(nodes), tree_structured(nodes))
    if tool != "desktop_click":
        return None
    node = find(nodes, str(arguments.get("target", "")))
    if node is None or "enabled" not in node.states and node.role in CHECKS or _menu_open(nodes):
        return None  # an open menu takes the click (it closes); a disabled box ignores it
    window = _window_of(nodes, node)
    if window is None or "active" not in window.states:
        return None  # a click in another window raises it (and a modal dialog refuses it)
    if node.role in CHECKS:
        node.states = [x for x in node.states if x != "checked"] if "checked" in node.states \
            else _sorted(node.states + ["checked"])
        if "focusable" not in node.states:
            return Parsed(render_tree(nodes), tree_structured(nodes))
    elif "editable" not in node.states:
        return None
    if "focused" not in node.states:
        for n in nodes:
            n.states = [x for x in n.states if x != "focused"]
        node.states = _sorted(node.states + ["focused"])
    return Parsed(render_tree(nodes), tree_structured(nodes))


def _sorted(states: list[str]) -> list[str]:
    """States in the order AT-SPI trees are written here (alphabetical, as the recorder writes them)."""
    return sorted(set(states))


def apply(state: dict[str, Any], tool: str, arguments: dict[str, Any], text: str,
          structured: dict[str, Any]) -> dict[str, Any]:
    s = DesktopState.model_validate(state)
    before = parse_tree(s.tree) if s.tree else []
    s.tree = text
    if tool == "desktop_type":
        s.typed.append(str(arguments.get("text", "")))
    elif tool == "desktop_hotkey":
        s.hotkeys.append(str(arguments.get("keys", "")))
    elif tool == "desktop_click":
        node = find(before, str(arguments.get("target", "")))
        if node is not None and node.role in TOGGLES:
            after = next((n for n in parse_tree(text) if n.name == node.name and n.role == node.role), None)
            if after is not None:
                s.toggles[node.name] = "checked" in after.states
    return s.model_dump()


def summary(state: dict[str, Any]) -> str:
    s = DesktopState.model_validate(state)
    info = tree_structured(parse_tree(s.tree)) if s.tree else {}
    parts = [f"windows: {', '.join(info.get('windows') or []) or '(none)'}"]
    if info.get("active_window"):
        parts.append(f"active: {info['active_window']}")
    if info.get("focused"):
        parts.append(f"focus on {info['focused'][:80]!r}")
    if s.toggles:
        parts.append("toggles: " + ", ".join(f"{k} {'on' if v else 'off'}" for k, v in s.toggles.items()))
    if s.typed:
        parts.append("typed so far: " + ", ".join(repr(t) for t in s.typed[-5:]))
    if s.hotkeys:
        parts.append("keys pressed: " + ", ".join(s.hotkeys[-5:]))
    return "; ".join(parts)
