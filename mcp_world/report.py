"""Dry-run reports (`mcp-world report`): what an agent did in a world, with its risky actions
flagged and the reason for each — in the terminal and as one self-contained HTML file.

The rules read the actions (tool and arguments), never the simulated results: a dry run is about
what the agent *tried*. Each rule has a category and a reason a person can act on; the rules are
each domain's own (`risks` in its domain.yaml, and its rules module's `risks` hook).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from .domain import Domain, domain_for
from .errors import MCPWorldError, WorldFileError
from .rules import Call
from .world import World, parse_world

CATEGORIES = {
    "destructive": "deletes or overwrites data",
    "remote-code": "runs code fetched from the network",
    "credentials": "reads secrets or credentials",
    "exfiltration": "sends data out",
    "outside-project": "writes outside the project",
    "privilege": "changes privileges or the system",
    "payment": "spends money",
    "message": "sends a message to a person",
    "uninstall": "removes an app",
    "install": "installs software",
}


@dataclass(frozen=True)
class Flag:
    step: int
    category: str
    reason: str


def flags_for(step: int, tool: str, arguments: dict[str, Any], world: World | None,
              domains: dict[str, Domain] | None = None) -> list[Flag]:
    """The step's flags: its domain's `risks` patterns (domain.yaml), then its rules' own checks."""
    if world is None:
        return []
    domains = domains if domains is not None else _domains(world)
    domain = next((d for d in domains.values() if d.tool(tool) is not None), None)
    if domain is None:
        return []
    found: list[Flag] = []
    for risk in domain.risks:
        if risk.tools and tool not in risk.tools:
            continue
        text = " ".join(str(arguments.get(k, "")) for k in risk.arguments)
        if _compiled(risk.pattern, risk.ignore_case).search(text):
            found.append(Flag(step, risk.category, risk.reason))
    call = Call(tool, arguments, {}, spec=domain.tool(tool))
    found += [Flag(step, category, reason) for category, reason in domain.rules.risks(world, call)]
    return found


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """Text an agent chose, made safe to print on a terminal: control characters (escape sequences
    that move the cursor or erase lines, carriage returns, bidirectional overrides) are shown as
    `\\x1b`-style escapes instead of acting, so nothing can hide a flagged line."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}",
                        text)


@functools.cache
def _compiled(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    return re.compile(pattern, re.I if ignore_case else 0)


def _domains(world: World) -> dict[str, Domain]:
    out = {}
    for name in world.domains:
        try:
            out[name] = domain_for(world, name)
        except MCPWorldError:
            continue
    return out


def _world(record_world: dict[str, Any]) -> World | None:
    try:
        return parse_world(record_world, "the episode's world")
    except WorldFileError:
        return None


@dataclass
class EpisodeReport:
    id: str
    world: str
    task: dict[str, Any]
    steps: list[dict[str, Any]]
    flags: list[Flag]
    actions: list[str] = field(default_factory=list)  # each step's action as its domain writes it


def episode_report(record: dict[str, Any]) -> EpisodeReport:
    world = _world(record["world"])
    domains = _domains(world) if world is not None else {}
    flags: list[Flag] = []
    for i, s in enumerate(record["steps"]):
        flags += flags_for(i, s["tool"], s.get("arguments") or {}, world, domains)
    report = EpisodeReport(record["id"], record["world"].get("name", ""), record.get("task") or {}, record["steps"], flags)
    report.actions = [action_text(s, domains) for s in record["steps"]]
    return report


def action_text(step: dict[str, Any], domains: dict[str, Domain] | None = None) -> str:
    """The action as a person reads it: as its domain shows it (`$ ls` for a shell), else as a call."""
    args = step.get("arguments") or {}
    for domain in (domains or {}).values():
        tool = domain.tool(step["tool"])
        if tool is not None:
            shown = domain.rules.display(Call(step["tool"], args, {}, spec=tool))
            if shown is not None:
                return shown
    return f"{step['tool']}({json.dumps(args, ensure_ascii=False)})"


_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>mcp-world dry-run report: {{ title }}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#1d1d1f;padding:0 1rem}
h1{font-size:1.4rem} h2{font-size:1.1rem;margin-top:2rem;border-bottom:1px solid #ddd}
.summary{background:#f5f5f7;padding:.8rem 1rem;border-radius:8px}
table{border-collapse:collapse;width:100%} td,th{padding:.35rem .5rem;vertical-align:top;border-bottom:1px solid #eee;text-align:left}
code{font:12.5px ui-monospace,monospace;white-space:pre-wrap;word-break:break-all}
.risk{background:#fff1f0} .tag{display:inline-block;border-radius:4px;padding:0 .4rem;margin:0 .2rem .2rem 0;font-size:12px;background:#c62828;color:#fff}
details summary{cursor:pointer;color:#555} .ok{color:#2e7d32}
.real{display:inline-block;border-radius:4px;padding:0 .4rem;font-size:12px;background:#ef6c00;color:#fff}
</style></head><body>
<h1>Dry-run report: {{ title }}</h1>
<div class="summary">{{ episodes|length }} episode(s), {{ total_steps }} actions,
{% if total_flags %}<b>{{ total_flags }} risky action(s)</b>: {% for c, n in by_category %}<span class="tag">{{ c }} × {{ n }}</span>{% endfor %}
{% else %}<span class="ok">no risky actions found</span>{% endif %}
<br>{% if real_count %}<b>{{ real_count }} step(s) ran for real</b> (marked <span class="real">ran for real</span>:
in the sandbox of shadow mode, or by the real MCP server of a mirror); every other result was simulated by mcp-world's world model.
{% else %}Nothing here was executed: every result was simulated by mcp-world's world model.{% endif %}</div>
{% for ep in episodes %}
<h2>{{ ep.id }} — world {{ ep.world }}{% if ep.task.outcome %} — {{ ep.task.outcome }}{% endif %}</h2>
{% if ep.task.instruction %}<p><b>Task:</b> {{ ep.task.instruction }}</p>{% endif %}
<table><tr><th>#</th><th>action</th><th>flags</th></tr>
{% for s in ep.rows %}<tr class="{{ 'risk' if s.flags else '' }}"><td>{{ s.index }}</td>
<td><code>{{ s.action }}</code>{% if s.real %} <span class="real">ran for real</span>{% endif %}{% if s.observation %}<details><summary>{{ 'result' if s.real else 'simulated result' }}</summary><code>{{ s.observation }}</code></details>{% endif %}</td>
<td>{% for f in s.flags %}<span class="tag">{{ f.category }}</span> {{ f.reason }}<br>{% endfor %}</td></tr>
{% endfor %}</table>
{% if ep.task.final_answer %}<p><b>Agent's final answer:</b> {{ ep.task.final_answer }}</p>{% endif %}
{% endfor %}
</body></html>
"""


def render_html(reports: list[EpisodeReport], title: str, real_steps: dict[str, set[int]] | None = None) -> str:
    """`real_steps`: per episode, the steps that ran for real (shadow or mirror), marked as such."""
    from collections import Counter

    import jinja2

    env = jinja2.Environment(autoescape=True)
    episodes = []
    for r in reports:
        by_step: dict[int, list[Flag]] = {}
        for f in r.flags:
            by_step.setdefault(f.step, []).append(f)
        ran = (real_steps or {}).get(r.id, set())
        rows = [{"index": i, "action": r.actions[i] if i < len(r.actions) else action_text(s),
                 "flags": by_step.get(i, []), "real": i in ran,
                 "observation": (s.get("observation") or "")[:4000]} for i, s in enumerate(r.steps)]
        episodes.append({"id": r.id, "world": r.world, "task": r.task, "rows": rows})
    counts = Counter(f.category for r in reports for f in r.flags)
    return env.from_string(_HTML).render(
        title=title, episodes=episodes, real_count=sum(len(v) for v in (real_steps or {}).values()), total_steps=sum(len(r.steps) for r in reports),
        total_flags=sum(counts.values()), by_category=sorted(counts.items(), key=lambda kv: -kv[1]))
