"""The desktop as Qwen-AgentWorld was trained on it (agentworld.md in this folder is the table):
actions are Python code (pyautogui) and the observation is the accessibility tree, as ours is. A
click on a node by name becomes a click at the centre of its bounds on the screen it was taken on."""

from __future__ import annotations

import json

from mcp_world.rules import Call, FormatError, TrainedAction

from .state import find
from .tree import parse_tree


def action(call: Call, tree: str) -> TrainedAction:
    q = lambda value: json.dumps(str(value), ensure_ascii=False)  # noqa: E731 - a Python string literal
    a = call.arguments
    if call.tool == "desktop_click":
        target = str(a.get("target", ""))
        try:
            node = find(parse_tree(tree), target) if tree.strip() else None
        except FormatError:
            node = None
        if node is None:
            return TrainedAction(f"pyautogui.click()  # on {q(target)}, which the screen does not show", "python")
        x, y, w, h = node.bounds
        return TrainedAction(f"pyautogui.click({x + w // 2}, {y + h // 2})", "python")
    if call.tool == "desktop_type":
        return TrainedAction(f"pyautogui.write({q(a.get('text', ''))})", "python")
    if call.tool == "desktop_hotkey":
        keys = [k.lower() for k in str(a.get("keys", "")).split("+") if k]
        code = f"pyautogui.press({q(keys[0])})" if len(keys) == 1 else \
            f"pyautogui.hotkey({', '.join(q(k) for k in keys)})"
        return TrainedAction(code, "python")
    return TrainedAction("time.sleep(1)", "python")  # desktop_get_tree: look again without acting
