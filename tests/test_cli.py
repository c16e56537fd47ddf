"""The command line, run as a user runs it (subprocesses of the installed entry point)."""

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from mcp_world.cli import app
from mcp_world.store import Store

runner = CliRunner()


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "mcp_world", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})


def test_help_is_instant_and_lists_the_commands():
    r = run("--help")
    assert r.returncode == 0
    for cmd in ("serve", "episodes", "export", "engine", "worlds"):
        assert cmd in r.stdout


def test_every_command_has_help_text():
    import typer.main

    click_app = typer.main.get_command(app)
    for name, cmd in click_app.commands.items():
        assert cmd.help, name
        for sub_name, sub in getattr(cmd, "commands", {}).items():
            assert sub.help, f"{name} {sub_name}"


def test_serve_refuses_a_malformed_world_with_the_field_named(tmp_path):
    bad = tmp_path / "w.yaml"
    bad.write_text("name: x\ndescription: y\ndomains: [terminal, teleporter]\n")
    r = run("serve", "--world", str(bad), "--db", str(tmp_path / "x.db"))
    assert r.returncode == 2 and "unknown domain(s) ['teleporter']" in r.stderr


def test_serve_refuses_an_unknown_transport(tmp_path):
    r = run("serve", "--transport", "carrier-pigeon", "--db", str(tmp_path / "x.db"))
    assert r.returncode == 2 and "http or stdio" in r.stderr


def test_serve_on_a_port_in_use_says_so_before_starting_an_engine(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = run("serve", "--port", str(port), "--db", str(tmp_path / "x.db"))  # the embedded engine, by default
    assert r.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in r.stderr and "--port" in r.stderr
    assert "starting the embedded engine" not in r.stdout + r.stderr and not (tmp_path / "x.db").exists()


@pytest.fixture
def logged_db(tmp_path):
    db = tmp_path / "log.db"
    store = Store(db)
    store.add_episode_sync(id="ep1", world_name="devbox", world={"name": "devbox", "description": "d", "domains": ["terminal"]},
                           engine_url="http://e", model="m", dialect="instruct", seed=1, source="sim", state={})
    store.add_step_sync({"episode_id": "ep1", "idx": 0, "tool": "run_command", "arguments": {"command": "ls"},
                         "observation": "a\n", "structured": {"exit_code": 0}, "provenance": "model"})
    store.add_step_sync({"episode_id": "ep1", "idx": 1, "tool": "run_command", "arguments": {},
                         "error_kind": "bad_arguments", "error": "command is required"})
    store.close()
    return db


def test_episodes_list_and_show(logged_db):
    r = run("episodes", "list", "--db", str(logged_db))
    assert r.returncode == 0 and "ep1" in r.stdout and "2 steps" in r.stdout and "1 errors" in r.stdout
    r = run("episodes", "show", "ep1", "--db", str(logged_db))
    assert "run_command" in r.stdout and "bad_arguments" in r.stdout
    r = run("episodes", "show", "nope", "--db", str(logged_db))
    assert r.returncode == 2 and "no episode 'nope'" in r.stderr


def test_export_writes_the_interchange_format(logged_db, tmp_path):
    out = tmp_path / "x.jsonl"
    r = run("export", "--db", str(logged_db), "--format", "jsonl", "--out", str(out))
    assert r.returncode == 0, r.stderr
    (line,) = out.read_text().splitlines()
    record = json.loads(line)
    assert record == {"id": "ep1", "world": {"name": "devbox", "description": "d", "domains": ["terminal"]},
                      "steps": [{"tool": "run_command", "arguments": {"command": "ls"}, "observation": "a\n",
                                 "structured": {"exit_code": 0}}]}
    r = run("export", "--db", str(logged_db), "--format", "csv")
    assert r.returncode == 2 and "accepted: jsonl" in r.stderr


def test_export_observations_best_takes_the_real_one_where_a_step_has_it(tmp_path):
    """A shadowed episode: step 0 ran for real too, step 1 only in simulation."""
    db = tmp_path / "shadow.db"
    store = Store(db)
    store.add_episode_sync(id="s1", world_name="devbox", world={"name": "devbox", "domains": ["terminal"]},
                           engine_url="http://e", model="m", dialect="instruct", seed=1, source="sim", state={})
    store.add_step_sync({"episode_id": "s1", "idx": 0, "tool": "run_command", "arguments": {"command": "ls"},
                         "observation": "sim-a\n", "structured": {"exit_code": 0}, "provenance": "model",
                         "real_observation": "real-a\n", "real_structured": {"exit_code": 0, "cwd": "/r"}})
    store.add_step_sync({"episode_id": "s1", "idx": 1, "tool": "run_command", "arguments": {"command": "pwd"},
                         "observation": "sim-b\n", "structured": {"exit_code": 0}, "provenance": "model"})
    store.close()

    def exported(which: str | None) -> list[tuple[str, dict]]:
        r = run("export", "--db", str(db), *(["--observations", which] if which else []))
        assert r.returncode == 0, r.stderr
        (record,) = [json.loads(x) for x in r.stdout.splitlines()]
        return [(s["observation"], s.get("structured")) for s in record["steps"]]

    best = [("real-a\n", {"exit_code": 0, "cwd": "/r"}), ("sim-b\n", {"exit_code": 0})]
    assert exported(None) == exported("best") == best  # best is the default
    assert exported("sim") == [("sim-a\n", {"exit_code": 0}), ("sim-b\n", {"exit_code": 0})]
    assert exported("real") == [("real-a\n", {"exit_code": 0, "cwd": "/r"})]


def test_commands_on_a_missing_log_say_so(tmp_path):
    r = run("episodes", "list", "--db", str(tmp_path / "none.db"))
    assert r.returncode == 2 and "no episode log" in r.stderr


def test_engine_status_reports_a_stopped_engine(tmp_path):
    r = run("engine", "status", "--cache", str(tmp_path))
    assert r.returncode == 1 and "not running" in r.stdout


def test_import_then_export_round_trips_real_observations(tmp_path):
    src = tmp_path / "real.jsonl"
    record = {"id": "r1", "world": {"name": "lab", "description": "a lab box", "domains": ["terminal"],
                                    "seed": {"terminal": "two files"}},
              "steps": [{"tool": "run_command", "arguments": {"command": "ls"}, "observation": "a\nb\n",
                         "structured": {"exit_code": 0}}]}
    src.write_text(json.dumps(record) + "\n")
    db = tmp_path / "i.db"
    r = run("import", str(src), "--db", str(db))
    assert r.returncode == 0 and "imported 1 episodes (1 real steps)" in r.stdout
    run("import", str(src), "--db", str(db))  # the same id again: kept apart, not merged
    out = tmp_path / "o.jsonl"
    assert run("export", "--db", str(db), "--observations", "real", "--out", str(out)).returncode == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in lines] == ["r1", "r1.import1"]
    assert lines[0]["steps"] == record["steps"] and lines[0]["world"] == record["world"]


def test_import_names_the_bad_line_and_field(tmp_path):
    src = tmp_path / "bad.jsonl"
    src.write_text('{"id": "x", "world": {"name": "w", "description": "d", "domains": ["terminal"]}, "steps": []}\n'
                   '{"id": "y", "world": {"name": "w", "description": "d", "domains": ["terminal"]}, "steps": [{"tool": "run_command"}]}\n')
    r = run("import", str(src), "--db", str(tmp_path / "i.db"))
    assert r.returncode == 2 and "bad.jsonl:2: steps.0.observation: Field required" in r.stderr
