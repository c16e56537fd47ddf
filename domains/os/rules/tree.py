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
from dataclasses import dataclass, replace

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
        nodes, settled = settle(nodes, str(call.state.get("tree") or ""))
        return Parsed(render_tree(nodes), tree_structured(nodes), repaired or settled)


def settle(nodes: list[Node], before: str) -> tuple[list[Node], bool]:
    """What no real tree has, taken out of the model's new tree (against the screen `before`), and
    whether anything was:
    - siblings at exactly one (nonzero) box: one is kept (the one that was there before, else the
      first) and those the model added go, with their children (the small model writes a menu
      bar's menus over again at new places, and stacks made-up labels on one box);
    - a window that had children and is written with none: it keeps them (the model stopped after
      the window's line; a window with nothing in it is not a real window, and one that closed is
      not written at all).
    - a node's states written twice or out of order (AT-SPI's states are a set, written sorted): once
      each, sorted;
    - more than one node focused (the keyboard has one focus; each of the 224 recorded real trees
      has at most one): the one focused before keeps it if it is among them, else the first.
    None ever happens in a recorded real transition (tests/test_desktop_domain.py checks all 192)."""
    try:
        old = parse_tree(before) if before.strip() else []
    except FormatError:
        old = []
    tidy = [replace(n, states=sorted(set(n.states))) for n in nodes]
    restated = [n.states for n in tidy] != [n.states for n in nodes]
    nodes = tidy
    known = {n.line().strip() for n in old}
    at: dict[tuple, list[int]] = {}  # (parent, box) -> the children at that box
    parents: list[int] = []
    for i, n in enumerate(nodes):
        del parents[n.depth:]
        if n.bounds[2] * n.bounds[3]:
            at.setdefault((parents[-1] if parents else -1, n.bounds), []).append(i)
        parents.append(i)
    drop: set[int] = set()
    for same in (g for g in at.values() if len(g) > 1):
        keep = next((k for k in same if nodes[k].line().strip() in known), same[0])
        drop.update(k for k in same if k != keep and nodes[k].line().strip() not in known)
    kept: list[Node] = []
    skip = -1
    for i, n in enumerate(nodes):
        if i < skip:
            continue  # inside a subtree already dropped (a stacked node in it must not end the skip)
        if i in drop:
            skip = subtree_end(nodes, i)
        else:
            kept.append(n)
    changed = bool(drop) or restated
    where = _unique(_paths(old))
    out: list[Node] = []
    for i, (n, path) in enumerate(zip(kept, _paths(kept))):
        out.append(n)
        o = where.get(path)
        if n.depth == 1 and o is not None and _kids(old, o) and not _kids(kept, i):
            out.extend(replace(k) for k in old[o + 1:subtree_end(old, o)])  # a window is at depth 1 in both
            changed = True
    focused = [i for i, n in enumerate(out) if "focused" in n.states]
    if len(focused) > 1:
        was = {p for n, p in zip(old, _paths(old)) if "focused" in n.states}
        paths = _paths(out)
        keep = next((i for i in focused if paths[i] in was), focused[0])
        for i in focused:
            if i != keep:
                out[i] = replace(out[i], states=[x for x in out[i].states if x != "focused"])
        changed = True
    return out, changed


# -- the compact form: what did not change is elided ----------------------------------------------
# The instruct dialect shows each new tree, and has the model write it, against the screen before:
# a node whose children did not change is written once and marked `…`, and a run of unchanged
# siblings is one line `…`. A click that opens a dialog costs the dialog, a calculator's key its
# display, not the whole desktop again. The code puts back what was elided from the screen before.
ELIDED = " …"
GAP = "…"
_MARK = re.compile(r"\s*(?:…|\.\.\.)\s*$")


def _paths(nodes: list[Node]) -> list[tuple[tuple[str, str], ...]]:
    """Each node's path from the root: the (role, name) of it and of every ancestor."""
    stack: list[tuple[str, str]] = []
    out = []
    for n in nodes:
        del stack[n.depth:]
        stack.append((n.role, n.name))
        out.append(tuple(stack))
    return out


def subtree_end(nodes: list[Node], i: int) -> int:
    """Where node i's subtree ends (the index after its last descendant)."""
    j = i + 1
    while j < len(nodes) and nodes[j].depth > nodes[i].depth:
        j += 1
    return j


def _kids(nodes: list[Node], i: int) -> list[int]:
    return [k for k in range(i + 1, subtree_end(nodes, i)) if nodes[k].depth == nodes[i].depth + 1]


def _below(nodes: list[Node], i: int) -> list[str]:
    """Node i's descendants' lines, indented relative to it."""
    base = nodes[i].depth
    return [n.line()[2 * base:] for n in nodes[i + 1:subtree_end(nodes, i)]]


def _subtree(nodes: list[Node], i: int, depth: int) -> list[str]:
    """Node i and its descendants, re-indented to start at `depth`."""
    shift = depth - nodes[i].depth
    return ["  " * (n.depth + shift) + n.line()[2 * n.depth:] for n in nodes[i:subtree_end(nodes, i)]]


def _unique(paths: list[tuple]) -> dict[tuple, int]:
    seen: dict[tuple, int] = {}
    for i, p in enumerate(paths):
        seen[p] = -1 if p in seen else i
    return {p: i for p, i in seen.items() if i >= 0}


def elide(text: str, before: str) -> str:
    """Tree `text` in the compact form against the screen `before` (nodes matched by their unique
    path of roles and names): a node whose children are exactly those it had is written once with
    `…`; two or more siblings in a row that are exactly the ones there before, in that order, are a
    line `…` (the old siblings up to the next written one that was there before, or to the end).
    Without a screen before (or one that does not parse), the tree as it is."""
    try:
        new, old = parse_tree(text), parse_tree(before) if before.strip() else []
    except FormatError:
        return text
    if not old:
        return text
    where = _unique(_paths(old))
    paths = _paths(new)
    lines = [new[0].line()]

    def same(i: int, j: int) -> bool:
        return new[i].line()[2 * new[i].depth:] == old[j].line()[2 * old[j].depth:] and _below(new, i) == _below(old, j)

    def write(i: int, j: int | None) -> None:
        kids = _kids(new, i)
        okids = _kids(old, j) if j is not None else []
        position = {o: p for p, o in enumerate(okids)}

        def at(k: int) -> int | None:  # a new child's position among the old children
            o = where.get(paths[k])
            return position.get(o) if o is not None else None

        pointer, k = 0, 0
        while k < len(kids):
            run = 0
            while k + run < len(kids) and pointer + run < len(okids) and same(kids[k + run], okids[pointer + run]):
                run += 1
            if run >= 2:
                ahead = next((at(m) for m in kids[k + run:] if at(m) is not None), len(okids))
                if ahead == pointer + run:  # where `expand` will end the gap
                    lines.append("  " * (new[i].depth + 1) + GAP)
                    k, pointer = k + run, pointer + run
                    continue
            c = kids[k]
            o = where.get(paths[c])
            if o is not None and subtree_end(new, c) > c + 1 and _below(new, c) == _below(old, o):
                lines.append(new[c].line() + ELIDED)
            else:
                lines.append(new[c].line())
                write(c, o)
            if at(c) is not None:
                pointer = at(c) + 1
            k += 1

    write(0, 0 if paths[0] == _paths(old)[0] else None)
    return "\n".join(lines) + "\n"


def _gap(line: str) -> bool:
    """A line `…` (a run of unchanged siblings)."""
    return line.strip() in (GAP, "...")


def expand(raw: str, before: str, cut: bool = False) -> tuple[str, bool]:
    """The model's compact tree as the whole tree, from the screen `before`: a node line marked `…`
    with no children written under it gets the children of its node there (the one of the same path;
    else the one of the same role and name, or of the same role and bounds); a line `…` gets the old
    siblings from after the last one written up to the next written one that was there (or to the
    end). Lines that do not parse are left for `parse` to judge. Also says whether something elided
    could not be found (left out).

    `cut`: the answer stopped at its token limit. The line being written is dropped, and so is all
    from the first line written a second time (the model looping: no real tree repeats a line); the
    tree is then finished from the screen before, as if every open level ended in `…`: the last node
    written gets its old children, and each node still open its old children after the last one
    written (the rest of the window, then the windows after it). What the model did not get to write
    stays as it was, instead of vanishing."""
    try:
        old = parse_tree(before) if before.strip() else []
    except FormatError:
        old = []
    where = _unique(_paths(old))
    by_name = _unique([(n.role, n.name) for n in old])
    by_box = _unique([(n.role, n.bounds) for n in old])
    items: list[tuple[str, int, str, Node | None, bool]] = []  # (kind, depth, text, node, marked)
    lines = raw.rstrip("\n").split("\n") if cut else raw.split("\n")
    if cut and lines and not _LINE.match(_MARK.sub("", lines[-1]).rstrip()) and not _gap(lines[-1]):
        lines.pop()  # the line being written when the answer was cut off
    if cut:  # a line written twice: the model was looping (no real tree repeats a line); cut it there
        seen: set[str] = set()
        for i, line in enumerate(lines):
            if not _gap(line) and line.rstrip() in seen:
                del lines[i:]
                break
            seen.add(line.rstrip())
    for line in lines:
        depth = (len(line) - len(line.lstrip(" "))) // 2
        if _gap(line):
            items.append(("gap", depth, line, None, False))
            continue
        mark = _MARK.search(line)
        clean = (line[:mark.start()] if mark else line).rstrip()
        if _LINE.match(clean):
            items.append(("node", depth, clean, parse_tree(clean.strip())[0], bool(mark)))
        else:
            items.append(("raw", depth, line, None, False))
    out: list[str] = []
    lost = False
    # For each depth: the path of the node written there last, its node in `before`, and how many of
    # that node's old children have been written or put back.
    stack: list[list] = []

    def position(parent: list, path: tuple) -> int | None:
        o = where.get(path)
        kids = _kids(old, parent[1]) if parent[1] is not None else []
        return kids.index(o) if o in kids else None

    for n, (kind, depth, text, node, marked) in enumerate(items):
        if kind == "raw":
            out.append(text)
            continue
        parent = stack[depth - 1] if 0 < depth <= len(stack) else None
        if kind == "gap":
            if parent is None or parent[1] is None:
                lost = True
                continue
            kids = _kids(old, parent[1])
            end = len(kids)
            for kind2, depth2, _, node2, _ in items[n + 1:]:
                if depth2 < depth:
                    break
                if kind2 == "node" and depth2 == depth:
                    p = position(parent, parent[0] + ((node2.role, node2.name),))
                    if p is not None:
                        end = p
                        break
            for o in kids[parent[2]:end]:
                out.extend(_subtree(old, o, depth))
            parent[2] = max(parent[2], end)
            continue
        path = (parent[0] if parent else ()) + ((node.role, node.name),)
        o = where.get(path)
        if parent is not None:
            p = position(parent, path)
            if p is not None:
                parent[2] = p + 1
        del stack[depth:]
        stack.append([path, o, 0])
        out.append(text)
        following = next((it for it in items[n + 1:] if it[0] != "raw" or it[2].strip()), None)
        if not marked or following is not None and following[1] > depth:
            continue
        if o is None:
            o = by_name.get((node.role, node.name))
        if o is None:
            o = by_box.get((node.role, node.bounds))
        if o is None:
            lost = True
            continue
        out.extend(_subtree(old, o, depth)[1:])
        stack[-1][2] = len(_kids(old, o))  # its children are all written
    if cut:  # every level still open ends as it was: deepest first
        for depth in range(len(stack), 0, -1):
            _, o, done = stack[depth - 1]
            if o is not None:
                for k in _kids(old, o)[done:]:
                    out.extend(_subtree(old, k, depth))
    return "\n".join(out), lost
