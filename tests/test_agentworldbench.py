"""AgentWorldBench and its five-criterion judge. The rows in fixtures/agentworldbench are written in
the benchmark's published format by scripts/make_agentworldbench_rows.py (they are not the
benchmark's data). With the embedded model as world model and judge the end-to-end test shows the
mechanics only: a 135M model answers neither role well, and its scores mean nothing."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mcp_world.agentworldbench import (CRITERIA, BenchError, JudgeError, judge_messages, load_rows, normalized,
                                       observation_of, parse_judgement)
from mcp_world.dialects.agentworld import OfficialPrompts
from mcp_world.paths import FIXTURES_DIR

BENCH = FIXTURES_DIR / "agentworldbench"


def test_rows_are_read_and_messages_built_as_the_reference_evaluation_builds_them():
    rows, skipped = load_rows(BENCH)
    assert not skipped and {r.domain for r in rows} == {"terminal", "mcp", "android", "web", "search"}
    third = next(r for r in rows if r.domain == "terminal" and r.turn == 3)
    m = third.messages()
    assert m[0] == {"role": "system", "content": third.system}
    assert [x["role"] for x in m[1:]] == ["user", "assistant", "user", "assistant", "user"]
    assert [x["content"] for x in m[1::2]] == third.prompts[:3]
    assert [x["content"] for x in m[2::2]] == third.responses[:2]
    assert third.truth == third.responses[2] and third.current == third.prompts[2]
    first = next(r for r in rows if r.domain == "terminal" and r.turn == 1)
    assert [x["role"] for x in first.messages()] == ["system", "user"]
    assert [r.domain for r in load_rows(BENCH, ("mcp",), limit=1)[0]] == ["mcp"]


def test_bad_rows_are_skipped_and_named_and_a_folder_without_files_is_refused(tmp_path):
    good = (BENCH / "mcp_test.jsonl").read_text().splitlines()[0]
    row = json.loads(good)
    lines = [good, "{not json", json.dumps({k: v for k, v in row.items() if k != "response"}),
             json.dumps({**row, "turn_idx": 9}), json.dumps({**row, "prompt": [1, 2]}), "[1, 2]"]
    (tmp_path / "mcp_test.jsonl").write_text("\n".join(lines) + "\n")
    rows, skipped = load_rows(tmp_path)
    assert len(rows) == 1 and len(skipped) == 5
    assert skipped[0].startswith("mcp_test.jsonl:2: ")
    assert "missing response (a row needs prompt, response, turn_idx" in skipped[1]
    assert "turn_idx 9 is not a turn of this row (1..2)" in skipped[2]
    assert "lists of strings" in skipped[3] and "not a JSON object" in skipped[4]
    with pytest.raises(BenchError, match="no <domain>_test.jsonl files .*terminal_test.jsonl"):
        load_rows(tmp_path / "empty")


@pytest.mark.parametrize("answer, totals", [
    # the usual shape: reasoning, then the tagged fenced JSON
    ('Format is right.\n<final_evaluation>\n```json\n{"strengths": ["layout"], "weaknesses": [], "scores": '
     '{"format": 5, "factuality": 4, "consistency": 4, "realism": 3, "quality": 4}}\n```\n</final_evaluation>', 4.0),
    # a fake block inside the thinking does not count; trailing commas and strings like "4/5" are read
    ('<think><final_evaluation>{"scores": {"format": 1}}</final_evaluation></think><final_evaluation>{"scores": '
     '{"format": "4/5", "factuality": 4, "consistency": 4, "realism": 4, "quality": 4,},}</final_evaluation>', 4.0),
    # no tags: the last JSON object with scores; a missing criterion is left out of the mean; 9 is clamped to 5
    ('I would give {"scores": {"format": 9, "factuality": 3}} overall', 4.0),
])
def test_judge_answers_are_parsed_as_the_reference_parses_them(answer, totals):
    j = parse_judgement(answer)
    assert j.total == totals and set(j.scores) == set(CRITERIA)


def test_a_judge_answer_without_scores_is_an_error_that_quotes_it():
    with pytest.raises(JudgeError, match=r"no parsable <final_evaluation> .*began: 'The simulation looks fine"):
        parse_judgement("The simulation looks fine. <final_evaluation>great</final_evaluation>")


def test_the_judge_sees_context_current_turn_prediction_and_truth_and_scores_are_normalized(tmp_path):
    m = judge_messages("terminal", [("### Turn 1\n**Action:**", "**Environment Observation:**\nREADME.md")],
                       "### Turn 2\n**Action:**", "**Environment Observation:**\nsrc\n", "**Environment Observation:**\nsrc")
    assert m[0]["role"] == "system" and "terminal" in m[0]["content"]
    user = m[1]["content"]
    assert user.index("# Context (Historical Interactions):") < user.index("# Current Turn:") < \
        user.index("**World Model Output (Simulated):**\n```\nsrc\n```") < user.index("**Ground Truth (Real Output):**")
    assert "<final_evaluation>" in user
    assert normalized(1) == 0 and normalized(5) == 100 and normalized(3) == 50
    assert observation_of("<think>x</think><predicted_observation>a</predicted_observation>") == "a"
    (tmp_path / "terminal").mkdir()
    (tmp_path / "terminal" / "system_prompt.txt").write_text("S")
    (tmp_path / "terminal" / "judge_system_prompt.txt").write_text("THE USER'S JUDGE PROMPT")
    assert judge_messages("terminal", [], "c", "p", "t", OfficialPrompts(tmp_path))[0]["content"] == "THE USER'S JUDGE PROMPT"


@pytest.mark.slow  # two minutes on 2 cores; the rows, prompts and judge parsing are checked above without it
def test_agentworldbench_runs_on_the_embedded_engine_as_world_model_and_judge(engine_url, tmp_path):
    out = tmp_path / "bench.json"
    r = subprocess.run([sys.executable, "-m", "mcp_world", "eval", "--agentworldbench", str(BENCH), "--engine",
                        engine_url, "--judge", "embedded", "--judge-samples", "2", "--max-tokens", "160",
                        "--judge-max-tokens", "256", "--json", str(out), "--db", str(tmp_path / "x.db")],
                       capture_output=True, text=True, timeout=540)
    assert r.returncode == 0, r.stderr[-2000:]
    report = json.loads(out.read_text())
    rows = report["rows"]
    assert len(rows) == 8 and all(row["prediction"] is not None and row["gen"] for row in rows)
    # every prediction was judged twice: each judgement kept with its raw answer, or counted as an error
    for row in rows:
        assert row["judged"] + len(row["judge_errors"]) == 2
        assert all(j["raw"] for j in row["judgements"])
    table = report["domains"]
    assert table["overall"]["rows"] == 8 and table["overall"]["predicted"] == 8
    assert table["overall"]["judged"] == sum(1 for row in rows if row["judged"])
    assert "Qwen-AgentWorld-35B-A3B" in r.stdout and "56.39" in r.stdout  # beside the published figures
    assert "rows: 0 predictions failed, 0 rows skipped" in r.stderr
