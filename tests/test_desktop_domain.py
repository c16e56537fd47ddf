"""The os domain: a desktop as an accessibility tree. Trees parse (one root, two spaces a level,
role "name" [states] (x, y, w, h)); typing into the focused field, toggling and focusing come from
the explicit state; everything else is the world model's new tree, kept valid by the grammar."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_world.errors import WorldFileError
from mcp_world.domain import load_domain
from mcp_world.rules import Call, FormatError

from .helpers import domain_code

parse_tree = domain_code("os", "tree").parse_tree
desktop = domain_code("os", "state")
os_rules = load_domain("os").rules
from mcp_world.world import load_world, parse_world

from .conftest import ScriptedEngine
from .helpers import stdio_client

pytestmark = pytest.mark.anyio

TREE = ('desktop "GNOME" (0, 0, 800, 600)\n'
        '  frame "Notes" [active] (0, 0, 800, 600)\n'
        '    text "a \\"quoted\\"\\nline" [editable, focused] (0, 40, 800, 560)\n')


def test_accessibility_trees_parse_and_malformed_ones_say_what_is_wrong():
    nodes = parse_tree(TREE)
    assert [(n.depth, n.role) for n in nodes] == [(0, "desktop"), (1, "frame"), (2, "text")]
    assert nodes[2].name == 'a "quoted"\nline' and nodes[2].states == ["editable", "focused"]
    assert nodes[2].bounds == (0, 40, 800, 560)
    for bad, why in [('  frame "x" (0, 0, 1, 1)', "root"), (TREE + 'desktop "again" (0, 0, 1, 1)', "second root"),
                     (TREE + '        label "deep" (0, 0, 1, 1)', "more than one level"),
                     ('desktop GNOME 0 0 800 600', "is not a node")]:
        with pytest.raises(FormatError, match=why):
            parse_tree(bad)
    fmt = os_rules
    call = Call("desktop_hotkey", {"keys": "ctrl+n"}, {"tree": TREE})
    assert fmt.prefill(call) == 'desktop "GNOME" (0, 0, 800, 600)\n'
    cut = fmt.parse('  frame "New" [active] (0, 0, 800, 600)\n    text "" [edit', Call("desktop_hotkey", {}, {"tree": TREE}, True))
    assert cut.repaired and cut.structured["windows"] == ["New"] and cut.structured["active_window"] == "New"
    with pytest.raises(FormatError, match="only its root"):
        fmt.parse("", call)


def test_the_instruct_dialect_shows_trees_with_unchanged_subtrees_elided_and_puts_them_back():
    import json

    from mcp_world.dialects import get_dialect
    from mcp_world.dialects.base import Turn
    from mcp_world.domain import load_domain as domain_of

    tree = domain_code("os", "tree")
    world, domain = load_world("desktop"), domain_of("os")
    st = os_rules.initial(world)
    seed = st["tree"]
    # Unchanged, the desktop is its root and one `…`; a dialog that opens is written whole, the rest
    # elided: windows as they were in a row are one `…`, a window whose title bar changed ends in `…`.
    same = os_rules.shown(seed, Call("desktop_get_tree", {}, {}), seed)
    assert same == seed.split("\n")[0] + "\n  …\n"
    assert os_rules.unshown(same, Call("desktop_get_tree", {}, st)) == seed
    dialog = seed.replace('  frame "notes.txt - Text Editor" [active]', '  frame "notes.txt - Text Editor"').replace(
        '  frame "budget.ods', '  dialog "Save As" [active, modal] (700, 200, 500, 300)\n'
        '    push button "Save" [enabled, focusable] (1100, 210, 80, 30)\n  frame "budget.ods')
    compact = os_rules.shown(dialog, Call("desktop_hotkey", {"keys": "ctrl+shift+s"}, st))
    assert 'frame "notes.txt - Text Editor" (640, 32, 640, 1048) …' in compact
    assert 'push button "Save" [enabled, focusable] (1100, 210, 80, 30)\n' in compact
    assert len(compact) < len(dialog) / 3
    assert os_rules.unshown(compact, Call("desktop_hotkey", {}, st)) == dialog
    # The demonstrations are one episode, each shown against the one before (the first whole).
    demos = [json.loads(line) for line in (domain.folder / "demonstrations.jsonl").read_text().splitlines()]
    before = ""
    for d in demos:
        shown = os_rules.shown(d["observation"], Call(d["tool"], d["arguments"], {}), before)
        assert (" …" in shown) == bool(before)
        assert os_rules.unshown(shown, Call(d["tool"], d["arguments"], {"tree": before})) == d["observation"]
        before = d["observation"]

    # Rendered: the history against the screen before each step, the screen now whole with the action,
    # and the answer (and a training target) in the compact form.
    history = [Turn("CLICK Wi-Fi", seed.replace("[checked, enabled", "[enabled"), tool="desktop_click",
                    arguments={"target": "Wi-Fi"})]
    history.append(Turn("GET TREE", history[0].observation, tool="desktop_get_tree"))
    now = os_rules.validated({**st, "tree": history[0].observation})
    call = Call("desktop_hotkey", {"keys": "ctrl+shift+s"}, now)
    dialect = get_dialect("instruct")
    r = dialect.render(world, domain, now, history, "HOTKEY ctrl+shift+s", "", 8000, call=call)
    assert r.messages[-5]["content"] == "CLICK Wi-Fi"
    step = r.messages[-4]["content"]
    assert r.messages[-2]["content"] == seed.split("\n")[0] + "\n  …\n"  # read again: nothing changed
    assert step.endswith('    …\n    toggle button "Wi-Fi" [enabled, focusable] (1780, 0, 32, 32)\n  …\n')
    assert r.messages[-1]["content"].startswith("The screen now:\n" + history[0].observation)
    assert r.messages[-1]["content"].endswith("\nHOTKEY ctrl+shift+s") and r.prefill == seed.split("\n")[0] + "\n"
    target = dialect.completion_for(dialog.replace("[checked, enabled", "[enabled"), r)
    assert 'frame "budget.ods - LibreOffice Calc" (1280, 32, 640, 1048) …' in target and len(target) < 700
    read = dialect.read(world, domain, call, target, history)
    assert os_rules.parse(read, call).text == dialog.replace("[checked, enabled", "[enabled")

    # A key of a calculator: the display written, the keys around it one `…` each side.
    keys = "".join(f'    push button "{k}" [enabled] ({40 * k}, 100, 40, 40)\n' for k in range(10))
    calc = 'desktop "D" (0, 0, 800, 600)\n  frame "Calc" [active] (0, 0, 800, 600)\n' + keys
    pressed = calc.replace('"5" [enabled]', '"5" [enabled, focused]')
    compact = tree.elide(pressed, calc)
    assert compact == ('desktop "D" (0, 0, 800, 600)\n  frame "Calc" [active] (0, 0, 800, 600)\n    …\n'
                       '    push button "5" [enabled, focused] (200, 100, 40, 40)\n    …\n')
    assert tree.expand(compact, calc) == (pressed, False)
    # What the model may write that the screen before does not have: a marked node is kept, childless;
    # a `…` under a new node puts nothing back; a line that is not a node is left for the parser,
    # which says what is wrong.
    assert tree.expand('desktop "D" (0, 0, 800, 600)\n  frame "New" (0, 0, 9, 9)\n    …\n', calc) == (
        'desktop "D" (0, 0, 800, 600)\n  frame "New" (0, 0, 9, 9)\n', True)
    lost, missing = tree.expand('desktop "GNOME Shell" (0, 0, 1920, 1080)\n  frame "Gone" (0, 0, 9, 9) …', seed)
    assert missing and lost.endswith('frame "Gone" (0, 0, 9, 9)')
    with pytest.raises(FormatError, match="is not a node"):
        os_rules.parse(os_rules.unshown('  frame "Documents - Files" (0, 32, 640, 1048) …\n  a window', call), call)


async def test_an_answer_cut_at_its_token_limit_is_finished_from_the_screen_before(make_rig):
    """The model writes what changed and runs out of tokens: the line being written is dropped and
    every level still open ends as it was (the rest of the window's children, then the windows after
    it), so a cut answer loses nothing it did not change. An answer that ended on its own is not
    completed: a window it left out closed."""
    from mcp_world.engines.base import Completion

    tree = domain_code("os", "tree")
    keys = "".join(f'    push button "{k}" [enabled] ({40 * k}, 100, 40, 40)\n' for k in range(6))
    calc = ('desktop "D" (0, 0, 800, 600)\n  frame "Calc" [active] (0, 0, 400, 600)\n    label "0" (0, 0, 400, 40)\n'
            + keys + '  frame "Notes" (400, 0, 400, 600)\n    text "hi" [editable] (400, 40, 400, 560)\n')
    cut = 'desktop "D" (0, 0, 800, 600)\n  frame "Calc" [active] (0, 0, 400, 600)\n    label "12" (0, 0, 400, 40)\n' \
          '    push button "0" [enabled] (0, 100, 40, 40)\n    push button "1" [ena'
    whole, lost = tree.expand(cut, calc, cut=True)
    assert whole == calc.replace('label "0"', 'label "12"').rstrip("\n") and not lost
    # a window being written whole when the cut came gets its old children; a marked one is not doubled
    assert tree.expand('desktop "D" (0, 0, 800, 600)\n  frame "Calc" [active] (0, 0, 400, 600) …\n  frame "Notes" (4',
                       calc, cut=True)[0] == calc.rstrip("\n")
    assert tree.expand('desktop "D" (0, 0, 800, 600)\n  frame "Calc" [active] (0, 0, 400, 600)', calc, cut=True)[0] \
        == calc.rstrip("\n")
    # a model that loops (a line written again: no real tree repeats one) is cut where the loop starts
    looping = cut.rsplit("\n", 1)[0] + "\n" + '    push button "9" [focused] (0, 0, 9, 9)\n' * 3
    assert tree.expand(looping, calc, cut=True)[0] == whole.replace(
        '    push button "1"', '    push button "9" [focused] (0, 0, 9, 9)\n    push button "1"')
    ended = tree.expand(cut.rsplit("\n", 1)[0], calc)[0]
    assert 'frame "Notes"' not in ended and 'push button "5"' not in ended

    # Through the server: the engine says it stopped at the limit, the step is the whole desktop.
    world = load_world("desktop")
    seed = os_rules.initial(world)["tree"]
    answer = "\n".join(seed.split("\n")[1:9])[:-7]  # the Top Bar, the first window's first lines, cut
    engine = ScriptedEngine(lambda r: Completion(answer, 10, 900, True, "scripted", 1.0))
    rig = make_rig("desktop", engine, state_mode="full")
    got = await rig.sim.call("d", "desktop_hotkey", {"keys": "ctrl+n"})
    assert got.provenance == "model" and got.observation == seed, got.observation
    assert engine.requests[0].max_tokens == os_rules.compact_max_tokens == 450  # what is cut comes back
    engine.script = lambda r: Completion(answer.rsplit("\n", 1)[0] + "\n", 10, 40, False, "scripted", 1.0)
    closed = await rig.sim.call("d", "desktop_hotkey", {"keys": "ctrl+n"})
    assert [n.depth for n in parse_tree(closed.observation)].count(1) == 2  # the Top Bar and one window
    assert [n.depth for n in parse_tree(seed)].count(1) == 4


async def test_what_no_real_tree_has_is_taken_out_of_the_models_tree(make_rig):
    """Siblings the model stacks on one box (its menu bar's menus written over again, made-up labels)
    go, keeping the one that was there before; a window it writes with nothing in it keeps what it
    had. A menu that closes, a window that closes and a real new node stay as written."""
    from mcp_world.engines.base import Completion

    tree = domain_code("os", "tree")
    before = ('desktop "D" (0, 0, 800, 600)\n  frame "Edit" [active] (0, 0, 800, 600)\n    menu bar "" (0, 0, 800, 25)\n'
              '      menu "File" [enabled] (0, 0, 40, 25)\n      menu "View" [enabled] (40, 0, 40, 25)\n'
              '    text "hi" [editable, focused] (0, 25, 800, 575)\n  frame "Other" (0, 0, 9, 9)\n    label "x" (0, 0, 9, 9)\n')
    answer = ('desktop "D" (0, 0, 800, 600)\n  frame "Edit" [active] (0, 0, 800, 600)\n    menu bar "" (0, 0, 800, 25)\n'
              '      menu "Fix" [enabled] (0, 0, 40, 25)\n      menu "File" [enabled] (0, 0, 40, 25)\n'
              '        menu item "Open" (0, 25, 90, 20)\n      menu "View" [enabled] (40, 0, 40, 25)\n'
              '      label "made up" (300, 300, 10, 10)\n      label "made up too" (300, 300, 10, 10)\n'
              '        label "under it" (300, 300, 5, 5)\n    text "hi" [editable, focused] (0, 25, 800, 575)\n'
              '  frame "Other" (0, 0, 9, 9)\n')
    nodes, changed = tree.settle(parse_tree(answer), before)
    got = tree.render_tree(nodes)
    assert changed and 'menu "Fix"' not in got and 'made up too' not in got and "under it" not in got
    assert 'menu item "Open"' in got and 'label "made up" (300' in got  # the menu opened; one label stays
    assert got.endswith('  frame "Other" (0, 0, 9, 9)\n    label "x" (0, 0, 9, 9)\n')  # the window kept its label
    # nothing to take out: a menu closing, a window closing, a new dialog, zero-sized siblings
    real = ('desktop "D" (0, 0, 800, 600)\n  frame "Edit" [active] (0, 0, 800, 600)\n    menu bar "" (0, 0, 800, 25)\n'
            '      menu "File" [enabled] (0, 0, 40, 25)\n    page tab "" (0, 0, 0, 0)\n    page tab "" (0, 0, 0, 0)\n'
            '  dialog "Save?" [active] (100, 100, 200, 100)\n    push button "OK" (120, 150, 50, 30)\n')
    assert tree.settle(parse_tree(real), before) == (parse_tree(real), False)
    # a stacked pair inside a subtree that is itself dropped: everything under the dropped window goes
    calc = 'desktop "D" (0, 0, 800, 600)\n  frame "calc" [active] (0, 0, 800, 600)\n    label "0" (0, 0, 10, 10)\n'
    twice = ('desktop "D" (0, 0, 800, 600)\n  frame "Calc" [active] (0, 0, 800, 600)\n    menu "a" (5, 5, 5, 5)\n'
             '    menu "b" (5, 5, 5, 5)\n      menu item "c" (6, 6, 6, 6)\n    menu "d" (7, 7, 7, 7)\n' + calc.split("\n", 1)[1])
    nodes, changed = tree.settle(parse_tree(twice), calc)
    assert changed and tree.render_tree(nodes) == calc
    # states written twice or out of order: once each, sorted, as AT-SPI writes them
    twice = calc.replace('label "0" (0, 0, 10, 10)', 'label "0" [focused, enabled, focused] (0, 0, 10, 10)')
    nodes, changed = tree.settle(parse_tree(twice), calc)
    assert changed and 'label "0" [enabled, focused] (0, 0, 10, 10)' in tree.render_tree(nodes)
    # more than one node focused: the one focused before keeps it, else the first
    two = ('desktop "D" (0, 0, 800, 600)\n  frame "calc" [active] (0, 0, 800, 600)\n'
           '    label "0" [focused] (0, 0, 10, 10)\n    label "1" [focused] (0, 20, 10, 10)\n'
           '    label "2" [focused] (0, 40, 10, 10)\n')
    was = two.replace('"0" [focused]', '"0"').replace('"2" [focused]', '"2"')
    nodes, changed = tree.settle(parse_tree(two), was)
    assert changed and tree.render_tree(nodes) == was
    nodes, changed = tree.settle(parse_tree(two), calc)
    assert changed and tree.render_tree(nodes).count("focused") == 1 and 'label "0" [focused]' in tree.render_tree(nodes)

    # Through the server: the model's compact answer writes a Top Bar button over again and a window
    # without its children; the step is the desktop as it was, marked repaired.
    seed = os_rules.initial(load_world("desktop"))["tree"]
    compact = ('  panel "Top Bar" (0, 0, 1920, 32)\n    push button "Activities" [enabled, focusable] (8, 0, 96, 32)\n'
               '    push button "Activities 2" (8, 0, 96, 32)\n    …\n  frame "Documents - Files" (0, 32, 640, 1048)\n  …\n')
    engine = ScriptedEngine(lambda r: Completion(compact, 10, 60, False, "scripted", 1.0))
    rig = make_rig("desktop", engine, state_mode="full")
    got = await rig.sim.call("d", "desktop_hotkey", {"keys": "ctrl+n"})
    assert got.provenance == "model" and got.observation == seed, got.observation
    assert [(s["provenance"], s["repaired"]) for s in rig.store.steps("d")][-1] == ("model", 1)


def test_a_click_on_a_menu_changes_the_menus_and_nothing_else():
    """A click on a menu opens it with the items the model wrote (or closes it, when open); the menu
    it lies in stays open, any other open menu closes, and outside the menus every node is as it
    was, with the focus as the model wrote it. A window behind a modal dialog takes no click."""
    tree = domain_code("os", "tree")
    before = ('desktop "D" (0, 0, 800, 600)\n  frame "notes - Mousepad" [active] (0, 0, 800, 600)\n'
              '    menu bar "" (0, 0, 800, 25)\n      menu "File" [enabled, selectable, selected] (0, 0, 40, 25)\n'
              '        menu item "Open" [enabled, selectable] (0, 25, 120, 25)\n'
              '      menu "Edit" [enabled, selectable] (40, 0, 40, 25)\n'
              '    text "hi" [editable, enabled, focusable, multi-line] (0, 25, 800, 575)\n')
    answer = ('desktop "D" (0, 0, 800, 600)\n  frame "Untitled" [active] (0, 0, 800, 600)\n'
              '    menu bar "" (0, 0, 800, 25)\n      menu "File" [enabled, selectable, selected] (0, 0, 40, 25)\n'
              '        menu item "Open" [enabled, selectable] (0, 25, 120, 25)\n'
              '      menu "Edit" [enabled, selectable] (40, 0, 40, 25)\n'
              '        menu item "Undo" [enabled, selectable] (40, 25, 120, 25)\n'
              '    text "hi" [editable, enabled, focusable, focused, multi-line] (5, 30, 700, 500)\n')
    nodes, kept = desktop.keep_outside_menus(parse_tree(answer), before, "desktop_click", {"target": "Edit"})
    assert kept and tree.render_tree(nodes) == (
        'desktop "D" (0, 0, 800, 600)\n  frame "notes - Mousepad" [active] (0, 0, 800, 600)\n'
        '    menu bar "" (0, 0, 800, 25)\n      menu "File" [enabled, selectable] (0, 0, 40, 25)\n'
        '      menu "Edit" [enabled, selectable, selected] (40, 0, 40, 25)\n'
        '        menu item "Undo" [enabled, selectable] (40, 25, 120, 25)\n'
        '    text "hi" [editable, enabled, focusable, focused, multi-line] (0, 25, 800, 575)\n')
    # Edit opened before in the episode: it opens again with the items it showed then (none
    # highlighted), whatever the model writes this time
    menus: dict[str, str] = {}
    desktop.remember_menus(parse_tree(answer.replace('"Undo" [enabled, selectable]', '"Undo" [enabled, focused, selectable]')
                                      .replace("Untitled", "*todo.md - Mousepad")), menus)  # another document of the app
    garbage = answer.replace('menu item "Undo" [enabled, selectable] (40, 25, 120, 25)', 'menu item "Billing" [enabled] (1, 1, 1, 1)')
    again, kept = desktop.keep_outside_menus(parse_tree(garbage), before, "desktop_click", {"target": "Edit"}, menus)
    assert kept and tree.render_tree(again) == tree.render_tree(nodes)
    none = answer.replace('        menu item "Undo" [enabled, selectable] (40, 25, 120, 25)\n', "")
    assert tree.render_tree(desktop.keep_outside_menus(parse_tree(none), before, "desktop_click", {"target": "Edit"},
                                                       menus)[0]) == tree.render_tree(nodes)
    assert "Undo" not in tree.render_tree(desktop.keep_outside_menus(parse_tree(none), before, "desktop_click",
                                                                     {"target": "Edit"})[0])  # nothing remembered
    state = desktop.apply(os_rules.initial(load_world("desktop")), "desktop_click", {"target": "Edit"},
                          tree.render_tree(nodes), {})
    assert any("Undo" in items for items in state["menus"].values())  # what the server remembers, step by step

    # With the items seen, the click is the state's: the menu opens and the window loses the focus;
    # clicked again it closes, and the focus goes back where it was when the menus opened
    shut = before.replace("selectable, selected]", "selectable]").replace(
        '        menu item "Open" [enabled, selectable] (0, 25, 120, 25)\n', "").replace("focusable, multi-line", "focusable, focused, multi-line")
    st = desktop.DesktopState(tree=shut).model_dump()
    assert desktop.answer(st, "desktop_click", {"target": "Edit"}) is None  # its items never seen: the model's
    st = desktop.apply(st, "desktop_click", {"target": "Edit"}, tree.render_tree(nodes), {})
    reopened = desktop.answer(desktop.apply(st, "desktop_hotkey", {"keys": "Escape"}, shut, {}), "desktop_click",
                              {"target": "Edit"})
    assert reopened is not None and reopened.text == tree.render_tree(nodes).replace("focused, ", "")
    closing = desktop.answer(st, "desktop_click", {"target": "Edit"})
    assert closing is not None and closing.text == shut  # closed again, the editor has the focus back
    assert desktop.answer({**st, "menu_focus": ""}, "desktop_click", {"target": "Edit"}) is None  # where to: not known
    # a click outside the open menus closes them and does nothing else (the menu takes it)
    outside = desktop.answer(st, "desktop_click", {"target": "hi"})
    assert outside is not None and outside.text == shut
    assert desktop.answer(st, "desktop_click", {"target": "Undo"}) is None  # an item: what it does is the model's

    closed, kept = desktop.keep_outside_menus(parse_tree(answer), before, "desktop_click", {"target": "File"})
    assert kept and 'menu item' not in tree.render_tree(closed)  # File was open: it closes, Edit stays shut
    assert desktop.keep_outside_menus(parse_tree(answer), before, "desktop_click", {"target": "Open"}) == \
        (parse_tree(answer), False)  # an item acts: what it does is the model's

    # A modal dialog over the only application window: a click on that window does nothing.
    modal = os_rules.validated({**os_rules.initial(load_world("desktop")), "tree": (
        'desktop "D" (0, 0, 800, 600)\n  frame "hello.py" (0, 0, 800, 600)\n    menu "Help" [enabled] (0, 0, 40, 25)\n'
        '  dialog "Go To" [active, modal] (200, 200, 300, 100)\n    push button "Jump" [enabled] (300, 250, 60, 30)\n')})
    assert desktop.answer(modal, "desktop_click", {"target": "Help"}).text == modal["tree"]
    two = os_rules.validated({**modal, "tree": modal["tree"] + '  frame "Other" (0, 0, 10, 10)\n'})
    assert desktop.answer(two, "desktop_click", {"target": "Help"}) is None  # another application's window may take it

    # The domain reads the model's answer this way (marked repaired), and as the instruct dialect
    # shows and reads it, the answer written against the screen before.
    parsed = os_rules.parse(answer, Call("desktop_click", {"target": "Edit"}, {"tree": before}))
    assert parsed.repaired and parsed.text == tree.render_tree(nodes)


def test_every_recorded_real_transition_survives_the_compact_form():
    """Every step of the recorded real desktop, written against the screen before it and put back,
    is the real tree byte for byte, and the compact form is much shorter than the tree."""
    from mcp_world.importing import read_records
    from mcp_world.paths import FIXTURES_DIR

    tree = domain_code("os", "tree")
    whole = compact = 0
    for rec in read_records(FIXTURES_DIR / "real" / "desktop.jsonl.xz"):
        before = rec.world.seed["os"]["tree"]
        for step in rec.steps:
            shown = tree.elide(step.observation, before)
            assert tree.expand(shown, before) == (step.observation, False), (rec.id, shown)
            whole, compact = whole + len(step.observation), compact + len(shown)
            before = step.observation
    assert compact < 0.5 * whole, (compact, whole)


def test_no_recorded_real_transition_is_settled():
    """What `settle` takes out of the model's tree never happens in reality, and neither does a change
    `keep_untouched` or `keep_outside_menus` puts back: every recorded real transition goes through
    all three unchanged."""
    from mcp_world.importing import read_records
    from mcp_world.paths import FIXTURES_DIR

    tree = domain_code("os", "tree")
    n = typing = menus = reopened = pressed = items = 0
    for rec in read_records(FIXTURES_DIR / "real" / "desktop.jsonl.xz"):
        before = rec.world.seed["os"]["tree"]
        seen: dict[str, str] = {}
        doc = desktop.DesktopState(tree=before).model_dump()  # for the focus to give back when menus close
        for step in rec.steps:
            nodes, changed = tree.settle(parse_tree(step.observation), before)
            assert not changed and tree.render_tree(nodes) == step.observation, (rec.id, step.tool)
            nodes, kept = desktop.keep_untouched(parse_tree(step.observation), before, step.tool, step.arguments)
            assert not kept and tree.render_tree(nodes) == step.observation, (rec.id, step.arguments)
            nodes, kept = desktop.keep_outside_menus(parse_tree(step.observation), before, step.tool, step.arguments)
            assert not kept and tree.render_tree(nodes) == step.observation, (rec.id, step.arguments)
            # a menu opened again shows the items it showed last time in the episode
            nodes, kept = desktop.keep_outside_menus(parse_tree(step.observation), before, step.tool, step.arguments,
                                                     seen)
            assert not kept and tree.render_tree(nodes) == step.observation, (rec.id, step.arguments)
            # a click on a menu's item closes the menus, and the focus goes back where it was
            nodes, kept = desktop.keep_menus_closed(parse_tree(step.observation), before, step.tool, step.arguments,
                                                    doc["menu_focus"])
            assert not kept and tree.render_tree(nodes) == step.observation, (rec.id, step.arguments)
            screen = parse_tree(before)
            clicked = desktop.find(screen, str(step.arguments.get("target", ""))) if step.tool == "desktop_click" else None
            items += clicked is not None and clicked.role in desktop.MENU_ITEMS and "enabled" in clicked.states \
                and desktop._in_open_menu(screen, clicked)
            doc = desktop.apply(doc, step.tool, step.arguments, step.observation, {})
            menus += clicked is not None and clicked.role == "menu"
            reopened += clicked is not None and clicked.role == "menu" and desktop._menu_key(
                tree._paths(parse_tree(before))[parse_tree(before).index(clicked)]) in seen and \
                "selected" not in clicked.states
            desktop.remember_menus(parse_tree(step.observation), seen)
            typing += desktop._typing_into(parse_tree(before), step.tool, step.arguments) is not None
            pressed += desktop._pressing(parse_tree(before), step.tool, step.arguments) is not None
            before, n = step.observation, n + 1
    assert n == 192 and typing == 21  # real typing into an editor changed its text and titles only
    assert items == 10  # a real click on an enabled item of an open menu closed the menus
    assert pressed == 25  # a real toggle button clicked took the focus and changed its window's text only (one opened a popup)
    assert menus == 64  # and a real click on a menu changed nothing outside the menus but focus and selection
    assert reopened == 6  # and each of the 6 menus opened again showed what it showed before


def test_a_key_the_tree_cannot_show_leaves_it_as_it_was():
    """A ctrl combination while a menu is open (the menu holds the keyboard: 11 of 11 recorded real
    ones changed nothing), the caret moved in the focused editor, and copying are answered from the
    state: the tree as it was. Escape with a menu open, alt and super combinations, keys in a
    single-line field and ctrl+c in a terminal are not."""
    menu_open = ('desktop "D" (0, 0, 800, 600)\n  frame "notes - Mousepad" [active] (0, 0, 800, 600)\n'
                 '    menu bar "" (0, 0, 800, 25)\n      menu "File" [enabled, selectable, selected] (0, 0, 40, 25)\n'
                 '        menu item "Open" [enabled, selectable] (0, 25, 120, 25)\n'
                 '    text "hi" [editable, enabled, focusable, multi-line] (0, 25, 800, 575)\n')
    editing = menu_open.replace('        menu item "Open" [enabled, selectable] (0, 25, 120, 25)\n', "") \
        .replace("selectable, selected]", "selectable]").replace("focusable, multi-line", "focusable, focused, multi-line")
    entry = editing.replace("multi-line", "single-line")
    terminal = editing.replace('text "hi" [editable', 'terminal "hi" [editable')
    for tree, keys, answered in [(menu_open, "ctrl+s", True), (menu_open, "ctrl+shift+z", True), (menu_open, "Escape", False),
                                 (menu_open, "alt+F4", False), (editing, "ctrl+End", True), (editing, "shift+Left", True),
                                 (editing, "Page_Down", True), (editing, "ctrl+c", True), (editing, "ctrl+s", True),
                                 (editing, "super+Up", False), (entry, "Left", False), (entry, "ctrl+c", True),
                                 (terminal, "ctrl+c", False), (editing, "Return", False)]:
        found = desktop.answer({"tree": tree}, "desktop_hotkey", {"keys": keys})
        assert (found is not None and found.text == tree) if answered else found is None, (keys, tree[-60:])


def test_escape_save_and_find_where_the_real_applications_showed_what_they_do():
    """Escape with one menu of the menu bar open closes it and gives the focus back (2 of 2 recorded);
    with nothing to close (the main window, the focus in its document or on a button) it changes
    nothing (4 of 4). ctrl+s in a modified document's editor takes the `*` off the title, in a saved
    one changes nothing; ctrl+f with the find bar's field focused changes nothing. A dialog, a
    search bar, a popup, a submenu, an unnamed document and an unknown focus to give back are the
    model's."""
    editing = ('desktop "D" (0, 0, 800, 600)\n  frame "*notes.txt - Mousepad" [active] (0, 0, 800, 600)\n'
               '    menu bar "" (0, 0, 800, 25)\n      menu "File" [enabled, selectable] (0, 0, 40, 25)\n'
               '    text "hi" [editable, enabled, focusable, focused, multi-line] (0, 25, 800, 575)\n')
    saved = editing.replace('"*notes.txt', '"notes.txt')
    got = desktop.answer({"tree": editing}, "desktop_hotkey", {"keys": "ctrl+s"})
    assert got is not None and got.text == saved
    assert desktop.answer({"tree": saved}, "desktop_hotkey", {"keys": "ctrl+s"}).text == saved
    assert desktop.answer({"tree": saved}, "desktop_hotkey", {"keys": "Escape"}).text == saved
    for tree in [editing.replace('"*notes.txt', '"*Untitled 1'), editing.replace("focused, multi-line", "multi-line"),
                 editing.replace(' - Mousepad"', '"')]:
        assert desktop.answer({"tree": tree}, "desktop_hotkey", {"keys": "ctrl+s"}) is None, tree

    # one menu open from the menu bar: Escape closes it and the editor has the focus back
    doc = desktop.DesktopState(tree=saved).model_dump()
    opened = saved.replace('selectable] (0, 0, 40, 25)', 'selectable, selected] (0, 0, 40, 25)\n'
                           '        menu item "Open" [enabled, selectable] (0, 25, 120, 25)') \
        .replace("focused, multi-line", "multi-line")
    doc = desktop.apply(doc, "desktop_click", {"target": "File"}, opened, {})
    assert desktop.answer(doc, "desktop_hotkey", {"keys": "Escape"}).text == saved
    assert desktop.answer({**doc, "menu_focus": ""}, "desktop_hotkey", {"keys": "Escape"}) is None
    nested = opened.replace('        menu item "Open" [enabled, selectable] (0, 25, 120, 25)',
                            '        menu "Recent" [enabled, selectable, selected] (0, 25, 120, 25)\n'
                            '          menu item "a.txt" [enabled, selectable] (120, 25, 120, 25)')
    assert desktop.answer({**doc, "tree": nested}, "desktop_hotkey", {"keys": "Escape"}) is None

    # where Escape closes something: a dialog, a search bar's field
    dialog = saved.replace('[active] (0, 0, 800, 600)', '(0, 0, 800, 600)').replace("focused, multi-line", "multi-line") + \
        '  dialog "Go To" [active, modal] (200, 200, 300, 150)\n    push button "Cancel" [enabled, focusable, focused] (210, 300, 80, 30)\n'
    find_bar = saved.replace("focused, multi-line", "multi-line") + \
        '    tool bar "" (0, 560, 800, 40)\n      combo box "" [enabled] (40, 560, 160, 34)\n' \
        '        text "" [editable, enabled, focusable, focused] (40, 560, 160, 34)\n'
    assert desktop.answer({"tree": dialog}, "desktop_hotkey", {"keys": "Escape"}) is None
    assert desktop.answer({"tree": find_bar}, "desktop_hotkey", {"keys": "Escape"}) is None
    assert desktop.answer({"tree": find_bar}, "desktop_hotkey", {"keys": "ctrl+f"}).text == find_bar
    assert desktop.answer({"tree": saved}, "desktop_hotkey", {"keys": "ctrl+f"}) is None  # the find bar opens


def test_menus_seen_are_forgotten_when_the_document_may_have_changed_them():
    """Edit's Undo is greyed until something is typed (the recorded real Mousepad shows both), and Cut
    and Copy follow a selection the tree does not show: after typing, a key, or a click that does
    something, a menu seen before is the model's again. Opening and closing menus, Escape and
    reading the tree keep it; a submenu open when the menu was seen is closed when it opens again."""
    saved = ('desktop "D" (0, 0, 800, 600)\n  frame "notes.txt - Mousepad" [active] (0, 0, 800, 600)\n'
             '    menu bar "" (0, 0, 800, 25)\n      menu "Edit" [enabled, selectable] (0, 0, 40, 25)\n'
             '    text "hi" [editable, enabled, focusable, focused, multi-line] (0, 25, 800, 575)\n')
    items = ('        menu item "Undo" [selectable] (0, 25, 120, 25)\n'
             '        menu "Convert" [enabled, selectable] (0, 50, 120, 25)\n')
    opened = saved.replace('selectable] (0, 0, 40, 25)', 'selectable, selected] (0, 0, 40, 25)\n' + items.rstrip("\n")) \
        .replace("focused, multi-line", "multi-line")
    submenu = opened.replace('menu "Convert" [enabled, selectable] (0, 50, 120, 25)',
                             'menu "Convert" [enabled, selectable, selected] (0, 50, 120, 25)\n'
                             '          menu item "To Lowercase" [enabled, selectable] (120, 50, 120, 25)')
    doc = desktop.DesktopState(tree=saved).model_dump()
    doc = desktop.apply(doc, "desktop_click", {"target": "Edit"}, opened, {})
    doc = desktop.apply(doc, "desktop_click", {"target": "Convert"}, submenu, {})
    doc = desktop.apply(doc, "desktop_hotkey", {"keys": "Escape"}, saved, {})
    doc = desktop.apply(doc, "desktop_get_tree", {}, saved, {})
    again = desktop.answer(doc, "desktop_click", {"target": "Edit"})
    assert again is not None and again.text == opened  # Convert closed, as the menu opens afresh
    typed = desktop.apply(doc, "desktop_type", {"text": "x"}, saved.replace('"hi"', '"xhi"'), {})
    assert typed["menus"] == {} and desktop.answer(typed, "desktop_click", {"target": "Edit"}) is None
    keyed = desktop.apply(doc, "desktop_hotkey", {"keys": "ctrl+a"}, saved, {})
    assert desktop.answer(keyed, "desktop_click", {"target": "Edit"}) is None


def test_a_click_on_a_menus_item_closes_the_menus_and_gives_the_focus_back():
    """The model keeps the Edit menu open after "Select All" and rewrites its items: the menus close
    and the editor has the focus back. A dialog the model opens keeps its focus; a submenu clicked
    and a greyed-out item are not this rule's."""
    saved = ('desktop "D" (0, 0, 800, 600)\n  frame "notes.txt - Mousepad" [active] (0, 0, 800, 600)\n'
             '    menu bar "" (0, 0, 800, 25)\n      menu "Edit" [enabled, selectable] (0, 0, 40, 25)\n'
             '    text "hi" [editable, enabled, focusable, focused, multi-line] (0, 25, 800, 575)\n')
    opened = saved.replace('selectable] (0, 0, 40, 25)', 'selectable, selected] (0, 0, 40, 25)\n'
                           '        menu item "Select All" [enabled, selectable] (0, 25, 120, 25)\n'
                           '        menu item "Undo" [selectable] (0, 50, 120, 25)\n'
                           '        menu "Convert" [enabled, selectable] (0, 75, 120, 25)') \
        .replace("focused, multi-line", "multi-line")
    doc = desktop.apply(desktop.DesktopState(tree=saved).model_dump(), "desktop_click", {"target": "Edit"}, opened, {})
    model = opened.replace('"Undo" [selectable]', '"Made up" [enabled, selectable]')
    nodes, kept = desktop.keep_menus_closed(parse_tree(model), opened, "desktop_click", {"target": "Select All"},
                                            doc["menu_focus"])
    render = domain_code("os", "tree").render_tree
    assert kept and render(nodes) == saved
    with_dialog = model + '  dialog "Find" [active] (200, 200, 300, 150)\n' \
                          '    text "" [editable, enabled, focusable, focused] (210, 210, 200, 30)\n'
    nodes, kept = desktop.keep_menus_closed(parse_tree(with_dialog), opened, "desktop_click", {"target": "Select All"},
                                            doc["menu_focus"])
    assert kept and "menu item" not in render(nodes) and render(nodes).endswith(
        'text "" [editable, enabled, focusable, focused] (210, 210, 200, 30)\n') and render(nodes).count("focused") == 1
    for target in ("Convert", "Undo", "Edit"):
        assert desktop.keep_menus_closed(parse_tree(model), opened, "desktop_click", {"target": target},
                                         doc["menu_focus"]) == (parse_tree(model), False), target


def test_a_world_with_a_malformed_seed_tree_is_refused():
    with pytest.raises(WorldFileError, match="not an accessibility tree"):
        parse_world({"name": "d", "description": "x", "domains": ["os"], "seed": {"os": {"tree": "a window"}}})


def test_a_world_declares_what_its_menus_show_and_a_click_opens_them_from_the_state():
    """`seed.os.menus` (by `window > menu`): the desktop world declares Calc's File, Edit and Insert.
    With Calc active, a click on File opens it with its declared items from the state (no model
    call), and a click on it again closes it; keys that name no menu, or items that are not tree
    lines, are refused with what is accepted."""
    world = load_world("desktop")
    st = os_rules.initial(world)
    assert len(st["menus"]) == 3
    calc = {**st, "tree": st["tree"].replace('frame "notes.txt - Text Editor" [active]', 'frame "notes.txt - Text Editor"')
            .replace('frame "budget.ods - LibreOffice Calc"', 'frame "budget.ods - LibreOffice Calc" [active]')}
    assert desktop.answer(st, "desktop_click", {"target": "File"}) is None  # Calc is not active: the click raises it
    opened = desktop.answer(calc, "desktop_click", {"target": "File"})
    assert opened is not None and '      menu "File" [enabled, selectable, selected] (1284, 32, 40, 28)\n        menu item "New" [enabled, ' \
        'selectable] (1284, 60, 260, 25)\n' in opened.text and "focused" not in opened.text
    after = desktop.apply(calc, "desktop_click", {"target": "File"}, opened.text, {})
    closed = desktop.answer(after, "desktop_click", {"target": "File"})
    assert closed is not None and closed.text == calc["tree"]  # closed, and the focus back where it was
    edit = desktop.answer(after, "desktop_click", {"target": "Edit"})
    assert edit is not None and 'menu item "Find & Replace..."' in edit.text and 'menu item "New"' not in edit.text
    seed = dict(world.seed["os"])
    for menus, says in [({"Calc > File": 'menu item "x" [enabled] (0, 0, 1, 1)'}, "names no menu of seed.os.tree"),
                        ({"budget.ods - LibreOffice Calc > File": "junk"}, "its items are not tree lines"),
                        ({"File": "x"}, "is not `window > menu`"), ({"a > " + "b" * 300: "x"}, "at most 300")]:
        with pytest.raises(WorldFileError, match=says):
            parse_world({"name": "d", "description": "x", "domains": ["os"], "seed": {"os": {**seed, "menus": menus}}})


def test_the_state_answers_only_what_real_applications_do_exactly():
    """Measured against real GTK applications read through AT-SPI (benchmarks/state_vs_real.py over
    fixtures/real/desktop.jsonl.xz): typed text goes in at the caret, so typing is answered only where
    the caret is known; a toggle button may be a calculator's key, so it is not; a check box flips
    and takes the focus."""
    st = os_rules.initial(load_world("desktop"))
    assert st["caret"] == 0  # the editor has the focus in the world's first screen: a file just opened
    typed = desktop.answer(st, "desktop_type", {"text": "Pay invoice 11.\n"})
    assert typed.text == st["tree"].replace('frame "notes.txt', 'frame "*notes.txt').replace(
        'text "Call the landlord', 'text "Pay invoice 11.\\nCall the landlord')
    assert desktop.answer({**st, "caret": None}, "desktop_type", {"text": "Pay invoice 11."}) is None
    assert desktop.answer(st, "desktop_click", {"target": "Wi-Fi"}) is None  # a toggle button
    assert desktop.answer(st, "desktop_click", {"target": "1450,150"}) is None  # Calc's cell: Calc is not active
    # In the active window: the focus moves to the field clicked, by name or at its coordinates, in
    # the window drawn on top; not while a menu is open (the click closes it).
    form = os_rules.validated({**st, "tree": (
        'desktop "D" (0, 0, 800, 600)\n  frame "Form" [active] (0, 0, 800, 600)\n'
        '    text "a" [editable, focusable, focused] (0, 0, 800, 300)\n    text "b" [editable, focusable] (0, 300, 800, 300)\n'
        '  frame "Other" (0, 0, 400, 100)\n    text "c" [editable, focusable] (0, 0, 400, 100)\n')})
    moved = desktop.answer(form, "desktop_click", {"target": "10,400"})
    assert moved.structured["focused"] == "b" and moved.text.count("focused") == 1
    assert desktop.answer(form, "desktop_click", {"target": "b"}).text == moved.text
    assert desktop.answer(form, "desktop_click", {"target": "10,10"}) is None  # "Other" is drawn over "Form" there
    menu = os_rules.validated({**form, "tree": form["tree"].replace(
        '    text "a"', '    menu "File" [selected] (0, 0, 40, 20)\n      menu item "Quit" (0, 20, 100, 20)\n    text "a"')})
    assert desktop.answer(menu, "desktop_click", {"target": "b"}) is None
    assert desktop.answer(st, "desktop_click", {"target": "Save"}) is None  # the model's to predict
    assert desktop.answer(st, "desktop_hotkey", {"keys": "ctrl+n"}) is None
    assert desktop.answer(st, "desktop_get_tree", {}).text == st["tree"]
    box = os_rules.validated({**st, "tree": TREE + '    check box "Match case" [enabled, focusable] (0, 10, 90, 20)\n'})
    on = desktop.answer(box, "desktop_click", {"target": "Match case"})
    assert 'check box "Match case" [checked, enabled, focusable, focused] (0, 10, 90, 20)' in on.text
    assert 'text "a \\"quoted\\"\\nline" [editable] (0, 40, 800, 560)' in on.text
    # A greyed-out widget (no `enabled`) ignores the click: the desktop is as it was. In an open menu
    # its own greyed-out item leaves it open; a greyed-out widget outside it is the model's (the
    # click closes the menu), and so is one in a window that is not active (the click raises it).
    disabled = os_rules.validated({**st, "tree": TREE + '    check box "Match case" [focusable] (0, 10, 90, 20)\n'
                                                      '    check box "Whole words" [enabled, focusable] (0, 30, 90, 20)\n'})
    assert desktop.answer(disabled, "desktop_click", {"target": "Match case"}).text == disabled["tree"]
    # a tree that never writes `enabled` for check boxes (a world written by hand) says nothing by leaving it out
    unmarked = os_rules.validated({**st, "tree": TREE + '    check box "Match case" [focusable] (0, 10, 90, 20)\n'})
    assert desktop.answer(unmarked, "desktop_click", {"target": "Match case"}) is None  # may be greyed out: the model's
    greyed = os_rules.validated({**st, "tree": (
        'desktop "D" (0, 0, 800, 600)\n  frame "Edit" [active] (0, 0, 800, 600)\n    menu bar "" (0, 0, 800, 25)\n'
        '      menu "Document" [enabled, selectable, selected] (0, 0, 80, 25)\n'
        '        menu item "Word Wrap" [enabled, selectable] (0, 25, 200, 25)\n'
        '        menu item "Next Tab" [selectable] (0, 50, 200, 25)\n'
        '    push button "Undo" [focusable] (100, 0, 40, 25)\n    push button "Redo" [enabled] (140, 0, 40, 25)\n'
        '    label "Ready" (0, 580, 100, 20)\n'
        '  frame "Other" (400, 300, 400, 300)\n    push button "Stop" (400, 300, 50, 25)\n')})
    assert desktop.answer(greyed, "desktop_click", {"target": "Next Tab"}).text == greyed["tree"]
    assert desktop.answer(greyed, "desktop_click", {"target": "10,60"}).text == greyed["tree"]
    assert desktop.answer(greyed, "desktop_click", {"target": "Word Wrap"}) is None  # it acts, and the menu closes
    assert desktop.answer(greyed, "desktop_click", {"target": "Undo"}) is None  # outside the open menu
    assert desktop.answer(greyed, "desktop_click", {"target": "Stop"}) is None  # another window
    closed = os_rules.validated({**greyed, "tree": greyed["tree"].replace(
        '        menu item "Word Wrap" [enabled, selectable] (0, 25, 200, 25)\n'
        '        menu item "Next Tab" [selectable] (0, 50, 200, 25)\n', "")})
    assert desktop.answer(closed, "desktop_click", {"target": "Undo"}).text == closed["tree"]
    assert desktop.answer(closed, "desktop_click", {"target": "Ready"}) is None  # a label says nothing by lacking `enabled`


async def test_typing_into_an_editor_changes_its_text_and_titles_and_nothing_else(make_rig):
    """Typing into a focused editor (text, or Return, Tab, BackSpace, Delete) takes the editor's text
    and the windows' titles from the model's tree and everything else from the screen before: the
    small model rewrites menus and bounds it was not asked about. A single-line field is left as the
    model wrote it (a search field answers with its matches), and so are other actions."""
    from mcp_world.engines.base import Completion

    before = ('desktop "D" (0, 0, 800, 600)\n  frame "notes.txt - Mousepad" [active] (0, 0, 800, 600)\n'
              '    menu bar "" (0, 0, 800, 25)\n      menu "File" [enabled, selectable] (0, 0, 40, 25)\n'
              '    text "hello\\n" [editable, enabled, focusable, focused, multi-line] (0, 25, 800, 550)\n'
              '    text "" [editable, enabled, focusable] (0, 575, 800, 25)\n')
    answer = ('desktop "D" (0, 0, 800, 600)\n  frame "*notes.txt - Mousepad" [active] (0, 0, 800, 600)\n'
              '    menu bar "" (0, 0, 800, 25)\n      menu "File" [enabled, selectable] (0, 0, 60, 30)\n'
              '      menu "Made up" [enabled, selectable] (60, 0, 60, 30)\n'
              '    text "hi hello\\n" [editable, enabled, focusable, focused, multi-line] (10, 25, 700, 500)\n')
    want = before.replace('"notes.txt', '"*notes.txt').replace('"hello', '"hi hello')
    for tool, args in [("desktop_type", {"text": "hi "}), ("desktop_hotkey", {"keys": "Return"})]:
        nodes, kept = desktop.keep_untouched(parse_tree(answer), before, tool, args)
        assert kept and domain_code("os", "tree").render_tree(nodes) == want
    for tool, args in [("desktop_hotkey", {"keys": "ctrl+f"}), ("desktop_click", {"target": "File"})]:
        assert desktop.keep_untouched(parse_tree(answer), before, tool, args) == (parse_tree(answer), False)
    search = before.replace("focusable, focused, multi-line]", "focusable, multi-line]").replace(
        'text "" [editable, enabled, focusable]', 'text "" [editable, enabled, focusable, focused]')
    assert desktop.keep_untouched(parse_tree(answer), search, "desktop_type", {"text": "x"})[1] is False

    # Through the server, on the desktop world: the model retitles the editor and edits its text, and
    # also moves the Top Bar's button and adds a list item; the step keeps the text and the title only.
    seed = os_rules.initial(load_world("desktop"))["tree"]
    wrote = (seed.replace('frame "notes.txt', 'frame "*notes.txt').replace('"Call the landlord', '"Hi.\\nCall the landlord')
             .replace('(8, 0, 96, 32)', '(8, 0, 120, 40)')
             .replace('      list item "notes.txt"', '      list item "made up.txt" [selectable] (0, 224, 640, 36)\n      list item "notes.txt"'))
    engine = ScriptedEngine(lambda r: Completion(wrote.split("\n", 1)[1], 10, 60, False, "scripted", 1.0))
    rig = make_rig("desktop", engine, state_mode="full")
    assert (await rig.sim.call("d", "desktop_hotkey", {"keys": "Down"})).provenance == "state"  # the caret is lost
    got = await rig.sim.call("d", "desktop_type", {"text": "Hi.\n"})
    want = seed.replace('frame "notes.txt', 'frame "*notes.txt').replace('"Call the landlord', '"Hi.\\nCall the landlord')
    assert got.provenance == "model" and got.observation == want, got.observation
    assert [(s["provenance"], s["repaired"]) for s in rig.store.steps("d")][-1] == ("model", 1)


def test_a_pressed_toggle_button_takes_the_focus_and_only_its_windows_text_changes():
    """A click on a calculator's key: the key takes the focus and the display reads as the model
    wrote it; the menus, keys and bounds the small model also rewrote are as they were. A window the
    model opens (a popup) leaves its tree as written; a greyed-out key, another role, an inactive
    window or an open menu are not this rule's."""
    before = ('desktop "Desktop" (0, 0, 1280, 800)\n  frame "galculator" [active] (473, 216, 333, 368)\n'
              '    menu bar "" (474, 236, 331, 25)\n      menu "File" [enabled, selectable] (474, 236, 39, 25)\n'
              '    text "7" [enabled, focusable, focused, multi-line] (481, 268, 317, 52)\n'
              '    toggle button "1" [enabled, focusable] (480, 499, 59, 34)\n'
              '    toggle button "MR" [focusable] (675, 379, 59, 34)\n'
              '    push button "OK" [enabled, focusable] (480, 539, 59, 34)\n')
    answer = ('desktop "Desktop" (0, 0, 1280, 800)\n  frame "galculator" [active] (473, 216, 333, 368)\n'
              '    menu bar "" (474, 236, 331, 25)\n      menu "Fiel" [enabled, selectable] (474, 236, 50, 25)\n'
              '      menu "Made up" [enabled, selectable] (524, 236, 50, 25)\n'
              '    text "71" [enabled, focusable, focused, multi-line] (481, 268, 317, 52)\n'
              '    toggle button "1" [enabled, focusable, checked] (480, 500, 59, 34)\n')
    render = domain_code("os", "tree").render_tree
    nodes, kept = desktop.keep_untouched(parse_tree(answer), before, "desktop_click", {"target": "1"})
    assert kept and render(nodes) == before.replace('"7" [enabled, focusable, focused,', '"71" [enabled, focusable,') \
        .replace('"1" [enabled, focusable]', '"1" [enabled, focusable, focused]')
    nodes, kept = desktop.keep_untouched(parse_tree(answer), before, "desktop_click", {"target": "510,516"})
    assert kept and 'toggle button "1" [enabled, focusable, focused]' in render(nodes)
    on = answer.replace("(480, 500, 59, 34)", "(480, 499, 59, 34)")  # the model says the toggle stays pressed
    nodes, kept = desktop.keep_untouched(parse_tree(on), before, "desktop_click", {"target": "1"})
    assert kept and 'toggle button "1" [checked, enabled, focusable, focused]' in render(nodes)
    # a window whose toggles stay pressed (one is checked): what the click switches is the model's
    pressed = before.replace('"MR" [focusable]', '"MR" [checked, focusable]')
    assert desktop.keep_untouched(parse_tree(answer), pressed, "desktop_click", {"target": "1"})[1] is False
    popup = answer + '  window "" [active] (610, 369, 126, 33)\n    menu "" [enabled] (610, 369, 126, 33)\n'
    for tree_, target in [(popup, "1"), (answer, "MR"), (answer, "OK"), (answer, "File")]:
        assert desktop.keep_untouched(parse_tree(tree_), before, "desktop_click", {"target": target}) == \
            (parse_tree(tree_), False), target
    inactive = before.replace('"galculator" [active]', '"galculator"')
    assert desktop.keep_untouched(parse_tree(answer), inactive, "desktop_click", {"target": "1"})[1] is False


def test_every_state_answer_agrees_with_the_recorded_real_desktop():
    """The recorded real desktop episodes, replayed: every step the state answers is byte for byte
    what the real application showed."""
    import anyio

    from benchmarks.state_vs_real import Tally, against_recordings
    from mcp_world.paths import FIXTURES_DIR

    tally = Tally()
    anyio.run(against_recordings, [FIXTURES_DIR / "real" / "desktop.jsonl.xz"], tally, "os")
    assert tally.steps >= 150 and tally.answered >= 77, (tally.steps, tally.answered)
    assert tally.agreed == tally.answered, tally.mismatches[:2]
    assert set(tally.per_rule) >= {"desktop_click", "desktop_get_tree", "desktop_hotkey", "desktop_type"}


def test_typing_follows_the_caret_the_episode_knows_and_forgets_it_when_it_may_have_moved():
    st = os_rules.validated({"tree": (
        'desktop "D" (0, 0, 800, 600)\n  frame "todo.md - Mousepad" [active] (0, 0, 800, 600)\n'
        '    menu bar "" (0, 0, 800, 25)\n      menu "Edit" [enabled, selectable] (0, 0, 40, 25)\n'
        '    text "one\\ntwo\\n" [editable, enabled, focusable, focused, multi-line] (0, 25, 800, 575)\n'), "caret": 0})

    def step(state, tool, args):
        answer = desktop.answer(state, tool, args)
        return answer, desktop.apply(state, tool, args, answer.text if answer else state["tree"], {})

    typed, st2 = step(st, "desktop_type", {"text": "- [ ] "})
    assert 'frame "*todo.md - Mousepad"' in typed.text and 'text "- [ ] one\\ntwo\\n"' in typed.text and st2["caret"] == 6
    _, st3 = step(st2, "desktop_hotkey", {"keys": "End"})
    assert st3["caret"] == 9
    after, st4 = step(st3, "desktop_hotkey", {"keys": "Return"})
    assert 'text "- [ ] one\\n\\ntwo\\n"' in after.text and 'frame "*todo.md' in after.text and st4["caret"] == 10
    _, st5 = step(st4, "desktop_hotkey", {"keys": "ctrl+End"})
    assert st5["caret"] == len("- [ ] one\n\ntwo\n")
    assert step(st5, "desktop_hotkey", {"keys": "ctrl+Home"})[1]["caret"] == 0
    # Keys that may move it out of sight, a click in the text, an unknown answer: forgotten
    for tool, args in [("desktop_hotkey", {"keys": "Up"}), ("desktop_hotkey", {"keys": "shift+Left"}),
                       ("desktop_click", {"target": "Edit"})]:
        assert desktop.apply(st5, tool, args, st5["tree"], {})["caret"] is None, (tool, args)
    assert desktop.answer({**st5, "caret": None}, "desktop_type", {"text": "x"}) is None
    assert desktop.answer(st5, "desktop_type", {"text": "a\tb"}) is None  # an editor may indent with spaces
    untitled = os_rules.validated({**st, "tree": st["tree"].replace("todo.md - Mousepad", "Untitled 1 - Mousepad")})
    assert desktop.answer(untitled, "desktop_type", {"text": "x"}) is None  # its title may say it otherwise


def test_what_the_recorder_typed_reached_the_applications_editor():
    """Each recorded text typed into a focused editor is in its text afterwards. Before the recorder
    typed a line after `--` and a line break as Return, xdotool took "- [ ] call the bank" for its
    options and typed a line break as Linefeed, and 9 of the 20 recorded typing steps showed nothing
    typed."""
    import lzma

    from mcp_world.paths import FIXTURES_DIR

    checked = 0
    for line in lzma.open(FIXTURES_DIR / "real" / "desktop.jsonl.xz", "rt", encoding="utf-8"):
        record = json.loads(line)
        before = record["world"]["seed"]["os"]["tree"]
        for step in record["steps"]:
            was = desktop.editor(parse_tree(before))
            if step["tool"] == "desktop_type" and was is not None:
                now = desktop.editor(parse_tree(step["observation"]))
                assert now is not None and len(now.name) == len(was.name) + len(step["arguments"]["text"]), \
                    (record["id"], step["arguments"])
                checked += 1
            before = step["observation"]
    assert checked >= 12


async def test_the_desktop_world_over_mcp_on_the_embedded_engine(engine_url, tmp_path):
    async with stdio_client(engine_url, tmp_path / "d.db", "--world", "desktop", "--seed", "5",
                            "--engine-timeout", "600") as c:
        names = {t.name for t in (await c.list_tools()).tools}
        first = await c.call_tool("desktop_get_tree", {})
        typed = await c.call_tool("desktop_type", {"text": "Renew the domain.\n"})  # at the caret, at the start
        caret = await c.call_tool("desktop_click", {"target": "700,500"})  # in the focused text: nothing changes
        new_doc = await c.call_tool("desktop_hotkey", {"keys": "ctrl+n"})
        after = await c.call_tool("desktop_get_tree", {})
        bad = await c.call_tool("desktop_hotkey", {"keys": "ctrl + s"})
    assert names == {"desktop_get_tree", "desktop_click", "desktop_type", "desktop_hotkey", "world_reset"}
    assert first.content[0].text.startswith('desktop "GNOME Shell" (0, 0, 1920, 1080)\n')
    assert first.structured_content["active_window"] == "notes.txt - Text Editor"
    assert typed.meta["mcp-world/provenance"] == "state" and typed.content[0].text == first.content[0].text.replace(
        'frame "notes.txt', 'frame "*notes.txt').replace('text "Call the', 'text "Renew the domain.\\nCall the')
    assert caret.content[0].text == typed.content[0].text and caret.meta["mcp-world/provenance"] == "state"
    # The hotkey's effect is the model's prediction; the grammar keeps it a tree that parses.
    assert new_doc.meta["mcp-world/provenance"] == "model"
    assert not new_doc.is_error, new_doc.content[0].text
    nodes = parse_tree(new_doc.content[0].text)
    assert nodes[0].name == "GNOME Shell" and len(nodes) >= 2
    assert after.content[0].text == new_doc.content[0].text and after.meta["mcp-world/provenance"] == "state"
    assert bad.is_error and "keys" in bad.content[0].text


def _desktop_missing() -> list[str]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("record_desktop", Path(__file__).parent.parent / "scripts" / "record_desktop.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.missing()


# Skipped only outside CI: there test.sh installs the virtual desktop, and a missing one fails.
@pytest.mark.skipif(bool(_desktop_missing()) and not os.environ.get("CI"),
                    reason="needs a virtual desktop (test.sh installs Debian's packages)")
def test_the_recorder_reads_real_applications_and_the_state_agrees_with_them(tmp_path):
    """scripts/record_desktop.py on real GTK applications under Xvfb: every world's start and every
    step is a tree in the domain's format, with the application's window active; actions change what
    the real application shows; and what the state answers of the fresh recording is what it showed."""
    import anyio

    from benchmarks.state_vs_real import Tally, against_recordings
    from mcp_world.importing import read_records

    out = tmp_path / "desktop.jsonl.xz"
    r = subprocess.run([sys.executable, "scripts/record_desktop.py", "--episodes", "1", "--steps", "4", "--seed", "3",
                        "--out", str(out)], cwd=Path(__file__).parent.parent, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    records = read_records(out)
    assert {rec.world.name for rec in records} == {"mousepad-notes", "mousepad-todo", "mousepad-python", "galculator"}
    changed = 0
    for rec in records:
        start = rec.world.seed["os"]["tree"]
        nodes = parse_tree(start)
        assert nodes[0].role == "desktop" and any(n.depth == 1 and "active" in n.states for n in nodes), start[:300]
        before = start
        for step in rec.steps:
            assert len(parse_tree(step.observation)) >= 2
            changed += step.observation != before
            before = step.observation
    assert changed >= 4  # menus opened, text typed, keys pressed: the real screens moved
    assert "Call the landlord about the lease." in records[0].world.seed["os"]["tree"]
    tally = Tally()
    anyio.run(against_recordings, [out], tally, "os")
    assert tally.agreed == tally.answered, tally.mismatches[:1]
