"""Command substitution and arithmetic (domains/terminal/rules/substitution.py), against the real
bash of this machine (the sandbox's): what the state writes back into a line must read as bash reads
the substitution, and `$((…))` must be bash's arithmetic wherever it is answered."""

from __future__ import annotations

import random
import shlex
import subprocess

from mcp_world.domain import load_domain

RULES = load_domain("terminal").rules
sub = __import__(type(RULES).__module__ + ".substitution", fromlist=["x"])
shell = __import__(type(RULES).__module__ + ".shell", fromlist=["x"])


def _bash(lines: list[str], cwd) -> list[str]:
    """Each line in a subshell of one bash, its output (stdout and stderr) between markers."""
    script = "".join(f"( {line}\n) 2>&1; echo \"<<$?>>\"\n" for line in lines)
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=cwd, timeout=120,
                         env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "N": "7", "M": "-3"}).stdout
    return [part for part in out.split(">>\n")][:-1]


def _expression(rng: random.Random, depth: int = 0) -> str:
    if depth > 3 or rng.random() < 0.3:
        return rng.choice([str(rng.randint(0, 20)), str(rng.randint(0, 10 ** rng.randint(1, 18))), "N", "M", "$N", "0"])
    op = rng.choice(["+", "-", "*", "/", "%", "**", "<", ">", "<=", ">=", "==", "!=", "u-", "()"])
    if op == "u-":
        return "-" + _expression(rng, depth + 1)
    if op == "()":
        return "(" + _expression(rng, depth + 1) + ")"
    right = str(rng.randint(0, 5)) if op == "**" else _expression(rng, depth + 1)
    return _expression(rng, depth + 1) + rng.choice(["", " "]) + op + rng.choice(["", " "]) + right


def test_arithmetic_is_bashs_on_random_expressions(tmp_path):
    """64-bit wrapping, C's division and remainder toward zero, comparisons as 1 or 0, variables; a
    division by zero (bash refuses it) and what is not followed here (octal, `-2**2`) are not answered."""
    rng = random.Random(5)
    exprs = [_expression(rng) for _ in range(1500)] + ["2**63", "-2**2", "010 + 1", "7/0", "1 < 2 < 3", "0x10", "1_000"]
    real = _bash([f"echo $(({e}))" for e in exprs], tmp_path)
    known = {"N": "7", "M": "-3"}
    answered = 0
    for e, r in zip(exprs, real):
        ours = sub.arithmetic(e, known.get)
        printed, _, code = r.rpartition("<<")
        if ours is not None:
            answered += 1
            assert (f"{ours}\n", "0") == (printed, code), e
    assert answered >= 1000  # (most of them: the rest are refused, never guessed)
    assert all(sub.arithmetic(e, known.get) is None for e in ["-2**2", "010 + 1", "7/0", "0x10", "1_000", "N--"])
    # (as C groups them: `<` before `==`, each from the left)
    assert sub.arithmetic("3 > 2 > 1", known.get) == 0 and sub.arithmetic("1 == 2 < 3", known.get) == 1


def test_a_value_is_written_back_into_the_line_as_bash_reads_it(tmp_path):
    """Outside quotes split into words, inside double quotes or an assignment kept whole (blanks,
    newlines, quotes, `$`, backslashes and all): the line the state answers prints what the line
    with the real substitution prints. A value with a pattern in it, outside quotes, is not written."""
    rng = random.Random(3)
    alphabet = ["a", "b", " ", "  ", "\n", "\t", "'", '"', "$", "$HOME", "\\", "\\n", "x y", "-n", "é", "*", "?",
                "\xa0", "\x0b", "~", "{a,b}"]
    templates = ["printf '[%s]' $(CMD)", "printf '[%s]' \"$(CMD)\"", "printf '[%s]' \"a $(CMD) b\"",
                 "Y=$(CMD); printf '[%s]' \"$Y\"", "printf '[%s]' x$(CMD)y", "export Z=$(CMD) && printf '[%s]' \"$Z\""]
    cases, lines = [], []
    for _ in range(1000):
        value = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
        template = rng.choice(templates)
        command = f"printf %s {shlex.quote(value)}"
        written = sub.expand(template.replace("CMD", command), lambda text: value, {}.get)
        if written is None:
            assert "*" in value or "?" in value
            continue
        cases.append((template, value, written))
        lines += [template.replace("CMD", command), written]
    real = _bash(lines, tmp_path)
    assert len(cases) >= 700
    for n, (template, value, written) in enumerate(cases):
        assert real[2 * n] == real[2 * n + 1], (template, value, written)


def test_the_state_answers_a_line_through_the_substitutions_it_knows():
    state = RULES.initial(__import__("mcp_world.world", fromlist=["x"]).load_world("devbox"))
    assert shell.answer(state, "echo $(pwd)") == ("/home/user/notes-app\n", 0)
    assert shell.answer(state, 'echo "on $(git branch --show-current)"') == ("on main\n", 0)
    assert shell.answer(state, "wc -l $(find . -name '*.py')")[0].endswith(" total\n")
    assert shell.answer(state, "echo $(( $(wc -l < README.md) * 2 ))") == ("10\n", 0)
    # a command in it that writes (its subshell's changes are not followed), or that the state does not
    # know, or nested backquotes: the model's (plain ones read as `$(…)`)
    assert shell.answer(state, "echo $(touch x; ls)") is None and shell.answer(state, "echo $(date)") is None
    assert shell.answer(state, "echo `echo \\`pwd\\``") is None
    assert shell.answer(state, "echo `pwd`") == ("/home/user/notes-app\n", 0)
    # each command of a list on the state the ones before it left
    assert shell.answer(state, "cd src && echo $(pwd)") == ("/home/user/notes-app/src\n", 0)
    assert shell.cwd_after(state, 'cd "$(dirname src/notes.py)"', 0) == "/home/user/notes-app/src"
    assert shell.cwd_after(state, "cd $HOME", 0) == "/home/user"
    after = shell.apply(state, "export N=$(wc -l < README.md)", "", 0, "")
    assert after["env"]["N"] == "5" and shell.answer(after, "echo $((N + 1))") == ("6\n", 0)
    # `$?`: the status the last command left, as the state followed it (each command of a list its own)
    failed = shell.apply(state, "cat nope", "cat: nope: No such file or directory\n", 1, "")
    assert shell.answer(failed, "echo $?") == ("1\n", 0)
    assert shell.answer(failed, 'echo "$? $((1 + $?))"') == ("1 2\n", 0)
    assert shell.answer(failed, "false; echo $?; true && echo $?") == ("1\n0\n", 0)
    assert shell.answer(failed, "echo '$?'") is None or shell.answer(failed, "echo '$?'") == ("$?\n", 0)
    assert "status" not in RULES.situation(failed)  # (the prompt's state: the history shows it)
    # deeply nested or endless input: refused, not followed
    assert shell.answer(state, "echo " + '"$(echo ' * 500 + ")" * 500) is None
    assert shell.answer(state, "echo $(" * 5000) is None
