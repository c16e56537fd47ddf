"""RL interfaces on the real server (a subprocess on the real embedded engine): the Gymnasium-style
env over episode handles, and TRL's `environment_factory` driving a real GRPO step through it."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from mcp_world.rl import EnvError, WorldEnv

from .helpers import http_server

GO_TO_SRC = '{"id": "src", "instruction": "Go to the src folder.", "success": [{"kind": "cwd", "path": "src"}]}'


@pytest.fixture(scope="module")
def server(engine_url, tmp_path_factory):
    db = tmp_path_factory.mktemp("rl") / "rl.db"
    with http_server(engine_url, db, "--world", "devbox") as (url, _):
        yield url.removesuffix("/mcp"), db


def test_the_gym_env_steps_tools_and_is_rewarded_by_verify(server):
    url, db = server
    env = WorldEnv(url, task="branch", max_steps=3)
    try:
        observation, info = env.reset(seed=2)
        assert observation == "Create a branch feature/search and switch to it."
        assert info["task"] == "branch" and [t["name"] for t in info["tools"]] == ["run_command"]
        first = info["episode_id"]
        text, reward, terminated, truncated, info = env.step(
            {"tool": "run_command", "arguments": {"command": "git checkout -b feature/search"}})
        assert (reward, terminated, truncated) == (0.0, False, False) and not info["is_error"]
        _, reward, terminated, truncated, info = env.step({"answer": "I made the branch."})
        assert (reward, terminated, truncated) == (1.0, True, False)
        assert [c["passed"] for c in info["verdict"]["checks"]] == [True, True]
        with pytest.raises(EnvError, match="the episode is over"):
            env.step({"answer": "again"})

        # A new episode per reset (the old one ended); past max_steps it is truncated and verified.
        _, info = env.reset(options={"task": GO_TO_SRC})
        assert info["episode_id"] != first
        with pytest.raises(EnvError, match=r'an action is \{"tool"'):
            env.step({"tool": "run_command", "answer": "both"})
        for command in ("pwd", "cd tests"):
            _, reward, _, truncated, _ = env.step({"tool": "run_command", "arguments": {"command": command}})
            assert not truncated
        _, reward, terminated, truncated, info = env.step({"tool": "run_command", "arguments": {"command": "cd ../src"}})
        assert (reward, terminated, truncated) == (1.0, False, True)
        with pytest.raises(EnvError, match="HTTP 404: no task 'nope'"):
            env.reset(options={"task": "nope"})
    finally:
        env.close()
    rows = sqlite3.connect(db).execute("select reward from episodes where id = ?", (first,)).fetchall()
    assert rows == [(1.0,)]  # the verdict is in the log
    with pytest.raises(EnvError, match="call reset"):
        WorldEnv(url).step({"answer": "x"})


def test_the_trl_environment_class_has_typed_documented_tools_and_a_verified_reward(server):
    from transformers.utils import get_json_schema

    from mcp_world.rl.trl import environment

    url, _ = server
    Env = environment(url)
    schema = get_json_schema(Env.run_command)["function"]
    assert schema["name"] == "run_command" and schema["parameters"]["required"] == ["command"]
    assert schema["parameters"]["properties"]["command"]["type"] == "string"
    assert schema["parameters"]["properties"]["timeout_s"]["type"] == "integer"
    assert "bash session" in schema["description"]
    env = Env()
    assert env.reset(task=GO_TO_SRC, prompt=[{"role": "user", "content": "Go to the src folder."}]) is None
    assert env.reset(task=GO_TO_SRC, prompt=[{"role": "user", "content": "hello"}]) == "Go to the src folder."
    assert env.get_reward() == 0.0
    env.run_command(command="cd src")
    assert env.get_reward() == 1.0 and env.verdict["checks"][0]["passed"]
    assert env.run_command(command="x" * 70_000).startswith("[error] too_large")


def test_a_real_grpo_step_runs_through_environment_factory(server, tmp_path: Path):
    """TRL's GRPOTrainer with the class as environment_factory: every rollout opens an episode
    handle for its task and is scored by verify. (The packaged 135M model does not emit tool calls,
    so the rewards are what its text earns: this shows the plumbing, not learning.)"""
    os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"
    from peft import LoraConfig
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer
    from trl.chat_template_utils import qwen3_chat_template

    from mcp_world import embedded
    from mcp_world.paths import FIXTURES_DIR, cache_dir
    from mcp_world.rl.trl import environment, task_dataset

    url, db = server
    base = embedded.model_dir(cache_dir(os.environ.get("MCP_WORLD_CACHE")))
    tokenizer = AutoTokenizer.from_pretrained(base)
    tokenizer.chat_template = qwen3_chat_template  # SmolLM2's own template has no tool calls
    before = sqlite3.connect(db).execute("select count(*) from episodes where verdict is not null").fetchone()[0]
    dataset = task_dataset(FIXTURES_DIR / "tasks" / "devbox.yaml").select(range(2))
    config = GRPOConfig(output_dir=str(tmp_path / "out"), max_steps=1, num_generations=2, per_device_train_batch_size=2,
                        max_completion_length=24, logging_steps=1, save_strategy="no", report_to="none", use_cpu=True,
                        bf16=False, gradient_checkpointing=False, max_tool_calling_iterations=2, disable_tqdm=True)
    trainer = GRPOTrainer(model=AutoModelForCausalLM.from_pretrained(base), args=config, train_dataset=dataset,
                          processing_class=tokenizer, environment_factory=environment(url),
                          peft_config=LoraConfig(r=4, target_modules=["q_proj"], task_type="CAUSAL_LM"))
    trainer.train()
    logged = trainer.state.log_history[0]
    assert "rewards/MCPWorldEnvironment/mean" in logged and trainer.state.global_step == 1
    con = sqlite3.connect(db)
    verified = con.execute("select task_id, reward from episodes where verdict is not null").fetchall()
    assert len(verified) - before >= 2, "every rollout must be verified on the server"
    assert {t for t, _ in verified[before:]} <= {"explore", "run-tests"}  # the dataset's two tasks
    assert logged["rewards/MCPWorldEnvironment/mean"] == pytest.approx(
        sum(r for _, r in verified[-2:]) / 2)


@pytest.fixture
def openenv_server(server):
    """OpenEnv's own FastAPI server (HTTP and WebSocket sessions) over mcp-world, in a thread."""
    import threading
    import time

    import uvicorn

    from mcp_world.rl.openenv import serve_app

    from .helpers import free_port

    url, _ = server
    port = free_port()
    app = serve_app(url, max_steps=3)
    userver = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical"))
    thread = threading.Thread(target=userver.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not userver.started:
        assert time.monotonic() < deadline, "the OpenEnv server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    userver.should_exit = True
    thread.join(timeout=10)


@pytest.mark.anyio
async def test_an_openenv_client_drives_concurrent_sessions_scored_by_verify(openenv_server, server):
    from openenv.core.generic_client import GenericEnvClient

    _, db = server
    async with GenericEnvClient(base_url=openenv_server) as a, GenericEnvClient(base_url=openenv_server) as b:
        ra = await a.reset(task="branch", seed=1)
        rb = await b.reset(task=GO_TO_SRC)
        assert ra.observation["instruction"] == "Create a branch feature/search and switch to it."
        assert rb.observation["instruction"] == "Go to the src folder."
        assert ra.observation["episode_id"] != rb.observation["episode_id"]
        listed = await a.step({"type": "list_tools"})
        assert [t["name"] for t in listed.observation["tools"]] == ["run_command", "submit"]
        step = await a.step({"type": "call_tool", "tool_name": "run_command",
                             "arguments": {"command": "git checkout -b feature/search"}})
        assert not step.done and step.reward is None and step.observation["error"] is None
        await b.step({"type": "call_tool", "tool_name": "run_command", "arguments": {"command": "cd tests"}})
        done_a = await a.step({"type": "call_tool", "tool_name": "submit", "arguments": {"answer": "made it"}})
        assert done_a.done and done_a.reward == 1.0 and [c["passed"] for c in done_a.observation["checks"]] == [True, True]
        assert (await a.state())["step_count"] == 1
        # b went to tests, not src; its third call passes max_steps: truncated and verified.
        await b.step({"type": "call_tool", "tool_name": "run_command", "arguments": {"command": "pwd"}})
        done_b = await b.step({"type": "call_tool", "tool_name": "run_command", "arguments": {"command": "ls"}})
        assert done_b.done and done_b.reward == 0.0 and done_b.observation["truncated"]
        after = await b.step({"type": "call_tool", "tool_name": "run_command", "arguments": {"command": "ls"}})
        assert "the episode is over" in after.observation["error"]["message"]
    rewards = dict(sqlite3.connect(db).execute(
        "select id, reward from episodes where id in (?, ?)",
        (ra.observation["episode_id"], rb.observation["episode_id"])).fetchall())
    assert rewards == {ra.observation["episode_id"]: 1.0, rb.observation["episode_id"]: 0.0}


def test_openenv_production_mode_opens_real_episodes_whose_reward_reads_the_sandbox(engine_url, server, tmp_path):
    """OpenEnv's production mode is mcp-world's real mode: the tools answered by the bubblewrap
    sandbox (`--shadow terminal`), the reward read there; simulation mode on the same server."""
    from openenv.core.env_server.mcp_types import CallToolAction

    from mcp_world.rl.openenv import WorldEnvironment

    with pytest.raises(ValueError, match="simulation, production"):
        WorldEnvironment(server[0], mode="live")
    plain = WorldEnvironment(server[0], mode="production")
    with pytest.raises(EnvError, match="needs a real executor .* --shadow"):
        plain.reset(task="branch")  # this server has no real executor
    plain.close()
    with http_server(engine_url, tmp_path / "p.db", "--world", "devbox", "--shadow", "terminal") as (url, _):
        env = WorldEnvironment(url.removesuffix("/mcp"), mode="production")
        try:
            assert env.reset(task="branch").mode == "production"
            step = env.step(CallToolAction(tool_name="run_command", arguments={
                "command": "git checkout -q -b feature/search && git branch --show-current"}))
            assert step.result == "feature/search\n" and step.error is None  # the real git's answer
            done = env.step(CallToolAction(tool_name="submit", arguments={"answer": "done"}))
            assert done.done and done.reward == 1.0, done.checks
            assert all("(in the real sandbox)" in c["detail"] for c in done.checks)
            assert env.reset(task="branch", mode="simulation").mode == "simulation"
            untouched = env.step(CallToolAction(tool_name="submit", arguments={"answer": "done"}))
            assert untouched.reward == pytest.approx(1 / 3) and "sandbox" not in untouched.checks[0]["detail"]
        finally:
            env.close()
