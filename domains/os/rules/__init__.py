"""The os domain: a desktop seen through its accessibility tree. Typing into the focused field,
flipping a toggle and moving the focus are answered from the state (state.py); everything an
application does in reply is predicted under the tree's grammar (tree.py). Under the instruct
dialect the model sees the screen whole and writes the new tree with unchanged subtrees elided."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from mcp_world.rules import MAX_BOXES, Box, Call, FormatError, Moment, Parsed, Picture, Rules, TrainedAction, short

from . import checks as task_checks
from . import state, trained
from .tree import DEFAULT_ROOT, TreeOutput, _paths, elide, expand, parse_tree, render_tree, tree_structured


class DesktopSeed(BaseModel):
    """The os domain's seed: the screen and the accessibility tree shown at the start."""

    model_config = ConfigDict(extra="forbid")
    width: int = Field(default=1920, ge=320, le=10000)
    height: int = Field(default=1080, ge=240, le=10000)
    tree: str  # one node per line, indented by depth (DESIGN.md, os observations)
    # What menus show when they open, by `window > menu` (`window > menu > submenu` for one inside
    # another): their items as tree lines, indented from the first column. A click on one opens it
    # from the state, as a menu the episode has seen opens again.
    menus: dict[str, str] = Field(default_factory=dict, max_length=state.MAX_MENUS)
    notes: str = ""

    @field_validator("tree")
    @classmethod
    def _a_tree(cls, value: str) -> str:
        try:
            parse_tree(value)
        except FormatError as err:
            raise ValueError(f"seed.os.tree is not an accessibility tree: {err}") from None
        return value

    @model_validator(mode="after")
    def _declared_menus(self) -> DesktopSeed:
        self.menu_keys()  # every key names a menu of the tree, every value is its items
        return self

    def menu_keys(self) -> dict[str, str]:
        """The declared menus as the state keeps them (state.remember_menus): by each menu's path."""
        nodes = parse_tree(self.tree)
        paths = _paths(nodes)
        out: dict[str, str] = {}
        for key, items in self.menus.items():
            names = [part.strip() for part in key.split(">")]
            if len(names) < 2 or not all(names) or len(key) > 300:
                raise ValueError(f"seed.os.menus: {key[:80]!r} is not `window > menu` (at most 300 characters): "
                                 "a window's name, then the menu's, as the tree names them")
            at = [k for k, p in enumerate(paths) if nodes[k].role == "menu" and len(p) > len(names) and
                  p[1][1] == names[0] and [name for role, name in p[2:] if role == "menu"] == names[1:]]
            if len(at) != 1:
                raise ValueError(f"seed.os.menus: {key!r} names {'no' if not at else 'more than one'} menu of "
                                 "seed.os.tree (a window's name, then the menu's, each as the tree writes it)")
            menu = nodes[at[0]]
            body = "\n".join("  " + line for line in items.strip("\n").split("\n"))
            try:
                lines = parse_tree(replace(menu, depth=0, states=[]).line() + "\n" + body)[1:]
            except FormatError as err:
                raise ValueError(f"seed.os.menus[{key!r}]: its items are not tree lines (the menu's own line "
                                 f"counted as line 1): {err}") from None
            out[state._menu_key(paths[at[0]])] = render_tree(
                [replace(menu, depth=0, states=[])] + [replace(x) for x in lines])
        return out


class DesktopRules(Rules):
    state_model = state.DesktopState
    seed_model = DesktopSeed
    checks = task_checks.CHECKS

    def seed(self, raw: Any) -> DesktopSeed | None:
        return DesktopSeed.model_validate(raw) if isinstance(raw, dict) else None

    def initial(self, world: Any) -> dict[str, Any]:
        seed = self.seed(world.seed.get("os"))
        tree = seed.tree.strip("\n") + "\n" if seed else DEFAULT_ROOT + "\n"
        # The world starts as its application has just opened it: an editor with the focus has the
        # caret at the start of its text (so had every recorded real one).
        caret = 0 if state.editor(parse_tree(tree)) is not None else None
        return state.DesktopState(tree=tree, menus=seed.menu_keys() if seed else {}, caret=caret).model_dump()

    def answer(self, doc: dict[str, Any], call: Call) -> Parsed | None:
        return state.answer(doc, call.tool, call.arguments)

    def apply(self, doc: dict[str, Any], call: Call, text: str, structured: dict[str, Any]) -> dict[str, Any]:
        return state.apply(doc, call.tool, call.arguments, text, structured)

    def summary(self, doc: dict[str, Any]) -> str:
        return state.summary(doc)

    def prefill(self, call: Call) -> str:
        return _TREE.prefill(call)

    def parse(self, raw: str, call: Call) -> Parsed:
        parsed = _TREE.parse(raw, call)
        before = str(call.state.get("tree") or "")
        nodes, typed = state.keep_untouched(parse_tree(parsed.text), before, call.tool, call.arguments)
        nodes, menus = state.keep_outside_menus(nodes, before, call.tool, call.arguments,
                                                dict(call.state.get("menus") or {}))
        nodes, closed = state.keep_menus_closed(nodes, before, call.tool, call.arguments,
                                                str(call.state.get("menu_focus") or ""))
        return Parsed(render_tree(nodes), tree_structured(nodes), True) if typed or menus or closed else parsed

    # The instruct dialect: each tree written against the screen before, unchanged subtrees elided
    # (tree.elide); the code puts them back (tree.expand).
    compact = True
    compact_screen = True
    compact_max_tokens = 450  # a cut answer is finished from the screen before (tree.expand)

    def compact_prefill(self, call: Call) -> str:
        return _TREE.prefill(call)

    def shown(self, text: str, call: Call, before: str = "") -> str:
        return elide(text, before or str(call.state.get("tree") or ""))

    def unshown(self, raw: str, call: Call) -> str:
        return expand(raw, str(call.state.get("tree") or ""), cut=call.truncated)[0]

    def picture(self, text: str, call: Call, where: str = "") -> Picture | None:
        """The tree as the desktop: each node a box at its bounds, the clicked target marked."""
        try:
            nodes = parse_tree(text)
        except FormatError:
            return None
        target = str(call.arguments.get("target") or "").lower() if call.tool == "desktop_click" else ""
        boxes = []
        for n in nodes[:MAX_BOXES]:
            x, y, w, h = n.bounds
            flags = tuple(n.states) + (("target",) if target and n.name.lower() == target else ())
            boxes.append(Box(x, y, w, h, short(n.name), short(n.role, 40), flags))
        root = nodes[0].bounds
        return Picture("screen", max(1, root[0] + root[2]), max(1, root[1] + root[3]), tuple(boxes))


    # Qwen-AgentWorld's format: pyautogui code in, the same tree out (trained.py, agentworld.md).
    def trained_action(self, call: Call, moment: Moment) -> TrainedAction:
        return trained.action(call, moment.screen or str(moment.state.get("tree", "")))

    def trained_screen(self, world: Any, doc: dict[str, Any], where: str = "") -> str:
        return str(doc.get("tree", ""))


_TREE = TreeOutput()
rules = DesktopRules()
