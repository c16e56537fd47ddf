"""Writes fixtures/agentworldbench/: rows in AgentWorldBench's published format (fields prompt[],
response[], current_prompt, system_str, turn_idx, total_turns, task, id), written for mcp-world's
tests from our own worlds; not the benchmark's data."""
import json
from pathlib import Path

from mcp_world.dialects import get_dialect
from mcp_world.domain import domain_for
from mcp_world.world import load_world

M = "**Environment Observation:**\n"
d = get_dialect("agentworld")

def sys_of(world, domain):
    w = load_world(world)
    return d.system_prompt(w, domain_for(w, domain))

def turn(n, action, fence="json", state=""):
    head = f"**Current State:**\n{state}\n\n" if state else ""
    return f"### Turn {n}\n{head}**Action:**\n```{fence}\n{action}\n```"

def keys(cmd):
    return json.dumps([{"keystrokes": cmd + "\n", "duration": 1.0}], indent=2)

P = "user@devbox:~/notes-app$"
rows = {"terminal": [], "mcp": [], "android": [], "web": [], "search": []}
tprompts = [turn(1, keys("ls"), state=P), turn(2, keys("cat README.md")), turn(3, keys("mkdir docs && ls"))]
tresp = [M + f"{P} ls\nREADME.md  requirements.txt  src  tests\n{P}",
         M + f"{P} cat README.md\n# notes-app\n\nA tiny command-line notes manager.\n{P}",
         M + f"{P} mkdir docs && ls\nREADME.md  docs  requirements.txt  src  tests\n{P}"]
for i in (1, 2, 3):
    rows["terminal"].append({"task": "lwm/terminal", "id": 1000 + i, "prompt": tprompts, "response": tresp,
                             "current_prompt": tprompts[i - 1], "system_str": sys_of("devbox", "terminal"),
                             "turn_idx": i, "total_turns": 3})
call = lambda name, args: json.dumps({"name": name, "arguments": args}, indent=2)
mp = [turn(1, call("get_ticket", {"ticket_id": "T-1001"})), turn(2, call("add_comment", {"ticket_id": "T-1001", "text": "Looking into it"}))]
mr = [M + '{"id": "T-1001", "title": "VPN drops every hour", "status": "open", "priority": "high"}',
      M + '{"ok": true, "comment_id": 5512, "ticket_id": "T-1001"}']
for i in (1, 2):
    rows["mcp"].append({"task": "lwm/mcp", "id": 2000 + i, "prompt": mp, "response": mr, "current_prompt": mp[i - 1],
                        "system_str": sys_of("helpdesk", "mcp"), "turn_idx": i, "total_turns": 2})
dump = ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node index=\"0\" text=\"Wi-Fi\" "
        "resource-id=\"android:id/title\" class=\"android.widget.TextView\" package=\"com.android.settings\" content-desc=\"\" "
        "checkable=\"false\" checked=\"false\" clickable=\"true\" enabled=\"true\" focusable=\"true\" focused=\"false\" "
        "scrollable=\"false\" long-clickable=\"false\" password=\"false\" selected=\"false\" bounds=\"[0,200][1080,320]\" /></hierarchy>")
ap = [turn(1, json.dumps({"action_type": "click", "x": 540, "y": 260}), state=dump)]
rows["android"].append({"task": "lwm/android", "id": 3001, "prompt": ap, "response": [M + dump.replace('text="Wi-Fi"', 'text="Wi-Fi preferences"')],
                        "current_prompt": ap[0], "system_str": sys_of("phone", "android"), "turn_idx": 1, "total_turns": 1})
page = '<!DOCTYPE html><html><head><title>Shop</title></head><body bid="1"><a bid="2" href="/cart">Cart</a></body></html>'
wp = [turn(1, 'click("2")', "python", state=page)]
rows["web"].append({"task": "lwm/web", "id": 4001, "prompt": wp,
                    "response": [M + '<!DOCTYPE html><html><head><title>Cart</title></head><body bid="1"><h1 bid="2">Your cart is empty</h1></body></html>'],
                    "current_prompt": wp[0], "system_str": sys_of("webshop", "browser"), "turn_idx": 1, "total_turns": 1})
sp = [turn(1, call("web_search", {"query": "python 3.11 release date"}))]
rows["search"].append({"task": "lwm/search", "id": 5001, "prompt": sp,
                       "response": [M + "```\n[1] https://www.python.org/downloads/release/python-3110/\nTitle: Python Release Python 3.11.0\n"
                                    "Snippet: Python 3.11.0 is the newest major release of the Python programming language.\nDate: Oct 24, 2022\n```"],
                       "current_prompt": sp[0], "system_str": sys_of("research", "search"), "turn_idx": 1, "total_turns": 1})
out = Path("fixtures/agentworldbench")
for name, rs in rows.items():
    (out / f"{name}_test.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rs))
print({k: len(v) for k, v in rows.items()})
