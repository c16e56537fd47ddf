"""The phone's screen as an outline: one line per element the agent can read or touch, the form in
which the instruct dialect shows screens to the world model and asks for the next one.

A uiautomator dump spends ~120 tokens of fixed attributes on every node, so a 700-token answer held
six nodes and every screen, whatever the action, came back as the same six nodes (23-29 s each on
two cores). An outline line is ~10 tokens (`row "Network & internet" "Mobile, Wi-Fi, hotspot"`), and
the code, not the model, writes the dump around it:

- a line that names an element of the current screen (same kind, same first label) takes that
  element's nodes verbatim (moved down or up when lines before it changed);
- a screen whose lines only changed their states (a switch, a selected tab, a field's text) is the
  current dump with those attributes set, every other byte kept;
- new elements get the nodes, ids and bounds Android's own widgets have, stacked down the screen.

    app com.android.settings
    title "Network & internet"
    row "Internet" "HomeNet"
    switch "Airplane mode" off
    field "Search settings" focused
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

WIDTH, HEIGHT = 1080, 2400
TOP = 132  # below the status bar
KINDS = ("title", "text", "row", "switch", "checkbox", "radio", "button", "field", "icon", "image", "tab")
FLAGS = ("on", "off", "focused", "selected", "disabled", "password")
ATTRS = ("index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked", "clickable",
         "enabled", "focusable", "focused", "scrollable", "long-clickable", "password", "selected", "bounds")
_HEIGHT = {"title": 168, "text": 100, "row": 154, "switch": 180, "checkbox": 147, "radio": 147, "button": 147,
           "field": 154, "icon": 147, "image": 420, "tab": 147}
_CHECKABLE = {"Switch": "switch", "SwitchCompat": "switch", "SwitchMaterial": "switch", "ToggleButton": "switch",
              "CheckBox": "checkbox", "CheckedTextView": "checkbox", "RadioButton": "radio"}
_LINE = re.compile(r'^\s*([a-z]+)((?:\s+"[^"\n]*")*)((?:\s+[a-z]+)*)\s*$')
PACKAGE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)+")
_APP = re.compile(r"^\s*app\s+(" + PACKAGE.pattern + r")\s*$")
COLUMNS, ICON_HEIGHT = 5, 262  # a launcher's grid of app icons (a Pixel's home screen: 5 across)
MAX_DECLARED = 200_000  # characters of a screen a world file declares (kept in every step's state)
XML_DECLARATION = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
BOUNDS = re.compile(r"^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$")  # bounds="[x1,y1][x2,y2]"


@dataclass
class Element:
    """One outline line, and the nodes it stands for on a screen that was read (None: a new one)."""

    kind: str
    labels: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    node: Any = None

    @property
    def key(self) -> tuple[str, str]:
        return self.kind, self.labels[0] if self.labels else ""

    def line(self) -> str:
        return " ".join([self.kind, *(_quote(x) for x in self.labels), *self.flags])


@dataclass
class Outline:
    package: str = ""
    elements: list[Element] = field(default_factory=list)

    def text(self) -> str:
        head = [f"app {self.package}"] if self.package else []
        return "\n".join(head + [e.line() for e in self.elements]) + "\n"


def _quote(text: str) -> str:
    return '"' + " ".join(text.replace('"', "'").split())[:80] + '"'


def _short(cls: str) -> str:
    return (cls or "").rpartition(".")[2]


def _label(n: Any) -> str:
    return " ".join((n.get("text") or n.get("content-desc") or "").split())


def _flags(n: Any, kind: str) -> tuple[str, ...]:
    out = []
    if kind in ("switch", "checkbox", "radio"):
        out.append("on" if n.get("checked") == "true" else "off")
    if n.get("focused") == "true" and kind == "field":
        out.append("focused")
    if n.get("selected") == "true":
        out.append("selected")
    if n.get("enabled") == "false":
        out.append("disabled")
    if n.get("password") == "true":
        out.append("password")
    return tuple(out)


def read(dump: str) -> Outline | None:
    """The outline of a dump (each element keeps its node); None when the dump does not parse."""
    try:
        root = etree.fromstring(dump.encode("utf-8"))
    except (etree.XMLSyntaxError, ValueError):
        return None
    nodes = list(root.iter("node"))
    outline = Outline(nodes[0].get("package", "") if nodes else "")
    taken: set[Any] = set()
    for n in nodes:
        if n in taken:
            continue
        element = _element(n, taken)
        if element is not None:
            element.node = n
            outline.elements.append(element)
    return outline


def _element(n: Any, taken: set[Any]) -> Element | None:
    cls, label = _short(n.get("class", "")), _label(n)
    inside = [d for d in n.iter("node") if d is not n]
    if cls in _CHECKABLE or n.get("checkable") == "true":
        kind = _CHECKABLE.get(cls, "checkbox")
        return Element(kind, (label,) if label else (), _flags(n, kind))
    if "EditText" in cls or "AutoCompleteTextView" in cls:
        return Element("field", (label,), _flags(n, "field"))
    if n.get("clickable") == "true" and inside and not label:
        # a row: its texts are its labels, a switch or box inside makes it one
        texts = [_label(d) for d in inside if _label(d) and _short(d.get("class", "")) not in _CHECKABLE]
        box = next((d for d in inside if _short(d.get("class", "")) in _CHECKABLE or d.get("checkable") == "true"), None)
        if not texts and box is None:
            return None
        taken.update(inside)
        if box is not None:
            kind = _CHECKABLE.get(_short(box.get("class", "")), "checkbox")
            return Element(kind, tuple(texts[:2]), _flags(box, kind) + tuple(f for f in _flags(n, "row") if f != "on"))
        return Element("tab" if "Tab" in cls else "row", tuple(texts[:2]), _flags(n, "row"))
    if not label:
        return None
    if "Button" in cls or (n.get("clickable") == "true" and "Image" in cls):
        return Element("button", (label,), _flags(n, "button"))
    if n.get("clickable") == "true" and cls == "TextView" and n.get("content-desc") and _width(n) <= WIDTH // 3:
        return Element("icon", (label,), _flags(n, "icon"))  # a launcher's app icon: its name, in a grid cell
    if "Tab" in cls:
        return Element("tab", (label,), _flags(n, "tab"))
    if "Image" in cls:
        return Element("icon" if n.get("clickable") == "true" else "image", (label,), _flags(n, "image"))
    if n.get("clickable") == "true":
        return Element("row", (label,), _flags(n, "row"))
    title = (n.get("resource-id") or "").endswith(("title", "toolbar_title", "action_bar_title", "header"))
    return Element("title" if title and not _in_row(n) else "text", (label,), _flags(n, "text"))


def _width(n: Any) -> int:
    m = BOUNDS.match(n.get("bounds") or "")
    return int(m.group(3)) - int(m.group(1)) if m else WIDTH


def _in_row(n: Any) -> bool:
    parent = n.getparent()
    return parent is not None and parent.get("clickable") == "true"


def check(text: str) -> str | None:
    """What is wrong with a screen a person wrote (a world file's), or None: a uiautomator dump, or an
    outline whose every line is `app PACKAGE` or an element (`parse` skips what the model garbles;
    a world file is told)."""
    if len(text) > MAX_DECLARED:
        return f"{len(text):,} characters; a declared screen is at most {MAX_DECLARED:,} (a real dump is tens of KB)"
    if text.lstrip().startswith("<"):
        o = read(text)
        return None if o is not None and o.elements else "not a uiautomator dump with readable nodes"
    elements = 0
    for n, line in enumerate(text.replace("\r\n", "\n").split("\n"), 1):
        if not line.strip() or _APP.match(line):
            continue
        m = _LINE.match(line)
        if not m or m.group(1) not in KINDS or any(f not in FLAGS for f in m.group(3).split()):
            return (f"line {n} is not an element: {line.strip()[:80]!r}; write `kind \"label\" [\"second label\"] "
                    f"[flags]` (kinds: {', '.join(KINDS)}; flags: {', '.join(FLAGS)})")
        elements += 1
    return None if elements else "no element; write one a line, e.g. `row \"Network & internet\"`"


def parse(text: str) -> Outline:
    """An outline the model wrote: `app PACKAGE`, then one element a line (lines it could not read
    are skipped); ValueError when no element is left."""
    outline = Outline()
    seen: set[tuple[str, tuple[str, ...]]] = set()
    repeats = 0
    for raw in text.replace("\r\n", "\n").split("\n"):
        if not raw.strip():
            continue
        app = _APP.match(raw)
        if app:
            outline.package = outline.package or app.group(1)
            continue
        m = _LINE.match(raw)
        if not m or m.group(1) not in KINDS:
            continue
        labels = tuple(" ".join(x.split()) for x in re.findall(r'"([^"\n]*)"', m.group(2)))[:2]
        flags = tuple(f for f in m.group(3).split() if f in FLAGS)
        if (m.group(1), labels) in seen:
            # A small model loops (`row "LTE" "LTE"` to the token limit): a screen does not show one
            # element twice, so a repeat is dropped, and three in a row end the screen.
            repeats += 1
            if repeats == 3:
                break
            continue
        seen.add((m.group(1), labels))
        repeats = 0
        outline.elements.append(Element(m.group(1), labels, flags))
    if not outline.elements:
        raise ValueError('no screen element: write one a line, `kind "label"` (kinds: ' + ", ".join(KINDS) + ")")
    return outline


# -- the dump around an outline ---------------------------------------------------------------------


def dump(new: Outline, current: str, package: str) -> str:
    """The uiautomator dump of the screen `new` describes, built on the `current` dump: unchanged
    elements verbatim, changed states set in place, new elements laid out by Android's rules."""
    package = new.package or package or "com.android.launcher"
    old = read(current) if current else None
    if old is not None and old.package == package and old.elements:
        if [e.line() for e in old.elements] == [e.line() for e in new.elements]:
            return current
        if [e.key for e in old.elements] == [e.key for e in new.elements]:
            for was, now in zip(old.elements, new.elements):
                _restate(was, now)
            root = old.elements[0].node.getroottree().getroot()
            return _serialize(root)
    reusable: dict[tuple[str, str], list[Element]] = {}
    if old is not None and old.package == package:
        for e in old.elements:
            reusable.setdefault(e.key, []).append(e)
    return _serialize(_layout(new, package, reusable))


def _restate(was: Element, now: Element) -> None:
    """Set on `was`'s nodes the states and second label `now` has."""
    node = was.node
    if was.kind in ("switch", "checkbox", "radio"):
        box = node if (_short(node.get("class", "")) in _CHECKABLE or node.get("checkable") == "true") else \
            next((d for d in node.iter("node") if d.get("checkable") == "true"), node)
        on = "on" in now.flags or ("off" not in now.flags and box.get("checked") == "true")
        box.set("checked", "true" if on else "false")
        if box.get("text") in ("ON", "OFF"):
            box.set("text", "ON" if on else "OFF")
    node.set("selected", "true" if "selected" in now.flags else "false")
    if was.kind == "field":
        node.set("focused", "true" if "focused" in now.flags else "false")
        if now.labels and now.labels[0] != _label(node):
            node.set("text", now.labels[0])
    if len(now.labels) > 1 and len(was.labels) > 1 and now.labels[1] != was.labels[1]:
        second = [d for d in node.iter("node") if _label(d) == was.labels[1]]
        if second:
            second[0].set("text", now.labels[1])
    node.set("enabled", "false" if "disabled" in now.flags else "true")


def _layout(new: Outline, package: str, reusable: dict[tuple[str, str], list[Element]]) -> Any:
    root = etree.Element("hierarchy", rotation="0")
    frame = _node(root, "android.widget.FrameLayout", package, (0, 0, WIDTH, HEIGHT))
    body = new.elements
    y = TOP
    if body and body[0].kind == "title":
        y += _place(frame, body[0], package, y, reusable)
        body = body[1:]
    heights = [_HEIGHT[e.kind] if e.kind != "row" or len(e.labels) < 2 else 210 for e in body]
    icons = sum(e.kind == "icon" for e in body)
    overflow = y + sum(h for e, h in zip(body, heights) if e.kind != "icon") + -(-icons // COLUMNS) * ICON_HEIGHT > HEIGHT
    holder = _node(frame, "androidx.recyclerview.widget.RecyclerView", package, (0, y, WIDTH, HEIGHT),
                   rid=f"{package}:id/recycler_view", focusable=True, scrollable=overflow) if body else frame
    column = 0
    for e, h in zip(body, heights):
        if column and e.kind != "icon":  # a row of icons ends
            y, column = y + ICON_HEIGHT, 0
        if y >= HEIGHT:
            break  # below the screen: a scroll shows it
        if e.kind == "icon":  # app icons sit in a grid, as a launcher lays them out
            _icon(holder, e, package, column, y, reusable)
            column = (column + 1) % COLUMNS
            y += 0 if column else ICON_HEIGHT
        else:
            y += _place(holder, e, package, y, reusable, h)
    for parent in root.iter():
        for i, child in enumerate(c for c in parent if c.tag == "node"):
            child.set("index", str(i))
    return root


def _place(parent: Any, e: Element, package: str, y: int, reusable: dict[tuple[str, str], list[Element]],
           height: int | None = None) -> int:
    """Put element `e` at `y` under `parent`; returns the height it takes."""
    same = reusable.get(e.key)
    if same:  # on the current screen: its nodes verbatim, moved to `y`
        top, bottom = _move(parent, same.pop(0), e, y)
        return max(bottom - top, 1)
    h = height or _HEIGHT[e.kind]
    labels = e.labels or ("",)
    on = "on" in e.flags
    common = {"enabled": "disabled" not in e.flags, "selected": "selected" in e.flags}
    if e.kind in ("title", "text"):
        _node(parent, "android.widget.TextView", package, (63 if e.kind == "title" else 189, y + 20, 1017, y + h - 20),
              text=labels[0], rid="android:id/title" if e.kind == "title" else "", **common)
    elif e.kind in ("row", "tab"):
        row = _node(parent, "android.widget.LinearLayout", package, (0, y, WIDTH, y + h), clickable=True,
                    focusable=True, **common)
        _texts(row, labels, package, y, h)
    elif e.kind in ("switch", "checkbox", "radio"):
        row = _node(parent, "android.widget.LinearLayout", package, (0, y, WIDTH, y + h), clickable=True,
                    focusable=True, **common)
        _texts(row, labels, package, y, h, right=860)
        cls = {"switch": "android.widget.Switch", "checkbox": "android.widget.CheckBox",
               "radio": "android.widget.RadioButton"}[e.kind]
        _node(row, cls, package, (900, y + h // 2 - 40, 1017, y + h // 2 + 40), checkable=True, checked=on,
              focusable=True, rid="android:id/switch_widget" if e.kind == "switch" else "android:id/checkbox",
              text=("ON" if on else "OFF") if e.kind == "switch" else "")
    elif e.kind == "button":
        _node(parent, "android.widget.Button", package, (63, y + 21, 1017, y + h - 21), text=labels[0],
              clickable=True, focusable=True, **common)
    elif e.kind == "field":
        _node(parent, "android.widget.EditText", package, (63, y + 21, 1017, y + h - 21), text=labels[0],
              clickable=True, focusable=True, focused="focused" in e.flags, password="password" in e.flags,
              long_clickable=True, **common)
    else:  # icon, image
        _node(parent, "android.widget.ImageView", package, (63, y + 10, 1017, y + h - 10), desc=labels[0],
              clickable=e.kind == "icon", focusable=e.kind == "icon", **common)
    return h


def _move(parent: Any, was: Element, now: Element, y: int) -> tuple[int, int]:
    """Element `was` of the current screen, its states set as `now` has them, moved to `y` under
    `parent`; returns where it spanned before the move."""
    _restate(was, now)
    node = was.node
    top, bottom = _span(node)
    if node.getparent() is not None:
        node.getparent().remove(node)
    node.tail = None
    _shift(node, y - top)
    parent.append(node)
    return top, bottom


def _icon(parent: Any, e: Element, package: str, column: int, y: int,
          reusable: dict[tuple[str, str], list[Element]]) -> None:
    """An app icon in a launcher's grid cell: a clickable text labelled with the app (the launcher's
    own icons are TextViews with the app's name as text and description)."""
    same = reusable.get(e.key)
    if same:  # on the current screen: its node verbatim, moved to this row
        _move(parent, same.pop(0), e, y)
        return
    x = column * (WIDTH // COLUMNS)
    label = e.labels[0] if e.labels else ""
    _node(parent, "android.widget.TextView", package, (x + 8, y, x + WIDTH // COLUMNS - 8, y + ICON_HEIGHT), text=label,
          desc=label, clickable=True, focusable=True, enabled="disabled" not in e.flags)


def _texts(row: Any, labels: tuple[str, ...], package: str, y: int, h: int, right: int = 1017) -> None:
    if len(labels) > 1:
        _node(row, "android.widget.TextView", package, (189, y + 42, right, y + h // 2 + 2), text=labels[0],
              rid="android:id/title")
        _node(row, "android.widget.TextView", package, (189, y + h // 2 + 2, right, y + h - 42), text=labels[1],
              rid="android:id/summary")
    else:
        _node(row, "android.widget.TextView", package, (189, y + 42, right, y + h - 42), text=labels[0],
              rid="android:id/title")


def _node(parent: Any, cls: str, package: str, box: tuple[int, int, int, int], *, text: str = "", rid: str = "",
          desc: str = "", checkable: bool = False, checked: bool = False, clickable: bool = False,
          enabled: bool = True, focusable: bool = False, focused: bool = False, scrollable: bool = False,
          long_clickable: bool = False, password: bool = False, selected: bool = False) -> Any:
    flag = {True: "true", False: "false"}
    values = {"index": "0", "text": text, "resource-id": rid, "class": cls, "package": package, "content-desc": desc,
              "checkable": flag[checkable], "checked": flag[checked], "clickable": flag[clickable],
              "enabled": flag[enabled], "focusable": flag[focusable], "focused": flag[focused],
              "scrollable": flag[scrollable], "long-clickable": flag[long_clickable], "password": flag[password],
              "selected": flag[selected], "bounds": "[{},{}][{},{}]".format(*box)}
    return etree.SubElement(parent, "node", {k: values[k] for k in ATTRS})


def _span(node: Any) -> tuple[int, int]:
    m = BOUNDS.match(node.get("bounds") or "")
    return (int(m.group(2)), int(m.group(4))) if m else (0, 0)


def _shift(node: Any, dy: int) -> None:
    if not dy:
        return
    for n in node.iter("node"):
        m = BOUNDS.match(n.get("bounds") or "")
        if m:
            x1, y1, x2, y2 = map(int, m.groups())
            n.set("bounds", f"[{x1},{y1 + dy}][{x2},{y2 + dy}]")


def _serialize(root: Any) -> str:
    return XML_DECLARATION + etree.tostring(root, encoding="unicode")
