"""Real executors: run an agent's action for real, beside the simulation (shadow mode), and say
what reality observed. Registered by domain name:

    terminal   a bubblewrap sandbox per episode (sandbox.py)
    browser    real GETs of allowlisted local origins (browser.py)
    swe        the world's repository in a bubblewrap sandbox per episode, its tests run for real (repo.py)
    search     real fetches of allowlisted local pages as Markdown, a real search over those sites (search.py)

Each has `from_options(ShadowOptions)`, `async observe(episode_id, world, tool, arguments, state) ->
RealObservation | None` (None: this action has no real counterpart), `end(episode_id)` and `close()`;
optionally `covers(tool, arguments)` (False: no real counterpart, the action is simulated);
`uses_origins` says whether it reads `--shadow-origin`.
"""

from __future__ import annotations

from .base import RealObservation, ShadowOptions
from .browser import ShadowBrowser
from .repo import ShadowRepo
from .search import ShadowSearch
from .sandbox import RealResult, SandboxLimits, ShadowTerminal, bwrap_available

EXECUTORS = {"terminal": ShadowTerminal, "browser": ShadowBrowser, "swe": ShadowRepo, "search": ShadowSearch}

__all__ = ["EXECUTORS", "RealObservation", "ShadowOptions", "RealResult", "SandboxLimits", "ShadowBrowser",
           "ShadowRepo", "ShadowSearch", "ShadowTerminal", "bwrap_available"]
