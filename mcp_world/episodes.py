"""The live episodes of one server: started fresh (a world's first state, a dialect for the model
its engine serves, a row in the log), resumed from the log after a restart or an eviction, reset to
another world, and ended. The simulator (simulator.py) answers their calls.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from dataclasses import dataclass, field
from typing import Any

from .dialects import Dialect, Turn
from .domain import Domain, Tool, domain_for
from .engines import EnginePool
from .errors import AgentFault, FaultKind, StateError, StoreError
from .store import Store
from .world import World, available_worlds, load_world

log = logging.getLogger("mcp_world")


@dataclass
class Episode:
    id: str
    world: World
    seed: int
    engine_url: str
    state: dict[str, dict[str, Any]]
    history: dict[str, list[Turn]] = field(default_factory=dict)  # per domain, successful steps
    next_index: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    dialect: Dialect | None = None  # chosen when the episode starts (auto: by the engine's model name)




def initial_state(world: World) -> dict[str, dict[str, Any]]:
    return {d: domain_for(world, d).rules.initial(world) for d in world.domains}



class LiveEpisodes:
    """The episodes a server holds in memory, by the key their calls come under (an MCP session, an
    `X-Episode-Id`, an episode handle). Their log stays in the store when they leave memory."""

    world: World
    engines: EnginePool
    store: Store
    dialect: Dialect
    seed: int | None
    price: tuple[float, float] | None
    max_episodes: int
    shadow: dict[str, Any]  # real executors by domain: an episode's sandboxes go when it does
    real: frozenset[str]
    domains: dict[str, Domain]
    tools: dict[str, Tool]

    def __init__(self) -> None:
        self._episodes: dict[str, Episode] = {}
        self._creating = asyncio.Lock()
        self._real_of: dict[str, frozenset[str]] = {}  # episodes opened with a mode of their own (handles)

    async def episode(self, key: str) -> Episode:
        """The caller's live episode; one logged under this id before (a restart) is resumed."""
        ep = self._episodes.get(key)
        if ep is None:
            async with self._creating:  # two first calls of one new episode must not both create it
                ep = self._episodes.get(key)
                if ep is None:
                    ep = self._resume(key) or await self._start(key, self.world, self.seed)
        return ep

    async def reset(self, key: str, world_name: str | None = None, seed: int | None = None,
                    real: frozenset[str] | None = None) -> Episode:
        """A fresh episode under `key`; `real` (the domains whose agent gets the real executor's
        observation) overrides the server's `--real` for this episode."""
        world = self.world
        if world_name and world_name != self.world.name:
            world = self._world_for_reset(world_name)
        self.end(key, "world_reset")
        ep = await self._start(key, world, seed if seed is not None else self.seed)
        if real is not None:
            self._real_of[ep.id] = real
        return ep

    def real_domains(self, episode_id: str) -> frozenset[str]:
        """The domains in which this episode's agent receives what the real executor observed."""
        return self._real_of.get(episode_id, self.real)

    def readers(self, episode_id: str, key: str | None = None) -> dict[str, Any]:
        """For the episode's real domains, what reads the real machine after the fact (a task's
        checks read it there, not in the explicit state): domain -> the executor's reader. `key`:
        the live key it runs under (handles: the episode id itself; an X-Episode-Id otherwise)."""
        ep = self._episodes.get(key or episode_id)
        if ep is None or ep.id != episode_id:
            return {}
        out = {}
        for name in self.real_domains(episode_id) & set(ep.world.domains):
            reader = getattr(self.shadow.get(name), "reader", None)
            if reader is not None:
                out[name] = reader(episode_id, ep.world)
        return out

    def end(self, key: str, why: str = "its end") -> bool:
        """Forget a live episode (its log stays) and free its real executors' sandboxes."""
        old = self._episodes.pop(key, None)
        self._real_of.pop(key, None)  # also when it was evicted (it is no longer live, its mode still kept)
        if old is None:
            return False
        log.info("episode %s ended by %s", old.id, why)
        self._real_of.pop(old.id, None)
        for executor in self.shadow.values():
            executor.end(old.id)
        return True

    def world_named(self, name: str | None) -> World:
        """The served world, or one this server can serve (its domains and tools are served here)."""
        return self.world if not name or name == self.world.name else self._world_for_reset(name)

    def _world_for_reset(self, name: str) -> World:
        served = set(self.world.domains)
        fitting = [w for w in available_worlds()
                   if set(load_world(w).domains) <= served and {t.name for t in load_world(w).tools} <= set(self.tools)]
        if name not in fitting:
            raise AgentFault(FaultKind.BAD_ARGUMENTS,
                             f"world {name[:80]!r}{'…' if len(name) > 80 else ''} cannot be served here; "
                             "worlds this server can reset to: "
                             f"{', '.join(sorted(set(fitting) | {self.world.name}))}")
        return load_world(name)

    def _fresh_id(self, key: str) -> str:
        """Episode ids are unique in the store: a key reused (world_reset) gets a numbered suffix."""
        if self.store.episode(key) is None:
            return key
        n = len(self.store.episodes_of_key(key))
        while self.store.episode(f"{key}.{n}") is not None:
            n += 1
        return f"{key}.{n}"

    def _evict_if_full(self) -> None:
        while len(self._episodes) >= self.max_episodes:
            # Forget the oldest live episode; its log stays in SQLite and it resumes from there. Its
            # real executors' sandboxes go with it (a resumed episode gets a fresh one).
            old = self._episodes.pop(next(iter(self._episodes)))
            for executor in self.shadow.values():
                executor.end(old.id)

    async def _start(self, key: str, world: World, seed: int | None) -> Episode:
        self._evict_if_full()
        episode_id = self._fresh_id(key)
        ep_seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        engine = self.engines.for_episode(episode_id)
        ep = Episode(episode_id, world, ep_seed, engine.url, initial_state(world))
        self._episodes[key] = ep
        model = engine.model
        resolve = getattr(engine, "resolve_model", None)
        if resolve is not None:
            try:
                model = await resolve()
            except AgentFault:
                pass  # the engine is down; the episode starts anyway and the call reports it
        ep.dialect = self.dialect.for_model(model) if hasattr(self.dialect, "for_model") else self.dialect
        await self.store.add_episode(
            id=episode_id, world_name=world.name, world=world.model_dump(by_alias=True, exclude_defaults=True),
            engine_url=engine.url, model=model, dialect=ep.dialect.name, seed=ep_seed,
            source="sim", state=ep.state, **self._price_fields(),
        )
        return ep

    def _price_fields(self) -> dict[str, float]:
        return {"price_in": self.price[0], "price_out": self.price[1]} if self.price else {}

    def _resume(self, key: str) -> Episode | None:
        """Continue an episode this store already holds (the server restarted, or it was evicted)."""
        ids = [r["id"] for r in self.store.episodes_of_key(key)][-1:]
        if not ids:
            return None
        row = self.store.episode(ids[0])
        if row is None or row["source"] != "sim":
            return None
        try:
            world = World.model_validate_json(row["world"])
        except ValueError:
            return None
        if not set(world.domains) <= set(self.domains):
            return None
        self._evict_if_full()
        state = initial_state(world)
        try:
            stored = self.store.state_of(row["id"]) or {}
        except StoreError as err:
            log.warning("episode %s: its logged state is unreadable (%s); it resumes from the world's", row["id"], err)
            stored = {}
        for d, doc in stored.items():
            try:
                state[d] = self.domains[d].rules.validated(doc, d) if d in self.domains else doc
            except StateError as err:
                log.warning("episode %s: stored %s state ignored (%s)", row["id"], d, err)
        ep = Episode(row["id"], world, row["seed"], row["engine_url"], state)
        ep.dialect = self._dialect(ep, row["dialect"])
        for s in self.store.steps(row["id"]):
            ep.next_index = s["idx"] + 1
            if s["error_kind"] or s["observation"] is None:
                continue
            tool = self.tools.get(s["tool"])
            if tool is not None:
                arguments = json.loads(s["arguments"] or "{}")
                ep.history.setdefault(tool.domain, []).append(Turn(
                    ep.dialect.action_text(tool, arguments), s["observation"], where=s["where"] or "",
                    tool=tool.name, arguments=arguments))
        self._episodes[key] = ep
        log.info("resumed episode %s at step %d", ep.id, ep.next_index)
        return ep

    def _dialect(self, ep: Episode, name: str | None = None) -> Dialect:
        """The episode's dialect: chosen at its start; a resumed one keeps the dialect it was logged with."""
        if ep.dialect is not None:
            return ep.dialect
        if name and name not in ("auto", getattr(self.dialect, "name", "")):
            from .dialects import get_dialect

            try:
                return get_dialect(name, **getattr(self.dialect, "options", {}))
            except (ValueError, TypeError):
                pass
        if hasattr(self.dialect, "for_model"):
            return self.dialect.for_model(self.engines.for_episode(ep.id).model)
        return self.dialect

    def new_episode(self, episode_id: str, world: World | None = None, seed: int = 0) -> Episode:
        """An episode outside the server's live set (eval, the trainer): not registered, not logged;
        its dialect is chosen from the model its engine serves, as far as that is known."""
        engine = self.engines.for_episode(episode_id)
        world = world or self.world
        ep = Episode(episode_id, world, seed, engine.url, initial_state(world))
        ep.dialect = self._dialect(ep)
        return ep
