"""The android domain: every action returns the screen's uiautomator dump. The state keeps the
last screen, the screens BACK returns to, the foreground package, what was typed and the switches
flipped, so a dump of an unchanged screen, a switch tapped by name, text typed into the focused
field and BACK are answered from it. The instruct dialect shows screens to the world model, and
asks for the next one, as an outline (outline.py); the code writes the dump around it."""

from __future__ import annotations

import json
from typing import Any, Literal

from lxml import etree
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from mcp_world.rules import (MAX_BOXES, Box, Call, Check, EpisodeView, FormatError, Moment, Parsed, Picture, Rules,
                             TrainedAction, TypedText, short)

from . import outline
from .outline import XML_DECLARATION

BACK_DEPTH = 8  # screens BACK can return to
APPS_KEPT = 12  # apps whose last screen a launch returns to


class AndroidState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    package: str = ""
    screen: str = ""  # the last dump
    typed: list[str] = Field(default_factory=list)
    toggles: dict[str, bool] = Field(default_factory=dict)
    back: list[str] = Field(default_factory=list, max_length=BACK_DEPTH)  # the screens BACK returns to, the last on top
    launcher: str = ""  # the home screen's package (the world's seed.android.launcher_package)
    # package -> the screen launching it shows: the world's declared start screen, then the screen
    # it was left on (Android brings an app's task back as it was)
    apps: dict[str, str] = Field(default_factory=dict)
    # "package > label" -> the page a tap on that row, tab or button of the app opens (declared)
    pages: dict[str, str] = Field(default_factory=dict)
    icons: dict[str, str] = Field(default_factory=dict)  # a home icon's label -> the declared app it opens


def _norm(label: str) -> str:
    return " ".join(label.split()).lower()


def page_key(package: str, label: str) -> str:
    """The key of a declared page: the app, and the label of the row, tab or button that opens it."""
    return f"{package} > {_norm(label)}"


class AndroidSeed(BaseModel):
    """`seed.android` in a world file. `screens` declares what apps show when launched, by package
    (`home`: the launcher's home screen), and what a tap opens, by `package > label` (the row, tab
    or button tapped, e.g. `com.android.settings > Network & internet`), each as an outline
    (outline.py: `row "Network & internet" "Mobile, Wi-Fi, hotspot"`, one element a line) or a
    uiautomator dump; launching a declared app, HOME, the first dump and a tap on a declared page's
    label are then answered from the state, exactly as the world says."""

    model_config = ConfigDict(extra="allow")  # other keys (settings, the start screen's name) describe the phone
    launcher_package: str = ""
    screens: dict[str, str] = Field(default_factory=dict)

    @field_validator("screens")
    @classmethod
    def _screens(cls, value: dict[str, str]) -> dict[str, str]:
        for key, text in value.items():
            package, _, label = key.partition(">")
            if key != "home" and not (outline.PACKAGE.fullmatch(package.strip()) and (not _ or label.strip())
                                      and len(key) <= 300):
                raise ValueError(f"seed.android.screens: {key!r} is not `home`, a package name (com.example.app) "
                                 "or a package and the label a tap opens the page from (com.example.app > Sign in), "
                                 "at most 300 characters")
            problem = outline.check(text)
            if problem:
                raise ValueError(f"seed.android.screens.{key}: {problem}")
        return value

    @model_validator(mode="after")
    def _home(self) -> "AndroidSeed":
        if "home" in self.screens and not self.launcher_package:
            raise ValueError("seed.android.screens.home needs launcher_package (the home screen's app, "
                             "e.g. com.google.android.apps.nexuslauncher)")
        return self

    def dumps(self) -> tuple[dict[str, str], dict[str, str]]:
        """The declared screens as dumps: the apps' start screens by package, and the pages by
        `page_key`."""
        apps, pages = {}, {}
        for key, text in self.screens.items():
            package, _, label = (self.launcher_package, "", "") if key == "home" else key.partition(">")
            package = package.strip()
            dump = text.strip() if text.lstrip().startswith("<") else outline.dump(outline.parse(text), "", package)
            if label:
                pages[page_key(package, label)] = dump
            else:
                apps[package] = dump
        return apps, pages


_DUMP_HEAD = XML_DECLARATION + '<hierarchy rotation="0">'


class _Dump:
    def prefill(self, call: Call) -> str:
        # The android domain's grammar (domains/android/grammar.gbnf) continues from here.
        return _DUMP_HEAD

    def parse(self, raw: str, call: Call) -> Parsed:
        text = raw.strip()
        if not text.startswith("<?xml"):
            text = self.prefill(call) + raw
        text = text.strip()
        repaired = False
        try:
            root = etree.fromstring(text.encode("utf-8"))
        except etree.XMLSyntaxError as strict_err:
            parser = etree.XMLParser(recover=True)
            root = etree.fromstring(text.encode("utf-8"), parser)
            if root is None or not call.truncated:
                raise FormatError(f"the answer is not well-formed XML: {strict_err}") from None
            repaired = True
        if root.tag != "hierarchy":
            raise FormatError(f"the root element is <{root.tag}>, not <hierarchy>")
        if repaired:
            # Cut at max_tokens: the node being written when the answer stopped is incomplete; drop it
            # (and only it, and its ancestors' unfinished tails), as closing the document does.
            for n in reversed(root.findall(".//node")):
                if "class" in n.attrib and outline.BOUNDS.match(n.get("bounds", "")):
                    break
                n.getparent().remove(n)
        nodes = root.findall(".//node")
        if not nodes:
            raise FormatError("the hierarchy has no <node> elements")
        for n in nodes:
            if "class" not in n.attrib or not outline.BOUNDS.match(n.get("bounds", "")):
                raise FormatError(
                    f"a node lacks a class or has malformed bounds ({n.get('bounds')!r}); "
                    f'bounds must look like "[0,0][1080,2400]"'
                )
        if repaired:
            text = XML_DECLARATION + etree.tostring(root, encoding="unicode")
        package = nodes[0].get("package", "")
        # what can be tapped, by name: a row's name is its first text
        clickable = [next((d.get("text") or d.get("content-desc") for d in n.iter("node")
                           if d.get("text") or d.get("content-desc")), "") for n in nodes if n.get("clickable") == "true"]
        return Parsed(text, {"package": package, "node_count": len(nodes),
                             "clickable": [c for c in clickable if c][:50]}, repaired)




def android_answer(state: dict[str, Any], tool: str, arguments: dict[str, Any]) -> str | None:
    s = AndroidState.model_validate(state)
    if not s.screen:
        return None
    if tool == "android_dump_ui":
        return s.screen
    if tool == "android_tap" and "target" in arguments:
        toggled = _toggle(s.screen, str(arguments["target"]))
        if toggled is not None:
            return toggled
    if tool == "android_tap" and (s.pages or s.icons) and not _typing(s.screen):
        label = _tapped(s.screen, arguments)
        page = s.pages.get(page_key(s.package, label)) if label else None
        if page is not None:
            return _as_set(page, s.toggles)  # a page is made anew when opened: its switches show the settings
        package = s.icons.get(_norm(label), "") if s.package == s.launcher else ""
        if package in s.apps:
            return s.apps[package]  # a home icon launches its app: as declared, or as it was left
    if tool == "android_type":
        return _type_into(s.screen, str(arguments.get("text", "")))
    if tool == "android_press_key" and arguments.get("key") == "BACK" and s.back and not _typing(s.screen):
        return s.back[-1]  # the screen this one was opened from (with the keyboard up, BACK only hides it)
    if tool == "android_press_key" and arguments.get("key") == "HOME" and s.launcher in s.apps:
        return s.apps[s.launcher]
    if tool == "android_launch_app" and str(arguments.get("package", "")) in s.apps:
        return s.apps[str(arguments["package"])]  # its declared start screen, or where it was left
    return None


def _tapped(dump: str, arguments: dict[str, Any]) -> str:
    """The label of the row, tab, button or icon a tap hits on this screen (by its name, or at its
    coordinates), or ""."""
    o = outline.read(dump) if dump else None
    if o is None:
        return ""
    hits = [e for e in o.elements if e.kind in ("row", "tab", "button", "icon") and e.labels]
    if "target" in arguments:
        t = _norm(str(arguments["target"]))
        return next((e.labels[0] for e in hits if _norm(e.labels[0]) == t), "")
    x, y = int(arguments.get("x", -1)), int(arguments.get("y", -1))
    for e in hits:
        m = outline.BOUNDS.match(e.node.get("bounds", "")) if e.node is not None else None
        if m and int(m.group(1)) <= x < int(m.group(3)) and int(m.group(2)) <= y < int(m.group(4)):
            return e.labels[0]
    return ""


def _icons(apps: dict[str, str], home: str) -> dict[str, str]:
    """The home screen's icons that open a declared app: an icon labelled as the app's start screen
    is titled ("Settings" opens the app whose declared screen is titled "Settings")."""
    o = outline.read(home) if home else None
    labels = {_norm(e.labels[0]) for e in o.elements if e.kind == "icon" and e.labels} if o else set()
    out = {}
    for package, dump in apps.items():
        start = outline.read(dump)
        title = next((_norm(e.labels[0]) for e in start.elements if e.kind == "title" and e.labels), "") if start else ""
        if title in labels:
            out[title] = package
    return out


def _as_set(dump: str, toggles: dict[str, bool]) -> str:
    """A declared page with the switches the agent set shown as set."""
    root = _tree(dump) if toggles else None
    if root is None:
        return dump
    changed = False
    for name, on in toggles.items():
        switch = _switch_in(root, name)
        if switch is not None and (switch.get("checked") == "true") != on:
            _set(switch, on)
            changed = True
    return _serialize(dump, root) if changed else dump


def _typing(dump: str) -> bool:
    root = _tree(dump)
    return root is not None and any(n.get("focused") == "true" and "EditText" in (n.get("class") or "")
                                    for n in root.iter("node"))


def _screen_key(dump: str) -> tuple[str, tuple]:
    """What tells one screen from another: its app and its elements (not their states)."""
    o = outline.read(dump) if dump else None
    return ("", ()) if o is None else (o.package, tuple(e.key for e in o.elements))


def android_apply(state: dict[str, Any], tool: str, arguments: dict[str, Any], dump: str,
                  structured: dict[str, Any]) -> dict[str, Any]:
    s = AndroidState.model_validate(state)
    key = arguments.get("key") if tool == "android_press_key" else None
    if key == "BACK":
        if s.back and dump == s.back[-1]:
            s.back.pop()
    elif key == "HOME":
        s.back.clear()
    elif s.screen and _screen_key(s.screen) != _screen_key(dump):
        s.back = (s.back + [s.screen])[-BACK_DEPTH:]
    package = structured.get("package", s.package)
    if s.package and package != s.package and s.screen:  # left an app: launching it again comes back here
        s.apps.pop(s.package, None)  # re-inserted last: the apps left longest ago go first
        s.apps[s.package] = s.screen
        while len(s.apps) > APPS_KEPT:
            s.apps.pop(next(k for k in s.apps if k != s.launcher))
    s.screen = dump
    s.package = package
    if tool == "android_type":
        s.typed.append(str(arguments.get("text", "")))
    if tool == "android_tap" and "target" in arguments:
        node = _switch_for(dump, str(arguments["target"]))
        if node is not None:
            s.toggles[str(arguments["target"])] = node.get("checked") == "true"
    return s.model_dump()


def _tree(dump: str) -> Any:
    try:
        return etree.fromstring(dump.encode("utf-8"))
    except etree.XMLSyntaxError:
        return None


def _label(n: Any) -> str:
    return " ".join(((n.get("text") or "") + " " + (n.get("content-desc") or "")).split()).lower()


def _switch_for(dump: str, target: str) -> Any:
    root = _tree(dump)
    return None if root is None else _switch_in(root, target)


def _switch_in(root: Any, target: str) -> Any:
    """The switch (checkable node) of `root`'s tree that `target` names, or None."""
    t = target.strip().lower()
    for n in root.iter("node"):
        if n.get("checkable") == "true" and t and t in _label(n):
            return n
        if _label(n) == t:  # a label: the switch of its row, or the one switch beside it
            parent = n.getparent()
            around = [x for x in (n, parent, parent.getparent() if parent is not None else None)
                      if x is not None and x.tag == "node"]
            row = next((x for x in around if x.get("clickable") == "true"), None)
            if row is not None:  # a row's switch is in the row
                boxes = [x for x in row.iter("node") if x.get("checkable") == "true"]
            else:  # not in a row: its own, or a sibling's (not a switch further down the page)
                boxes = [x for x in n.iter("node") if x.get("checkable") == "true"] or \
                    [x for x in (parent if parent is not None else []) if x.get("checkable") == "true"]
            if len(boxes) == 1:
                return boxes[0]
    return None


def _toggle(dump: str, target: str) -> str | None:
    root = _tree(dump)
    if root is None:
        return None
    switch = _switch_in(root, target)
    if switch is None:
        return None
    _set(switch, switch.get("checked") != "true")
    return _serialize(dump, root)


def _set(switch: Any, on: bool) -> None:
    switch.set("checked", "true" if on else "false")
    if switch.get("text") in ("ON", "OFF"):
        switch.set("text", "ON" if on else "OFF")


def _type_into(dump: str, text: str) -> str | None:
    root = _tree(dump)
    if root is None:
        return None
    fields = [n for n in root.iter("node") if "EditText" in (n.get("class") or "")]
    target = next((n for n in fields if n.get("focused") == "true"), fields[0] if len(fields) == 1 else None)
    if target is None:
        return None
    target.set("text", (target.get("text") or "") + text if target.get("focused") == "true" and target.get("text")
               and target.get("text") not in ("", target.get("hint") or "") else text)
    target.set("focused", "true")
    return _serialize(dump, root)


def _serialize(original: str, root: Any) -> str:
    head = original[: original.find("<hierarchy")] if "<hierarchy" in original else ""
    return head + etree.tostring(root, encoding="unicode")


class AndroidRules(Rules):
    state_model = AndroidState
    seed_model = AndroidSeed

    def answer(self, state: dict[str, Any], call: Call) -> Parsed | None:
        dump = android_answer(state, call.tool, call.arguments)
        return None if dump is None else _DUMP.parse(dump, Call(call.tool, call.arguments, state))

    def apply(self, state: dict[str, Any], call: Call, text: str, structured: dict[str, Any]) -> dict[str, Any]:
        return android_apply(state, call.tool, call.arguments, text, structured)

    def summary(self, state: dict[str, Any]) -> str:
        s = AndroidState.model_validate(state)
        text = f"foreground {s.package or '(launcher)'}"
        if s.toggles:
            text += "; switches: " + ", ".join(f"{k} {'on' if v else 'off'}" for k, v in s.toggles.items())
        if s.typed:
            text += "; typed so far: " + ", ".join(repr(t) for t in s.typed[-5:])
        return text

    def prefill(self, call: Call) -> str:
        return _DUMP.prefill(call)

    def parse(self, raw: str, call: Call) -> Parsed:
        return _DUMP.parse(raw, call)

    # The instruct dialect: screens as outlines (outline.py), the dump written by code.
    compact = True
    compact_max_tokens = 320  # ~25 elements; a dump's 700 held six nodes

    def initial(self, world: Any) -> dict[str, Any]:
        raw = world.seed.get("android") if world is not None else None
        if not isinstance(raw, dict):
            return AndroidState().model_dump()
        seed = self.seed(raw)  # seed_model, as the world file was checked
        apps, pages = seed.dumps()
        home = apps.get(seed.launcher_package, "")  # the phone starts on its home screen
        return AndroidState(launcher=seed.launcher_package, apps=apps, pages=pages, icons=_icons(apps, home),
                            screen=home,
                            package=seed.launcher_package if home else "").model_dump()

    def compact_prefill(self, call: Call) -> str:
        """What the code knows of the next screen: the app (launched, still in front, or home), and
        for a tap on a row of an app's list, the page it opens (titled with the row's name)."""
        s = AndroidState.model_validate(call.state) if call.state else AndroidState()
        a = call.arguments
        if call.tool == "android_launch_app" and a.get("package"):
            return f"app {a['package']}\n"
        if call.tool == "android_press_key" and a.get("key") == "HOME":
            return f"app {s.launcher}\n" if s.launcher else ""
        if not s.package or s.package == s.launcher or call.tool == "android_press_key":
            return ""  # on the home screen a tap may open any app; BACK may leave this one
        head = f"app {s.package}\n"
        if call.tool == "android_tap" and a.get("target"):
            current = outline.read(s.screen) if s.screen else None
            row = next((e for e in current.elements if e.kind in ("row", "tab") and e.labels
                        and e.labels[0].lower() == str(a["target"]).strip().lower()), None) if current else None
            if row is not None:
                head += f'title "{row.labels[0]}"\n'
        return head

    def shown(self, text: str, call: Call, before: str = "") -> str:
        o = outline.read(text) if text.lstrip().startswith("<") else None
        return text if o is None else o.text()

    def unshown(self, raw: str, call: Call) -> str:
        if "<node" in raw or "<hierarchy" in raw:
            return raw[raw.index("<"):]  # an engine that answered with a dump after all
        try:
            new = outline.parse(raw)
        except ValueError as err:
            raise FormatError(str(err)) from None
        s = AndroidState.model_validate(call.state) if call.state else AndroidState()
        return outline.dump(new, s.screen, str(call.arguments.get("package") or s.package))

    def picture(self, text: str, call: Call, where: str = "") -> Picture | None:
        return android_picture(text, call)

    # Qwen-AgentWorld's format: AndroidWorld-style JSON actions on the dump's coordinates (agentworld.md).
    def trained_action(self, call: Call, moment: Moment) -> TrainedAction:
        screen = moment.screen or str(moment.state.get("screen", ""))
        return TrainedAction(json.dumps(android_world_action(call, screen), ensure_ascii=False))

    def trained_screen(self, world: Any, state: dict[str, Any], where: str = "") -> str:
        if state.get("screen"):
            return str(state["screen"])
        seed = world.seed.get("android") if world is not None else None
        return seed if isinstance(seed, str) and seed.lstrip().startswith("<") else ""


_KEYS = {"BACK": "navigate_back", "HOME": "navigate_home", "ENTER": "keyboard_enter"}


def android_world_action(call: Call, screen: str) -> dict[str, Any]:
    """An android tool call as an AndroidWorld JSON action: a tap on a node by name becomes a click on
    its centre, read from the screen it was taken on; a swipe becomes a scroll in the direction the
    content moves."""
    a = call.arguments
    if call.tool == "android_tap":
        if "x" in a and "y" in a:
            return {"action_type": "click", "x": a["x"], "y": a["y"]}
        node = _node_named(screen, str(a.get("target", "")))
        m = outline.BOUNDS.match(node.get("bounds", "")) if node is not None else None
        if m:
            x1, y1, x2, y2 = map(int, m.groups())
            return {"action_type": "click", "x": (x1 + x2) // 2, "y": (y1 + y2) // 2}
        return {"action_type": "click", "target": a.get("target", "")}  # not on the screen
    if call.tool == "android_type":
        return {"action_type": "input_text", "text": a.get("text", "")}
    if call.tool == "android_swipe":
        dx, dy = int(a.get("x2", 0)) - int(a.get("x1", 0)), int(a.get("y2", 0)) - int(a.get("y1", 0))
        direction = ("up" if dy > 0 else "down") if abs(dy) >= abs(dx) else ("left" if dx > 0 else "right")
        return {"action_type": "scroll", "direction": direction}
    if call.tool == "android_press_key":
        key = str(a.get("key", ""))
        return {"action_type": _KEYS[key]} if key in _KEYS else {"action_type": "press_key", "key": key}
    if call.tool == "android_launch_app":
        return {"action_type": "open_app", "app_name": a.get("package", "")}
    return {"action_type": "wait"}  # android_dump_ui: look again without acting


def _node_named(dump: str, target: str) -> Any:
    root = _tree(dump) if dump.strip() else None
    if root is None or not target.strip():
        return None
    t = target.strip().lower()
    nodes = list(root.iter("node"))
    for same in (lambda n: t in ((n.get("text") or "").lower(), (n.get("content-desc") or "").lower(),
                                 (n.get("resource-id") or "").lower()),
                 lambda n: t in _label(n)):
        hit = next((n for n in nodes if same(n)), None)
        if hit is not None:
            return hit
    return None


_FLAGS = ("clickable", "checkable", "checked", "focused", "selected", "scrollable", "password")


def android_picture(dump: str, call: Call) -> Picture | None:
    """The dump as the phone's screen: every node with bounds a box (its text, content-desc or, for
    a node with nothing inside, resource-id as the label), the tapped point or the tapped target marked."""
    root = _tree(dump)
    if root is None:
        return None
    boxes, width, height = [], 0, 0
    target = str(call.arguments.get("target") or "").lower() if call.tool == "android_tap" else ""
    for n in root.iter("node"):
        m = outline.BOUNDS.match(n.get("bounds") or "")
        if not m:
            continue
        x1, y1, x2, y2 = (int(v) for v in m.groups())
        width, height = max(width, x2), max(height, y2)
        # a container is not labelled by its id: its label would sit on its first child's
        label = n.get("text") or n.get("content-desc") or \
            ("" if n.find("node") is not None else (n.get("resource-id") or "").rpartition("/")[2])
        flags = [f for f in _FLAGS if n.get(f) == "true"]
        if target and target in (_label(n) + " " + (n.get("resource-id") or "").lower()):
            flags.append("target")
        boxes.append(Box(x1, y1, max(0, x2 - x1), max(0, y2 - y1), short(label),
                         short((n.get("class") or "").rpartition(".")[2], 40), tuple(flags)))
        if len(boxes) >= MAX_BOXES:
            break
    if not boxes:
        return None
    point = None
    if call.tool == "android_tap" and isinstance(call.arguments.get("x"), int) and isinstance(call.arguments.get("y"), int):
        point = (call.arguments["x"], call.arguments["y"])
    elif call.tool == "android_swipe":
        xs = [call.arguments.get(k) for k in ("x1", "y1")]
        if all(isinstance(v, int) for v in xs):
            point = (xs[0], xs[1])
    return Picture("screen", width or 1080, height or 2400, tuple(boxes), point)


_DUMP = _Dump()
rules = AndroidRules()


# -- success checks for tasks ---------------------------------------------------------------------


class Setting(Check):
    """A switch (Wi-Fi, Airplane mode …) is on or off: as last tapped by name, else as the last screen shows it."""

    kind: Literal["setting"]
    name: str = Field(min_length=1)
    on: bool

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        s = self.state(episode)
        tapped = {k.lower(): v for k, v in s.get("toggles", {}).items()}
        value = tapped.get(self.name.lower())
        where = "as last tapped"
        if value is None and s.get("screen"):
            node = _switch_for(s["screen"], self.name)
            value, where = (None if node is None else node.get("checked") == "true"), "on the last screen"
        if value is None:
            return False, f"no switch {self.name!r} was tapped or is on the last screen"
        return value == self.on, f"{self.name} is {'on' if value else 'off'} ({where})"


class Typed(TypedText):
    """Text the agent typed on the phone (all of it, in order) contains this."""

    kind: Literal["typed"]


class App(Check):
    """The app in the foreground."""

    kind: Literal["app"]
    package: str = Field(min_length=1)

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        package = self.state(episode).get("package", "")
        return package == self.package, f"the foreground app is {package or '(unknown)'}"


class ScreenContains(Check):
    """The last screen shows this text (a node's text or description)."""

    kind: Literal["screen_contains"]
    text: str = Field(min_length=1)

    def run(self, episode: EpisodeView) -> tuple[bool, str]:
        root = _tree(self.state(episode).get("screen", ""))
        labels = [] if root is None else [(n.get("text") or "") + " " + (n.get("content-desc") or "") for n in root.iter("node")]
        found = any(self.text.lower() in label.lower() for label in labels)
        return found, f"the last screen {'shows' if found else 'does not show'} {self.text!r}"


AndroidRules.checks = (Setting, Typed, App, ScreenContains)
