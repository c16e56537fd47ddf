"""`while TEST; do BODY; done` and `until` run turn by turn on the state (rules/compound.py), and a loop
after an assignment on the same line works its `$((…))` out in each turn. Against the real bubblewrap
sandbox: every answer the state gives must be the sandbox's byte for byte, and the lines named here must
be answered."""

from __future__ import annotations

import pytest

from mcp_world.executors.sandbox import bwrap_available

from .sandboxed import side_by_side, unanswered

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")


def test_while_and_until_loops_run_turn_by_turn():
    """A counter, a test that fails at once (status 0, nothing run), `until` a file is there, folders
    made and entered turn by turn (`pwd` after it), the variable's value after the loop. Before, every
    `while` that was not `while read` was the model's."""
    lines = ["N=7", "while [ $N -lt 9 ]; do N=$((N+1)); echo $N; done", "echo $N",
             "i=0; while [[ $i -lt 3 ]]; do echo $i; i=$((i+1)); done",
             "until [ -f ready ]; do touch ready; echo waiting; done; ls", "while [ -f nope ]; do echo x; done; echo $?",
             "while false; do :; done", "c=0; while [ $c -lt 2 ]; do mkdir -p d$c && cd d$c; c=$((c+1)); done; pwd",
             "cd ~/notes-app", "x=3; until [[ $x -eq 0 ]]; do echo $x; x=$((x-1)); done", "ls"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_a_loop_after_an_assignment_works_its_arithmetic_out_each_turn():
    """`X=1; for i in a b; do X=$((X+1)); echo $X; done` prints 2 and 3: the state worked `$((X+1))` out
    once, before the loop ran, and said 2 twice (confidently wrong). A loop left by `break` is the
    model's (and one that never ends: MAX_TURNS turns at most are run)."""
    lines = ["X=1; for i in a b; do X=$((X+1)); echo $X; done", "Y=0; for f in src/*; do Y=$((Y+1)); done; echo $Y"]
    seen = side_by_side(lines + ["n=0; while true; do n=$((n+1)); [ $n -gt 99 ] && break; done"])
    assert unanswered(seen, set(lines)) == set()
    assert seen[-1][1] is None
