"""Fidelity eval on the real embedded engine, and the metric's combination of chunk scores."""

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from mcp_world.metric import Embedder, chunks, rwml_reward
from mcp_world.paths import FIXTURES_DIR


def test_chunks_cover_the_whole_text_on_line_boundaries():
    text = "".join(f"line {i} " + "x" * 50 + "\n" for i in range(40))
    parts = chunks(text, 700)
    assert "".join(parts) == text and all(len(p) <= 700 for p in parts) and len(parts) > 3


def test_similarity_is_high_for_close_outputs_low_for_commentary_and_sees_the_whole_document():
    e = Embedder()
    listing = "README.md\nrequirements.txt\nsrc\ntests\n"
    assert e.similarity(listing, listing) > 0.99
    assert e.similarity("README.md\nsrc\ntests\n", listing) > 0.8
    assert e.similarity("This command lists the files in the directory.", listing) < 0.5
    assert e.similarity("", "") == 1.0 and e.similarity("", listing) == 0.0
    # A long page whose second half differs scores lower than the identical page: nothing is cut off.
    head = "".join(f"<li>product {i} costs {i} dollars</li>\n" for i in range(60))
    tail_a = "".join(f"<p>shipping to city {i}</p>\n" for i in range(60))
    tail_b = "".join(f"<tr><td>error code {i}</td></tr>\n" for i in range(60))
    assert e.similarity(head + tail_a, head + tail_a) > e.similarity(head + tail_b, head + tail_a) + 0.05


def test_rwml_reward_is_binary_at_tau_minus_a_format_penalty():
    assert rwml_reward(0.85, True) == 1.0 and rwml_reward(0.7, True) == 0.0
    assert rwml_reward(0.85, False) == 0.5 and rwml_reward(0.7, True, tau=None) == 0.7


def test_eval_scores_real_episodes_on_the_embedded_engine_and_stores_predictions(engine_url, tmp_path):
    out, db = tmp_path / "report.json", tmp_path / "eval.db"
    r = subprocess.run([sys.executable, "-m", "mcp_world", "eval", "--data", str(FIXTURES_DIR / "real" / "devbox-terminal.jsonl"),
                        "--engine", engine_url, "--limit", "3", "--json", str(out), "--db", str(db)],
                       capture_output=True, text=True, timeout=600, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert r.returncode == 0, r.stderr
    assert "terminal" in r.stdout and "overall" in r.stdout
    report = json.loads(out.read_text())
    for row in (report["overall"], report["domains"]["terminal"]):
        assert set(row) == {"steps", "mean_similarity", "binary_score", "exact_match", "format_valid", "failed"}
        assert row["steps"] == 3 and 0 <= row["mean_similarity"] <= 1
        assert row["failed"] < 3 and row["format_valid"] > 0  # real predictions, not three scored failures
    con = sqlite3.connect(db)
    rows = con.execute("select s.real_observation, s.observation, e.source from steps s join episodes e on e.id = s.episode_id").fetchall()
    con.close()
    assert len(rows) == 3 and all(real is not None and src == "eval" for real, _, src in rows)


def test_eval_with_no_successful_prediction_fails_and_says_so(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mcp_world", "eval", "--data", str(FIXTURES_DIR / "real" / "devbox-terminal.jsonl"),
                        "--engine", "http://127.0.0.1:9", "--limit", "2", "--db", str(tmp_path / "e.db")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "2 of 2 predictions failed" in r.stderr and "unreachable" in r.stderr
    assert "no prediction succeeded" in r.stderr


def test_the_shipped_real_data_is_recorded_by_our_own_executor():
    lines = (FIXTURES_DIR / "real" / "devbox-terminal.jsonl").read_text().splitlines()
    records = [json.loads(x) for x in lines]
    assert len(records) >= 10 and sum(len(r["steps"]) for r in records) >= 60
    assert all(r["world"]["name"] == "devbox" for r in records)


@pytest.mark.slow  # 45 s on 2 cores; reading rows, the judge's prompts and its parsing are in test_agentworldbench.py
def test_eval_judges_predictions_of_our_own_real_episodes_beside_their_similarity(engine_url, tmp_path):
    # The embedded model as judge: mechanics only (its scores mean nothing); each judgement or its failure is kept.
    out = tmp_path / "report.json"
    r = subprocess.run([sys.executable, "-m", "mcp_world", "eval", "--data", str(FIXTURES_DIR / "real" / "devbox-terminal.jsonl"),
                        "--engine", engine_url, "--limit", "2", "--judge", "embedded", "--judge-max-tokens", "160",
                        "--json", str(out), "--db", str(tmp_path / "j.db")],
                       capture_output=True, text=True, timeout=540, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert r.returncode == 0, r.stderr
    assert "judge" in r.stdout.strip().splitlines()[0] and "predictions judged" in r.stderr
    report = json.loads(out.read_text())
    steps = [s for s in report["steps"] if s["prediction"] is not None]
    assert all(s["judge"]["judge_errors"] == [] or "engine" not in s["judge"]["judge_errors"][0] for s in steps)
    assert steps and all(s["judge"]["judged"] + len(s["judge"]["judge_errors"]) == 1 for s in steps)
    judged = [s for s in steps if s["judge"]["judged"]]
    assert report["overall"]["judged"] == len(judged)
    assert all(set(j["scores"]) == {"format", "factuality", "consistency", "realism", "quality"}
               for s in judged for j in s["judge"]["judgements"])
