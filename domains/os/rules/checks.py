"""The desktop's success checks, read from the desktop state (the last tree, typed text, keys, switches)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mcp_world.errors import FormatError
from mcp_world.rules import Check, EpisodeView, TypedText

from .state import find
from .tree import parse_tree


def _nodes(tree: str) -> list:
    try:
        return parse_tree(tree) if tree else []
    except FormatError:
        return []


class Toggle(Check):
    """A check box or switch is on or off: as last clicked, else as the last tree shows it."""

    kind: Literal["toggle"]
    name: str = Field(min_length=1)
    on: bool

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        s = self.state(episode)
        clicked = {k.lower(): v for k, v in s.get("toggles", {}).items()}
        value, where = clicked.get(self.name.lower()), "as last clicked"
        if value is None:
            node = find(_nodes(s.get("tree", "")), self.name)
            value, where = (None if node is None else "checked" in node.states), "in the last tree"
        if value is None:
            return False, f"no control {self.name!r} was clicked or is in the last tree"
        return value == self.on, f"{self.name} is {'on' if value else 'off'} ({where})"


class Typed(TypedText):
    """Everything the agent typed on the desktop, in order, contains this."""

    kind: Literal["typed"]


class Hotkey(Check):
    """A key combination was pressed (`ctrl+s`; case and spaces ignored)."""

    kind: Literal["hotkey"]
    keys: str = Field(min_length=1)

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        def norm(k: str) -> str:
            return k.replace(" ", "").lower()

        pressed = self.state(episode).get("hotkeys", [])
        return norm(self.keys) in map(norm, pressed), f"keys pressed: {', '.join(pressed[-8:]) or 'none'}"


class TreeContains(Check):
    """The last accessibility tree has a node named like this (a window, a dialog, a cell's value);
    with `absent: true`, it must not."""

    kind: Literal["tree_contains"]
    name: str = Field(min_length=1)
    absent: bool = False

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        nodes = _nodes(self.state(episode).get("tree", ""))
        hit = next((n for n in nodes if self.name.lower() in n.name.lower()), None)
        found = hit is not None
        return found != self.absent, (f"the tree has {hit.role} {hit.name!r}" if hit else f"no node named like {self.name!r}")


CHECKS = (Toggle, Typed, Hotkey, TreeContains)
