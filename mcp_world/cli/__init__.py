"""The command line: each command parses its options, makes one library call, and turns library
errors into a clear message and exit code 2. `MCP_WORLD_*` variables are read here and only here.
The commands live by what they do (serving, the episode log, training and evaluation, worlds, the
embedded engine); each module registers its own on the app of common.py."""

from __future__ import annotations

# each registers its commands, in the order `--help` lists them (serving first: the main job)
from . import serving, episodes, training, worlds, engine  # noqa: F401, I001
from .common import app

__all__ = ["app"]
