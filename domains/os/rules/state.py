"""The os domain's state: the desktop's current accessibility tree and what the agent did to it.

Answered from here (no model call): the tree of an unchanged desktop, text typed into the focused
editable node (it shows as that node's name, as the tree prints editable text), a click on a check
box or toggle (its `checked` state flips) and a click on an editable node (the focus moves there).
Opening, closing and everything an application does in reply is the world model's to predict.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mcp_world.rules import Parsed

from .tree import Node, parse_tree, render_tree, tree_structured

TOGGLES = ("check box", "toggle button", "check menu item", "radio button", "switch")


class DesktopState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tree: str = ""
    typed: list[str] = Field(default_factory=list)
    toggles: dict[str, bool] = Field(default_factory=dict)  # name -> checked
    hotkeys: list[str] = Field(default_factory=list)


def find(nodes: list[Node], target: str) -> Node | None:
    """The node a click means: `x,y` picks the deepest node there; otherwise a node's name (exact,
    then case-insensitive, then a unique substring)."""
    m = re.fullmatch(r"\s*\(?\s*(\d+)\s*,\s*(\d+)\s*\)?\s*", target)
    if m:
        px, py = int(m.group(1)), int(m.group(2))
        inside = [n for n in nodes if n.contains(px, py)]
        return max(inside, key=lambda n: n.depth) if inside else None
    for same in (lambda n: n.name == target, lambda n: n.name.lower() == target.strip().lower()):
        hit = next((n for n in nodes if same(n)), None)
        if hit is not None:
            return hit
    partial = [n for n in nodes if target.strip().lower() in n.name.lower()] if target.strip() else []
    return partial[0] if len(partial) == 1 else None


def answer(state: dict[str, Any], tool: str, arguments: dict[str, Any]) -> Parsed | None:
    s = DesktopState.model_validate(state)
    if not s.tree:
        return None
    nodes = parse_tree(s.tree)
    if tool == "desktop_get_tree":
        return Parsed(render_tree(nodes), tree_structured(nodes))
    if tool == "desktop_type":
        node = next((n for n in nodes if "focused" in n.states and "editable" in n.states), None)
        if node is None:
            return None
        node.name += str(arguments.get("text", ""))
        return Parsed(render_tree(nodes), tree_structured(nodes))
    if tool == "desktop_click":
        node = find(nodes, str(arguments.get("target", "")))
        if node is None:
            return None
        if node.role in TOGGLES:
            node.states = [x for x in node.states if x != "checked"] if "checked" in node.states \
                else node.states + ["checked"]
        elif "editable" in node.states:
            for n in nodes:
                n.states = [x for x in n.states if x != "focused"]
            node.states.append("focused")
        else:
            return None
        return Parsed(render_tree(nodes), tree_structured(nodes))
    return None


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
