"""The bounded repair on the real engine: of N first calls (one per seed, all at once), how many
answers were valid at once, how many the one re-ask saved, and how many calls failed — with the
re-ask after a looping answer sampled as before (the first call's repetition penalty) and as now
(`Sampling.repair_repetition_penalty`).

    .venv/bin/python benchmarks/repair.py [--engine URL] [--calls 96] [--case kanban|terminal|search|browser|browser-click|all]

Without --engine it uses the background engine (`mcp-world engine start`), else starts the
embedded engine (about a minute) and stops it afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world import domain as domains  # noqa: E402
from mcp_world import embedded  # noqa: E402
from mcp_world.dialects import get_dialect  # noqa: E402
from mcp_world.engines import EnginePool, open_url  # noqa: E402
from mcp_world.errors import AgentFault  # noqa: E402
from mcp_world.paths import cache_dir  # noqa: E402
from mcp_world.simulator import Sampling, Simulator  # noqa: E402
from mcp_world.store import Store  # noqa: E402
from mcp_world.world import load_world  # noqa: E402

EXAMPLES = ROOT / "examples" / "domains"
CASES = {  # name: (world, tool, arguments) — the kanban folder domain has no parse rules of its own
    "kanban": (str(EXAMPLES / "team-board.yaml"), "board_list", {"column": "todo"}),
    "terminal": ("devbox", "run_command", {"command": "cat README.md"}),
    "search": ("research", "web_fetch", {"url": "https://science.nasa.gov/mission/voyager/"}),
    "browser": ("webshop", "browser_navigate", {"url": "https://greenleaf.example/"}),
    # a click after a page load: the prompt holds the first page, and the model may loop in <head>
    "browser-click": ("webshop", "browser_click", {"target": "Sencha"}),
}
SETUP = {"browser-click": [("browser_navigate", {"url": "https://greenleaf.example/"})]}  # made first, not counted


async def measure(url: str, case: str, calls: int, sampling: Sampling) -> tuple[collections.Counter, collections.Counter]:
    """Outcomes of the calls, and the problems (all attempts) of those that failed."""
    world_ref, tool, arguments = CASES[case]
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "repair.db")
        sim = Simulator(load_world(world_ref), EnginePool([open_url(url, timeout_s=900)]), store, get_dialect("instruct"),
                        sampling=sampling)

        reasons: collections.Counter = collections.Counter()

        async def one(seed: int) -> str:
            await sim.reset(f"e{seed}", None, seed)
            for setup_tool, setup_arguments in SETUP.get(case, []):
                try:
                    await sim.call(f"e{seed}", setup_tool, setup_arguments)
                except AgentFault:
                    return "setup failed"
            try:
                await sim.call(f"e{seed}", tool, arguments)
            except AgentFault as err:
                text = str(err)
                inner = text.split(" attempts (", 1)[1].rsplit("); ", 1)[0] if " attempts (" in text else None
                reasons.update(r.strip() for r in inner.split(";")) if inner else reasons.update([text.split(":")[0]])
                return "failed"
            return "ok"

        outcomes = collections.Counter(await asyncio.gather(*(one(s) for s in range(calls))))
        repaired = store.query("select count(*) n from steps where repaired = 1 and error_kind is null and tool = ?",
                               (tool,))[0]["n"]
        store.close()
    return collections.Counter(valid_at_once=outcomes["ok"] - repaired, saved_by_reask=repaired,
                               failed=outcomes["failed"], setup_failed=outcomes["setup failed"]), reasons


async def run(url: str, cases: list[str], calls: int) -> None:
    now = Sampling()
    before = replace(now, repair_frequency_penalty=None)
    print(f"{calls} first calls per case and setting, all at once; engine {url}")
    print(f"{'case':10} {'re-ask freq pen':>15} {'valid at once':>14} {'saved by re-ask':>16} {'failed':>7}")
    for case in cases:
        for label, sampling in (("before", before), ("now", now)):
            c, reasons = await measure(url, case, calls, sampling)
            why = ", ".join(f"{n}× {r}" for r, n in reasons.most_common())
            if c["setup_failed"]:
                why = f"(setup failed on {c['setup_failed']}) " + why
            print(f"{case:10} {label + ' ' + str(sampling.repair_frequency_penalty):>15} "
                  f"{c['valid_at_once']:>14} {c['saved_by_reask']:>16} {c['failed']:>7}  {why}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", help="an engine URL; default: start the embedded engine")
    ap.add_argument("--calls", type=int, default=96)
    ap.add_argument("--case", choices=[*CASES, "all"], default="all")
    args = ap.parse_args()
    domains.add_domain_dirs([EXAMPLES])
    cases = list(CASES) if args.case == "all" else [args.case]
    url, started = (args.engine, None) if args.engine else embedded.background_or_start(cache_dir(None), say=print)
    try:
        asyncio.run(run(url, cases, args.calls))
    finally:
        if started is not None:
            started.stop()


if __name__ == "__main__":
    main()
