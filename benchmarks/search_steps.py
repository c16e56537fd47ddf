"""What the search world answers and what it costs: the research world's tasks (their scripted
searches and fetches, one episode a task) and six searches off its topic, through the simulator as
`serve` runs it (`--state full`), on the embedded engine. Per step: who answered (the model, the
state, or an error), seconds, completion tokens, and whether the answer is what the tool returns:
for a search, one to `num_results` results, each `[n] URL` with a whole http(s) URL, no URL listed
twice; for a fetch, a Markdown page (not HTML, not search results). Judged here, not by the
domain's own format check (an earlier checkout's is looser).

    .venv/bin/python benchmarks/search_steps.py [--engine URL] [--seed 0] [--json out.json]

Run it from two checkouts to compare (copy it into the other's benchmarks/): the README's table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _engine import engine_at, episode_arguments  # noqa: E402
from mcp_world.dialects import get_dialect  # noqa: E402
from mcp_world.engines import EnginePool, VLLMEngine  # noqa: E402
from mcp_world.errors import AgentFault  # noqa: E402
from mcp_world.simulator import Limits, Simulator  # noqa: E402
from mcp_world.store import Store  # noqa: E402
from mcp_world.world import load_world  # noqa: E402

OFF_TOPIC = ["python dataclass default factory", "best pizza in naples", "debian 13 release date",
             "how to reset a router password", "rust borrow checker explained", "weather in lisbon tomorrow"]
BLOCK = re.compile(r"^\[(\d+)\] (\S*)[^\S\n]*\nTitle: (.*)\nSnippet: (.*)\nDate: (.*)$", re.M)
URL = re.compile(r"https?://[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}(/\S*)?", re.I)


def episodes() -> list[list[tuple[str, dict]]]:
    tasks = yaml.safe_load((ROOT / "fixtures" / "tasks" / "research.yaml").read_text())["tasks"]
    runs = [[(a["tool"], a["arguments"]) for a in t["actions"]] for t in tasks]
    return runs + [[("web_search", {"query": q, "num_results": 5})] for q in OFF_TOPIC]


def judge(tool: str, arguments: dict, text: str) -> tuple[bool, int]:
    """Whether `text` is what the tool returns, and how many results it lists."""
    if tool == "web_fetch":
        return bool(text.strip()) and not re.match(r"\s*(#\s*)?<(!doctype|html)", text, re.I) \
            and not re.search(r"^Title: .*\nSnippet: ", text, re.M), 0
    blocks = BLOCK.findall(text)
    urls = [b[1] for b in blocks]
    wanted = int(arguments.get("num_results", 10))
    ok = 1 <= len(blocks) <= wanted and all(URL.fullmatch(u) for u in urls) and len(set(urls)) == len(urls) \
        and [int(b[0]) for b in blocks] == list(range(1, len(blocks) + 1))
    return ok, len(blocks)


async def run(url: str, seed: int) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "search.db")
        sim = Simulator(load_world("research"), EnginePool([VLLMEngine(url, timeout_s=1800)]), store,
                        get_dialect("instruct"), Limits(), seed=seed, state_mode="full")
        for e, steps in enumerate(episodes()):
            key = f"search-{e}"
            for tool, arguments in steps:
                t0 = time.perf_counter()
                try:
                    r = await sim.call(key, tool, arguments)
                    text, provenance = r.observation, r.provenance
                except AgentFault as err:
                    text, provenance = "", f"error: {str(err)[:80]}"
                seconds = time.perf_counter() - t0
                step = store.query(f"select completion_tokens from steps where episode_id = '{key}' "
                                   "order by idx desc limit 1")
                valid, results = judge(tool, arguments, text) if text else (False, 0)
                rows.append({"episode": e, "tool": tool, "arguments": arguments, "provenance": provenance,
                             "seconds": round(seconds, 1), "results": results, "valid": valid,
                             "completion_tokens": (step[0]["completion_tokens"] or 0)
                             if step and provenance == "model" else 0, "answer": text[:400]})
        store.close()
    return rows


async def main() -> None:
    ap = episode_arguments(argparse.ArgumentParser())
    a = ap.parse_args()
    with engine_at(a.engine, a.adapter) as url:
        rows = await run(url, a.seed)
    print(f"{'step':52} {'by':6} {'s':>6} {'tokens':>6} {'results':>7} {'valid':>5}")
    for r in rows:
        what = f"{r['tool'].removeprefix('web_')} {' '.join(str(v) for v in r['arguments'].values())}"[:52]
        print(f"{what:52} {r['provenance'][:6]:6} {r['seconds']:>6.1f} {r['completion_tokens']:>6} "
              f"{r['results'] if r['tool'] == 'web_search' else '':>7} {str(r['valid']):>5}")
    model = [r for r in rows if r["provenance"] == "model"]
    errors = [r for r in rows if r["provenance"].startswith("error")]
    print(f"\n{len(rows)} steps: valid {sum(r['valid'] for r in rows)}/{len(rows)}, "
          f"from the state {sum(r['provenance'] == 'state' for r in rows)}, from the model {len(model)}, "
          f"errors {len(errors)}; {sum(r['seconds'] for r in rows):.0f} s in all")
    if model:
        print(f"model steps: {sum(r['seconds'] for r in model) / len(model):.1f} s and "
              f"{sum(r['completion_tokens'] for r in model) / len(model):.0f} completion tokens a step")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
