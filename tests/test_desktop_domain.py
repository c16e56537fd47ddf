"""The os domain: a desktop as an accessibility tree. Trees parse (one root, two spaces a level,
role "name" [states] (x, y, w, h)); typing into the focused field, toggling and focusing come from
the explicit state; everything else is the world model's new tree, kept valid by the grammar."""

from __future__ import annotations

import pytest

from mcp_world.errors import WorldFileError
from mcp_world.domain import load_domain
from mcp_world.rules import Call, FormatError

from .helpers import domain_code

parse_tree = domain_code("os", "tree").parse_tree
desktop = domain_code("os", "state")
os_rules = load_domain("os").rules
from mcp_world.world import load_world, parse_world

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


def test_a_world_with_a_malformed_seed_tree_is_refused():
    with pytest.raises(WorldFileError, match="not an accessibility tree"):
        parse_world({"name": "d", "description": "x", "domains": ["os"], "seed": {"os": {"tree": "a window"}}})


def test_typing_toggling_and_focus_follow_the_state():
    st = os_rules.initial(load_world("desktop"))
    typed = desktop.answer(st, "desktop_type", {"text": "\nPay invoice 11."})
    assert typed.structured["focused"].endswith("Order printer paper.\nPay invoice 11.")
    st = os_rules.validated(desktop.apply(st, "desktop_type", {"text": "x"}, typed.text, typed.structured))
    wifi = desktop.answer(st, "desktop_click", {"target": "Wi-Fi"})
    assert 'toggle button "Wi-Fi" [enabled, focusable]' in wifi.text
    cell = desktop.answer(st, "desktop_click", {"target": "1450,150"})  # the cell showing 1200
    assert cell.structured["focused"] == "1200"
    assert desktop.answer(st, "desktop_click", {"target": "Save"}) is None  # the model's to predict
    assert desktop.answer(st, "desktop_hotkey", {"keys": "ctrl+s"}) is None


async def test_the_desktop_world_over_mcp_on_the_embedded_engine(engine_url, tmp_path):
    async with stdio_client(engine_url, tmp_path / "d.db", "--world", "desktop", "--seed", "5",
                            "--engine-timeout", "600") as c:
        names = {t.name for t in (await c.list_tools()).tools}
        first = await c.call_tool("desktop_get_tree", {})
        wifi = await c.call_tool("desktop_click", {"target": "Wi-Fi"})
        typed = await c.call_tool("desktop_type", {"text": " Pay invoice 11."})
        new_doc = await c.call_tool("desktop_hotkey", {"keys": "ctrl+n"})
        after = await c.call_tool("desktop_get_tree", {})
        bad = await c.call_tool("desktop_hotkey", {"keys": "ctrl + s"})
    assert names == {"desktop_get_tree", "desktop_click", "desktop_type", "desktop_hotkey", "world_reset"}
    assert first.content[0].text.startswith('desktop "GNOME Shell" (0, 0, 1920, 1080)\n')
    assert first.structured_content["active_window"] == "notes.txt - Text Editor"
    assert 'toggle button "Wi-Fi" [enabled, focusable]' in wifi.content[0].text
    assert typed.structured_content["focused"].endswith("Order printer paper. Pay invoice 11.")
    # The hotkey's effect is the model's prediction; the grammar keeps it a tree that parses.
    assert new_doc.meta["mcp-world/provenance"] == "model"
    assert not new_doc.is_error, new_doc.content[0].text
    nodes = parse_tree(new_doc.content[0].text)
    assert nodes[0].name == "GNOME Shell" and len(nodes) >= 2
    assert after.content[0].text == new_doc.content[0].text and after.meta["mcp-world/provenance"] == "state"
    assert bad.is_error and "keys" in bad.content[0].text
