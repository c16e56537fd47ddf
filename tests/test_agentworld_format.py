"""Qwen-AgentWorld's trained format, checked against the facts from the model's own repository
(`eval/eval.py`, `prompts/<domain>/`): every shipped domain's first and third turn rendered in the
agentworld dialect, each tool mapped onto the trained action space and the trained observation read
back into our tool's result; the model's own prompts from a user's copy; `mcp-world render`."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from mcp_world.dialects import get_dialect
from mcp_world.dialects.agentworld import MARKER, OfficialPrompts
from mcp_world.dialects.base import Turn
from mcp_world.domain import domain_for
from mcp_world.errors import WorldFileError
from mcp_world.rules import Call, Moment
from mcp_world.world import available_worlds, load_world

from .conftest import ScriptedEngine

pytestmark = pytest.mark.anyio

TURN = re.compile(r"^### Turn (\d+)\n(\*\*Current State:\*\*\n(?P<state>.*?)\n\n)?\*\*Action:\*\*\n```(?P<fence>json|python)\n"
                  r"(?P<action>.*)\n```$", re.S)
ANDROID_ACTIONS = {"click", "input_text", "scroll", "navigate_back", "navigate_home", "keyboard_enter", "open_app",
                   "wait", "press_key"}
BROWSERGYM = re.compile(r"^(goto|click|fill|go_back|noop|keyboard_press)\(")
CASES = [(w, d) for w in available_worlds() for d in load_world(w).domains]


def _steps(world, domain):
    """Three calls of the domain with observations: its demonstrations (the domain's, else the world's)."""
    demos = domain.demonstrations_for(world)
    return [demos[i % len(demos)] for i in range(3)]


def _render(world_name, domain_name, turns):
    world = load_world(world_name)
    domain = domain_for(world, domain_name)
    dialect = get_dialect("agentworld")
    state = domain.rules.initial(world)
    steps = _steps(world, domain)
    history = []
    for s in steps[: turns - 1]:
        where = domain.rules.where(state)
        history.append(Turn("", s.observation, where, s.tool, dict(s.arguments)))
    current = steps[turns - 1]
    call = Call(current.tool, dict(current.arguments), state, spec=domain.tool(current.tool))
    return dialect.render(world, domain, state, history, "", "", 100_000, call=call), domain, steps


def _check_action(domain_name, fence, action, tool):
    if domain_name == "terminal":
        keys = json.loads(action)
        assert fence == "json" and isinstance(keys, list) and len(keys) == 1
        assert keys[0]["keystrokes"].endswith("\n") and isinstance(keys[0]["duration"], float)
    elif domain_name == "browser":
        assert fence == "python" and all(BROWSERGYM.match(line) for line in action.splitlines()), action
    elif domain_name == "os":
        assert fence == "python" and action.startswith(("pyautogui.", "time.sleep(")), action
    elif domain_name == "android":
        assert fence == "json" and json.loads(action)["action_type"] in ANDROID_ACTIONS
    else:  # mcp, swe, search: a JSON tool call
        call = json.loads(action)
        assert fence == "json" and set(call) == {"name", "arguments"} and isinstance(call["arguments"], dict)
        assert call["name"] == {"web_fetch": "web_extractor"}.get(tool, tool)


@pytest.mark.parametrize("world_name, domain_name", CASES)
def test_every_domains_first_and_third_turns_are_rendered_in_the_trained_format(world_name, domain_name):
    for turns in (1, 3):
        r, domain, steps = _render(world_name, domain_name, turns)
        system, *chat = r.messages
        assert system["role"] == "system" and system["content"].startswith("# Role and Objective\n\n")
        assert "# Environment" in system["content"] and world_name in system["content"]
        assert [m["role"] for m in chat] == ["user", "assistant"] * (turns - 1) + ["user"]
        users = [TURN.match(m["content"]) for m in chat if m["role"] == "user"]
        assert all(users), [m["content"][:200] for m in chat]
        assert [int(u.group(1)) for u in users] == list(range(1, turns + 1))
        # `**Current State:**` opens the first turn shown, and only that one
        assert all(u.group("state") is None for u in users[1:])
        if domain_name in ("terminal", "os"):
            assert users[0].group("state"), "the first turn starts from the screen"
        for u, s in zip(users, steps):
            _check_action(domain_name, u.group("fence"), u.group("action"), s.tool)
        for m in chat[1::2]:
            assert m["content"].startswith(MARKER + "\n")
        assert r.thinking is True and r.top_k == 20 and r.temperature == 0.6 and not r.prefill
        if turns == 3 and domain_name == "terminal":
            screen = chat[1]["content"].removeprefix(MARKER + "\n")
            first = screen.splitlines()[0]
            assert re.fullmatch(r"[\w-]+@[\w-]+:~[\w/-]*\$ " + re.escape(steps[0].arguments["command"]), first), first
            assert re.fullmatch(r"[\w-]+@[\w-]+:~[\w/-]*\$", screen.splitlines()[-1])
        if turns == 3 and domain_name == "browser" and "<body" in chat[1]["content"]:
            assert re.search(r'<body[^>]* bid="1"', chat[1]["content"])


def test_tools_are_defined_in_the_system_prompt_only_where_actions_are_json_calls():
    helpdesk = load_world("helpdesk")
    text = get_dialect("agentworld").system_prompt(helpdesk, domain_for(helpdesk, "mcp"))
    tools = json.loads(re.search(r"You can simulate the following tools:\n\n(\[.*?\n\])", text, re.S).group(1))
    assert [t["name"] for t in tools][:2] == ["list_tickets", "get_ticket"] and "parameters" in tools[0]
    assert "# Few-shot Examples\n\n## Example 1\n### Turn 1\n**Action:**\n```json\n" in text
    devbox = load_world("devbox")
    assert "You can simulate the following tools" not in get_dialect("agentworld").system_prompt(
        devbox, domain_for(devbox, "terminal"))


@pytest.mark.parametrize("screen, command, output", [
    ("user@devbox:~/notes-app$ ls\nREADME.md\nsrc\nuser@devbox:~/notes-app$", "ls", "README.md\nsrc\n"),
    ("user@devbox:~/notes-app$ mkdir docs\nuser@devbox:~/notes-app$ ", "mkdir docs", ""),  # prints nothing
    ("README.md\nsrc\n", "ls", "README.md\nsrc\n"),  # no echo, no prompt: the output itself
    # the whole visible screen, earlier commands included: only what follows this command's echo
    ("user@devbox:~$ pwd\n/home/user\nuser@devbox:~$ ls\nnotes-app\nuser@devbox:~$", "ls", "notes-app\n"),
    ("root@c0ffee:/app# ls\napp.py\nroot@c0ffee:/app#", "ls", "app.py\n"),
    # a multi-line command echoes its continuation lines
    ("user@devbox:~$ for i in 1 2\n> do echo $i; done\n1\n2\nuser@devbox:~$", "for i in 1 2\ndo echo $i; done", "1\n2\n"),
    # an output line that merely ends like the command is output
    ("user@devbox:~$ echo ls\nls\nuser@devbox:~$", "echo ls", "ls\n"),
    ("user@devbox:~$ ls\nls\nnotes\nuser@devbox:~$", "ls", "ls\nnotes\n"),  # a file named like the command
])
def test_a_terminal_screen_is_read_back_as_the_commands_output(screen, command, output):
    devbox = load_world("devbox")
    rules = domain_for(devbox, "terminal").rules
    assert rules.from_trained(screen, Call("run_command", {"command": command}, {}), Moment(devbox)) == output


async def test_the_simulator_gives_the_agent_the_output_of_a_predicted_screen(make_rig):
    answer = ("<think>ls lists the project.</think>\n**Environment Observation:**\n"
              "user@devbox:~/notes-app$ ls docs\nls: cannot access 'docs': No such file or directory\n"
              "user@devbox:~/notes-app$")
    engine = ScriptedEngine(lambda r: answer)
    engine.model = "Qwen/Qwen-AgentWorld-35B-A3B"
    rig = make_rig(engine=engine, dialect="auto")
    result = await rig.sim.call("a1", "run_command", {"command": "ls docs"})
    assert result.observation == "ls: cannot access 'docs': No such file or directory\n"
    assert result.structured["exit_code"] != 0 and result.structured["cwd"] == "/home/user/notes-app"
    # the next request shows that step as the trained screen, and the action as keystrokes
    await rig.sim.call("a1", "run_command", {"command": "groups"})
    chat = engine.requests[-1].messages
    assert chat[-2]["content"] == MARKER + "\n" + answer.split(MARKER + "\n")[1]
    assert json.loads(TURN.match(chat[-1]["content"]).group("action"))[0]["keystrokes"] == "groups\n"


def test_a_browser_click_is_browsergyms_click_on_the_bid_of_its_target_and_the_agent_never_sees_bids():
    world = load_world("webshop")
    domain = domain_for(world, "browser")
    page = ('<!DOCTYPE html><html><head><title>Shop</title></head><body><nav><a href="/">Home</a> '
            '<a href="/cart">Cart (2)</a></nav><form><input name="q" placeholder="Search"></form></body></html>')
    state = domain.rules.initial(world)
    history = [Turn("", page, "", "browser_navigate", {"url": "https://shop.example/"})]
    d = get_dialect("agentworld")
    r = d.render(world, domain, state, history, "", "", 100_000,
                 call=Call("browser_click", {"target": "Cart (2)"}, state, spec=domain.tool("browser_click")))
    shown = r.messages[-2]["content"]
    bid = re.search(r'<a bid="(\d+)" href="/cart">', shown).group(1)
    assert TURN.match(r.messages[-1]["content"]).group("action") == f'click("{bid}")'
    typed = d.render(world, domain, state, history, "", "", 100_000, call=Call(
        "browser_type", {"target": "Search", "text": "mug", "submit": True}, state, spec=domain.tool("browser_type")))
    field = re.search(r'<input bid="(\d+)" name="q"', shown).group(1)
    assert TURN.match(typed.messages[-1]["content"]).group("action") == f'fill("{field}", "mug")\nkeyboard_press("Enter")'
    predicted = shown.removeprefix(MARKER + "\n")
    assert 'bid="' not in domain.rules.from_trained(predicted, Call("browser_click", {}, state), Moment(world))


def test_android_and_desktop_targets_become_coordinates_read_from_the_screen():
    phone = load_world("phone")
    android = domain_for(phone, "android")
    dump = android.demonstrations[0].observation
    node = re.search(r'text="([^"]+)"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', dump)
    text, x1, y1, x2, y2 = node.group(1), *map(int, node.groups()[1:])
    act = android.rules.trained_action(Call("android_tap", {"target": text}, {}), Moment(phone, dump))
    assert json.loads(act.text) == {"action_type": "click", "x": (x1 + x2) // 2, "y": (y1 + y2) // 2}
    swipe = android.rules.trained_action(Call("android_swipe", {"x1": 500, "y1": 1800, "x2": 500, "y2": 600}, {}),
                                         Moment(phone, dump))
    assert json.loads(swipe.text) == {"action_type": "scroll", "direction": "down"}  # the finger moves up
    desktop = load_world("desktop")
    os_domain = domain_for(desktop, "os")
    state = os_domain.rules.initial(desktop)
    click = os_domain.rules.trained_action(Call("desktop_click", {"target": "Back"}, state), Moment(desktop, "", state=state))
    assert click.text == "pyautogui.click(24, 56)"  # push button "Back" (8, 40, 32, 32)
    keys = os_domain.rules.trained_action(Call("desktop_hotkey", {"keys": "ctrl+s"}, state), Moment(desktop, state=state))
    assert keys.text == 'pyautogui.hotkey("ctrl", "s")'


def test_the_models_own_prompts_come_from_the_users_copy_with_their_slots_filled(tmp_path):
    root = tmp_path / "Qwen-AgentWorld"
    (root / "prompts" / "mcp").mkdir(parents=True)
    (root / "prompts" / "terminal").mkdir(parents=True)
    (root / "prompts" / "mcp" / "system_prompt.txt").write_text(
        "# Role and Objective\n\nA TOOL PROMPT FROM THE USER'S COPY\n\n{tool_definitions}\n\n---\n{demonstrations}")
    (root / "prompts" / "terminal" / "system_prompt.txt").write_text("# Role and Objective\n\nA TERMINAL PROMPT\n")
    d = get_dialect("agentworld", prompts=root)
    helpdesk = load_world("helpdesk")
    text = d.system_prompt(helpdesk, domain_for(helpdesk, "mcp"))
    assert text.startswith("# Role and Objective\n\nA TOOL PROMPT FROM THE USER'S COPY\n\n[")
    assert "{tool_definitions}" not in text and "{demonstrations}" not in text
    assert '"name": "create_ticket"' in text and "## Example 1" in text and "# Environment" in text
    devbox = load_world("devbox")
    text = d.system_prompt(devbox, domain_for(devbox, "terminal"))
    assert text.startswith("# Role and Objective\n\nA TERMINAL PROMPT") and "# Few-shot Examples" in text
    # a domain whose file this copy lacks is named, with what the copy has
    phone = load_world("phone")
    with pytest.raises(WorldFileError, match=r"android/system_prompt.txt is missing .*mcp, terminal"):
        d.system_prompt(phone, domain_for(phone, "android"))
    with pytest.raises(WorldFileError, match="no <domain>/system_prompt.txt files"):
        OfficialPrompts(tmp_path / "Qwen-AgentWorld" / "prompts" / "mcp")
    with pytest.raises(WorldFileError, match="not a folder"):
        get_dialect("auto", prompts=tmp_path / "nowhere")


def _cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "mcp_world", *args], capture_output=True, text=True, timeout=120, **kw)


def test_render_prints_the_exact_request_of_any_step_without_an_engine(tmp_path):
    history = tmp_path / "history.json"
    history.write_text(json.dumps([{"tool": "run_command", "arguments": {"command": "cd src"}, "observation": ""},
                                   {"tool": "run_command", "arguments": {"command": "ls"}, "observation": "notes.py\n"}]))
    r = _cli("render", "run_command", '{"command": "cat notes.py"}', "--dialect", "agentworld", "--history",
             str(history), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["dialect"] == "agentworld" and out["messages"] == out["request"]["messages"]
    assert out["request"]["top_k"] == 20 and out["request"]["temperature"] == 0.6
    assert out["request"]["chat_template_kwargs"] == {"enable_thinking": True}
    last = TURN.match(out["messages"][-1]["content"])
    assert last.group(1) == "3" and json.loads(last.group("action"))[0]["keystrokes"] == "cat notes.py\n"
    assert out["messages"][-2]["content"] == f"{MARKER}\nuser@devbox:~/notes-app/src$ ls\nnotes.py\nuser@devbox:~/notes-app/src$"
    text = _cli("render", "run_command", '{"command": "ls"}')  # the default: the embedded model's dialect
    assert text.returncode == 0 and "===== system =====" in text.stdout and '"repetition_penalty": 1.05' in text.stdout
    bad = _cli("render", "run_command", '{"cmd": "ls"}')
    assert bad.returncode == 2 and "'command' is a required property" in bad.stderr
    unknown = _cli("render", "browser_click", '{"target": "x"}')
    assert unknown.returncode == 2 and "browser_click" in unknown.stderr and "run_command" in unknown.stderr
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"android": {}}))
    wrong = _cli("render", "run_command", '{"command": "ls"}', "--state", str(state))
    assert wrong.returncode == 2 and "'android'" in wrong.stderr and "terminal" in wrong.stderr


def test_training_items_in_the_agentworld_dialect_target_the_trained_screen_and_read_it_back():
    from mcp_world.dialects.agentworld import AgentWorldDialect
    from mcp_world.importing import read_records
    from mcp_world.paths import FIXTURES_DIR
    from mcp_world.training.items import build_items

    records = read_records(FIXTURES_DIR / "real" / "devbox-terminal.jsonl")
    items, _ = build_items(records, dialect="agentworld")
    dialect = AgentWorldDialect()
    for item in items:
        assert item.target.startswith(MARKER + "\n")
        screen = item.target.removeprefix(MARKER + "\n").split("\n")
        assert screen[0].endswith("$ " + item.arguments["command"].split("\n")[0]) and screen[-1].endswith("$")
        # what the model is taught to answer gives back exactly the real observation
        assert item.observation(item.target, dialect).text == item.real
    cd = next(i for i in items if i.arguments["command"] == "cd src")
    assert cd.target == f"{MARKER}\nuser@devbox:~/notes-app$ cd src\nuser@devbox:~/notes-app/src$"  # the prompt moved


def test_turns_kept_between_steps_follow_the_page_they_were_taken_on():
    """The dialect keeps earlier turns in the trained form between steps; two episodes with the same
    click on different pages still get each page's own bid."""
    world = load_world("webshop")
    domain = domain_for(world, "browser")
    d = get_dialect("agentworld")
    state = domain.rules.initial(world)
    page = '<!DOCTYPE html><html><head></head><body>{}<a href="/cart">Cart</a></body></html>'
    histories = [[Turn("", page.format(extra), "", "browser_navigate", {"url": "https://shop.example/"}),
                  Turn("", "<!DOCTYPE html><html><body><h1>Cart</h1></body></html>", "", "browser_click",
                       {"target": "Cart"})] for extra in ("", "<p>sale</p><p>new</p>")]
    call = Call("browser_snapshot", {}, state, spec=domain.tool("browser_snapshot"))
    clicks = []
    for _ in range(2):  # the second round is answered from what the dialect kept
        for history in histories:
            r = d.render(world, domain, state, history, "", "", 100_000, call=call)
            clicks.append(TURN.match(r.messages[-3]["content"]).group("action"))
    assert clicks == ['click("2")', 'click("4")', 'click("2")', 'click("4")']
