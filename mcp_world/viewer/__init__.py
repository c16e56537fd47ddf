"""`mcp-world view`: a local web viewer of the log (DESIGN.md, "The log").

    mcp-world view [--db PATH] [--port 8766] [--host 127.0.0.1] [--token T] [--reports DIR]

Pages: the episodes (filtered by world, run, source, outcome, reward and errors, searched over
commands and observations), one episode's step timeline (each observation drawn the way its
domain's `Rules.picture` says: a phone's screen, a desktop, a page in a sandboxed frame, results,
a terminal; real observations beside simulated ones with a diff and the similarity), the worst
predictions across the log, and runs (fidelity per domain across evals, training reports' curves).

Why pages of our own and not a Datasette plugin: the viewer's work is drawing observations by
domain (the domains' own parsers and `picture` hooks) and a strict content-security policy for
hostile content; Starlette and Jinja2 are already what the server is built on, so this adds no
dependency and no second server to configure, and the token rule is the server's.

Everything shown is untrusted (an agent or a model wrote it): Jinja2 escapes it; simulated HTML is
shown only in a frame whose response carries `Content-Security-Policy: sandbox; default-src
'none'` (no scripts, no requests, no forms, an opaque origin) and whose `<iframe>` is sandboxed
too; every page has a CSP that allows only this viewer's own files. The database is opened
read-only.
"""

from __future__ import annotations

import difflib
import hmac
import json
import sqlite3
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from ..errors import MCPWorldError

HERE = Path(__file__).parent
PAGE = 50  # episodes per page
MAX_SHOWN = 200_000  # characters of one observation shown as text (the rest is cut, and said so)
MAX_DRAWN = 20_000_000  # characters a domain's picture may read (its labels are bounded)
MAX_DIFF_LINES = 1500
LOAD_WAIT = 3.0  # seconds a page waits for the similarity model before it is drawn without the figures
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-src 'self'; "
            "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
# A simulated page: shown, never run. `sandbox` gives it an opaque origin with scripts, forms,
# popups and top navigation off; `default-src 'none'` stops every request (images, styles, fonts).
FRAME_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'"
TOKEN_COOKIE = "mcp_world_view"


class StillLoading(Exception):
    """The similarity model is still loading: the page is drawn without the figure, which its script
    fetches from `/similarity/{step}` once it is known."""


class LogReader:
    """Read-only queries over one mcp-world log."""

    def __init__(self, path: Path) -> None:
        if not path.exists():
            raise MCPWorldError(f"no log at {path}; give the one `serve`, `generate` or `eval` wrote with --db")
        self.path = path
        self._sims: dict[int, float] = {}  # similarities computed here (the log is never written)
        self._embedder: Any = None  # the fidelity metric's model, loaded on a thread of its own
        self._loaded = threading.Event()
        self._loading = False
        self.load_error: str | None = None
        self.load_wait = LOAD_WAIT
        self._lock = threading.Lock()

    def connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=10, check_same_thread=False)
        db.row_factory = sqlite3.Row
        return db

    def rows(self, sql: str, params: tuple | list = ()) -> list[dict[str, Any]]:
        with self.connect() as db:
            return [dict(r) for r in db.execute(sql, params).fetchall()]

    # -- episodes ---------------------------------------------------------------------------------
    def choices(self) -> dict[str, list[str]]:
        out = {}
        for field, column in (("world", "world_name"), ("source", "source"), ("run", "run_id"), ("outcome", "outcome")):
            out[field] = [r["v"] for r in self.rows(f"select distinct {column} as v from episodes "
                                                     f"where {column} is not null and {column} != '' order by v")]
        return out

    def episodes(self, f: dict[str, str], page: int = 0) -> tuple[list[dict[str, Any]], int]:
        where, params = [], []
        for field, column in (("world", "world_name"), ("source", "source"), ("run", "run_id"), ("outcome", "outcome")):
            if f.get(field):
                where.append(f"e.{column} = ?")
                params.append(f[field])
        for field, op in (("min_reward", ">="), ("max_reward", "<=")):
            if f.get(field):
                try:
                    params.append(float(f[field]))
                except ValueError:
                    raise MCPWorldError(f"{field} must be a number, not {f[field][:40]!r}") from None
                where.append(f"e.reward {op} ?")
        if f.get("errors"):
            where.append("exists (select 1 from steps s where s.episode_id = e.id and "
                         "(coalesce(s.error_kind, '') != '' or s.is_error = 1))")
        if f.get("q"):
            like = "%" + f["q"].replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            where.append("exists (select 1 from steps s where s.episode_id = e.id and (s.arguments like ? escape '\\' "
                         "or s.observation like ? escape '\\' or s.real_observation like ? escape '\\'))")
            params += [like, like, like]
        clause = ("where " + " and ".join(where)) if where else ""
        total = self.rows(f"select count(*) as n from episodes e {clause}", params)[0]["n"]
        rows = self.rows(
            f"select e.id, e.world_name, e.source, e.run_id, e.task_id, e.outcome, e.reward, e.created_at, "
            f"e.updated_at, e.model, (select count(*) from steps s where s.episode_id = e.id) as steps, "
            f"(select count(*) from steps s where s.episode_id = e.id and (coalesce(s.error_kind, '') != '' "
            f"or s.is_error = 1)) as errors, (select count(*) from steps s where s.episode_id = e.id and "
            f"s.real_observation is not null) as real_steps from episodes e {clause} "
            f"order by e.created_at desc limit ? offset ?", [*params, PAGE, page * PAGE])
        return rows, total

    def episode(self, episode_id: str) -> dict[str, Any] | None:
        rows = self.rows("select * from episodes where id = ?", (episode_id,))
        return rows[0] if rows else None

    def steps(self, episode_id: str, after: int = -1) -> list[dict[str, Any]]:
        return self.rows("select * from steps where episode_id = ? and idx > ? order by idx", (episode_id, after))

    def step(self, step_id: int) -> dict[str, Any] | None:
        rows = self.rows("select * from steps where id = ?", (step_id,))
        return rows[0] if rows else None

    # -- similarity -------------------------------------------------------------------------------
    def similarity(self, step: dict[str, Any]) -> float | None:
        """The step's sim-to-real similarity: the logged one (eval), else computed here (shadow,
        mirror and imported pairs) with the fidelity metric, and remembered. Raises `StillLoading`
        when the metric's model is not loaded within `load_wait` seconds; None when it cannot load."""
        if step.get("similarity") is not None:
            return float(step["similarity"])
        if step.get("real_observation") is None or step.get("observation") is None:
            return None
        if step["id"] in self._sims:
            return self._sims[step["id"]]
        model = self._model(self.load_wait)
        if model is None:
            return None
        with self._lock:
            if step["id"] not in self._sims:
                self._sims[step["id"]] = round(model.similarity(step["observation"][:MAX_SHOWN],
                                                                step["real_observation"][:MAX_SHOWN]), 4)
            return self._sims[step["id"]]

    def _model(self, wait: float) -> Any:
        """The metric's model. Its first use starts loading it (torch and the weights: seconds on an
        idle machine, a minute on a busy one) on a thread, so that no page is held up by it."""
        with self._lock:
            if not self._loading:
                self._loading = True
                threading.Thread(target=self._load, name="similarity-model", daemon=True).start()
        if not self._loaded.wait(wait):
            raise StillLoading
        return self._embedder

    def _load(self) -> None:
        try:
            from ..metric import Embedder

            embedder = Embedder()
            embedder.model  # noqa: B018 - loads it here, not in the first page that needs it
            self._embedder = embedder
        except Exception as err:  # noqa: BLE001 - said on the pages instead of the figures
            self.load_error = f"the similarity model did not load: {type(err).__name__}: {err}"[:500]
        finally:
            self._loaded.set()

    def pairs(self, limit: int = 200, f: dict[str, str] | None = None) -> list[dict[str, Any]]:
        """Steps with a real observation beside a simulated one, the worst predictions first."""
        f = f or {}
        where, params = ["s.real_observation is not null", "s.observation is not null"], []
        for field, column in (("world", "e.world_name"), ("domain", "s.domain"), ("source", "e.source")):
            if f.get(field):
                where.append(f"{column} = ?")
                params.append(f[field])
        rows = self.rows(f"select s.id, s.episode_id, s.idx, s.domain, s.tool, s.arguments, s.observation, "
                         f"s.real_observation, s.similarity, s.provenance, e.world_name, e.source from steps s "
                         f"join episodes e on e.id = s.episode_id where {' and '.join(where)} "
                         f"order by s.created_at desc limit ?", [*params, limit])
        for r in rows:
            r["sim"] = self.similarity(r)
        return sorted(rows, key=lambda r: (r["sim"] if r["sim"] is not None else 2.0))

    def fidelity(self) -> list[dict[str, Any]]:
        """Mean similarity per eval run and domain (steps scored by `eval`)."""
        return self.rows("select coalesce(e.run_id, e.source) as run, s.domain, count(*) as steps, "
                         "avg(s.similarity) as mean, min(e.created_at) as at from steps s join episodes e "
                         "on e.id = s.episode_id where s.similarity is not null group by run, s.domain order by at, run")


# -- drawing observations -----------------------------------------------------------------------------

_TOOL_DOMAINS: dict[str, str] | None = None


def domain_of_tool(tool: str) -> str | None:
    """The domain that declares `tool` (imported steps carry no domain; a world's own tools: None)."""
    global _TOOL_DOMAINS
    if _TOOL_DOMAINS is None:
        from ..domain import domain_folders, load_domain

        found: dict[str, str] = {}
        for name in domain_folders():
            try:
                found.update({t.name: name for t in load_domain(name).tools})
            except Exception:  # noqa: BLE001 - a broken user domain draws nothing
                continue
        _TOOL_DOMAINS = found
    return _TOOL_DOMAINS.get(tool)


def picture_of(domain: str | None, tool: str, arguments: dict[str, Any], text: str | None, where: str = "") -> Any:
    """The domain's `Rules.picture` of an observation, as a dict for the templates (None: text)."""
    domain = domain or domain_of_tool(tool)
    if not domain or text is None:
        return None
    try:
        from ..domain import load_domain
        from ..rules import Call

        picture = load_domain(domain).rules.picture(text[:MAX_DRAWN], Call(tool, arguments, {}), where)
    except Exception:  # noqa: BLE001 - a domain that cannot draw this (or is not installed here): text
        return None
    return asdict(picture) if picture is not None else None


def _pretty(text: str) -> list[str]:
    """Lines to diff: XML and HTML pretty-printed one element per line (a structural diff), JSON
    indented, anything else as it is."""
    stripped = text.lstrip()
    try:
        if stripped.startswith("<?xml") or stripped.startswith("<hierarchy"):
            from lxml import etree

            root = etree.fromstring(stripped.encode("utf-8"), etree.XMLParser(remove_blank_text=True))
            return etree.tostring(root, pretty_print=True, encoding="unicode").splitlines()
        if stripped[:15].lower().startswith(("<!doctype", "<html")):
            from lxml import etree
            from lxml import html as lxml_html

            doc = lxml_html.document_fromstring(stripped)
            etree.indent(doc)
            return lxml_html.tostring(doc, pretty_print=True, encoding="unicode").splitlines()
        if stripped[:1] in "{[":
            return json.dumps(json.loads(stripped), indent=2, ensure_ascii=False).splitlines()
    except Exception:  # noqa: BLE001 - not what it looked like: a line diff of the text itself
        pass
    return text.splitlines()


def diff_table(simulated: str, real: str) -> str:
    """An HTML side-by-side diff (difflib escapes the texts), changed regions with 3 lines of context."""
    if simulated == real:
        return '<p class="same">The simulated and the real observation are identical.</p>'
    a, b = _pretty(simulated[:MAX_SHOWN]), _pretty(real[:MAX_SHOWN])
    cut = len(a) > MAX_DIFF_LINES or len(b) > MAX_DIFF_LINES
    table = difflib.HtmlDiff(wrapcolumn=90).make_table(a[:MAX_DIFF_LINES], b[:MAX_DIFF_LINES], "simulated", "real",
                                                        context=True, numlines=3)
    if cut:
        table += f'<p class="note">Only the first {MAX_DIFF_LINES} lines of each side are compared.</p>'
    return table


def _arguments(step: dict[str, Any]) -> dict[str, Any]:
    try:
        args = json.loads(step.get("arguments") or "{}")
    except ValueError:
        return {}
    return args if isinstance(args, dict) else {}


def _shown(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_SHOWN:
        return text
    return text[:MAX_SHOWN] + f"\n[mcp-world view: {len(text) - MAX_SHOWN} more characters not shown]"


def step_view(reader: LogReader, step: dict[str, Any]) -> dict[str, Any]:
    args = _arguments(step)
    view = dict(step)
    view["args"] = args
    view["args_json"] = json.dumps(args, indent=2, ensure_ascii=False)[:20_000]
    view["shown"] = _shown(step.get("observation"))
    view["real_shown"] = _shown(step.get("real_observation"))
    view["picture"] = picture_of(step.get("domain"), step["tool"], args, step.get("observation"), step.get("where") or "")
    view["real_picture"] = picture_of(step.get("domain"), step["tool"], args, step.get("real_observation"),
                                      step.get("where") or "")
    view["has_real"] = step.get("real_observation") is not None
    view["sim"], view["sim_pending"] = step.get("similarity"), False
    if view["has_real"]:
        try:
            view["sim"] = reader.similarity(step)
        except StillLoading:
            view["sim_pending"] = True
    view["diff"] = diff_table(step["observation"], step["real_observation"]) \
        if view["has_real"] and step.get("observation") is not None else None
    view["failed"] = bool(step.get("error_kind")) or bool(step.get("is_error"))
    return view


# -- the app --------------------------------------------------------------------------------------------

class ViewerAuth:
    """The server's token rule for a browser: `Authorization: Bearer T`, or the cookie that
    `/?token=T` sets (HttpOnly, SameSite=Strict) and then drops from the address."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request = Request(scope)
        given = request.headers.get("authorization", "").removeprefix("Bearer ")
        cookie = request.cookies.get(TOKEN_COOKIE, "")
        query = request.query_params.get("token", "")
        if query and hmac.compare_digest(query, self.token):
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
            response = RedirectResponse(request.url.path + (f"?{urlencode(rest)}" if rest else ""), status_code=303)
            response.set_cookie(TOKEN_COOKIE, self.token, httponly=True, samesite="strict")
            return await response(scope, receive, send)
        if hmac.compare_digest(given, self.token) or hmac.compare_digest(cookie, self.token):
            return await self.app(scope, receive, send)
        response = Response("unauthorized: open the address `mcp-world view` printed (it carries ?token=), or send "
                            "Authorization: Bearer <token>", status_code=401, media_type="text/plain")
        return await response(scope, receive, send)


class SecurityHeaders:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        framed = scope.get("path", "").startswith("/frames/")

        async def sending(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"content-security-policy"]
                headers += [(b"content-security-policy", (FRAME_CSP if framed else PAGE_CSP).encode()),
                            (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
                            (b"cross-origin-opener-policy", b"same-origin")]
                if not framed:
                    headers.append((b"x-frame-options", b"DENY"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)


def view_app(db: Path, token: str | None = None, reports: tuple[Path, ...] = ()) -> Starlette:
    reader = LogReader(Path(db))
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.filters["when"] = lambda t: time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t)) if t else ""
    templates.env.filters["num"] = lambda v, d=3: "" if v is None else f"{v:.{d}f}"
    templates.env.globals["scale"] = lambda pic, width=360: width / max(1, pic["width"])

    def page(request: Request, name: str, **context: Any) -> HTMLResponse:
        return templates.TemplateResponse(request, name, {"db": str(reader.path), **context})

    def filters_of(request: Request) -> dict[str, str]:
        keys = ("world", "source", "run", "outcome", "min_reward", "max_reward", "errors", "q", "domain")
        return {k: request.query_params.get(k, "")[:500] for k in keys if request.query_params.get(k)}

    def episodes(request: Request) -> Response:
        f = filters_of(request)
        try:
            number = max(0, int(request.query_params.get("page", "0")))
            rows, total = reader.episodes(f, number)
        except (MCPWorldError, ValueError) as err:
            return page(request, "error.html", message=str(err))
        return page(request, "episodes.html", rows=rows, total=total, filters=f, choices=reader.choices(),
                    number=number, pages=(total + PAGE - 1) // PAGE, query=lambda **kw: urlencode({**f, **kw}))

    def episode(request: Request) -> Response:
        episode_id = request.path_params["episode_id"]
        row = reader.episode(episode_id)
        if row is None:
            return page(request, "error.html", message=f"no episode {episode_id[:100]!r} in this log")
        steps = [step_view(reader, s) for s in reader.steps(episode_id)]
        if request.query_params.get("order") == "similarity":
            steps.sort(key=lambda s: s["sim"] if s["sim"] is not None else 2.0)
        loading = any(s["sim_pending"] for s in steps)
        verdict = json.loads(row["verdict"]) if row.get("verdict") else None
        live = bool(row.get("updated_at") and time.time() - row["updated_at"] < 600 and not row.get("outcome"))
        return page(request, "episode.html", ep=row, steps=steps, verdict=verdict, live=live,
                    order=request.query_params.get("order", ""), loading=loading)

    def steps_after(request: Request) -> Response:
        """The steps after `after`, as HTML to append (an episode in progress)."""
        try:
            after = int(request.query_params.get("after", "-1"))
        except ValueError:
            after = -1
        steps = [step_view(reader, s) for s in reader.steps(request.path_params["episode_id"], after)]
        html = "".join(templates.get_template("step.html").render(s=s) for s in steps)
        return JSONResponse({"html": html, "last": steps[-1]["idx"] if steps else after})

    def frame(request: Request) -> Response:
        step = reader.step(int(request.path_params["step_id"]))
        side = request.query_params.get("side", "sim")
        text = None if step is None else step.get("real_observation" if side == "real" else "observation")
        if text is None:
            return Response("no such page", status_code=404, media_type="text/plain")
        return Response(text[:MAX_SHOWN], media_type="text/html; charset=utf-8")

    def worst(request: Request) -> Response:
        f = filters_of(request)
        try:
            pairs = reader.pairs(f=f)
        except StillLoading:
            return page(request, "worst.html", pairs=[], loading=True, filters=f, choices=reader.choices())
        return page(request, "worst.html", pairs=pairs, loading=False, error=reader.load_error, filters=f,
                    choices=reader.choices())

    def similarity(request: Request) -> Response:
        """One step's similarity for a page drawn while the model loaded: `pending` until it is known."""
        step = reader.step(request.path_params["step_id"])
        if step is None:
            return JSONResponse({"error": "no such step"}, status_code=404)
        try:
            value = reader.similarity(step)
        except StillLoading:
            return JSONResponse({"pending": True})
        return JSONResponse({"similarity": value, "error": reader.load_error if value is None else None})

    def runs(request: Request) -> Response:
        from . import charts

        fidelity = reader.fidelity()
        found = charts.find_reports(reports)
        return page(request, "runs.html", fidelity=fidelity, chart=charts.fidelity_png(fidelity),
                    reports=[(p, r, charts.training_png(r)) for p, r in found])

    # The pages are plain functions: Starlette runs them in its thread pool, so a page that computes
    # (similarities, charts) never holds up the others or the live episode's polling.
    routes = [
        Route("/", episodes), Route("/episodes/{episode_id}", episode),
        Route("/episodes/{episode_id}/steps", steps_after), Route("/frames/{step_id:int}", frame),
        Route("/similarity/{step_id:int}", similarity),
        Route("/worst", worst), Route("/runs", runs),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    middleware = [Middleware(SecurityHeaders)] + ([Middleware(ViewerAuth, token=token)] if token else [])
    app = Starlette(routes=routes, middleware=middleware)
    app.state.reader = reader
    return app


def run_view(db: Path, host: str = "127.0.0.1", port: int = 8766, token: str | None = None,
             reports: tuple[Path, ...] = (), say: Any = print) -> None:
    import uvicorn

    from ..auth import require_token_beyond_loopback

    require_token_beyond_loopback(host, token, "shows the log")
    app = view_app(db, token, reports)
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    say(f"mcp-world view of {db}: http://{shown}:{port}/" + (f"?token={token}" if token else ""))
    uvicorn.run(app, host=host, port=port, log_level="warning")
