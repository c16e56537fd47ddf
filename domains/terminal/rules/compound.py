"""`if`, `for` and `while read` lines, and `find -exec`, run as bash and find run them, where the state
answers every command that runs: `if [ -d src ]; then cd src; elif …; fi`, `for f in src/*.py; do echo "==
$f"; head -3 "$f"; done`, `ls | while read f; do wc -l "$f"; done`, `find . -name '*.py' -exec wc -l {} +`.

A loop or an `if` may be piped on (`for f in *.py; do wc -l $f; done | sort -n`): what its commands
print goes through the pipeline, where each printed to its standard output alone.

A loop's words are expanded first, on the state the line starts on: substitutions (`$(ls)`), the
variables the state knows, and patterns in folders it knows whole, each as bash splits and sorts
them (substitution.py, folders.py). The body then runs once for each word, the loop's variable set
to it, on the state the turn before left. None wherever a word or a command is not known: the
model answers.
"""

from __future__ import annotations

import re
import shlex
from typing import Any, Callable

from . import budget, lists, streams, substitution
from .folders import _unexpanded
from .line import _expansions, heredoc_then
from .output import shell_words
from .programs import _reads_only
from .state import TerminalState, _contents
from .variables import assign

MAX_TURNS = 64  # a loop over more words is not run turn by turn here
PIPE_BUFFER = 65_536  # what a pipe holds before its writer waits for the reader (Linux)

Ran = tuple[str, int, dict[str, Any]]  # what the commands printed, the last one's exit code, the state they leave
Evaluate = Callable[[dict[str, Any], list[tuple[str, str]]], Ran | None]  # (shell._evaluate)
Said = Callable[[dict[str, Any], str], tuple[str, int] | None]
Pipe = Callable[[str, str], tuple[str, int] | None]  # (text fed, pipeline): what it prints (shell._piped_on)


_COMPOUND = re.compile(r"\s*(?:if|for|while|until)\s")
_PIPED_LOOP = re.compile(r"\|\s*while\s")


def compounds(command: str) -> bool:
    """A line `run` may run: an `if`, a `for`, a `while`, a pipe into `while read`, or a here-document
    with more lines after it."""
    return bool(_COMPOUND.match(command) or "while" in command and _PIPED_LOOP.search(command) or
                "<<" in command and heredoc_then(command))


def run(state: dict[str, Any], command: str, evaluate: Evaluate, said: Said, pipe: Pipe | None = None) -> Ran | None:
    """An `if`, `for` or `while read` line run as bash runs it (piped on, with `pipe`), or a
    here-document's command and the lines after it, each on the state the one before left; None: not
    one, or not known."""
    if pipe is not None and (split := lists.piped(command)) is not None:
        return piped(state, *split, evaluate, said, pipe)
    split = heredoc_then(command) if "<<" in command else None
    if split is not None:  # (`cat > f.py <<'EOF'` … `EOF`, then `python3 f.py`)
        rest = lists.commands(split[1], substitutions=True)
        return None if rest is None else evaluate(state, [("", split[0]), ("\n", rest[0][1]), *rest[1:]])
    head = command.lstrip()[:4]
    if head == "for ":
        return loop(state, command, evaluate, said)
    if head[:3] == "if ":
        return conditional(state, command, evaluate)
    if "while" in command and lists.reading(command):  # (`ls | while read f; do …; done`)
        return reading(state, command, evaluate, said)
    return repeat(state, command, evaluate) if head in ("whil", "unti") else None


def piped(state: dict[str, Any], compound: str, pipeline: str, evaluate: Evaluate, said: Said,
          pipe: Pipe) -> Ran | None:
    """`for … done | sort -n`, `if … fi | wc -l` (lists.piped): the compound run as alone, what it
    printed fed to the pipeline. Only where every command it ran printed to its standard output, or
    printed nothing: a complaint (`ls nope`, `echo x >&2`) goes to the terminal, not down the pipe, and
    the text here does not tell them apart. The compound runs in a subshell: the files it wrote stay,
    its folder and variables do not."""
    with budget.heard() as heard:
        ran = run(state, compound, evaluate, said)
    if ran is None or len(ran[0]) > PIPE_BUFFER or not all(_to_the_pipe(entry) for entry in heard):
        return None  # (past the pipe's buffer, a `head` that stops reading may break the pipe: bash complains)
    fed = pipe(ran[0], pipeline)
    if fed is None:
        return None
    after, before = TerminalState.model_validate(ran[2]), TerminalState.model_validate(state)
    after.cwd, after.vars, after.env = before.cwd, before.vars, before.env
    return fed[0], fed[1], after.model_dump()


def _to_the_pipe(entry: budget.Heard) -> bool:
    """A command heard (budget.hear) printed nothing, or printed to its standard output alone, redirecting
    nothing (streams.split; a compound's commands are heard one by one)."""
    if entry is None:
        return False
    line, (out, code) = entry
    if not out or compounds(line) and lists.piped(line) is None:
        return True
    parts = streams.split(line, out, code)
    return parts is not None and parts[1] == "" and not re.search(r"[|&>]", streams.masked(line) or "|")


def conditional(state: dict[str, Any], command: str, evaluate: Evaluate) -> Ran | None:
    """`if TEST; then BODY; [elif TEST; then BODY;]… [else OTHER;] fi` (lists.conditional): each test's
    output in turn until one succeeds, then its branch's; the exit code the branch's last command's (0
    where none ran); and the state it leaves."""
    parsed = lists.conditional(command)
    if parsed is None:
        return None
    clauses, otherwise = parsed
    said, staged = "", state
    for test, body in clauses:
        tested = evaluate(staged, test)
        if tested is None:
            return None
        said, staged = said + tested[0], tested[2]
        if tested[1] == 0:
            otherwise = body
            break
    if not otherwise:
        return said, 0, staged
    ran = evaluate(staged, otherwise)
    return None if ran is None else (said + ran[0], ran[1], ran[2])


def loop(state: dict[str, Any], command: str, evaluate: Evaluate, said: Said) -> Ran | None:
    """`for NAME in WORDS; do BODY; done` (lists.loop): each turn's output in turn; the exit code the
    last turn's (0 where there was none); the state after, the variable holding the last word."""
    parsed = lists.loop(command)
    words = _words(state, parsed[1], said) if parsed is not None else None
    if parsed is None or words is None or len(words) > MAX_TURNS:
        return None
    name, _, body = parsed
    out, code, staged = [], 0, state
    for word in words:
        if not budget.spend():
            return None
        s = TerminalState.model_validate(staged)
        assign(s, [f"{name}={word}"], True)
        ran = evaluate(s.model_dump(), body)
        if ran is None:
            return None
        out.append(ran[0])
        code, staged = ran[1], ran[2]
    return "".join(out), code, staged


def repeat(state: dict[str, Any], command: str, evaluate: Evaluate) -> Ran | None:
    """`while TEST; do BODY; done` (`until`: while the test fails; lists.repeating): the test's output and
    the body's, turn by turn, until the test says stop; the exit code the body's last (0 where it never
    ran). A loop still going after MAX_TURNS turns is not followed (`while true`)."""
    parsed = lists.repeating(command)
    if parsed is None:
        return None
    until, test, body = parsed
    out, code, staged = [], 0, state
    for turn in range(MAX_TURNS + 1):
        if not budget.spend():
            return None
        tested = evaluate(staged, test)
        if tested is None:
            return None
        out.append(tested[0])
        staged = tested[2]
        if (tested[1] == 0) == until:
            return "".join(out), code, staged
        if turn == MAX_TURNS:
            return None
        ran = evaluate(staged, body)
        if ran is None:
            return None
        out.append(ran[0])
        code, staged = ran[1], ran[2]
    return None


def reading(state: dict[str, Any], command: str, evaluate: Evaluate, said: Said) -> Ran | None:
    """`[SOURCE |] while read NAME; do BODY; done [< FILE]` (lists.reading): the body once for each
    whole line the file holds, or the source prints where it succeeds, NAME set to it (its blanks at
    either end taken off, but with `IFS=`); a last line with no newline ends the loop unread. Fed
    by a pipe, the loop runs in a subshell: its files stay, its folder and variables do not."""
    parsed = lists.reading(command)
    if parsed is None:
        return None
    if parsed.file:
        text = _contents(parsed.file, TerminalState.model_validate(state))
    else:
        fed = said(state, parsed.source) if parsed.source else ("", 0)  # (no input: the sandbox's is empty)
        text = fed[0] if fed is not None and fed[1] == 0 else None
    if text is None or not parsed.raw and "\\" in text:
        return None
    *lines, rest = text.split("\n")
    if len(lines) > MAX_TURNS:
        return None
    out, code, staged = [], 0, state
    for line in lines:
        if not budget.spend():
            return None
        s = TerminalState.model_validate(staged)
        assign(s, [f"{parsed.name}={_read(line, parsed.whole)}"], True)
        ran = evaluate(s.model_dump(), parsed.body)
        if ran is None:
            return None
        out.append(ran[0])
        code, staged = ran[1], ran[2]
    after, before = TerminalState.model_validate(staged), TerminalState.model_validate(state)
    if parsed.source:  # (a subshell's)
        after.cwd, after.vars, after.env = before.cwd, before.vars, before.env
    else:  # (the read that found no more lines set it to what was left)
        assign(after, [f"{parsed.name}={_read(rest, parsed.whole)}"], True)
    return "".join(out), code, after.model_dump()


Source = Callable[[list[str]], tuple[str, bool, int] | None]  # (shell._source: a stage's text, order known, code)


def find_exec(state: dict[str, Any], command: str, said: Said, source: Source) -> tuple[str, int] | None:
    """`find … -exec CMD … {} +` (CMD once, given every path find prints, in its order) or
    `-exec CMD … {} \\;` (once for each path): what CMD prints, where it only reads and the state
    answers it; find's status 0 for `;`, CMD's for `+`."""
    words = shell_words(command)
    if not words or words[0] != "find" or "-exec" not in words or words[-1] not in ("+", ";") or \
            words.count("-exec") > 1 or words.count("{}") != 1:
        return None
    at = words.index("-exec")
    run, each = words[at + 1:-1], words[-1] == ";"
    if not run or run[0] == "{}" or not each and run[-1] != "{}":
        return None
    found = source(words[:at])
    if found is None or not found[1] or found[2] != 0:
        return None
    paths = found[0].splitlines()
    if len(paths) > MAX_TURNS:
        return None
    lines = [[p if w == "{}" else w for w in run] for p in paths] if each else [run[:-1] + paths] if paths else []
    out, code = [], 0
    for line in lines:
        if not budget.spend():
            return None
        text = shlex.join(line)
        if not _reads_only(text, TerminalState.model_validate(state)) or (ran := said(state, text)) is None:
            return None
        out.append(ran[0])
        code = code or ran[1]
    return "".join(out), 0 if each else min(code, 1)


def _read(line: str, whole: bool) -> str:
    """What `read NAME` sets NAME to (the default IFS takes blanks off either end; `IFS=`, none)."""
    return line if whole else line.strip(" \t")


def _words(state: dict[str, Any], written: str, said: Said) -> list[str] | None:
    """The loop's words as bash hands them over; None where one is not known here."""
    line = ": " + written
    if "$(" in line or "$?" in line:
        line = substitution.line(state, line, said)  # type: ignore[assignment]
        if line is None:
            return None
    s = TerminalState.model_validate(state)
    line = _unexpanded(substitution.variables(line, s), s)
    kinds = _expansions(line, s)
    words = shell_words(line)
    if kinds is None or kinds - {"backslash", "quoted $"} or words is None or words[:1] != [":"] or \
            any(w in ("|", "||", "&&", ";", "&", "(", ")", "<", ">", ">>", "|&") for w in words):
        return None
    return words[1:]
