"""Making world files from reality (`mcp-world world ...`).

* `from_episodes`: recorded real episodes (mirror sessions, imports, shadow runs) become a world —
  the tools they used (for a mirrored MCP server: its declared tools, so `serve` simulates it in the
  `mcp` domain) plus a few real results per tool as demonstrations.
* `from_dir`: a real project folder becomes a terminal world's seed — its tree, the contents of small
  text files, the git branch and recent log — with anything that looks like a secret left out and
  reported, so a dry run happens in a faithful copy of the user's project.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit
from typing import Any

import yaml

from .domain import load_domain
from .errors import WorldFileError
from .redaction import find_in_file, redact
from .world import World, parse_world

# -- from episodes ---------------------------------------------------------------------------------


BROWSER_PAGE_TOOLS = ("browser_navigate", "browser_click", "browser_back")


def known_pages(records: list[dict[str, Any]], most: int = 16) -> dict[str, str]:
    """The real pages of recorded browser episodes as a world's known pages (`seed.browser.pages`):
    distinct URLs, the most visited first (the first two are shown to the model as the site's own
    examples), each page as the browser last showed it, within the limits a world's known pages have
    (a page too large is left out), secrets redacted."""
    browser = sys.modules[type(load_domain("browser").rules).__module__]  # its own limits on known pages
    MAX_KNOWN_PAGE, MAX_KNOWN_PAGES = browser.MAX_KNOWN_PAGE, browser.MAX_KNOWN_PAGES  # noqa: N806

    visits: dict[str, int] = {}
    latest: dict[str, str] = {}
    for rec in records:
        for s in rec["steps"]:
            info = s.get("structured") or {}
            obs = s.get("observation")
            if s["tool"] in BROWSER_PAGE_TOOLS and obs and not s.get("error") and info.get("url") \
                    and int(info.get("status") or 200) < 400 and not info.get("isError"):
                visits[info["url"]] = visits.get(info["url"], 0) + 1
                latest[info["url"]] = redact(obs)[0]
    pages: dict[str, str] = {}
    total = 0
    for url in sorted(visits, key=lambda u: -visits[u]):  # stable: of equal visits, the first recorded
        size = len(latest[url].encode("utf-8"))
        if len(pages) >= most or size > MAX_KNOWN_PAGE or total + size > MAX_KNOWN_PAGES:
            continue
        pages[url] = latest[url]
        total += size
    return pages


def known_pages_of(world: World) -> dict[str, str]:
    """The pages a world's browser knows (`seed.browser.pages`)."""
    browser = world.seed.get("browser")
    return dict(browser.get("pages") or {}) if isinstance(browser, dict) else {}


def from_episodes(records: Iterable[dict[str, Any]], name: str | None = None, description: str | None = None,
                  per_tool: int = 3, max_observation_chars: int = 2_000, pages: int = 16) -> World:
    """A world from real episodes (interchange records): their domains, seed and tools, up to
    `per_tool` real results per tool (distinct arguments, shortest first, at most one error), and
    for a browser up to `pages` of the pages it showed as the world's known pages (the pages are
    then not demonstrations too)."""
    records = list(records)
    if not records:
        raise WorldFileError("no episodes with real observations to make a world from "
                             "(record some with `mcp-world mirror`, or `import` them)")
    first = records[0]["world"]
    domains: list[str] = []
    tools: dict[str, dict[str, Any]] = {}
    candidates: dict[str, list[dict[str, Any]]] = {}
    for rec in records:
        w = rec["world"]
        for d in w.get("domains", []):
            if d not in domains:
                domains.append(d)
        for t in w.get("tools", []):
            tools.setdefault(t["name"], t)
        for s in rec["steps"]:
            obs = s.get("observation")
            if obs is None or s.get("error") or len(obs) > max_observation_chars or pages and s["tool"] in BROWSER_PAGE_TOOLS:
                continue
            candidates.setdefault(s["tool"], []).append(s)
    demos = []
    for tool, steps in candidates.items():
        seen: set[str] = set()
        errors = 0
        for s in sorted(steps, key=lambda s: len(s["observation"])):
            key = json.dumps(s.get("arguments", {}), sort_keys=True)
            is_error = bool((s.get("structured") or {}).get("isError"))
            if key in seen or (is_error and errors):
                continue
            seen.add(key)
            errors += is_error
            # Demonstrations go into every prompt (possibly to a remote engine): secrets redacted first.
            observation, _ = redact(s["observation"])
            arguments = json.loads(redact(json.dumps(s.get("arguments", {}), ensure_ascii=False))[0])
            demo = {"tool": tool, "arguments": arguments, "observation": observation}
            if s.get("structured"):
                demo["structured"] = s["structured"]
            demos.append(demo)
            if len(seen) >= per_tool:
                break
    seed = json.loads(json.dumps(first.get("seed") or {}))
    site = known_pages(records, pages) if pages and "browser" in domains else {}
    if site:
        browser = seed.get("browser") if isinstance(seed.get("browser"), dict) else \
            ({"notes": seed["browser"]} if seed.get("browser") else {})
        seed["browser"] = {**browser, "pages": {**(browser.get("pages") or {}), **site}}
    data = {
        "name": name or first.get("name", "recorded"),
        "description": description or first.get("description", "A world recorded from real episodes."),
        "domains": domains,
        **({"seed": seed} if seed else {}),
        **({"tools": list(tools.values())} if tools else {}),
        "demonstrations": demos,
    }
    return parse_world(data, "the world made from these episodes")


# -- from a folder ---------------------------------------------------------------------------------

SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "env", "__pycache__", ".mypy_cache", ".pytest_cache",
             ".ruff_cache", ".tox", ".nox", ".idea", ".vscode", ".cache", "dist", "build", "target", ".next",
             ".gradle", ".terraform"}
SECRET_NAMES = (".env", ".env.*", "*.env", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore",
                "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*credentials*", "*secret*", ".netrc",
                ".npmrc", ".pypirc", ".git-credentials", ".htpasswd", "*.token", ".dockercfg",
                "service-account*.json", "*.tfstate", "*.tfvars", ".boto", ".s3cfg", "kubeconfig*")
SECRET_CONTENT = re.compile(
    r"-----BEGIN ([A-Z]+ )?PRIVATE KEY-----|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36}|github_pat_\w{40,}"
    r"|sk-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20}"
)


@dataclass
class Snapshot:
    world: World
    files: int = 0
    with_contents: int = 0
    withheld: list[tuple[str, str]] = field(default_factory=list)  # (relative path, why)
    redacted: list[tuple[str, int]] = field(default_factory=list)  # (relative path, secrets replaced in it)
    not_listed: int = 0  # files beyond --max-files


# A snapshot's limits per kind of world (KiB a file, KiB in all, files): a terminal's contents go into
# every prompt; a repository's prompt shows what fits, and its real run needs every file.
SNAPSHOT_LIMITS = {"terminal": (4, 16, 200), "swe": (64, 512, 500)}


def snapshot_limits(domain: str | None) -> tuple[str, tuple[int, int, int]]:
    """The kind of world a folder becomes (default: terminal) and its limits; WorldFileError for another."""
    domain = domain or "terminal"
    if domain not in SNAPSHOT_LIMITS:
        raise WorldFileError(f"a folder becomes a {' or a '.join(SNAPSHOT_LIMITS)} world, not {domain!r}")
    return domain, SNAPSHOT_LIMITS[domain]


def snapshot_warning(snap: Snapshot, domain: str) -> str | None:
    """What a user should know about a repository snapshot: files the real run would hold empty."""
    if domain == "swe" and snap.files > snap.with_contents:
        return (f"{snap.files - snap.with_contents} files have no contents in the world (binary, too large, or "
                "past --max-total-kib): the simulation knows they exist, and the real repository "
                "(--shadow swe) holds them empty")
    return None


def from_dir(path: Path, name: str | None = None, user: str = "user", hostname: str = "devbox",
             max_file_bytes: int = 4_096, max_total_bytes: int = 16_384, max_files: int = 200,
             domain: str = "terminal", test_command: str = "pytest") -> Snapshot:
    """A world whose seed is a snapshot of the folder at `path`: a terminal (the project in the
    user's home, its git history) or, with `domain="swe"`, a repository at /workspace/<name> whose
    tests run with `test_command` (for real with `serve --shadow swe`)."""
    snapshot_limits(domain)
    root = path.expanduser().resolve()
    if not root.is_dir():
        raise WorldFileError(f"{path} is not a folder")
    project = re.sub(r"[^A-Za-z0-9._-]", "-", root.name) or "project"
    home = f"/home/{user}" if user != "root" else "/root"
    base = f"{home}/{project}"
    git = _git(root, "rev-parse", "--show-toplevel") is not None
    rels = _git_files(root) if git else _walk(root)
    if git and not rels:  # a folder its surrounding repository ignores (a virtual environment's packages)
        git, rels = False, _walk(root)
    snap = Snapshot(world=None)  # type: ignore[arg-type]
    files: dict[str, str | None] = {}
    budget = max_total_bytes
    # Small top-level files first: they say most about a project (README, pyproject, Makefile).
    for rel in sorted(rels, key=lambda r: (r.count("/"), not r.lower().startswith("readme"), r)):
        p = root / rel
        why = _secret_name(rel) or _not_plain(root, rel)
        text = None
        if why is None and p.stat(follow_symlinks=False).st_size <= max_file_bytes:
            text = _text(p)
            if text is not None and SECRET_CONTENT.search(text):
                why = "its contents look like a key or token"
            elif text is not None:
                hits = find_in_file(p)  # keyword assignments, key shapes, high-entropy strings
                if hits:
                    text, n = redact(text, hits=hits)
                    snap.redacted.append((rel, n))
        if why:
            snap.withheld.append((rel, why))
            continue
        if len(files) >= max_files:
            snap.not_listed += 1
            continue
        if text is not None and len(text.encode()) <= budget:
            files[f"{base}/{rel}"] = text
            budget -= len(text.encode())
            snap.with_contents += 1
        else:
            files[f"{base}/{rel}"] = None
    snap.files = len(files)
    seed: dict[str, Any] = {"hostname": hostname, "user": user, "cwd": base, "files": files}
    notes = [f"A snapshot of the real project {root.name}: {snap.files} files listed"
             + (f", {snap.not_listed} more not listed" if snap.not_listed else "") + "."]
    if git:
        branch = _git(root, "rev-parse", "--abbrev-ref", "HEAD") or "main"
        log = (_git(root, "log", "-n", "10", "--format=%h %s") or "").splitlines()
        author = _git(root, "log", "-1", "--format=%an <%ae>") or f"{user} <{user}@{hostname}>"
        message = _git(root, "log", "-1", "--format=%s") or "Initial commit"
        seed["git"] = [{"path": base, "branch": branch, "message": message, "author": author, "log": log}]
        dirty = (_git(root, "status", "--porcelain") or "").splitlines()
        notes.append("The working tree is clean." if not dirty else
                     f"`git status --porcelain` shows {len(dirty)} changes: " + "; ".join(dirty[:10]))
    seed["notes"] = " ".join(notes)
    description = (f"A copy of the developer's project {root.name}, in {base} on the machine {hostname} "
                   f"(user {user}). Bash, git and the usual GNU tools are installed.")
    if domain == "swe":
        # The repository alone: its files relative to its root, no machine around it.
        seed = {"root": f"/workspace/{project}", "files": {p[len(base) + 1:]: c for p, c in files.items()},
                "complete": not snap.not_listed, "test_command": test_command, "notes": seed["notes"]}
        description = (f"A copy of the developer's project {root.name}, checked out at /workspace/{project}. Its "
                       f"tests run with `{test_command}`.")
    snap.world = parse_world({"name": name or project, "description": description, "domains": [domain],
                              "seed": {domain: seed}}, f"the snapshot of {root}")
    return snap


# A repository's own config can run programs (core.fsmonitor, filter drivers, diff drivers, hooks):
# git runs here with those switched off, and with no system or global config.
_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0",
            "GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat", "GIT_EXTERNAL_DIFF": "", "GIT_ASKPASS": "true"}
_GIT_SAFE = ["-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "-c", "core.hooksPath=/dev/null",
             "-c", "diff.external=", "-c", "core.pager=cat", "-c", "core.sshCommand=false", "-c", "protocol.allow=never"]


def _git_overrides(root: Path) -> list[str]:
    """`-c` settings that switch off every filter, diff and merge driver the repository configures
    (listing the config runs nothing)."""
    try:
        out = subprocess.run(["git", "-C", str(root), *_GIT_SAFE, "config", "--local", "--name-only", "--list"],
                             capture_output=True, text=True, timeout=30, env={**os.environ, **_GIT_ENV})
    except (OSError, subprocess.TimeoutExpired):
        return []
    args: list[str] = []
    for key in out.stdout.splitlines():
        parts = key.split(".")
        if len(parts) >= 3 and parts[0] in ("filter", "diff", "merge") and parts[-1] in (
                "clean", "smudge", "process", "textconv", "command", "driver"):
            args += ["-c", f"{key}="]
        if len(parts) >= 3 and parts[0] == "filter" and parts[-1] == "required":
            args += ["-c", f"{key}=false"]
    return args


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(root), *_GIT_SAFE, *_git_overrides(root), *args], capture_output=True,
                             text=True, timeout=30, env={**os.environ, **_GIT_ENV})
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _git_files(root: Path) -> list[str]:
    out = _git(root, "ls-files", "--cached", "--others", "--exclude-standard")
    rels = [r for r in (out or "").splitlines() if r]
    return [r for r in rels if not any(part in SKIP_DIRS for part in r.split("/")[:-1])
            and (_regular(root / r) or (root / r).is_symlink())]


def _walk(root: Path) -> list[str]:
    rels = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for n in sorted(names):
            p = Path(folder) / n
            if _regular(p) or p.is_symlink():
                rels.append(str(p.relative_to(root)))
    return rels


def _not_plain(root: Path, rel: str) -> str | None:
    """Why a path is not read: a link (it may point anywhere: /etc/passwd, ~/.ssh) or anything but
    a regular file inside the folder."""
    p = root / rel
    if p.is_symlink():
        return "it is a symbolic link (only regular files inside the folder are read)"
    try:
        p.resolve(strict=True).relative_to(root)
    except (OSError, ValueError):
        return "it lies outside the folder"
    if not _regular(p):
        return "it is not a regular file"
    return None


def _regular(p: Path) -> bool:
    try:
        return stat.S_ISREG(p.lstat().st_mode)
    except OSError:
        return False


def _secret_name(rel: str) -> str | None:
    base = rel.rsplit("/", 1)[-1].lower()
    if any(part in (".ssh", ".gnupg", ".aws") for part in rel.split("/")[:-1]):
        return "it is in a credentials folder"
    for pattern in SECRET_NAMES:
        if fnmatch.fnmatch(base, pattern) and base not in (".env.example", ".env.sample", ".env.template"):
            return f"its name looks like a secret ({pattern})"
    return None


def _text(p: Path) -> str | None:
    try:
        data = p.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


# -- writing ---------------------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str):
    style = "|" if "\n" in value and not any(c in value for c in "\r\t") and value == value.rstrip(" ") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def world_yaml(world: World, header: str = "") -> str:
    data = world.model_dump(by_alias=True, exclude_defaults=True, exclude_none=True)
    body = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)
    lines = "".join(f"# {line}\n" for line in header.splitlines()) if header else ""
    return lines + body


SITE_PAGE_BYTES = 32 * 1024  # a known page's most (seed.search.pages)
SITE_PAGES_BYTES = 256 * 1024  # all of them together


@dataclass
class SiteSnapshot:
    world: World
    crawled: int = 0
    known: int = 0
    too_big: list[str] = field(default_factory=list)  # pages over a known page's size: the model's
    left: int = 0  # pages past the budget: the model's
    redacted: list[tuple[str, int]] = field(default_factory=list)
    seconds: float = 0.0


def from_site(origin: str, name: str | None = None, description: str | None = None, max_pages: int = 200,
              timeout_s: float = 10.0) -> SiteSnapshot:
    """A search world of a local site: crawled as `serve --shadow search` crawls it, its web the
    site alone (`seed.search.sites`), and its pages, in the crawl's order while they fit
    (SITE_PAGE_BYTES a page, SITE_PAGES_BYTES in all), pages the world knows (`seed.search.pages`:
    fetched and found exactly as the real engine fetches and finds them); secret values redacted."""
    import asyncio
    import time

    from .executors.browser import BrowserLimits
    from .executors.search import ShadowSearch, SiteLimits

    from .errors import MCPWorldError

    try:
        engine = ShadowSearch((origin,), BrowserLimits(timeout_s=timeout_s), SiteLimits(max_pages=max_pages))
    except MCPWorldError as err:
        raise WorldFileError(f"world from-site reads a site you run on this machine, at a local origin such as "
                             f"http://127.0.0.1:8000 (127.0.0.1, localhost, ::1); got {origin!r}") from err
    started = time.monotonic()
    crawled = asyncio.run(engine.index())
    if not crawled:
        raise WorldFileError(f"{origin} gave no page (nothing answered at {origin}/, or not as HTML or text)")
    site = engine.origins[0]
    snap = SiteSnapshot(world=None, crawled=len(crawled), seconds=time.monotonic() - started)  # type: ignore[arg-type]
    pages: dict[str, dict[str, str]] = {}
    budget = SITE_PAGES_BYTES
    for url, page in crawled.items():
        content, n = redact(page["content"], "page.md")
        if n:
            snap.redacted.append((url, n))
        size = len(content.encode())
        if size > SITE_PAGE_BYTES:
            snap.too_big.append(url)
        elif size > budget:
            snap.left += 1
        else:
            pages[url] = {"content": content, "title": page["title"], "date": page["date"]}
            budget -= size
    snap.known = len(pages)
    first = next(iter(crawled.values()))
    title = first["title"] or site
    notes = (f"The web here is one site, {title}, at {site}: every search and every page is of it. "
             f"{len(crawled)} pages were found on it")
    notes += f"; {len(pages)} of them are known exactly." if len(pages) < len(crawled) else ", all known exactly."
    snap.world = parse_world({"name": name or re.sub(r"[^A-Za-z0-9._-]+", "-", urlsplit(site).netloc).strip("-"),
                              "description": description or f"The site {title} at {site}, through a search engine "
                                                            "over its pages and a page fetcher.",
                              "domains": ["search"], "seed": {"search": {"notes": notes, "sites": [site],
                                                                         "pages": pages}}},
                             f"the crawl of {site}")
    return snap
