"""Engines other than vLLM: keys, profiles (what a server accepts), 429s waited out, requests in
flight capped. The strict proxy (benchmarks/_strict_proxy.py) stands in for a hosted API in front
of the real embedded engine: it refuses any field outside OpenAI's documented set, a final
assistant message and a wrong key, and says nothing about what it is."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time

import anyio
import pytest

from benchmarks._strict_proxy import StrictProxy
from mcp_world.engines import CompletionRequest, open_url
from mcp_world.engines.profiles import OPENAI_FIELDS, PROFILES
from mcp_world.engines.vllm import continuation, request_fields, retry_after_s
from mcp_world.errors import AgentFault, EngineSetupError
from mcp_world.serving import EngineAccess

from .helpers import free_port, query, stdio_client

pytestmark = pytest.mark.anyio

KEY = "sk-test-5f1c9a0d7e2b4c68"
REQUEST = CompletionRequest(messages=[{"role": "system", "content": "You are a shell."},
                                      {"role": "user", "content": "Continue the session."}],
                            max_tokens=64, seed=3, prefill="$ ls\n", stop=("\n$ ",), top_k=20,
                            repetition_penalty=1.05, grammar='root ::= "a"', thinking=False)


def test_the_openai_profile_sends_only_documented_fields_and_moves_the_prefill_into_the_prompt():
    strict = request_fields(PROFILES["openai"], REQUEST)
    assert set(strict) <= OPENAI_FIELDS and strict["seed"] == 3 and strict["stop"] == ["\n$ "]
    assert strict["messages"][-1]["role"] == "user" and strict["messages"][-1]["content"].endswith("$ ls\n")
    full = request_fields(PROFILES["vllm"], REQUEST)
    assert full["continue_final_message"] and full["messages"][-1] == {"role": "assistant", "content": "$ ls\n"}
    assert full["structured_outputs"] == {"grammar": 'root ::= "a"'} and full["top_k"] == 20
    assert request_fields(PROFILES["llamacpp"], REQUEST)["grammar"] == 'root ::= "a"'
    assert "continue_final_message" not in request_fields(PROFILES["llamacpp"], REQUEST)  # a trailing message is enough
    schema = {"type": "object"}
    asked = request_fields(PROFILES["openai"], CompletionRequest(messages=[], max_tokens=8, seed=0, json_schema=schema))
    assert asked["response_format"] == {"type": "json_schema", "json_schema": {"name": "observation", "schema": schema}}


def test_an_answer_to_an_instructed_prefill_is_cut_back_or_taken_whole():
    head = '<!DOCTYPE html>\n<html><head><link rel="canonical" href="'
    assert continuation(head + 'https://a.example/">', head) == ('https://a.example/">', True)  # it repeated the prefill
    assert continuation("\n<!DOCTYPE html>\n<html><body>x", head) == ("<!DOCTYPE html>\n<html><body>x", False)
    assert continuation("README.md\nsrc\n", "user@devbox:~$ ls\n") == ("README.md\nsrc\n", True)


def test_retry_after_is_read_as_seconds_or_a_date_and_keys_are_never_printed():
    assert retry_after_s("2") == 2.0 and retry_after_s(None) is None and retry_after_s("soon") is None
    assert 0 <= retry_after_s("Wed, 21 Oct 2015 07:28:00 GMT") < 1  # a date in the past: go at once
    access = EngineAccess(keys=(KEY,))
    assert access.key_for(1, 2) == KEY and KEY not in repr(access)
    with pytest.raises(EngineSetupError, match="one key for all, or one per --engine URL"):
        EngineAccess(keys=("a", "b")).key_for(0, 3)


def test_a_server_that_is_not_an_engine_is_named_in_a_clear_error(tmp_path):
    """A plain web server where an engine was expected: `engine probe` says what answered."""
    (tmp_path / "v1").mkdir()
    (tmp_path / "v1" / "models").write_text("<html>not an engine</html>")
    port = free_port()
    web = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "-d", str(tmp_path)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the web server did not start"
                time.sleep(0.2)
        r = subprocess.run([sys.executable, "-m", "mcp_world", "engine", "probe", f"http://127.0.0.1:{port}"],
                           capture_output=True, text=True, timeout=120)
    finally:
        web.terminate()
        web.wait(10)
    assert r.returncode == 2 and "does not speak the OpenAI API" in r.stderr and "not an engine" in r.stderr, r.stderr


def test_a_price_needs_both_halves():
    r = subprocess.run([sys.executable, "-m", "mcp_world", "serve", "--price-in", "1"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and "give both --price-in and --price-out" in r.stderr, r.stderr


@pytest.mark.engine
async def test_a_strict_hosted_api_with_a_key_serves_every_domain_of_a_world_over_mcp(engine_url, tmp_path):
    """The office world (terminal, browser, Android) through a strict API that also answers the
    first two requests 429: the server detects the openai profile, waits out Retry-After, sends
    only documented fields with the key, and each domain's request is answered; the key is nowhere
    in the log. The terminal's answer parses (6 of 6 in benchmarks/profiles.py); the browser's and
    Android's, without prefill and grammar, do only sometimes on the 135M model (5 of 6 and 0 of 6
    there), so of those only an answer that is a valid observation or says it is not is accepted."""
    proxy = StrictProxy(engine_url, KEY, busy=2, retry_after="1")
    db = tmp_path / "hosted.db"
    with proxy.serving() as url:
        async with stdio_client(url, db, "--engine-key", KEY, "--world", "office", "--seed", "3",
                                "--price-in", "2.5", "--price-out", "10") as client:
            with anyio.fail_after(400):
                shell = await client.call_tool("run_command", {"command": "uname -a"})
                page = await client.call_tool("browser_navigate", {"url": "https://intranet.example/"})
                screen = await client.call_tool("android_launch_app", {"package": "com.android.settings"})
    assert proxy.refused == [], proxy.refused  # nothing outside the documented set, never a final assistant message
    assert all(set(b) <= OPENAI_FIELDS for b in proxy.bodies) and len(proxy.bodies) >= 3
    assert proxy.times[2] - proxy.times[0] >= 2.0  # two 429s, each waited out for Retry-After: 1
    assert not shell.is_error and shell.meta["mcp-world/provenance"] == "model", shell.content[0].text
    for result, valid in ((page, "<!doctype html"), (screen, "<?xml")):
        text = result.content[0].text
        assert (not result.is_error and text.lstrip().lower().startswith(valid)) or \
            (result.is_error and text.startswith("malformed_observation")), text  # never an engine error
    terminal = proxy.bodies[0]["messages"]  # chat turns, not a transcript it would be asked to continue
    assert terminal[-1]["role"] == "user" and "uname -a" in terminal[-1]["content"]
    assert not any("Continue the terminal session" in m["content"] for m in terminal)
    android = proxy.bodies[-1]
    assert "grammar" not in android and "structured_outputs" not in android  # it answers free
    assert "Your answer continues the text below" in android["messages"][-1]["content"]  # the prefill, as asked
    assert KEY.encode() not in db.read_bytes()
    assert [r[0] for r in query(db, "select tool from steps order by idx")] == [  # a malformed answer is logged too
        "run_command", "browser_navigate", "android_launch_app"]
    # what the episode cost: the engine's own token counts at the prices given
    ((prompt, completion),) = query(db, "select sum(prompt_tokens), sum(completion_tokens) from steps")
    assert prompt > 0 and completion > 0
    cost = f"${(prompt * 2.5 + completion * 10) / 1e6:.4f}"
    listed = subprocess.run([sys.executable, "-m", "mcp_world", "episodes", "list", "--db", str(db)],
                            capture_output=True, text=True, timeout=120)
    assert f"{prompt:>8} in {completion:>7} out  {cost}" in listed.stdout, listed.stdout + listed.stderr
    assert f"cost {cost} over 1 priced" in listed.stdout
    report = subprocess.run([sys.executable, "-m", "mcp_world", "report", shell.meta["mcp-world/episode"], "--db",
                             str(db)], capture_output=True, text=True, timeout=120)
    assert f"world-model tokens {prompt} in, {completion} out; cost {cost}" in report.stdout, report.stdout


@pytest.mark.engine
async def test_a_wrong_key_or_a_server_that_stays_busy_is_a_clear_error_and_the_server_goes_on(engine_url, tmp_path):
    r = subprocess.run([sys.executable, "-m", "mcp_world", "engine", "probe", engine_url], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and "profile   vllm (detected)" in r.stdout, r.stdout + r.stderr
    assert "android    prefill; grammar" in r.stdout
    db = tmp_path / "wrong.db"
    proxy = StrictProxy(engine_url, KEY)
    with proxy.serving() as url:
        r = subprocess.run([sys.executable, "-m", "mcp_world", "engine", "probe", url, "--engine-key", "sk-wrong"],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 2 and "HTTP 401" in r.stderr and "--engine-key" in r.stderr, r.stderr
        r = subprocess.run([sys.executable, "-m", "mcp_world", "engine", "probe", url, "--engine-key", KEY],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and "profile   openai (detected)" in r.stdout, r.stdout + r.stderr
        assert "prefill as an instruction" in r.stdout and KEY not in r.stdout + r.stderr
        async with stdio_client(url, db, "--engine-key", "sk-wrong", "--model", "m") as client:
            with anyio.fail_after(120):
                refused = await client.call_tool("run_command", {"command": "uname -a"})
                tools = await client.list_tools()  # the server keeps serving
        async with stdio_client(url, tmp_path / "model.db", "--engine-key", KEY, "--model", "no-such-model") as client:
            with anyio.fail_after(120):
                unknown = await client.call_tool("run_command", {"command": "uname -a"})
    assert refused.is_error and "HTTP 401" in refused.content[0].text and url in refused.content[0].text
    assert unknown.is_error and "does not serve the model 'no-such-model'" in unknown.content[0].text, \
        unknown.content[0].text
    assert {t.name for t in tools.tools} >= {"run_command"}
    assert query(db, "select error_kind from steps") == [("engine_unavailable",)]  # the failed call is logged

    busy = StrictProxy(engine_url, KEY, busy=1000, retry_after="1")
    with busy.serving() as url:
        async def call() -> float:
            engine = open_url(url, api_key=KEY, model="m", timeout_s=3, profile="openai")
            t0 = time.monotonic()
            try:
                with pytest.raises(AgentFault, match=r"stayed busy .*HTTP 429: .*Rate limit reached"):
                    await engine.complete(CompletionRequest(messages=[{"role": "user", "content": "hi"}],
                                                            max_tokens=4, seed=0))
            finally:
                await engine.aclose()
            return time.monotonic() - t0

        assert await asyncio.wait_for(call(), 30) < 10  # within the call's budget, not forever
    assert 2 <= len(busy.times) <= 5


@pytest.mark.engine
async def test_engine_concurrency_caps_the_requests_in_flight(engine_url):
    async def peak(cap: int | None) -> int:
        proxy = StrictProxy(engine_url, KEY)
        with proxy.serving() as url:
            engine = open_url(url, api_key=KEY, profile="openai", concurrency=cap)
            try:
                done = await asyncio.gather(*(engine.complete(CompletionRequest(
                    messages=[{"role": "user", "content": f"Count to {n}."}], max_tokens=24, seed=n))
                    for n in range(6)))
            finally:
                await engine.aclose()
        assert len(done) == 6 and all(d.completion_tokens > 0 for d in done)
        return proxy.peak_inflight

    assert await peak(2) == 2
    assert await peak(None) > 2  # the cap is what held it to two
