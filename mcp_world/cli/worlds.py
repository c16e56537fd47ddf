"""Worlds: `worlds` (the shipped ones) and `world from-episodes|from-dir|from-site`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import MCPWorldError
from .common import (app, world_app, _err, _say, _store)


@app.command()
def worlds() -> None:
    """List the shipped worlds."""
    from ..world import available_worlds, load_world

    for name in available_worlds():
        w = load_world(name)
        typer.echo(f"{name:12} {','.join(w.domains):28} {w.description.strip().splitlines()[0]}")


def _write_world(text: str, out: Optional[Path]) -> None:
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        _say(f"world written to {out}; serve it with: mcp-world serve --world {out}")


@world_app.command("from-episodes")
def world_from_episodes(
    db: Annotated[Optional[Path], typer.Option("--db", envvar="MCP_WORLD_DB",
                                               help="Episode log holding mirror, import or shadow episodes.")] = None,
    data: Annotated[Optional[Path], typer.Option(help="Or real episodes in the interchange format (JSONL).")] = None,
    episode: Annotated[list[str], typer.Option(help="Only these episode ids (repeatable; default: all).")] = [],
    world: Annotated[Optional[str], typer.Option(help="Only episodes of this world (e.g. the mirrored server's name).")] = None,
    name: Annotated[Optional[str], typer.Option(help="The new world's name.")] = None,
    description: Annotated[Optional[str], typer.Option(help="The new world's description.")] = None,
    per_tool: Annotated[int, typer.Option(min=0, max=20, help="Real results kept per tool as demonstrations.")] = 3,
    max_observation_chars: Annotated[int, typer.Option(help="Longer results are not used as demonstrations.")] = 2_000,
    pages: Annotated[int, typer.Option(min=0, max=64, help=(
        "Browser episodes: the world knows up to this many of the pages they showed, the most visited "
        "first (seed.browser.pages: answered as they are, the site's layout on every other page, the "
        "first two the model's examples of the site until an episode's first page); 0: pages are "
        "demonstrations like any result."))] = 16,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="World file to write (default: stdout).")] = None,
) -> None:
    """Turn recorded real episodes (e.g. `mcp-world mirror` sessions) into a world that `serve` simulates."""
    from ..exporting import iter_records
    from ..importing import read_records
    from ..worldgen import from_episodes, known_pages_of, world_yaml

    if (db is None) == (data is None):
        _err("give the episodes with --db (an episode log) or --data (interchange JSONL)")
    try:
        if data is not None:
            records = [r.model_dump(by_alias=True, exclude_none=True) for r in read_records(data)]
        else:
            records = list(iter_records(_store(db), "real"))
        records = [r for r in records if (not episode or r["id"] in episode)
                   and (world is None or r["world"].get("name") == world)]
        w = from_episodes(records, name, description, per_tool, max_observation_chars, pages)
    except MCPWorldError as err:
        _err(str(err))
    tools = f", {len(w.tools)} tools" if w.tools else ""
    site = known_pages_of(w)
    known = f", {len(site)} known pages" if site else ""
    _say(f"world {w.name}: domains {', '.join(w.domains)}{tools}, {len(w.demonstrations)} demonstrations{known} "
         f"from {len(records)} episodes")
    _write_world(world_yaml(w, f"made by `mcp-world world from-episodes` from {len(records)} real episodes"), out)


@world_app.command("from-dir")
def world_from_dir(
    path: Annotated[Path, typer.Argument(help="The project folder to copy into a world.")],
    name: Annotated[Optional[str], typer.Option(help="World name (default: the folder's name).")] = None,
    user: Annotated[str, typer.Option(help="The simulated machine's user.")] = "user",
    hostname: Annotated[str, typer.Option(help="The simulated machine's hostname.")] = "devbox",
    max_file_kib: Annotated[Optional[int], typer.Option(
        help="Files larger than this are listed without contents (default: 4; swe: 64).")] = None,
    max_total_kib: Annotated[Optional[int], typer.Option(
        help="Total file contents kept (default: 16, as they go into every prompt; swe: 512, as a "
             "repository's prompt shows what fits and `--shadow swe` needs them all).")] = None,
    max_files: Annotated[Optional[int], typer.Option(help="Most files listed (default: 200; swe: 500).")] = None,
    domain: Annotated[Optional[str], typer.Option(
        help="terminal (the project in a machine's home, with its git history; the default) or swe (a "
             "repository at /workspace/NAME whose tests `serve --shadow swe` runs for real).")] = None,
    test_command: Annotated[str, typer.Option(help="swe: how the repository's tests run.")] = "pytest",
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="World file to write (default: stdout).")] = None,
) -> None:
    """Snapshot a real project folder into a terminal or repository world (secrets left out and listed)."""
    from ..worldgen import from_dir, snapshot_limits, snapshot_warning, world_yaml

    try:
        kind, (file_kib, total_kib, files) = snapshot_limits(domain)
        snap = from_dir(path, name, user, hostname, (max_file_kib or file_kib) * 1024,
                        (max_total_kib or total_kib) * 1024, max_files or files, domain=kind, test_command=test_command)
    except MCPWorldError as err:
        _err(str(err))
    _say(f"world {snap.world.name}: {snap.files} files ({snap.with_contents} with contents)"
         + (f", {snap.not_listed} beyond --max-files not listed" if snap.not_listed else ""))
    warning = snapshot_warning(snap, kind)
    if warning:
        _say(warning)
    if snap.withheld:
        _say(f"left out {len(snap.withheld)} files that look like secrets or are not plain files in the folder:")
        for rel, why in snap.withheld:
            _say(f"  {rel}  ({why})")
    if snap.redacted:
        _say(f"redacted {sum(n for _, n in snap.redacted)} secret values (the lines are kept) in "
             f"{len(snap.redacted)} files: {', '.join(rel for rel, _ in snap.redacted)}")
    header = f"made by `mcp-world world from-dir {path}" + (f" --domain {domain}`" if domain else "`")
    if snap.withheld:
        header += f"; {len(snap.withheld)} files were left out"
    if snap.redacted:
        header += f"; secret values redacted in {len(snap.redacted)} files"
    _write_world(world_yaml(snap.world, header), out)


@world_app.command("from-site")
def world_from_site(
    origin: Annotated[str, typer.Argument(help="A site you run on this machine, e.g. http://127.0.0.1:8000.")],
    name: Annotated[Optional[str], typer.Option(help="World name (default: the site's host and port).")] = None,
    description: Annotated[Optional[str], typer.Option(help="The world's description.")] = None,
    max_pages: Annotated[int, typer.Option(min=1, max=2000, help="Most pages crawled.")] = 200,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="World file to write (default: stdout).")] = None,
) -> None:
    """Crawl a local site into a search world: its web is that site, its pages known as they are
    (as many as fit), so `serve` answers them exactly and the world model writes only the rest."""
    from ..worldgen import SITE_PAGES_BYTES, from_site, world_yaml

    try:
        snap = from_site(origin, name, description, max_pages)
    except MCPWorldError as err:
        _err(str(err))
    _say(f"world {snap.world.name}: {snap.crawled} pages crawled in {snap.seconds:.1f} s, {snap.known} known exactly"
         + (f"; {len(snap.too_big)} over 32 KiB and {snap.left} past the {SITE_PAGES_BYTES // 1024} KiB of known "
            "pages a world holds are the world model's" if snap.too_big or snap.left else ""))
    if snap.redacted:
        _say(f"redacted {sum(n for _, n in snap.redacted)} secret values in {len(snap.redacted)} pages: "
             + ", ".join(url for url, _ in snap.redacted[:10]))
    _write_world(world_yaml(snap.world, f"made by `mcp-world world from-site {origin}`"), out)
