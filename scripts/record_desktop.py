"""Real desktop episodes (issue 18, item 5): real GTK applications on a virtual X screen (Xvfb),
read through their accessibility tree (AT-SPI, the same tree a screen reader reads) and driven by
synthetic input (xdotool: clicks at a node's centre, typed text, key combinations), the way an agent
drives the os domain's tools. Each step's observation is the real tree after the action, written in
the os domain's format (`role "name" [states] (x, y, width, height)`, two spaces a level).

    fixtures/real/desktop.jsonl.xz    os episodes (interchange format, xz-compressed)

    .venv/bin/python scripts/record_desktop.py [--out fixtures/real/desktop.jsonl.xz] [--episodes 6]

Needs, from Debian's packages (it says which are missing):
    apt-get install xvfb xdotool dbus-x11 openbox at-spi2-core python3-pyatspi mousepad galculator

The applications run as an unprivileged user (nobody) when this runs as root, in a D-Bus session
of their own with their own accessibility bus, on a display of their own with a window manager
(Openbox: windows are placed, focused and made active as on a desktop); nothing is kept after.
Each world is one application started on one file or mode (in ~/Documents); each episode starts it
afresh.

How the real tree becomes the domain's format: only nodes on the screen (AT-SPI `showing`) are
kept; a nameless filler or panel is dropped and its children move up (GTK nests them deeply and
they say nothing); an editable text's name is its contents; states are those the domain prints
(enabled only on what can be operated); trailing spaces of a name (GTK pads menu items before
their shortcut) are dropped; bounds are clipped to the screen.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SYSTEM_PYTHON = "/usr/bin/python3"  # where Debian's python3-pyatspi is importable
WIDTH, HEIGHT = 1280, 800
NEEDED = {"Xvfb": "xvfb", "xdotool": "xdotool", "dbus-run-session": "dbus-x11", "openbox": "openbox",
          "mousepad": "mousepad", "galculator": "galculator"}
LAUNCHER = "/usr/libexec/at-spi-bus-launcher"

FILES = {
    "notes.txt": "Call the landlord about the lease.\nOrder printer paper.\n",
    "todo.md": "# This week\n\n- [ ] send the invoice\n- [x] renew the domain\n- [ ] book the dentist\n",
    "hello.py": 'def greet(name):\n    return f"Hello, {name}!"\n\n\nprint(greet("world"))\n',
}
# Each world: (name, command line, description, hotkeys an agent would press there, texts it would type).
WORLDS = [
    ("mousepad-notes", ["mousepad", "{dir}/notes.txt"],
     "Mousepad, the Xfce text editor, with notes.txt open (two lines of notes), alone on an X screen of 1280x800.",
     ["ctrl+f", "ctrl+a", "ctrl+z", "Escape", "ctrl+End", "ctrl+n", "Return", "ctrl+s"],
     ["Pay invoice 11.", "\nBuy stamps.", "lease"]),
    ("mousepad-todo", ["mousepad", "{dir}/todo.md"],
     "Mousepad with todo.md open (a Markdown checklist for the week), alone on an X screen of 1280x800.",
     ["ctrl+f", "ctrl+h", "ctrl+Home", "Escape", "ctrl+s", "ctrl+w", "F1"],
     ["- [ ] call the bank", "invoice", "\n"]),
    ("mousepad-python", ["mousepad", "{dir}/hello.py"],
     "Mousepad with hello.py open (a five-line Python script), alone on an X screen of 1280x800.",
     ["ctrl+f", "ctrl+l", "ctrl+a", "Escape", "ctrl+z", "ctrl+plus"],
     ["# greet people", "greet", "42"]),
    ("galculator", ["galculator"],
     "galculator, a GTK calculator, in its basic mode, alone on an X screen of 1280x800.",
     ["Escape", "Return", "ctrl+q", "ctrl+c"],
     ["12+30", "7*6", "100/4"]),
]
CLICKABLE = {"push button", "toggle button", "check box", "radio button", "menu", "menu item", "check menu item",
             "radio menu item", "page tab", "list item", "combo box", "table cell", "text"}
ENABLED = CLICKABLE | {"spin button", "entry", "slider"}
KEPT_STATES = {"active", "focused", "focusable", "editable", "checked", "selected", "expanded", "modal", "pressed",
               "selectable"}
RENAMED_STATES = {"multi line": "multi-line"}
AVOID = ("quit", "close", "exit", "print", "preferences", "open recent", "new window", "about", "contents",
         "save as", "revert", "reload")
MAX_NAME = 120
MAX_NODES = 160


# -- inside the session: read the tree and act (system python with pyatspi) ----------------------

def _read_tree() -> str:
    import pyatspi

    desktop = pyatspi.Registry.getDesktop(0)
    lines = [f'desktop "Desktop" (0, 0, {WIDTH}, {HEIGHT})']

    def clip(v: int, top: int) -> int:
        return max(0, min(int(v), top))

    def quote(s: str) -> str:
        return json.dumps(s, ensure_ascii=False)[1:-1]

    def walk(acc, depth: int) -> None:
        if len(lines) >= MAX_NODES:
            return
        try:
            states = acc.getState()
            role = acc.getRoleName()
            name = (acc.name or "").rstrip()
            count = acc.childCount
        except Exception:  # noqa: BLE001 - a node that went away as it was read
            return
        if not states.contains(pyatspi.STATE_SHOWING):
            return
        children = [acc.getChildAtIndex(i) for i in range(min(count, 200))]
        if role in ("filler", "panel") and not name:
            for child in children:
                walk(child, depth)
            return
        names = {pyatspi.stateToString(s) for s in states.getStates()}
        if "editable" in names or role in ("text", "entry", "terminal"):
            try:
                text = acc.queryText()
                name = text.getText(0, text.characterCount) or name
            except Exception:  # noqa: BLE001
                pass
        kept = sorted({RENAMED_STATES.get(s, s) for s in names} & (KEPT_STATES | {"multi-line"}))
        if "enabled" in names and role in ENABLED:
            kept = sorted(kept + ["enabled"])
        try:
            e = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
            x, y = clip(e.x, WIDTH), clip(e.y, HEIGHT)
            box = (x, y, clip(e.width, WIDTH - x), clip(e.height, HEIGHT - y))
        except Exception:  # noqa: BLE001
            box = (0, 0, 0, 0)
        role = role.lower().replace("_", " ")
        st = f" [{', '.join(kept)}]" if kept else ""
        lines.append(f'{"  " * depth}{role} "{quote(name[:MAX_NAME])}"{st} ({box[0]}, {box[1]}, {box[2]}, {box[3]})')
        for child in children:
            walk(child, depth + 1)

    for i in range(desktop.childCount):
        app = desktop.getChildAtIndex(i)
        if app is None:
            continue
        for j in range(app.childCount):
            walk(app.getChildAtIndex(j), 1)
    return "\n".join(lines) + "\n"


def _settle() -> str:
    """The tree once it stops changing (an application redraws for a while after input)."""
    time.sleep(0.5)
    last = _read_tree()
    for _ in range(8):
        time.sleep(0.35)
        now = _read_tree()
        if now == last:
            return now
        last = now
    return last


def _started(wait_s: float = 30.0) -> str:
    """The tree once the application's window is placed and active (the window manager focuses it)."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        time.sleep(0.5)
        tree = _read_tree()
        if "[active" in tree:
            return _settle()
    return _settle()


def _nodes(tree: str) -> list[dict]:
    import re

    line = re.compile(r'^(?P<indent>(?:  )*)(?P<role>[a-z][a-z ]*[a-z]) "(?P<name>(?:[^"\\]|\\.)*)"'
                      r"(?: \[(?P<states>[^\]]*)\])? \((\d+), (\d+), (\d+), (\d+)\)$")
    out = []
    for text in tree.splitlines()[1:]:
        m = line.match(text)
        if m:
            x, y, w, h = (int(m.group(i)) for i in range(5, 9))
            out.append({"role": m.group("role"), "name": json.loads(f'"{m.group("name")}"'),
                        "states": (m.group("states") or "").split(", "), "box": (x, y, w, h)})
    return out


def _xdotool(*args: str) -> None:
    subprocess.run(["xdotool", *args], check=False, timeout=10, capture_output=True)


def _type(text: str) -> None:
    """Types `text` as a keyboard would: xdotool reads an argument starting with "-" as its own options
    (it typed nothing for "- [ ] call the bank") and types a line break as Linefeed, which GTK's text
    views ignore (it typed nothing for "\\n"); so each line goes after `--` and each break is Return."""
    for n, line in enumerate(text.split("\n")):
        if n:
            _xdotool("key", "Return")
        if line:
            _xdotool("type", "--delay", "20", "--", line)


def _act(tree: str, hotkeys: list[str], texts: list[str], rng: random.Random) -> tuple[str, dict] | None:
    nodes = _nodes(tree)
    targets = [n for n in nodes if n["role"] in CLICKABLE and n["box"][2] > 2 and n["box"][3] > 2
               and not any(a in n["name"].lower() for a in AVOID) and len(n["name"]) < 60]
    focused = any("focused" in n["states"] and "editable" in n["states"] for n in nodes)
    roll = rng.random()
    if roll < 0.08:  # an agent reads the screen again
        return "desktop_get_tree", {}
    if targets and (roll < 0.55 or not focused and roll < 0.8):
        # Editable fields and check boxes more often than their share: the rules the state answers.
        n = rng.choices(targets, [3 if "editable" in t["states"] or t["role"] == "check box" else 1
                                  for t in targets])[0]
        x, y, w, h = n["box"]
        _xdotool("mousemove", str(x + w // 2), str(y + h // 2), "click", "1")
        same = sum(m["name"] == n["name"] for m in nodes)
        target = n["name"] if n["name"].strip() and same == 1 and "\n" not in n["name"] \
            else f"{x + w // 2},{y + h // 2}"
        return "desktop_click", {"target": target}
    if focused and roll < 0.8:
        text = rng.choice(texts)
        _type(text)
        return "desktop_type", {"text": text}
    keys = rng.choice(hotkeys)
    _xdotool("key", keys)
    return "desktop_hotkey", {"keys": keys}


def inner(args: argparse.Namespace) -> None:
    """Runs inside the D-Bus session, on the display: every episode of every world, as JSON lines."""
    bus = subprocess.Popen([LAUNCHER, "--launch-immediately"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    env = {**os.environ, "GTK_MODULES": "gail:atk-bridge", "NO_AT_BRIDGE": "0"}
    wm = subprocess.Popen(["openbox"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rng = random.Random(args.seed)
    try:
        for name, command, description, hotkeys, texts in WORLDS:
            seen: set[tuple] = set()
            for k in range(args.episodes):
                for kept in (".config", ".local", ".cache", "Documents"):  # a first start, every time
                    shutil.rmtree(args.dir / kept, ignore_errors=True)
                work = args.dir / "Documents"
                work.mkdir()
                for file, text in FILES.items():
                    (work / file).write_text(text)
                app = subprocess.Popen([c.format(dir=work) for c in command], env=env, cwd=work,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    start = _started()
                    steps = []
                    tree = start
                    while len(steps) < args.steps:
                        acted = _act(tree, hotkeys, texts, rng)
                        if acted is None:
                            break
                        after = _settle()
                        steps.append({"tool": acted[0], "arguments": acted[1], "observation": after})
                        tree = after
                        if after.count("\n") < 2:  # the application closed
                            break
                finally:
                    app.terminate()
                    try:
                        app.wait(5)
                    except subprocess.TimeoutExpired:
                        app.kill()
                    shutil.rmtree(work, ignore_errors=True)
                walk = tuple((s["tool"], json.dumps(s["arguments"], sort_keys=True)) for s in steps)
                if not steps or walk in seen:
                    continue
                seen.add(walk)
                world = {"name": name, "description": description, "domains": ["os"],
                         "seed": {"os": {"width": WIDTH, "height": HEIGHT, "tree": start}}}
                print(json.dumps({"id": f"{name}-{k}", "world": world, "steps": steps}, ensure_ascii=False), flush=True)
    finally:
        wm.terminate()
        bus.terminate()


# -- outside: the display, the session, the checks, the file -------------------------------------

def missing() -> list[str]:
    gone = [pkg for tool, pkg in NEEDED.items() if shutil.which(tool) is None]
    if not Path(LAUNCHER).exists():
        gone.append("at-spi2-core")
    ok = subprocess.run([SYSTEM_PYTHON, "-c", "import pyatspi"], capture_output=True).returncode == 0 \
        if Path(SYSTEM_PYTHON).exists() else False
    if not ok:
        gone.append("python3-pyatspi")
    return gone


def record(out: Path, episodes: int, steps: int, seed: int) -> list[dict]:
    gone = missing()
    if gone:
        sys.exit(f"record_desktop.py needs Debian's packages: apt-get install {' '.join(sorted(set(gone)))}")
    display = next(f":{n}" for n in range(90, 200) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", f"{WIDTH}x{HEIGHT}x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    home = Path(tempfile.mkdtemp(prefix="desk-home-"))
    try:
        time.sleep(1.0)
        user: list[str] = []
        if os.geteuid() == 0:  # applications warn, and act differently, as root
            os.chmod(home, 0o777)
            user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DISPLAY": display, "HOME": str(home),
               "XDG_RUNTIME_DIR": str(home), "LANG": "C.UTF-8"}
        command = [*user, "dbus-run-session", "--", SYSTEM_PYTHON, str(Path(__file__).resolve()), "--inner",
                   "--episodes", str(episodes), "--steps", str(steps), "--seed", str(seed), "--dir", str(home)]
        run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=3600)
        if run.returncode != 0:
            sys.exit(f"the recording session failed ({run.returncode}): {run.stderr[-2000:]}")
        recorded = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    finally:
        xvfb.terminate()
        shutil.rmtree(home, ignore_errors=True)
    return recorded


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "fixtures/real/desktop.jsonl.xz")
    ap.add_argument("--episodes", type=int, default=6, help="episodes per world")
    ap.add_argument("--steps", type=int, default=5, help="steps per episode")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--dir", type=Path, default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.inner:
        inner(a)
        return
    sys.path.insert(0, str(ROOT))
    from mcp_world.world import parse_world

    episodes = record(a.out, a.episodes, a.steps, a.seed)
    kept = []
    for e in episodes:
        try:
            parse_world(e["world"])  # the tree parses as the domain's format
        except Exception as err:  # noqa: BLE001
            print(f"left out {e['id']}: {str(err)[:200]}", file=sys.stderr)
            continue
        kept.append(e)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with lzma.open(a.out, "wt", encoding="utf-8") as f:
        for e in kept:
            f.write(json.dumps(e, ensure_ascii=False) + "\n")
    steps = sum(len(e["steps"]) for e in kept)
    print(f"{a.out}: {len({e['world']['name'] for e in kept})} worlds, {len(kept)} episodes, {steps} steps, "
          f"{a.out.stat().st_size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
