"""What a user of a repository (swe) world is served, against the real repository: the real steps of
`fixtures/real/repos.jsonl.xz` (`scripts/record_repos.py`: nine real projects, run in the sandbox
of `serve --shadow swe`), each predicted from its episode's real prefix (teacher-forced), as `serve
--state full` answers it:

    views, edits, searches, listings   the state's answer, compared byte for byte with the real one
    test runs                          the world model's prediction (the grammar, the header the
                                       known files determine), scored by embedding similarity to the
                                       real output; whether its verdict (some test failed or erred,
                                       or none) and its counts (passed, failed, errors) are the real
                                       run's; and whether its header (the lines before `collected`)
                                       is the real one (but the platform line: the recording
                                       machine's versions, not the world's)

beside the trivial answer "the episode's previous test run again" (the previous observation where
there was none); and how many predicted runs name, in a progress line, a test file the repository
does not have.

    .venv/bin/python benchmarks/repo_steps.py [--engine URL] [--adapter none|FOLDER] [--limit N] [--json out.json]
    .venv/bin/python benchmarks/repo_steps.py --rescore out.json    # the summary of a saved run again
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _engine import engine_at  # noqa: E402
from mcp_world.dialects import get_dialect  # noqa: E402
from mcp_world.engines import EnginePool, VLLMEngine  # noqa: E402
from mcp_world.errors import AgentFault  # noqa: E402
from mcp_world.importing import read_records  # noqa: E402
from mcp_world.metric import Embedder  # noqa: E402
from mcp_world.simulator import Limits, Simulator  # noqa: E402
from mcp_world.store import Store  # noqa: E402

COUNTS = re.compile(r"(\d+) (passed|failed|errors?)")


def counts(text: str) -> tuple[int, int, int]:
    """(passed, failed, errors) from the last summary line of a pytest run."""
    line = next((ln for ln in reversed(text.splitlines()) if COUNTS.search(ln) and ln.startswith("=")), "")
    found = {("errors" if k.startswith("error") else k): int(n) for n, k in COUNTS.findall(line)}
    return found.get("passed", 0), found.get("failed", 0), found.get("errors", 0)


PROGRESS = re.compile(r"^(\S+\.py) [.FEsxX]", re.M)


def foreign(text: str, files: set[str]) -> bool:
    """Whether a run's progress lines name a test file the repository does not have."""
    return any(p not in files for p in PROGRESS.findall(text))


def header(text: str) -> str:
    """The lines before `collected`, but the platform line (the machine's versions, not the world's)."""
    lines = text.split("\n")
    end = next((i for i, ln in enumerate(lines) if ln.startswith("collected")), len(lines))
    return "\n".join(ln for ln in lines[:end] if not ln.startswith("platform "))


async def run(url: str, data: Path, limit: int | None) -> list[dict]:
    embedder = Embedder()
    records = read_records(data)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "repo.db")
        for rec in records:
            sim = Simulator(rec.world, EnginePool([VLLMEngine(url, timeout_s=1800)]), store, get_dialect("instruct"),
                            Limits(), seed=0, state_mode="full")
            ep = sim.new_episode(f"bench-{rec.id}", rec.world)
            previous, last_run = "", None
            for idx, step in enumerate(rec.steps):
                real = step.observation
                row = {"episode": rec.id, "step": idx, "tool": step.tool, "arguments": step.arguments}
                answered = sim.state_answer(ep, step.tool, step.arguments)
                if answered is not None:
                    row.update(by="state", exact=answered.text == real)
                elif step.tool == "repo_run_tests":
                    if limit is not None and sum(r["by"] == "model" for r in rows) >= limit:
                        break
                    t0 = time.perf_counter()
                    try:
                        p = await sim.predict(ep, idx, step.tool, step.arguments)
                        text, tokens = p.parsed.text, p.completion_tokens
                    except AgentFault as err:
                        text, tokens = None, 0
                        row["error"] = str(err)[:200]
                    trivial = last_run if last_run is not None else previous
                    row.update(by="model", seconds=round(time.perf_counter() - t0, 1), tokens=tokens,
                               similarity=round(embedder.similarity(text, real), 4) if text else 0.0,
                               trivial=round(embedder.similarity(trivial, real), 4),
                               verdict=text is not None and (sum(counts(text)[1:]) > 0) == (sum(counts(real)[1:]) > 0),
                               trivial_verdict=(sum(counts(trivial)[1:]) > 0) == (sum(counts(real)[1:]) > 0),
                               counts=text is not None and counts(text) == counts(real),
                               header=text is not None and header(text) == header(real),
                               real_counts=counts(real), predicted=(text or "")[:600],
                               foreign=text is not None and foreign(text, set(rec.world.seed["swe"]["files"])))
                    last_run = real
                    print(f"{rec.id} step {idx}: similarity {row['similarity']:.2f}, verdict {row['verdict']}",
                          flush=True)
                else:
                    row.update(by="none")
                rows.append(row)
                sim.observe(ep, step.tool, step.arguments, real, step.structured)
                previous = real
            else:
                continue
            break
        store.close()
    return rows


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", default=None, help="an engine's URL (default: start the embedded one)")
    ap.add_argument("--adapter", default=None, help="the embedded engine's adapter (default: the shipped one)")
    ap.add_argument("--data", type=Path, default=ROOT / "fixtures" / "real" / "repos.jsonl.xz")
    ap.add_argument("--limit", type=int, default=None, help="score at most this many test runs")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--rescore", type=Path, default=None, help="print the summary of a saved --json run")
    a = ap.parse_args()
    if a.rescore:
        rows = json.loads(a.rescore.read_text())
        records = {r.id: r for r in read_records(a.data)}
        for r in rows:
            if r["by"] == "model":
                rec, text = records[r["episode"]], r.get("predicted") or ""
                r["foreign"] = bool(text) and foreign(text, set(rec.world.seed["swe"]["files"]))
                r["header"] = bool(text) and header(text) == header(rec.steps[r["step"]].observation)
    else:
        with engine_at(a.engine, a.adapter) as url:
            rows = await run(url, a.data, a.limit)
    state = [r for r in rows if r["by"] == "state"]
    model = [r for r in rows if r["by"] == "model"]
    print(f"{len(rows)} real steps of {len({r['episode'] for r in rows})} episodes")
    print(f"answered by the state: {len(state)}, byte-exact {sum(r['exact'] for r in state)}/{len(state)}")
    print(f"left to the model: {sum(r['by'] == 'none' for r in rows)} (not test runs)")
    print(f"test runs: {len(model)}, errors {sum('error' in r for r in model)}, "
          f"{mean([r['seconds'] for r in model]):.1f} s and {mean([r['tokens'] for r in model]):.0f} tokens a run")
    print(f"{'':34} {'model':>8} {'previous run again':>20}")
    print(f"{'mean similarity':34} {mean([r['similarity'] for r in model]):>8.3f} "
          f"{mean([r['trivial'] for r in model]):>20.3f}")
    print(f"{'verdict (fails or not) agrees':34} {sum(r['verdict'] for r in model):>8} "
          f"{sum(r['trivial_verdict'] for r in model):>20}   of {len(model)}")
    print(f"{'counts (passed, failed, errors)':34} {sum(r['counts'] for r in model):>8}")
    print(f"{'header (lines before collected)':34} {sum(r['header'] for r in model):>8}")
    print(f"{'names a test file not there':34} {sum(bool(r.get('foreign')) for r in model):>8}")
    if a.rescore:
        return
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    asyncio.run(main())
