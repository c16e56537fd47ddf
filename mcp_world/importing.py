"""`mcp-world import`: episodes in the interchange format (DESIGN.md) into the store, as real
observations (provenance `real`), so that `eval` and the trainer can hold the world model to them."""

from __future__ import annotations

import gzip
import json
import lzma
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import WorldFileError
from .store import Store
from .world import World


class StepRecord(BaseModel):
    model_config = ConfigDict(extra="ignore")
    tool: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)
    observation: str
    structured: dict[str, Any] | None = None


class EpisodeRecord(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str = Field(min_length=1, max_length=200)
    world: World
    steps: list[StepRecord]


MAX_DECOMPRESSED = 1 << 30  # a compressed file that unpacks to more is refused (a decompression bomb)


def read_text(path: Path, limit: int = MAX_DECOMPRESSED) -> str:
    """A file's text, decompressed when its name ends in .gz or .xz (corpora are stored compressed)."""
    opener = {".xz": lzma.open, ".gz": gzip.open}.get(path.suffix)
    if opener is None:
        return path.read_text(encoding="utf-8")
    with opener(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise WorldFileError(f"{path} unpacks to more than {limit:,} bytes: split it, or give it uncompressed")
    return data.decode("utf-8")


def read_records(path: Path) -> list[EpisodeRecord]:
    """Every episode in the file, or a WorldFileError naming the line and the field."""
    records = []
    try:
        lines = read_text(path).splitlines()
    except (OSError, UnicodeDecodeError, EOFError, lzma.LZMAError, gzip.BadGzipFile) as err:
        raise WorldFileError(f"cannot read {path}: {err}") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            records.append(EpisodeRecord.model_validate(json.loads(line)))
        except json.JSONDecodeError as err:
            raise WorldFileError(f"{path}:{n} is not JSON: {err}") from None
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise WorldFileError(f"{path}:{n}: {where}: {first['msg']} (the interchange format: "
                                 f'{{"id", "world": {{name, description, domains, ...}}, "steps": [{{tool, arguments, observation}}]}})') from None
    return records


def import_file(store: Store, path: Path) -> tuple[int, int]:
    """Import every episode of `path`; an id already in the store is imported as `<id>.import<N>`."""
    records = read_records(path)
    steps = 0
    for rec in records:
        episode_id = rec.id
        n = 1
        while store.episode(episode_id) is not None:
            episode_id = f"{rec.id}.import{n}"
            n += 1
        store.add_episode_sync(id=episode_id, world_name=rec.world.name,
                               world=rec.world.model_dump(by_alias=True, exclude_defaults=True),
                               engine_url=None, model=None, dialect=None, seed=None, source="import", state={})
        for idx, s in enumerate(rec.steps):
            store.add_step_sync({"episode_id": episode_id, "idx": idx, "tool": s.tool, "arguments": s.arguments,
                                 "real_observation": s.observation, "real_structured": s.structured,
                                 "provenance": "real"})
            steps += 1
    return len(records), steps
