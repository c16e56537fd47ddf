"""Predictions made off the agent's path: where the agent gets a real result (mirror mode, a real
step of `--real`), the world model's prediction of it is only for the log, so the agent does not
wait for it. Each prediction runs in the background, a bounded number at a time, and what it gives
is written into its step row when it is done (`observation`, tokens, `prediction_ms`, or
`prediction_error`). At the end the server drains the backlog for a bounded time; what is still
running is marked abandoned in its row, never lost silently.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from .errors import AgentFault
from .store import Store

log = logging.getLogger("mcp_world")

Predict = Callable[[], Awaitable[dict[str, Any]]]  # the step row's update (observation, tokens, ...)


class Backlog:
    """Background predictions, each written into its step row when done."""

    def __init__(self, store: Store, concurrency: int = 2, max_backlog: int = 256,
                 who: str = "the server", wait_when_full: bool = False) -> None:
        self.store = store
        self.max_backlog = max_backlog
        # Full: wait for room (a batch run, whose pairs are the point) or skip the prediction (a
        # server, whose agents must not wait on it).
        self.wait_when_full = wait_when_full
        self.who = who  # in the note on an abandoned prediction: who stopped before it finished
        self._running = asyncio.Semaphore(concurrency)
        self._pending: dict[asyncio.Task, int] = {}  # task -> its step row
        self.predicted = 0
        self.failed = 0
        self.skipped = 0

    def __len__(self) -> int:
        return len(self._pending)

    async def schedule(self, step_id: int, predict: Predict) -> None:
        """Run `predict` in the background and write what it returns into step `step_id`. Past
        `max_backlog` waiting (an agent faster than the model must not grow memory without bound),
        either wait for room or mark the step skipped."""
        while self.wait_when_full and len(self._pending) >= self.max_backlog:
            await asyncio.wait(set(self._pending), return_when=asyncio.FIRST_COMPLETED)
        if len(self._pending) >= self.max_backlog:
            self.skipped += 1
            note = {"prediction_error": f"skipped: {self.max_backlog} predictions were already waiting"}
            task = asyncio.ensure_future(self.store.write(lambda db: db["steps"].update(step_id, note)))
        else:
            task = asyncio.ensure_future(self._run(step_id, predict))
        self._pending[task] = step_id
        task.add_done_callback(lambda t: self._pending.pop(t, None))

    async def _run(self, step_id: int, predict: Predict) -> None:
        async with self._running:
            t0 = time.perf_counter()
            try:
                update = {**await predict(), "prediction_ms": (time.perf_counter() - t0) * 1000,
                          "prediction_error": None}  # (a note put there at exit, in case, is cleared)
                self.predicted += 1
            except AgentFault as fault:
                update = {"prediction_error": f"{fault.kind.value}: {fault.message}"[:2000]}
                self.failed += 1
            except Exception as err:  # noqa: BLE001 - a prediction never takes the server down
                log.exception("prediction for step %s failed", step_id)
                update = {"prediction_error": f"internal: {type(err).__name__}: {err}"[:2000]}
                self.failed += 1
            await self.store.write(lambda db: db["steps"].update(step_id, update))

    async def drain(self, timeout_s: float | None, stop: Any = None) -> int:
        """Wait for the predictions still running, at most `timeout_s` (None: no limit) or until `stop` (an event:
        a signal; a stdio client stops its server 2 s after closing its input) is set; returns how
        many were abandoned, each marked so in its step."""
        pending = dict(self._pending)
        if not pending:
            return 0
        not_done = set(pending)
        note = {"prediction_error": f"abandoned: {self.who} stopped before this prediction finished (a stdio "
                                    "client stops its server about 2 s after its last call; an engine already "
                                    "running, `mcp-world engine start`, answers sooner)"}
        # Marked first, in case the process is killed while it waits (`docker stop` kills after 10 s):
        # each step that has neither a prediction nor a note yet; one that still finishes clears it.
        ids = list(pending.values())
        await self.store.write(lambda db: db.execute(
            f"update steps set prediction_error = ? where id in ({', '.join('?' * len(ids))}) "
            "and observation is null and prediction_error is null", [note["prediction_error"], *ids]))
        if timeout_s is None or timeout_s > 0:
            stopped = asyncio.ensure_future(stop.wait()) if stop is not None else None
            deadline = None if timeout_s is None else asyncio.get_running_loop().time() + timeout_s
            while not_done and not (stopped and stopped.done()):
                left = None if deadline is None else deadline - asyncio.get_running_loop().time()
                if left is not None and left <= 0:
                    break
                done, _ = await asyncio.wait(not_done | ({stopped} if stopped else set()), timeout=left,
                                             return_when=asyncio.FIRST_COMPLETED)
                not_done -= done
            if stopped is not None:
                stopped.cancel()
        for task in not_done:
            task.cancel()
        return len(not_done)

    def summary(self) -> str:
        """A line for the log at exit."""
        parts = [f"{self.predicted} predictions logged"]
        if self.failed:
            parts.append(f"{self.failed} failed (their steps say why)")
        if self.skipped:
            parts.append(f"{self.skipped} skipped (backlog)")
        return ", ".join(parts)


async def drain_until_signal(backlog: Backlog, timeout_s: float | None) -> int:
    """`Backlog.drain`, cut short by SIGINT or SIGTERM (which would otherwise end the process with
    the predictions still running left unmarked): how many were abandoned."""
    import anyio

    stop = anyio.Event()

    async def set_on_signal() -> None:
        import signal

        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                stop.set()
                return

    async with anyio.create_task_group() as tg:
        tg.start_soon(set_on_signal)
        abandoned = await backlog.drain(timeout_s, stop)
        tg.cancel_scope.cancel()
    return abandoned


async def drain_at_exit(backlog: Backlog, timeout_s: float | None, say: Callable[[str], None],
                        who: str = "") -> int:
    """What every command that ran predictions in the background does on its way out: say how many
    are still running, log them (at most `timeout_s`; a second Ctrl+C or SIGTERM leaves them,
    marked), and say what came of them. Returns how many were abandoned."""
    prefix = f"{who}: " if who else ""
    if len(backlog):
        within = "" if timeout_s is None else f" up to {timeout_s:.0f} s"
        say(f"{prefix}waiting{within} for {len(backlog)} predictions to be logged (Ctrl+C again to leave them, "
            "marked abandoned)")
    abandoned = await drain_until_signal(backlog, timeout_s)
    if backlog.predicted or backlog.failed or backlog.skipped or abandoned:
        say(prefix + backlog.summary() + (f", {abandoned} abandoned at exit" if abandoned else ""))
    return abandoned
