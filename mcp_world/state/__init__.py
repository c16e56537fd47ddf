"""Explicit state (DESIGN.md, "Explicit state"): what each episode has established about its world,
per domain, kept beside the history so the world does not contradict itself.

    terminal  cwd, files (path -> contents, or None when only existence is known), deleted paths,
              folders, environment variables, git (branch, branches, commits)
    browser   current URL and title, the pages seen (URL -> HTML), the back stack, typed form values
    android   the current screen (its last dump), the foreground package, typed text, toggles
    search    the results and pages shown; mcp: results of read-only calls since the last write
    swe       the repository's files, what was edited, the last test run (state/repo.py)
    os        the desktop's accessibility tree, typed text, toggles, keys (state/desktop.py)

How it is kept up to date. The small instruct models cannot be trusted to write state documents (a
135M model's JSON is unreliable, STACK.md), so the state is derived by **rules** from each action and
the observation that answered it, validated (pydantic) before it replaces the previous one: an
update that does not validate is rejected and the previous state kept. How it is used:

* in the prompt: a compact summary goes right before the new action, after the history, so the
  prefix (system prompt, demonstrations, earlier turns) stays the same from step to step and the
  engine's prefix cache is reused;
* as the answer, where the state alone determines the observation (`pwd`, `cat` of a file whose
  contents this episode established, `ls` of a fully known folder, `echo`; going back to a page seen
  before, a snapshot with the typed values in it; a dump of an unchanged screen, a toggle flipped,
  text typed into the focused field): answered from the state with provenance `state`, no model call.

`--state off` turns both off (history only, as before), `--state prompt` keeps only the summary.
"""

from __future__ import annotations

import fnmatch
import hashlib
import posixpath
import re
from typing import Any

from lxml import etree, html as lxml_html
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from . import desktop, repo

MODES = ("off", "prompt", "full")
MAX_PAGES = 8  # pages remembered per browser episode
MAX_SUMMARY_CHARS = 1_500


# -- documents -------------------------------------------------------------------------------------


class GitState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    repo: str = ""  # the repository's folder
    branch: str = "main"
    branches: list[str] = Field(default_factory=lambda: ["main"])
    commits: list[str] = Field(default_factory=list)  # messages, newest last
    staged: list[str] = Field(default_factory=list)


class TerminalState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cwd: str
    home: str
    files: dict[str, str | None] = Field(default_factory=dict)
    dirs: list[str] = Field(default_factory=list)
    known_dirs: list[str] = Field(default_factory=list)  # folders whose whole listing is known
    deleted: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    git: GitState | None = None


class BrowserState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    url: str = ""
    title: str = ""
    back_stack: list[str] = Field(default_factory=list)
    pages: dict[str, str] = Field(default_factory=dict)  # url -> the HTML shown there
    form: dict[str, str] = Field(default_factory=dict)  # target -> typed text, on the current page


class AndroidState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    package: str = ""
    screen: str = ""  # the last dump
    typed: list[str] = Field(default_factory=list)
    toggles: dict[str, bool] = Field(default_factory=dict)


class McpState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # Results of read-only calls since the last call that may change something: call -> (text, structured)
    reads: dict[str, tuple[str, dict[str, Any] | None]] = Field(default_factory=dict)


class SearchState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    listed: dict[str, str] = Field(default_factory=dict)  # url -> "title: snippet" of results shown
    searches: dict[str, str] = Field(default_factory=dict)  # "query|n" -> the results text
    pages: dict[str, str] = Field(default_factory=dict)  # url -> the Markdown fetched


DOCUMENTS: dict[str, type[BaseModel]] = {"terminal": TerminalState, "browser": BrowserState, "android": AndroidState,
                                         "mcp": McpState, "search": SearchState, "swe": repo.RepoState,
                                         "os": desktop.DesktopState}


class StateError(ValueError):
    """A state update that does not validate; the previous state stands."""


def validated(domain: str, update: dict[str, Any]) -> dict[str, Any]:
    """`update` as a valid state document for `domain`, or StateError (the caller keeps the old one)."""
    model = DOCUMENTS.get(domain)
    if model is None:
        if not isinstance(update, dict):
            raise StateError(f"the {domain} state must be a mapping")
        return update
    try:
        return model.model_validate(update).model_dump()
    except ValidationError as err:
        first = err.errors()[0]
        raise StateError(f"rejected {domain} state update: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None


def initial(world: Any, domain: str) -> dict[str, Any]:
    if domain == "terminal":
        seed = world.terminal_seed()
        home = f"/home/{seed.user}" if seed.user != "root" else "/root"
        files = {p: c for p, c in seed.files.items()}
        dirs = sorted({posixpath.dirname(p) for p in files} | {seed.cwd})
        git = None
        if seed.git:
            g = seed.git[0]
            git = GitState(repo=g.path, branch=g.branch, branches=[g.branch],
                           commits=[line.split(" ", 1)[-1] for line in reversed(g.log)] or [g.message])
        # Folders the seed lists files in are taken as fully known (the shadow sandbox makes exactly them).
        known = sorted({posixpath.dirname(p) for p in files if p.startswith(seed.cwd)} | ({seed.cwd} if files else set()))
        return TerminalState(cwd=seed.cwd, home=home, files=files, dirs=dirs, known_dirs=known, git=git).model_dump()
    if domain == "browser":
        start = world.seed.get("browser")
        url = start.get("start_url", "") if isinstance(start, dict) else ""
        return BrowserState(url=url).model_dump()
    if domain == "android":
        return AndroidState().model_dump()
    if domain == "mcp":
        return McpState().model_dump()
    if domain == "search":
        return SearchState().model_dump()
    if domain == "swe":
        return repo.initial(world)
    if domain == "os":
        return desktop.initial(world)
    return {}


# -- search ----------------------------------------------------------------------------------------


def search_answer(state: dict[str, Any], tool: str, arguments: dict[str, Any]) -> str | None:
    """The same search or the same page again: the same answer (the web does not change mid-episode)."""
    s = SearchState.model_validate(state)
    if tool == "web_search":
        return s.searches.get(f"{arguments.get('query', '')}|{arguments.get('num_results', 10)}")
    if tool == "web_fetch":
        return s.pages.get(str(arguments.get("url", "")))
    return None


def search_apply(state: dict[str, Any], tool: str, arguments: dict[str, Any], text: str,
                 structured: dict[str, Any]) -> dict[str, Any]:
    s = SearchState.model_validate(state)
    if tool == "web_search":
        s.searches[f"{arguments.get('query', '')}|{arguments.get('num_results', 10)}"] = text
        for r in structured.get("results", []):
            s.listed[r["url"]] = f"{r['title']}: {r['snippet']}"
    elif tool == "web_fetch" and text:
        s.pages[str(arguments.get("url", ""))] = text
    for field_ in (s.listed, s.searches, s.pages):
        while len(field_) > 30:
            field_.pop(next(iter(field_)))
    return validated("search", s.model_dump())


# -- mcp -------------------------------------------------------------------------------------------


def _call_key(tool: str, arguments: dict[str, Any]) -> str:
    import json

    return tool + " " + json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def mcp_answer(state: dict[str, Any], tool: Any, arguments: dict[str, Any]) -> tuple[str, dict[str, Any] | None] | None:
    """A read-only tool asked again with the same arguments, with nothing changed since: the same result."""
    s = McpState.model_validate(state)
    if not (tool.annotations or {}).get("readOnlyHint"):
        return None
    hit = s.reads.get(_call_key(tool.name, tool.with_defaults(arguments)))
    return (hit[0], hit[1]) if hit else None


def mcp_apply(state: dict[str, Any], tool: Any, arguments: dict[str, Any], text: str,
              structured: dict[str, Any] | None) -> dict[str, Any]:
    s = McpState.model_validate(state)
    if (tool.annotations or {}).get("readOnlyHint"):
        if not (structured or {}).get("isError"):
            s.reads[_call_key(tool.name, tool.with_defaults(arguments))] = (text, structured)
    else:
        s.reads = {}  # a call that may change the server's state: earlier reads may no longer hold
    return validated("mcp", s.model_dump())


# -- terminal --------------------------------------------------------------------------------------


def _split(command: str) -> list[list[str]] | None:
    """Simple commands joined by && or ; (None when the line has pipes or anything fancier)."""
    from ..formats import shell_words

    words = shell_words(command)
    if words is None:
        return None
    parts: list[list[str]] = [[]]
    for w in words:
        if w in ("&&", ";"):
            parts.append([])
        elif w in ("|", "||", "&", "(", ")", "<", "<<", "|&") or "$(" in w or "`" in w:
            return None
        else:
            parts[-1].append(w)
    return [p for p in parts if p]


def _abs(path: str, s: TerminalState) -> str:
    if path.startswith("~"):
        path = s.home + path[1:]
    return posixpath.normpath(path if path.startswith("/") else posixpath.join(s.cwd, path))


def _exists(path: str, s: TerminalState) -> bool:
    return path in s.files or path in s.dirs


def _children(folder: str, s: TerminalState) -> list[str]:
    names = set()
    for p in list(s.files) + s.dirs:
        if p != folder and posixpath.dirname(p) == folder:
            names.add(posixpath.basename(p))
    return sorted(names, key=lambda n: (n.lstrip(".").lower(), n))


def _expand(word: str, s: TerminalState) -> str:
    def var(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        if name == "HOME":
            return s.home
        if name == "PWD":
            return s.cwd
        return s.env.get(name, "")

    return re.sub(r"\$\{(\w+)\}|\$(\w+)", var, word)


def _echo_text(args: list[str], printf: bool) -> str:
    if printf:
        fmt = args[0] if args else ""
        return fmt.encode("utf-8").decode("unicode_escape") if "\\" in fmt else fmt
    newline = True
    if args and args[0] == "-n":
        newline, args = False, args[1:]
    return " ".join(args) + ("\n" if newline else "")


def terminal_answer(state: dict[str, Any], command: str) -> tuple[str, int] | None:
    """The output and exit code when the state alone determines them; None: ask the model."""
    s = TerminalState.model_validate(state)
    parts = _split(command)
    if not parts or len(parts) != 1:
        return None
    if any(c in w for w in parts[0] for c in "*?[]{}\\") or ("'" in command and "$" in command) or \
            any(w.startswith("~") for w in parts[0][1:] if parts[0][0] == "echo"):
        return None  # globs, braces, escapes and quoting subtleties: the shell's business, the model's call
    words = [_expand(w, s) for w in parts[0]]
    cmd, args = words[0], words[1:]
    if ">" in words or ">>" in words:
        return None  # writes: state changes, the output is empty; let apply() record it, answer ""
    if cmd == "pwd" and not args:
        return s.cwd + "\n", 0
    if cmd == "echo" and all(not a.startswith("-") or a == "-n" for a in args):
        return _echo_text(args, False), 0
    if cmd == "cat" and len(args) == 1 and not args[0].startswith("-"):
        path = _abs(args[0], s)
        if path in s.deleted or (posixpath.dirname(path) in s.known_dirs and not _exists(path, s)):
            return f"cat: {args[0]}: No such file or directory\n", 1
        if path in s.dirs:
            return f"cat: {args[0]}: Is a directory\n", 1
        content = s.files.get(path)
        return (content, 0) if content is not None else None
    if cmd == "ls" and len(args) <= 1 and not any(a.startswith("-") and a not in ("-1",) for a in args):
        target = [a for a in args if a != "-1"]
        folder = _abs(target[0], s) if target else s.cwd
        if folder in s.files:
            return target[0] + "\n", 0
        if folder not in s.known_dirs:
            if target and (folder in s.deleted or posixpath.dirname(folder) in s.known_dirs and not _exists(folder, s)):
                return f"ls: cannot access '{target[0]}': No such file or directory\n", 2
            return None
        names = [n for n in _children(folder, s) if not n.startswith(".")]
        return ("".join(n + "\n" for n in names), 0)
    if cmd == "git" and args[:1] == ["branch"] and len(args) == 1 and s.git and _in_repo(s):
        return "".join(("* " if b == s.git.branch else "  ") + b + "\n" for b in sorted(s.git.branches)), 0
    if cmd == "git" and args[:2] == ["log", "--oneline"] and len(args) <= 4 and s.git and s.git.commits and _in_repo(s):
        n = len(s.git.commits)
        if len(args) > 2:
            m = re.fullmatch(r"-n(\d+)|-(\d+)", "".join(args[2:]))
            if not m:
                return None
            n = int(m.group(1) or m.group(2))
        lines = [f"{_hash(msg, i)} {msg}" for i, msg in enumerate(s.git.commits)][::-1][:n]
        return "".join(line + "\n" for line in lines), 0
    return None


def terminal_silent(state: dict[str, Any], command: str) -> tuple[str, int] | None:
    """Commands that print nothing when they succeed, where the state says they will succeed:
    touch, mkdir, echo/printf into a file, export, cd into a known folder, rm/cp/mv of known paths."""
    s = TerminalState.model_validate(state)
    parts = _split(command)
    if not parts:
        return None
    for words in parts:
        words = [_expand(w, s) for w in words]
        cmd, args = words[0], words[1:]
        plain = [a for a in args if not a.startswith("-")]
        redirect = next((i for i, w in enumerate(words) if w in (">", ">>")), None)
        if redirect is not None:
            if words[0] not in ("echo", "printf") or redirect + 1 >= len(words) or \
                    posixpath.dirname(_abs(words[redirect + 1], s)) not in s.dirs:
                return None
        elif cmd == "touch" and plain and all(posixpath.dirname(_abs(a, s)) in s.dirs for a in plain):
            pass
        elif cmd == "mkdir" and plain and all(not _exists(_abs(a, s), s) and
                                              ("-p" in args or posixpath.dirname(_abs(a, s)) in s.dirs) for a in plain):
            pass
        elif cmd in ("export", "unset") and args:
            pass
        elif cmd == "cd" and len(plain) == 1 and _abs(plain[0], s) in s.dirs:
            s.cwd = _abs(plain[0], s)  # later parts of the line run there
        elif cmd == "rm" and plain and "*" not in "".join(plain) and all(_exists(_abs(a, s), s) and
                                                                         (_abs(a, s) in s.files or "-r" in "".join(args)
                                                                          or "-rf" in args) for a in plain):
            pass
        elif cmd in ("cp", "mv") and len(plain) == 2 and _abs(plain[0], s) in s.files and \
                (posixpath.dirname(_abs(plain[1], s)) in s.dirs or _abs(plain[1], s) in s.dirs):
            pass
        else:
            return None
    return "", 0


def _in_repo(s: TerminalState) -> bool:
    return bool(s.git) and (s.cwd == s.git.repo or s.cwd.startswith(s.git.repo.rstrip("/") + "/"))


def _hash(message: str, index: int) -> str:
    return hashlib.sha1(f"{index}:{message}".encode()).hexdigest()[:7]


def terminal_apply(state: dict[str, Any], command: str, output: str, exit_code: int, cwd_after: str) -> dict[str, Any]:
    """The state after `command` printed `output` (exit code `exit_code`)."""
    s = TerminalState.model_validate(state)
    parts = _split(command) or []
    for words in parts:
        if exit_code != 0 and len(parts) == 1:
            break
        words = [_expand(w, s) for w in words]
        _apply_one(s, words, output if len(parts) == 1 else None)
    s.cwd = cwd_after or s.cwd
    return validated("terminal", s.model_dump())


def _write(s: TerminalState, path: str, content: str | None, append: bool = False) -> None:
    if append:
        old = s.files.get(path, "" if path not in s.files else None)
        content = None if old is None or content is None else old + content
    s.files[path] = content
    if path in s.deleted:
        s.deleted.remove(path)
    parent = posixpath.dirname(path)
    if parent not in s.dirs:
        s.dirs.append(parent)


def _remove(s: TerminalState, path: str) -> None:
    for p in [p for p in s.files if p == path or p.startswith(path.rstrip("/") + "/")]:
        del s.files[p]
    s.dirs = [d for d in s.dirs if not (d == path or d.startswith(path.rstrip("/") + "/"))]
    s.known_dirs = [d for d in s.known_dirs if not (d == path or d.startswith(path.rstrip("/") + "/"))]
    if path not in s.deleted:
        s.deleted.append(path)


def _apply_one(s: TerminalState, words: list[str], output: str | None) -> None:
    redirect = next((i for i, w in enumerate(words) if w in (">", ">>")), None)
    if redirect is not None:
        if redirect + 1 >= len(words):
            return
        target, append = _abs(words[redirect + 1], s), words[redirect] == ">>"
        cmd = words[:redirect]
        if cmd and cmd[0] in ("echo", "printf"):
            _write(s, target, _echo_text(cmd[1:], cmd[0] == "printf"), append)
        else:
            _write(s, target, None, append)  # something was written; what exactly, the model knows
        return
    cmd, args = words[0], words[1:]
    plain = [a for a in args if not a.startswith("-")]
    if cmd == "touch":
        for a in plain:
            p = _abs(a, s)
            if p not in s.files:
                _write(s, p, "")
    elif cmd == "mkdir":
        for a in plain:
            p = _abs(a, s)
            for d in [p] + [posixpath.dirname(p)] * ("-p" in args):
                if d not in s.dirs:
                    s.dirs.append(d)
            if p not in s.known_dirs:
                s.known_dirs.append(p)  # a new folder is empty: fully known
            if p in s.deleted:
                s.deleted.remove(p)
    elif cmd in ("rm", "rmdir"):
        for a in plain:
            pattern = _abs(a, s)
            matches = [p for p in list(s.files) + s.dirs if fnmatch.fnmatch(p, pattern)] if "*" in a else [pattern]
            for p in matches:
                _remove(s, p)
    elif cmd in ("mv", "cp") and len(plain) == 2:
        src, dst = _abs(plain[0], s), _abs(plain[1], s)
        if dst in s.dirs:
            dst = posixpath.join(dst, posixpath.basename(src))
        moved = {p: c for p, c in s.files.items() if p == src or p.startswith(src + "/")}
        for p, c in moved.items():
            _write(s, dst + p[len(src):], c)
        if cmd == "mv":
            for p in moved:
                del s.files[p]
            if src not in s.deleted:
                s.deleted.append(src)
    elif cmd == "cat" and len(plain) == 1 and output is not None and not args[0].startswith("-"):
        p = _abs(plain[0], s)
        if p not in s.dirs:
            _write(s, p, output)  # what cat showed is what the file holds
    elif cmd == "ls" and not plain and output is not None and "-" not in "".join(args):
        for name in output.split():
            p = posixpath.join(s.cwd, name)
            if not _exists(p, s):
                s.files.setdefault(p, None)
        if s.cwd not in s.known_dirs:
            s.known_dirs.append(s.cwd)
    elif cmd == "export":
        for a in args:
            k, sep, v = a.partition("=")
            if sep:
                s.env[k] = v
    elif cmd == "unset":
        for a in args:
            s.env.pop(a, None)
    elif cmd == "git" and s.git is not None and _in_repo(s):
        sub = args[:1]
        if sub == ["add"]:
            s.git.staged = sorted(set(s.git.staged) | set(plain[1:]))
        elif sub == ["commit"] and "-m" in args[:-1]:
            s.git.commits.append(args[args.index("-m") + 1])
            s.git.staged = []
        elif sub in (["checkout"], ["switch"]):
            create = "-b" in args or "-c" in args
            name = plain[-1] if len(plain) > 1 else None
            if name:
                if create and name not in s.git.branches:
                    s.git.branches.append(name)
                if name in s.git.branches:
                    s.git.branch = name
        elif sub == ["branch"] and len(plain) == 2 and not args[1].startswith("-"):
            if plain[1] not in s.git.branches:
                s.git.branches.append(plain[1])


# -- browser ---------------------------------------------------------------------------------------


def browser_answer(state: dict[str, Any], tool: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    s = BrowserState.model_validate(state)
    if tool == "browser_back" and s.back_stack and s.back_stack[-1] in s.pages:
        url = s.back_stack[-1]
        return s.pages[url], _page_structured(url, s.pages[url])
    if tool == "browser_navigate":
        url = str(arguments.get("url", ""))
        if url in s.pages:
            return s.pages[url], _page_structured(url, s.pages[url])
    if tool == "browser_snapshot" and s.url in s.pages:
        return _with_form(s.pages[s.url], s.form), _page_structured(s.url, s.pages[s.url])
    if tool == "browser_type" and not arguments.get("submit") and s.url in s.pages:
        form = {**s.form, str(arguments.get("target", "")): str(arguments.get("text", ""))}
        page = _with_form(s.pages[s.url], form)
        if page != s.pages[s.url] or not form:
            return page, _page_structured(s.url, s.pages[s.url])
    return None


def browser_apply(state: dict[str, Any], tool: str, arguments: dict[str, Any], html: str,
                  structured: dict[str, Any]) -> dict[str, Any]:
    s = BrowserState.model_validate(state)
    url = structured.get("url") or s.url
    if tool == "browser_type" and not arguments.get("submit"):
        s.form[str(arguments.get("target", ""))] = str(arguments.get("text", ""))
        return validated("browser", s.model_dump())
    if tool == "browser_snapshot":
        return validated("browser", s.model_dump())
    if tool == "browser_back":
        if s.back_stack:
            s.back_stack.pop()
    elif url and url != s.url and s.url:
        s.back_stack.append(s.url)
    if url != s.url:
        s.form = {}
    s.url, s.title = url, structured.get("title", "")
    if url and html:
        s.pages.pop(url, None)
        s.pages[url] = _without_form(html)
        while len(s.pages) > MAX_PAGES:
            s.pages.pop(next(iter(s.pages)))
    return validated("browser", s.model_dump())


def _page_structured(url: str, html: str) -> dict[str, Any]:
    title = ""
    m = re.search(r"<title>(.*?)</title>", html, re.S | re.I)
    if m:
        title = m.group(1).strip()
    return {"url": url, "status": 404 if re.search(r"\b(404|not found)\b", title, re.I) else 200, "title": title}


def _find_field(doc: Any, target: str) -> Any:
    try:
        found = doc.cssselect(target)
    except Exception:  # noqa: BLE001 - not a selector: a label, placeholder or name
        found = []
    if found:
        return found[0]
    t = target.strip().lower()
    for el in doc.iter("input", "textarea"):
        if t in ((el.get("placeholder") or "").lower(), (el.get("name") or "").lower(), (el.get("id") or "").lower(),
                 (el.get("aria-label") or "").lower()):
            return el
    for label in doc.iter("label"):
        if " ".join(label.text_content().split()).lower() == t:
            ref = label.get("for")
            if ref:
                hits = doc.xpath(f'//*[@id="{ref}"]')
                if hits:
                    return hits[0]
            inner = label.xpath(".//input|.//textarea")
            if inner:
                return inner[0]
    return None


def _with_form(html: str, form: dict[str, str]) -> str:
    if not form:
        return html
    try:
        doc = lxml_html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return html
    changed = False
    for target, text in form.items():
        el = _find_field(doc, target)
        if el is None:
            continue
        if el.tag == "textarea":
            el.text = text
        else:
            el.set("value", text)
        changed = True
    if not changed:
        return html
    return lxml_html.tostring(doc, doctype="<!DOCTYPE html>", encoding="unicode") + "\n"


def _without_form(html: str) -> str:
    return html


# -- android ---------------------------------------------------------------------------------------


def android_answer(state: dict[str, Any], tool: str, arguments: dict[str, Any]) -> str | None:
    s = AndroidState.model_validate(state)
    if not s.screen:
        return None
    if tool == "android_dump_ui":
        return s.screen
    if tool == "android_tap" and "target" in arguments:
        return _toggle(s.screen, str(arguments["target"]))
    if tool == "android_type":
        return _type_into(s.screen, str(arguments.get("text", "")))
    return None


def android_apply(state: dict[str, Any], tool: str, arguments: dict[str, Any], dump: str,
                  structured: dict[str, Any]) -> dict[str, Any]:
    s = AndroidState.model_validate(state)
    s.screen = dump
    s.package = structured.get("package", s.package)
    if tool == "android_type":
        s.typed.append(str(arguments.get("text", "")))
    if tool == "android_tap" and "target" in arguments:
        node = _switch_for(dump, str(arguments["target"]))
        if node is not None:
            s.toggles[str(arguments["target"])] = node.get("checked") == "true"
    return validated("android", s.model_dump())


def _tree(dump: str) -> Any:
    try:
        return etree.fromstring(dump.encode("utf-8"))
    except etree.XMLSyntaxError:
        return None


def _label(n: Any) -> str:
    return " ".join(((n.get("text") or "") + " " + (n.get("content-desc") or "")).split()).lower()


def _switch_for(dump: str, target: str) -> Any:
    root = _tree(dump)
    if root is None:
        return None
    t = target.strip().lower()
    for n in root.iter("node"):
        if n.get("checkable") == "true" and t and t in _label(n):
            return n
        if _label(n) == t:  # a row's label: its checkable sibling or descendant
            parent = n.getparent()
            for scope in (n, parent, parent.getparent() if parent is not None else None):
                if scope is None:
                    continue
                switch = next((x for x in scope.iter("node") if x.get("checkable") == "true"), None)
                if switch is not None:
                    return switch
    return None


def _toggle(dump: str, target: str) -> str | None:
    root = _tree(dump)
    if root is None:
        return None
    switch = _switch_for(etree.tostring(root, encoding="unicode"), target)
    if switch is None:
        return None
    # find the same node in this tree (by bounds and class) and flip it
    for n in root.iter("node"):
        if n.get("bounds") == switch.get("bounds") and n.get("class") == switch.get("class") and n.get("checkable") == "true":
            n.set("checked", "false" if n.get("checked") == "true" else "true")
            if n.get("text") in ("ON", "OFF"):
                n.set("text", "ON" if n.get("checked") == "true" else "OFF")
            return _serialize(dump, root)
    return None


def _type_into(dump: str, text: str) -> str | None:
    root = _tree(dump)
    if root is None:
        return None
    fields = [n for n in root.iter("node") if "EditText" in (n.get("class") or "")]
    target = next((n for n in fields if n.get("focused") == "true"), fields[0] if len(fields) == 1 else None)
    if target is None:
        return None
    target.set("text", (target.get("text") or "") + text if target.get("focused") == "true" and target.get("text")
               and target.get("text") not in ("", target.get("hint") or "") else text)
    target.set("focused", "true")
    return _serialize(dump, root)


def _serialize(original: str, root: Any) -> str:
    head = original[: original.find("<hierarchy")] if "<hierarchy" in original else ""
    return head + etree.tostring(root, encoding="unicode")


# -- the prompt's summary --------------------------------------------------------------------------


def summary(domain: str, state: dict[str, Any]) -> str:
    """What the state establishes, compactly, for the prompt (bounded)."""
    try:
        if domain == "terminal":
            s = TerminalState.model_validate(state)
            parts = [f"cwd {s.cwd}"]
            known = {p: c for p, c in s.files.items() if p.startswith(s.home) or p.startswith("/tmp")}
            if known:
                shown = []
                for p, c in list(known.items())[-25:]:
                    rel = p
                    if c is None:
                        shown.append(rel)
                    else:
                        body = c if len(c) <= 80 else c[:77] + "..."
                        shown.append(f"{rel} = {body!r}")
                parts.append("files: " + "; ".join(shown))
            if s.deleted:
                parts.append("deleted: " + ", ".join(s.deleted[-10:]))
            if s.env:
                parts.append("env: " + ", ".join(f"{k}={v}" for k, v in list(s.env.items())[-10:]))
            if s.git:
                parts.append(f"git: on {s.git.branch}; branches {', '.join(s.git.branches)}; "
                             f"last commits {', '.join(repr(c) for c in s.git.commits[-3:])}")
            text = "; ".join(parts)
        elif domain == "browser":
            s2 = BrowserState.model_validate(state)
            text = f"at {s2.url or '(no page)'}" + (f" ({s2.title})" if s2.title else "")
            if s2.back_stack:
                text += f"; back goes to {s2.back_stack[-1]}"
            if s2.form:
                text += "; typed: " + ", ".join(f"{k}={v!r}" for k, v in s2.form.items())
        elif domain == "android":
            s3 = AndroidState.model_validate(state)
            text = f"foreground {s3.package or '(launcher)'}"
            if s3.toggles:
                text += "; switches: " + ", ".join(f"{k} {'on' if v else 'off'}" for k, v in s3.toggles.items())
            if s3.typed:
                text += "; typed so far: " + ", ".join(repr(t) for t in s3.typed[-5:])
        elif domain == "search":
            s4 = SearchState.model_validate(state)
            text = ("results shown so far: " + "; ".join(f"{u} ({t[:80]})" for u, t in list(s4.listed.items())[-12:])
                    if s4.listed else "")
        elif domain == "swe":
            text = repo.summary(state)
        elif domain == "os":
            text = desktop.summary(state)
        else:
            return ""
    except (ValidationError, ValueError):
        return ""
    return text if len(text) <= MAX_SUMMARY_CHARS else text[: MAX_SUMMARY_CHARS - 3] + "..."
