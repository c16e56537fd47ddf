"""What a repository's `.gitignore` files leave out: the untracked paths `git status` does not list and
`git add -A` (or `git add FOLDER`) does not stage. Every real project has a `.gitignore`, so without
this `git status` after any new file, `git add` and the commit after it were the model's.

The patterns are read by pathspec's GitIgnoreSpec (git's wildmatch rules: `**`, anchoring by a slash,
a folder-only pattern's trailing `/`, `!` re-including, the last match winning), one spec a file,
a deeper file's match winning over a shallower one's. As git, a path inside an ignored folder is
ignored whatever a later pattern says: git does not look inside such a folder.

None where git may read patterns the state does not know (a global excludes file, a `.gitignore`
whose text is not known) or that are too many or too long to match in little time.
"""

from __future__ import annotations

import functools
import posixpath

from pathspec import GitIgnoreSpec

from .state import TerminalState, _within

# git's own excludes beside the repository's files: core.excludesFile (set by a global config, which
# the state marks `configured`) defaults to $XDG_CONFIG_HOME/git/ignore, else ~/.config/git/ignore
_GLOBAL = "/.config/git/ignore"
# A file the state reads at every status: a .gitignore past these is left to the model (a wildcard
# pattern is a regular expression, and a path is matched against each line).
MAX_LINES = 400
MAX_LINE = 200
MAX_STARS = 8


class Ignores:
    """The `.gitignore` files of a repository, read (folder relative to the repository: its patterns)."""

    def __init__(self, specs: dict[str, GitIgnoreSpec]) -> None:
        self.specs = specs

    def __call__(self, rel: str, folder: bool = False) -> bool:
        """Whether git ignores the path `rel` (relative to the repository; `folder`: it is a folder)."""
        return self.where(rel, folder) is not None

    def where(self, rel: str, folder: bool = False) -> str | None:
        """What git ignores of the path `rel`: the outermost folder on its way that is ignored, else the
        path itself where it is (as `git add` names it when refusing it); None where it is not ignored."""
        if not self.specs:
            return None
        parts = rel.split("/")
        for n in range(1, len(parts) + 1):
            if self._matches(parts[:n], folder or n < len(parts)):
                return "/".join(parts[:n])
        return None

    def _matches(self, parts: list[str], folder: bool) -> bool:
        """The deepest `.gitignore` above the path with a pattern matching it says (its last such pattern)."""
        for n in range(len(parts) - 1, -1, -1):
            spec = self.specs.get("/".join(parts[:n]) or ".")
            if spec is not None:
                found = spec.check_file("/".join(parts[n:]) + ("/" if folder else ""))
                if found.include is not None:
                    return bool(found.include)
        return False


@functools.lru_cache(maxsize=64)
def _spec(text: str) -> GitIgnoreSpec | None:
    """A .gitignore's patterns, compiled (once a text: every `git status` reads them); None for one too
    long to match in little time, or with a pattern pathspec refuses (git's reading of it not known)."""
    lines = text.splitlines()
    if len(lines) > MAX_LINES or any(len(ln) > MAX_LINE or ln.count("*") > MAX_STARS for ln in lines):
        return None
    try:
        return GitIgnoreSpec.from_lines(lines)
    except (ValueError, TypeError):
        return None


def rules(s: TerminalState) -> Ignores | None:
    """The `.gitignore` files of the state's repository; None where what git ignores is not known."""
    g = s.git
    assert g is not None
    nested = [posixpath.join(g.repo, ".git"), *(r for r in s.other_repos if r != g.repo)]
    specs: dict[str, GitIgnoreSpec] = {}
    for path, text in s.files.items():
        if posixpath.basename(path) != ".gitignore" or not _within(path, g.repo) or path in s.dirs or \
                any(_within(path, n) for n in nested) or any(_within(path, d) for d in s.deleted):
            continue
        spec = _spec(text) if text is not None else None
        if spec is None:
            return None
        specs[posixpath.relpath(posixpath.dirname(path), g.repo)] = spec
    if specs and (s.configured or "XDG_CONFIG_HOME" in s.env or any(p.endswith(_GLOBAL) for p in s.files)):
        return None  # (without a .gitignore, a global excludes file is taken to be absent, as it always was)
    return Ignores(specs)
