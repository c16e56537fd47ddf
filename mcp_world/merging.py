"""`mcp-world merge`: several servers' logs into one (RL runs spread over servers, each with its own log).

Every episode and every one of its steps arrives exactly once: an episode already in the target
with the same id and creation time (merged before) is skipped whole; an id the target holds for
a different episode (two servers both named one `claude-1`) is renamed `<id>@<source>`, its steps
following it. Minted handle ids (128 random bits) never collide. Sources are read, never written.
Step rows get fresh row ids; their order within an episode (`idx`) is kept. The replay cache is
merged too (first answer wins).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from .errors import StoreError
from .store import EPISODE_COLUMNS, STEP_COLUMNS, Store


@dataclass
class MergeSummary:
    episodes: int = 0
    steps: int = 0
    skipped: int = 0  # already in the target (merged before)
    renamed: list[tuple[str, str]] = field(default_factory=list)


def _tag(path: Path, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9._-]", "-", path.stem) or "log"
    tag, n = base, 1
    while tag in taken:
        n += 1
        tag = f"{base}-{n}"
    taken.add(tag)
    return tag


def merge(target: Path, sources: list[Path]) -> MergeSummary:
    Store(target).close()  # the target exists with the current schema
    summary = MergeSummary()
    tags: set[str] = set()
    con = sqlite3.connect(str(target), timeout=60)
    con.row_factory = sqlite3.Row
    try:
        for source in sources:
            if not source.exists():
                raise StoreError(f"{source}: no such log")
            if source.resolve() == target.resolve():
                raise StoreError(f"{source} is the target itself")
            src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=60)
            src.row_factory = sqlite3.Row
            try:
                _merge_one(con, src, _tag(source, tags), summary)
            except sqlite3.DatabaseError as err:
                raise StoreError(f"{source} is not a readable mcp-world log: {err}") from None
            finally:
                src.close()
    finally:
        con.close()
    return summary


def _q(columns: list[str]) -> str:
    return ", ".join(f'"{c}"' for c in columns)  # `where` is a column name


def _columns(db: sqlite3.Connection, table: str, wanted: dict) -> list[str]:
    have = {r[1] for r in db.execute(f"pragma table_info({table})")}
    return [c for c in wanted if c in have]


def _merge_one(con: sqlite3.Connection, src: sqlite3.Connection, tag: str, summary: MergeSummary) -> None:
    ecols = _columns(src, "episodes", EPISODE_COLUMNS)
    scols = [c for c in _columns(src, "steps", STEP_COLUMNS) if c != "id"]
    if "id" not in ecols or "episode_id" not in scols:
        raise sqlite3.DatabaseError("it has no episodes/steps tables")
    with con:  # one transaction per source: a failure leaves the target as it was
        for ep in src.execute(f"select {_q(ecols)} from episodes order by created_at"):
            row = dict(ep)
            new_id = row["id"]
            held = con.execute("select created_at from episodes where id = ?", (new_id,)).fetchone()
            if held is not None and held[0] == row["created_at"]:
                summary.skipped += 1
                continue
            if held is not None:
                new_id = f"{row['id']}@{tag}"
                again = con.execute("select created_at from episodes where id = ?", (new_id,)).fetchone()
                if again is not None:
                    summary.skipped += 1
                    continue
                summary.renamed.append((row["id"], new_id))
            row["id"] = new_id
            con.execute(f"insert into episodes ({_q(list(row))}) values ({', '.join('?' * len(row))})", list(row.values()))
            n = 0
            for st in src.execute(f"select {_q(scols)} from steps where episode_id = ? order by idx", (ep["id"],)):
                srow = dict(st)
                srow["episode_id"] = new_id
                con.execute(f"insert into steps ({_q(list(srow))}) values ({', '.join('?' * len(srow))})",
                            list(srow.values()))
                n += 1
            summary.episodes += 1
            summary.steps += n
        if "replay_cache" in {r[0] for r in src.execute("select name from sqlite_master where type = 'table'")}:
            for r in src.execute("select key, observation, structured, model, created_at, hits from replay_cache"):
                con.execute("insert or ignore into replay_cache (key, observation, structured, model, created_at, hits) "
                            "values (?, ?, ?, ?, ?, ?)", tuple(r))
