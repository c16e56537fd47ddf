"""The SQLite episode log (sqlite-utils, WAL): episodes and their steps.

One writer thread owns the write connection, so the server's event loop never blocks on SQLite and
writes never interleave; readers open their own connections. sqlite errors become `StoreError` here.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import sqlite_utils

from .errors import StoreError

T = TypeVar("T")

EPISODE_COLUMNS = {
    "id": str, "world_name": str, "world": str, "engine_url": str, "model": str, "dialect": str,
    "seed": int, "source": str, "state": str, "created_at": float, "updated_at": float,
    "state_step": int,  # `state` is the state after this step (-1: the initial state); later steps hold patches
    # `generate` runs: which run and task, which agent, how it ended and what the agent answered
    "run_id": str, "task_id": str, "agent": str, "outcome": str, "final_answer": str, "instruction": str,
    # tasks with success checks: the task itself (JSON), and what `verify` found (reward in [0, 1], checks)
    "task": str, "reward": float, "verdict": str,
    # what the engine's tokens cost, in US dollars per million (serve/generate/mirror --price-in/--price-out)
    "price_in": float, "price_out": float,
}
STEP_COLUMNS = {
    "id": int, "episode_id": str, "idx": int, "domain": str, "tool": str, "arguments": str, "where": str,
    "observation": str, "structured": str, "provenance": str, "real_observation": str,
    "real_structured": str, "prompt_tokens": int, "completion_tokens": int, "latency_ms": float,
    "error_kind": str, "error": str, "repaired": int, "similarity": float, "created_at": float,
    # mirror mode: the prediction is made after the real result went back to the agent
    "prediction_error": str, "prediction_ms": float,
    "thinking": str,  # the world model's reasoning (agentworld dialect), never shown to the agent
    "is_error": int,  # the simulated (or real) tool answered with an error result
    "state_patch": str,  # the state's change at this step (RFC 6902 JSON patch), after the episode's checkpoint
}


# An episode's tokens and what they cost (null when the episode has no price).
USAGE = ("coalesce(sum(s.prompt_tokens), 0) as prompt_tokens, coalesce(sum(s.completion_tokens), 0) as completion_tokens, "
         "case when e.price_in is null then null else (coalesce(sum(s.prompt_tokens), 0) * e.price_in + "
         "coalesce(sum(s.completion_tokens), 0) * e.price_out) / 1000000.0 end as cost")


def _open(path: Path) -> sqlite_utils.Database:
    try:
        conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30.0)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA busy_timeout = 30000")
        # WAL + NORMAL: a commit survives the process being killed (kill -9); only a power loss can
        # drop the last commits. FULL fsyncs every step and cost ~2 ms per call here.
        conn.execute("PRAGMA synchronous = NORMAL")
        db = sqlite_utils.Database(conn)
        return db
    except sqlite3.Error as err:
        raise StoreError(f"cannot open the episode store {path}: {err}") from None


def _ensure_schema(db: sqlite_utils.Database) -> None:
    if "episodes" not in db.table_names():
        db["episodes"].create(EPISODE_COLUMNS, pk="id", not_null={"world_name", "created_at"})
    if "steps" not in db.table_names():
        db["steps"].create(STEP_COLUMNS, pk="id", foreign_keys=[("episode_id", "episodes", "id")],
                           not_null={"episode_id", "idx", "tool"})
        db["steps"].create_index(["episode_id", "idx"], unique=True)
    if "replay_cache" not in db.table_names():
        db["replay_cache"].create({"key": str, "observation": str, "structured": str, "model": str,
                                   "created_at": float, "hits": int}, pk="key")
    # Stores written by an older mcp-world gain the newer columns.
    for name, columns in (("episodes", EPISODE_COLUMNS), ("steps", STEP_COLUMNS)):
        have = {c.name for c in db[name].columns}
        for col, typ in columns.items():
            if col not in have:
                db[name].add_column(col, typ)


class Store:
    """The log. Async writes go through the writer thread; sync reads use a reader connection."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not self.path.exists():
            # The log holds what agents typed and what real servers answered: readable by its owner
            # only (SQLite gives the -wal and -shm files the database file's permissions).
            try:
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
            except OSError as err:
                raise StoreError(f"cannot create the episode store {self.path}: {err}") from None
        self._db = _open(self.path)
        try:
            self._db.enable_wal()
            _ensure_schema(self._db)
        except sqlite3.Error as err:
            raise StoreError(f"cannot initialise the episode store {self.path}: {err}") from None
        self._reader = _open(self.path)
        self._read_lock = threading.Lock()
        self._states: dict[str, tuple[dict[str, Any], int]] = {}  # (writer thread) episode -> last state, patch bytes since
        self.state_bytes = 0  # state bytes written (checkpoints and patches), for benchmarks/state_writes.py
        self._queue: queue.Queue[tuple[Callable[[sqlite_utils.Database], Any], Future] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="mcp-world-store", daemon=True)
        self._thread.start()

    # -- the writer thread ----------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            fn, fut = item
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                with self._db.conn:  # one transaction per write
                    result = fn(self._db)
                fut.set_result(result)
            except sqlite3.Error as err:
                fut.set_exception(StoreError(f"writing to {self.path} failed: {err}"))
            except BaseException as err:  # noqa: BLE001 - handed to the caller
                fut.set_exception(err)

    def submit(self, fn: Callable[[sqlite_utils.Database], T]) -> Future[T]:
        fut: Future[T] = Future()
        self._queue.put((fn, fut))
        return fut

    async def write(self, fn: Callable[[sqlite_utils.Database], T]) -> T:
        return await asyncio.wrap_future(self.submit(fn))

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=30)
        self._db.conn.close()
        self._reader.conn.close()

    # -- writes ---------------------------------------------------------------------------------
    @staticmethod
    def episode_row(**fields: Any) -> dict[str, Any]:
        now = time.time()
        row = {"created_at": now, "updated_at": now, **fields}
        for key in ("world", "state"):
            if key in row and not isinstance(row[key], str):
                row[key] = json.dumps(row[key], ensure_ascii=False)
        return row

    async def add_episode(self, **fields: Any) -> None:
        row = self.episode_row(**fields)

        def _write(db: sqlite_utils.Database) -> None:
            import copy

            if list(db.query("select 1 from episodes where id = ?", [row["id"]])):
                return  # logged before: its state is what the log holds, not this one
            db["episodes"].insert({**row, "state_step": -1})
            if isinstance(fields.get("state"), dict):
                self._remember(row["id"], copy.deepcopy(fields["state"]), 0)

        await self.write(_write)

    async def add_step(self, step: dict[str, Any], state: dict[str, Any] | None = None) -> int:
        """Log a step and, with `state`, the episode's state after it: as a JSON patch from the state
        before (a step changes a little of a state that keeps growing), and as a whole checkpoint
        once the patches since the last one add up to the state's own size. Bytes written stay
        linear in the episode's length; rewriting the whole state every step made them quadratic."""
        row = _step_row(step)

        def _write(db: sqlite_utils.Database) -> int:
            episode = row["episode_id"]
            update: dict[str, Any] = {"updated_at": time.time()}
            if state is not None:
                update.update(self._state_change(db, episode, row, state))
            tbl = db["steps"]
            tbl.insert(row)
            db["episodes"].update(episode, update)
            return tbl.last_pk

        return await self.write(_write)

    def _state_change(self, db: sqlite_utils.Database, episode: str, row: dict[str, Any],
                      state: dict[str, Any]) -> dict[str, Any]:
        """(In the writer thread.) What to write for the new state: a patch on the step row, or a
        checkpoint on the episode row."""
        import copy

        import jsonpatch

        known = self._states.get(episode)
        if known is None:  # not seen by this process (resumed): start from a checkpoint
            full = json.dumps(state, ensure_ascii=False)
            self._remember(episode, copy.deepcopy(state), 0)
            self.state_bytes += len(full)
            return {"state": full, "state_step": row["idx"]}
        before, since = known
        patch = jsonpatch.make_patch(before, state)
        if not patch.patch:
            return {}
        text = patch.to_string()
        full = json.dumps(state, ensure_ascii=False)
        if since + len(text) >= len(full):
            self._remember(episode, copy.deepcopy(state), 0)
            self.state_bytes += len(full)
            return {"state": full, "state_step": row["idx"]}
        row["state_patch"] = text
        self._remember(episode, copy.deepcopy(state), since + len(text))
        self.state_bytes += len(text)
        return {}

    def _remember(self, episode: str, state: dict[str, Any], since: int) -> None:
        self._states.pop(episode, None)
        self._states[episode] = (state, since)
        while len(self._states) > 4096:  # the oldest forgotten: its next step writes a checkpoint
            self._states.pop(next(iter(self._states)))

    def state_of(self, episode_id: str) -> dict[str, Any] | None:
        """The episode's latest logged state: its checkpoint with the later steps' patches applied."""
        import jsonpatch

        row = self.episode(episode_id)
        if row is None:
            return None
        state = json.loads(row["state"] or "null") or {}
        after = row.get("state_step")
        after = -1 if after is None else after
        for s in self.query("select state_patch from steps where episode_id = ? and idx > ? and state_patch is not "
                            "null order by idx", (episode_id, after)):
            try:
                state = jsonpatch.JsonPatch.from_string(s["state_patch"]).apply(state)
            except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, ValueError) as err:
                raise StoreError(f"the state of episode {episode_id} cannot be rebuilt: {err}") from None
        return state

    def add_step_sync(self, step: dict[str, Any]) -> None:
        row = _step_row(step)
        self.submit(lambda db: db["steps"].insert(row)).result()

    def add_episode_sync(self, **fields: Any) -> None:
        row = self.episode_row(**fields)
        self.submit(lambda db: db["episodes"].insert(row, replace=True)).result()

    # -- the replay cache (serve --replay-cache) -------------------------------------------------
    def cache_get(self, key: str) -> tuple[str, dict[str, Any]] | None:
        rows = self.query("select observation, structured from replay_cache where key = ?", (key,))
        if not rows:
            return None
        self.submit(lambda db: db.execute("update replay_cache set hits = hits + 1 where key = ?", [key]))
        return rows[0]["observation"], json.loads(rows[0]["structured"] or "{}")

    async def cache_put(self, key: str, observation: str, structured: dict[str, Any], model: str) -> None:
        row = {"key": key, "observation": observation, "structured": json.dumps(structured, ensure_ascii=False),
               "model": model, "created_at": time.time(), "hits": 0}
        await self.write(lambda db: db["replay_cache"].insert(row, ignore=True))

    # -- reads ----------------------------------------------------------------------------------
    def query(self, sql: str, params: tuple | dict = ()) -> list[dict[str, Any]]:
        with self._read_lock:
            try:
                return list(self._reader.query(sql, params))
            except sqlite3.Error as err:
                raise StoreError(f"reading {self.path} failed: {err}") from None

    def episodes(self, limit: int = 100) -> list[dict[str, Any]]:
        """The latest episodes with their step and error counts, tokens, and cost where priced."""
        return self.query(
            "select e.id, e.world_name, e.model, e.dialect, e.seed, e.source, e.created_at, e.updated_at, "
            f"count(s.id) as steps, sum(s.error_kind is not null) as errors, {USAGE} "
            "from episodes e left join steps s on s.episode_id = e.id "
            "group by e.id order by e.created_at desc limit ?", (limit,))

    def usage(self, episode_ids: list[str]) -> dict[str, dict[str, Any]]:
        """Tokens and cost (None where unpriced) of each of these episodes."""
        out: dict[str, dict[str, Any]] = {}
        for chunk in (episode_ids[i:i + 500] for i in range(0, len(episode_ids), 500)):
            marks = ", ".join("?" * len(chunk))
            for row in self.query(f"select e.id, {USAGE} from episodes e left join steps s on s.episode_id = e.id "
                                  f"where e.id in ({marks}) group by e.id", tuple(chunk)):
                out[row.pop("id")] = row
        return out

    def episode(self, episode_id: str) -> dict[str, Any] | None:
        rows = self.query("select * from episodes where id = ?", (episode_id,))
        return rows[0] if rows else None

    def episodes_of_key(self, key: str, columns: str = "id") -> list[dict[str, Any]]:
        """The episodes logged under `key`: `key` itself and `key.1`, `key.2`… (world_reset), oldest
        first. Exact: a range over the primary key's index (case-sensitive, `_` is no wildcard), not a
        LIKE scan on every call."""
        rows = self.query(f"select {columns}, created_at from episodes where id = ? or (id > ? and id < ?) "
                          "order by created_at", (key, key + ".", key + "/"))  # "/" sorts right after "."
        return [r for r in rows if r["id"] == key or r["id"][len(key) + 1:].isdigit()]

    def steps(self, episode_id: str) -> list[dict[str, Any]]:
        return self.query("select * from steps where episode_id = ? order by idx", (episode_id,))

    def iter_episode_ids(self) -> Iterator[str]:
        for row in self.query("select id from episodes order by created_at"):
            yield row["id"]


def agent_saw(step: dict[str, Any]) -> tuple[str | None, str | None]:
    """What the agent was answered at a logged step (the observation, its structured JSON): a real
    step's real observation, not the world model's prediction logged beside it."""
    if step.get("provenance") == "real":
        return step.get("real_observation"), step.get("real_structured")
    return step.get("observation"), step.get("structured")


def _step_row(step: dict[str, Any]) -> dict[str, Any]:
    row = {"created_at": time.time(), **step}
    for key in ("arguments", "structured", "real_structured"):
        if key in row and row[key] is not None and not isinstance(row[key], str):
            row[key] = json.dumps(row[key], ensure_ascii=False)
    return row
