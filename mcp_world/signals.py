"""Signals: SIGTERM unwinds a command the way Ctrl+C does."""

from __future__ import annotations

import signal
import threading


def _exit_on_term(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def stop_cleanly_on_term() -> None:
    """SIGTERM (systemd, docker stop, a supervisor, `kill`) unwinds like Ctrl+C, so `finally` blocks
    run: without this, uvicorn re-raises the SIGTERM it caught after its own shutdown and the
    default action kills the process before the sandboxes (with their mounts) and the engine it
    started are cleaned up."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _exit_on_term)
