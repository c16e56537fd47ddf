"""Signals: SIGTERM unwinds a command the way Ctrl+C does."""

from __future__ import annotations

import signal
import threading
from typing import Any


def _exit_on_term(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def stop_cleanly_on_term() -> None:
    """SIGTERM (systemd, docker stop, a supervisor, `kill`) unwinds like Ctrl+C, so `finally` blocks
    run: without this, uvicorn re-raises the SIGTERM it caught after its own shutdown and the
    default action kills the process before the sandboxes (with their mounts) and the engine it
    started are cleaned up."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _exit_on_term)


async def stop_on_signal(userver: Any) -> None:
    """Ask a uvicorn server run without its own signal handling (`serving.QuietServer`) to stop at
    the first SIGINT or SIGTERM, so that what comes after it (draining predictions) still runs; the
    signal is kept as `userver.stopped_by` for `reraise`."""
    import anyio

    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            userver.stopped_by = signum
            userver.should_exit = True
            return


def reraise(signum: int | None) -> None:
    """End as the signal that stopped the server would have, once everything after it ran: SIGINT
    as Ctrl+C (KeyboardInterrupt), SIGTERM with status 128 + 15."""
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    if signum is not None:
        raise SystemExit(128 + signum)
