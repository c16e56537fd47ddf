"""The phone's screens as outlines (domains/android/rules/outline.py): what the world model is
shown and writes, the dump the code writes around it — unchanged elements verbatim, changed states
in place, new ones laid out — and BACK answered from the screens before."""

from __future__ import annotations


import pytest
from lxml import etree

from mcp_world.domain import load_domain
from mcp_world.rules import Call, FormatError

from .conftest import ScriptedEngine

pytestmark = pytest.mark.anyio

DOMAIN = load_domain("android")
RULES = DOMAIN.rules
MAIN = DOMAIN.demonstrations[0].observation  # Settings' main page, a dump


def _nodes(dump: str) -> list:
    return list(etree.fromstring(dump.encode()).iter("node"))


def test_every_shipped_screen_reads_as_an_outline_and_comes_back_byte_for_byte():
    for demo in DOMAIN.demonstrations:
        outline = RULES.shown(demo.observation, Call(demo.tool, demo.arguments, {}))
        assert outline.startswith("app com.android.settings\n") and "<node" not in outline
        assert len(outline) < len(demo.observation) / 10  # what the model reads and writes
        state = {"screen": demo.observation, "package": "com.android.settings"}
        assert RULES.unshown(outline, Call("android_dump_ui", {}, state)) == demo.observation


def test_a_changed_state_is_set_in_place_and_every_other_byte_is_kept():
    network = DOMAIN.demonstrations[1].observation
    state = {"screen": network, "package": "com.android.settings"}
    outline = RULES.shown(network, Call("android_dump_ui", {}, {}))
    assert 'switch "Airplane mode" off' in outline
    dump = RULES.unshown(outline.replace('"Airplane mode" off', '"Airplane mode" on'),
                         Call("android_tap", {"x": 960, "y": 900}, state))
    changed = [(a, b) for a, b in zip(_nodes(network), _nodes(dump)) if dict(a.attrib) != dict(b.attrib)]
    assert len(_nodes(dump)) == len(_nodes(network)) and len(changed) == 1
    before, after = changed[0]
    assert before.get("checked") == "false" and after.get("checked") == "true"
    assert {k for k in before.attrib if before.get(k) != after.get(k)} <= {"checked", "text"}


def test_a_new_screen_is_laid_out_by_code_and_keeps_the_elements_it_shares_verbatim():
    state = {"screen": MAIN, "package": "com.android.settings"}
    answer = ('app com.android.settings\ntitle "Battery"\nrow "Battery usage" "View usage for past 24 hours"\n'
              'switch "Battery Saver" off\nrow "Network & internet" "Mobile, Wi‑Fi, hotspot"\nbutton "Done"\n')
    call = Call("android_tap", {"target": "Battery"}, state)
    dump = RULES.unshown(answer, call)
    parsed = RULES.parse(dump, call)  # the domain's own validation of a dump
    assert parsed.structured["package"] == "com.android.settings"
    assert {"Battery usage", "Battery Saver", "Network & internet", "Done"} <= set(parsed.structured["clickable"])
    nodes = _nodes(dump)
    boxes = [tuple(map(int, n.get("bounds").replace("][", ",").strip("[]").split(","))) for n in nodes]
    assert all(0 <= x1 <= x2 <= 1080 and 0 <= y1 <= y2 for x1, y1, x2, y2 in boxes)
    switch = next(n for n in nodes if n.get("class") == "android.widget.Switch")
    assert switch.get("checkable") == "true" and switch.get("checked") == "false"
    # the row it shares with the screen before: the same nodes, moved, every attribute but bounds kept
    old = next(n for n in _nodes(MAIN) if n.get("text") == "Network & internet").getparent()
    new = next(n for n in nodes if n.get("text") == "Network & internet").getparent()
    def kept(row):  # where it is (bounds, its index among siblings) may change, nothing else
        return [{k: v for k, v in n.attrib.items() if k not in ("bounds", "index")} for n in row.iter("node")]

    assert kept(old) == kept(new) and len(kept(new)) == 3
    # rows stack down the screen without overlapping
    tops = [b[1] for n, b in zip(nodes, boxes) if n.get("clickable") == "true"]
    assert tops == sorted(tops) and len(set(tops)) == len(tops)


def test_a_looping_answer_keeps_each_element_once_and_a_bad_one_is_refused():
    state = {"screen": MAIN, "package": "com.android.settings"}
    looped = 'app com.android.settings\ntitle "Settings"\n' + 'row "Lavender" "Lavender"\n' * 30 + 'row "Late"\n'
    dump = RULES.unshown(looped, Call("android_tap", {"target": "Battery"}, state))
    assert [n.get("text") for n in _nodes(dump) if n.get("text")] == ["Settings", "Lavender", "Lavender"]
    with pytest.raises(FormatError, match="no screen element"):
        RULES.unshown("The screen shows the settings page.", Call("android_dump_ui", {}, state))
    # an engine that answers with a whole dump after all is read as one
    assert RULES.unshown("app x.y\n" + MAIN, Call("android_dump_ui", {}, state)) == MAIN


async def test_the_model_is_shown_outlines_writes_one_and_back_returns_the_screen_before(make_rig):
    """The phone world declares what Settings, Messages and the home screen show: launching them and
    HOME are answered from the state; an app it does not declare is the model's, and comes back as
    it was left when launched again."""
    answers = iter(['title "Photos"\nimage "Beach"\n', 'switch "Storage manager" off\n'])
    engine = ScriptedEngine(lambda r: next(answers))
    rig = make_rig("phone", engine, state_mode="full")
    home = await rig.sim.call("p", "android_dump_ui", {})
    photos = await rig.sim.call("p", "android_launch_app", {"package": "com.google.android.apps.photos"})
    first = await rig.sim.call("p", "android_launch_app", {"package": "com.android.settings"})
    storage = await rig.sim.call("p", "android_tap", {"target": "Storage"})
    back = await rig.sim.call("p", "android_press_key", {"key": "BACK"})
    again = await rig.sim.call("p", "android_launch_app", {"package": "com.google.android.apps.photos"})
    home2 = await rig.sim.call("p", "android_press_key", {"key": "HOME"})
    assert [r.provenance for r in (home, photos, first, storage, back, again, home2)] == \
        ["state", "model", "state", "model", "state", "state", "state"]
    assert {"Phone", "Messages", "Settings"} <= set(home.structured["clickable"]) and home2.observation == home.observation
    assert {"Network & internet", "Battery", "Search settings"} <= set(first.structured["clickable"])
    assert first.structured["package"] == "com.android.settings"
    assert back.observation == first.observation and again.observation == photos.observation
    assert len(engine.requests) == 2
    launch, tap = engine.requests
    # what the code knows is written for the model: the app launched; the app still in front, and
    # the page a row opens is titled with its name
    assert launch.prefill == "app com.google.android.apps.photos\n"
    assert tap.prefill == 'app com.android.settings\ntitle "Storage"\n'
    assert launch.max_tokens == tap.max_tokens == RULES.compact_max_tokens
    prompt = "\n".join(m["content"] for m in tap.messages)
    assert "<node" not in prompt and 'row "Battery" "82%"' in prompt  # the screen before, as an outline
    assert "android.widget.Switch" in storage.observation and storage.observation.startswith("<?xml")
    assert [n.get("text") for n in _nodes(storage.observation) if n.get("text")][:2] == ["Storage", "Storage manager"]
    state = (await rig.sim.episode("p")).state["android"]
    assert RULES.compact_prefill(Call("android_press_key", {"key": "HOME"}, state)) == \
        "app com.google.android.apps.nexuslauncher\n"  # the world's launcher
    on_storage = dict(state, screen=storage.observation, package="com.android.settings")
    assert RULES.compact_prefill(Call("android_tap", {"target": "Storage manager"}, on_storage)) == \
        "app com.android.settings\n"  # a switch: no page to open
    on_settings = dict(state, screen=first.observation, package="com.android.settings")
    assert RULES.compact_prefill(Call("android_tap", {"target": "Network & internet"}, on_settings)).endswith(
        'title "Network & internet"\n')
    # With the keyboard up, BACK only hides it: the model is asked
    typing = RULES.unshown('app com.android.settings\nfield "Search settings" focused\n',
                           Call("android_tap", {"target": "Search"}, {}))
    assert RULES.answer({"screen": typing, "back": [MAIN]}, Call("android_press_key", {"key": "BACK"}, {})) is None
    assert RULES.answer({"screen": MAIN, "back": [typing]},
                        Call("android_press_key", {"key": "BACK"}, {})).text == typing


async def test_declared_pages_open_from_the_state_and_show_the_switches_as_set(make_rig):
    """A world declares what a tap opens (`package > label`): the phone world's Settings pages and
    conversations, the office phone's Acme Chat. Turning Wi-Fi off is answered from the state step by
    step, the page opened again shows it off (a page is made anew, its switches read the settings),
    a home icon titled as a declared app opens it, a row tapped at its coordinates opens its page, and
    the task's check sees the switch. What is not declared is the model's."""
    from mcp_world.paths import FIXTURES_DIR
    from mcp_world.rules import EpisodeView
    from mcp_world.tasks import load_tasks, run_checks
    from mcp_world.world import load_world

    engine = ScriptedEngine(lambda r: 'title "Sent"\n')
    rig = make_rig("phone", engine, state_mode="full")
    steps = [("android_launch_app", {"package": "com.android.settings"}), ("android_tap", {"target": "Network & internet"}),
             ("android_tap", {"target": "internet"}), ("android_tap", {"target": "Wi-Fi"}),
             ("android_press_key", {"key": "BACK"}), ("android_tap", {"target": "Internet"}),
             ("android_press_key", {"key": "HOME"}), ("android_tap", {"target": "Messages"})]
    got = [await rig.sim.call("p", tool, args) for tool, args in steps]
    assert [g.provenance for g in got] == ["state"] * len(steps) and engine.requests == []
    launch, network, internet, off, back, again, home, messages = got
    assert network.structured["clickable"][:2] == ["Internet", "Calls & SMS"] and "Airplane mode" in network.structured["clickable"]
    wifi = [n for n in _nodes(internet.observation) if n.get("checkable") == "true"]
    assert [n.get("checked") for n in wifi] == ["true"]
    assert [n.get("checked") for n in _nodes(off.observation) if n.get("checkable") == "true"] == ["false"]
    assert back.observation == network.observation and again.observation == off.observation  # shown as set
    assert messages.structured["package"] == "com.google.android.apps.messaging"
    alex = next(n for n in _nodes(messages.observation) if n.get("clickable") == "true" and "Alex" in
                [d.get("text") for d in n.iter("node")])
    x1, y1, x2, y2 = map(int, alex.get("bounds").replace("][", ",").strip("[]").split(","))
    chat = await rig.sim.call("p", "android_tap", {"x": (x1 + x2) // 2, "y": (y1 + y2) // 2})
    assert chat.provenance == "state" and "See you at 7?" in chat.observation and "Send" in chat.structured["clickable"]
    task = next(t for t in load_tasks(FIXTURES_DIR / "tasks" / "phone.yaml").tasks if t.id == "wifi-off")
    state = (await rig.sim.episode("p")).state
    assert state["android"]["toggles"] == {"Wi-Fi": False}
    checks = run_checks(task, EpisodeView(load_world("phone"), state))
    assert [c.passed for c in checks] == [True, False], checks  # Wi-Fi off; Settings no longer in front
    # the office phone: its home screen, Acme Chat from its icon, Dana's conversation, typing; Send is the model's
    rig = make_rig("office", engine, state_mode="full")
    office = [await rig.sim.call("o", tool, args) for tool, args in [
        ("android_dump_ui", {}), ("android_tap", {"target": "Acme Chat"}), ("android_tap", {"target": "Dana"}),
        ("android_type", {"text": "The Q2 report is ready"}), ("android_tap", {"target": "Send"})]]
    assert [g.provenance for g in office] == ["state"] * 4 + ["model"]
    assert office[1].structured["package"] == "com.acme.chat" and "Is the Q2 report ready?" in office[2].observation
    assert 'text="The Q2 report is ready"' in office[3].observation


def test_app_icons_sit_in_a_launchers_grid_and_containers_are_not_labelled_by_their_id():
    """Icons are laid out five across, as a Pixel's home screen is, and read back as icons; in the
    viewer's picture a container (the list of rows) carries no label that would sit on its first row."""
    home = RULES.unshown('app com.l.home\nicon "A"\nicon "B"\nicon "C"\nicon "D"\nicon "E"\nicon "F"\nfield "Search"\n',
                         Call("android_press_key", {"key": "HOME"}, {}))
    assert RULES.shown(home, Call("android_dump_ui", {}, {})).splitlines()[1:4] == ['icon "A"', 'icon "B"', 'icon "C"']
    cells = [n.get("bounds") for n in _nodes(home) if n.get("content-desc")]
    assert cells[:2] == ["[8,132][208,394]", "[224,132][424,394]"] and cells[5] == "[8,394][208,656]"
    picture = RULES.picture(MAIN, Call("android_dump_ui", {}, {}))
    assert "recycler_view" not in {b.label for b in picture.boxes}


def test_a_training_item_on_the_phone_targets_the_outline():
    from mcp_world.dialects import get_dialect
    from mcp_world.training.items import build_items
    from mcp_world.importing import EpisodeRecord, StepRecord
    from mcp_world.world import load_world

    rec = EpisodeRecord(id="phone-1", world=load_world("phone"),
                        steps=[StepRecord(tool="android_launch_app", arguments={"package": "com.android.settings"},
                                          observation=MAIN)])
    items, _ = build_items([rec])
    item = items[0]
    assert item.prefill == "app com.android.settings\n" and item.target.startswith('title "Settings"\n')
    # read back as the server reads an answer, the target gives the real dump
    assert item.observation(item.target, get_dialect("instruct")).text == MAIN


def test_a_phone_world_declaring_malformed_screens_is_refused_with_what_is_accepted():
    from mcp_world.errors import WorldFileError
    from mcp_world.world import parse_world

    def world(seed):
        return {"name": "p", "description": "x", "domains": ["android"], "seed": {"android": seed}}

    with pytest.raises(WorldFileError, match=r"screens.home: line 2 is not an element: 'a list of apps'.*kinds: title"):
        parse_world(world({"launcher_package": "com.l.home", "screens": {"home": 'icon "Phone"\na list of apps'}}))
    with pytest.raises(WorldFileError, match="needs launcher_package"):
        parse_world(world({"screens": {"home": 'icon "Phone"'}}))
    with pytest.raises(WorldFileError, match="'Settings' is not `home`, a package name"):
        parse_world(world({"screens": {"Settings": 'row "Apps"'}}))
    with pytest.raises(WorldFileError, match=r"'com.x.y >' is not `home`, a package name .* or a package and the label"):
        parse_world(world({"screens": {"com.x.y >": 'row "Apps"'}}))
    with pytest.raises(WorldFileError, match="at most 300 characters"):
        parse_world(world({"screens": {"com.x.y > " + "x" * 400: 'row "Apps"'}}))
    with pytest.raises(WorldFileError, match="a declared screen is at most 200,000"):
        parse_world(world({"screens": {"com.x.y": 'row "x"\n' * 30_000}}))
    with pytest.raises(WorldFileError, match="not a uiautomator dump"):
        parse_world(world({"screens": {"com.x.y": "<hierarchy><node"}}))
    # a dump is taken as it is, and the phone starts on the declared home screen
    w = parse_world(world({"launcher_package": "com.l.home", "screens": {"home": MAIN}}))
    assert RULES.initial(w)["screen"] == MAIN.strip() and RULES.initial(w)["package"] == "com.l.home"
