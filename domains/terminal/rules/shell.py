"""The small shell interpreter over the terminal's state (state.py).

`answer` gives the output when the state alone determines it: the line read as bash reads it
(patterns, variables, substitutions, redirections, pipes through filters.py, conditions and lists as
bash runs them), down to one simple command's words (simple.py: `pwd`, `cat`, `ls`, `echo`, git);
`silent` (silent.py) the empty output of commands that print nothing when the state says they succeed;
`apply` the state after a command printed what it printed: a list or a line as bash ran it, each simple
command through effects.py (git's through history.py). How bash reads the line is line.py's; which
programs may write, programs.py's.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from typing import Any

from . import (budget, compound, diskuse, doubletest, envprefix, filters, gitremote, history, intofile, lists,
               machine, missing, modes, pycheck, pyeval, scripts, search, simple, streams, substitution, variables)
from .conditions import condition
from .folders import _ls, _ls_glob, _tree, _unexpanded, _wc_glob, read_as_bash
from .history import _ids_shown, git_dir_touched
from .repository import quiet_add
from .state import (
    _PLAIN, TerminalState, _abs, _absent, _contents, _forget_writes, _in_repo, _Unknown,
    refusing_long_paths)
from .variables import (QUOTED_TILDE, _expand, _expand_words, _splits, assigns_itself, escaped_dollar,
                        forget_assigned)
from .effects import (FILE_COMMANDS, _apply_one, _partly_done, _redirected_anyway, _refused_before_anything,
                      _walked_to_its_failure, done_in_turn, fed_python, not_followed)
from .line import QUOTED_DOLLAR, Heredoc, _expansions, _split, _tildes, heredoc, home_expanded
from .output import joined, next_cwd, one_line
from .programs import (INTERPRETERS, MODELLED, _compiled_where_it_ran, _machine, _named_in, _no_shadowing,
                       _plain_python, _project_run, _ran_nothing, _reads_only, _writes, fed_to_python, ran_in_a_pipe)
from .silent import silent
from .simple import _printed


def _source(words: list[str], s: TerminalState) -> tuple[str, bool, int] | None:
    """A first stage of a pipe the state computes: `ls`, `find`, `grep -r` (search.py)."""
    refs = (s.git.branches + list(s.git.tags)) if s.git else []
    if words[0] in ("echo", "printf"):
        said = _printed(words, s)
        return None if said is None else (said, True, 0)
    if words[0] == "ls":
        listed = _ls(words[1:], s)
        if listed is None and len(words) > 1:  # (what `ls ARGS` prints alone goes to a pipe here too)
            said = _answer(s.model_dump(), shlex.join(words))
            return None if said is None or said[1] != 0 else (said[0], True, 0)
        return None if listed is None else (listed, True, 0)
    if words[0] == "cat" and len(words) > 2 and not any(w.startswith("-") for w in words[1:]):
        texts = [_contents(w, s) for w in words[1:]]  # (each file there and known: one after the other)
        return None if any(t is None for t in texts) else ("".join(texts), True, 0)  # type: ignore[arg-type]
    if words[:1] == ["git"] and words[1:2] and words[1] in filters.GIT_PIPED:
        said = answer(s.model_dump(), shlex.join(words))
        return None if said is None or said[1] != 0 else (said[0], True, 0)  # (git's refusal: to the terminal, not the pipe)
    if words[0] == "du" and "du" not in s.defined:
        said = diskuse.du(words[1:], s)
        return None if said is None else (said[0], True, said[1])
    if words[0] == "find":
        return search.find(words[1:], lambda top: _tree(top, s), refs, lambda top: _absent(_abs(top, s), s))
    missing = search.missing_top(words[1:], lambda name: False if _absent(_abs(name, s), s) else None)
    if missing is not None:
        return missing, True, 2
    return search.grep_r(words[1:], lambda top: _tree(top, s), lambda name: _contents(name, s), refs)


@budget.bounded
@refusing_long_paths(lambda *_: None)
def answer(state: dict[str, Any], command: str) -> tuple[str, int] | None:
    """The output and exit code when the state alone determines them; None: ask the model."""
    prefixed = envprefix.split(state, command)  # (`PAGER=cat git log`: the command, those variables exported)
    if prefixed is not None:
        return answer(envprefix.scoped(state, prefixed[0]), prefixed[1])
    if not machine.followed(state, command) or "[[" in command and not doubletest.well_formed(command):
        return None  # (a `[[` bash would refuse: the whole line is its syntax error)
    command = read_as_bash(state, command)
    if streams.unread(command):
        return None
    ran = _script(state, command)  # (`./build.sh`, `bash -c '…'`, `source .env`: scripts.py)
    if ran is not None:
        return ran[:2]
    written = intofile.answer(state, command, _said)  # (`ls > files.txt`: the output into the file)
    if written is not None:
        return written
    redirected = streams.read(command)  # (`2>&1`, `2>/dev/null`…: the command answered, then what is shown)
    if redirected is not None:
        return streams.shown(state, redirected, _said, _piped_on)
    if compound.compounds(command):
        ran = _compound(state, command)
        listed = lists.commands(command, substitutions=True)
        if ran is not None or not listed or len(listed) == 1:
            return None if ran is None else ran[:2]  # (else a list that holds one: `if …; fi; pwd`, below)
    if _substitutes(command):
        listed = lists.commands(command, substitutions=True)
        if listed and len(listed) > 1:  # (each command's substitutions on the state those before it left)
            evaluated = _evaluate(state, listed)
            return None if evaluated is None else evaluated[:2]
        if command.lstrip().startswith("[["):  # (each `$(…)` one word, as `[[` reads it: not split, nor dropped)
            return condition(TerminalState.model_validate(state), command, _printing(state))
        line = substitution.line(state, command, _said)
        return None if line is None else _answer(state, line) or silent(state, line)
    return _answer(state, command)


def _substitutes(command: str) -> bool:
    """A line with `$(…)`, `$((…))` or `$?` outside a here-document (substitution.py)."""
    return ("$(" in command or "$?" in command) and heredoc(command) is None


def _printing(state: dict[str, Any]) -> doubletest.Run:
    """What a `$(…)` prints on `state` (substitution.printed), for a `[[` to read."""
    return lambda text: substitution.printed(state, text, _said)


def _said(state: dict[str, Any], command: str) -> tuple[str, int] | None:
    return answer(state, command) or silent(state, command)


def _answer(state: dict[str, Any], command: str) -> tuple[str, int] | None:
    s = TerminalState.model_validate(state)
    fed = heredoc(command)
    if fed is not None:
        return _fed_answer(s, fed)
    command = joined(command) if "<<" not in command else command  # (a line continued: `ls \⏎ src`)
    listed = lists.commands(command)
    if listed and len(listed) == 1 and command.lstrip().startswith("[["):
        return condition(s, command)  # (its words as `[[` reads them, not as the variables below are written)
    if listed is not None and len(listed) == 1 and not compound.compounds(command):  # (a list's, a loop's: as run)
        command = substitution.variables(one_line(command) if "\n" in command else command, s)  # (`wc -l $F`…)
    if listed and len(listed) == 1 and (tested := condition(s, command)) is not None:
        return tested
    if listed and len(listed) > 1:
        evaluated = _evaluate(state, listed)  # `[ -f x ] && echo yes || echo no`, `cat a && ls`: run as bash would
        if evaluated is not None:
            return evaluated[:2]
    if "$" in command and _splits(command, s) or QUOTED_TILDE.search(command):
        return None  # (`ls $F` of F="a b": two words, which the words here are not; `cd "~/x"`: no home)
    one_liner = pyeval.one_liner(command)
    if one_liner is not None:
        return _python_c(one_liner, s)
    if "-exec" in command:
        return compound.find_exec(state, _unexpanded(command, s), _said, lambda words: _source(words, s))
    if "json.tool" in command and not (_plain_python(s) and "python3" not in s.defined and
                                       _no_shadowing(s, {"runpy", "json.tool"})):
        return None  # (`… | python3 -m json.tool`: this Python's json, where the world's runs as it would)
    computed = filters.answer(_unexpanded(home_expanded(command, s.home), s), lambda name: _contents(name, s),
                              lambda words: _source(words, s))
    if computed is not None:
        return computed
    parts = _split(command)  # (a list of several commands: `_evaluate`'s, above)
    if not parts or len(parts) != 1 or "$(" in command or "`" in command:
        return None
    if parts[0][:1] == ["ls"] and len(parts[0]) == 2 and any(c in parts[0][1] for c in "*?") and \
            not any(c in command for c in "'\"\\$"):
        return _ls_glob(parts[0][1], s)
    if parts[0][:1] == ["wc"] and len(parts[0]) == 3 and parts[0][1] in ("-l", "-c", "-w") and \
            any(c in parts[0][2] for c in "*?") and not any(c in command for c in "'\"\\$"):
        return _wc_glob(parts[0][1], parts[0][2], s) or simple.unmatched(command, s)
    if parts[0][:1] == ["du"] and "du" not in s.defined and any(c in w for w in parts[0][1:] for c in "*?") and \
            not any(c in command for c in "'\"\\$[{"):
        return diskuse.du((_split(_unexpanded(command, s)) or [[]])[0][1:], s)  # (`du -sh *`: as bash expands it)
    if parts[0][:1] == ["ls"] and parts[0][1:2] in (["-R"], ["-d"], ["-1d"], ["-d1"]) and "$" not in command:
        listed = _ls((_split(_unexpanded(command, s)) or [[]])[0][1:], s)  # (`ls -d */`: as bash expands it)
        if listed is not None:
            return listed, 0  # (else: a name not there, below)
    quoted = (parts[0][:2] in (["git", "grep"], ["git", "ls-files"]) or parts[0][:1] in (["printf"], ["echo"])) and \
        _specials_quoted(command)
    if not quoted and (any(c in w for w in parts[0] for c in "*?[]{}\\") or ("'" in command and "$" in command) or
                       any(w.startswith("~") for w in parts[0][1:] if parts[0][0] == "echo")):
        return simple.unmatched(command, s)  # globs, braces, escapes, quoting subtleties: the model's call
    # (`git grep 'no[a-z]*'`: what single quotes hold reaches git as written, a pattern of its own)
    if not quoted and escaped_dollar(command):
        return None  # (`echo \\$HOME`: a `$` of the word's own, which the words no longer tell)
    try:
        words = parts[0] if quoted else _tildes([_expand(w, s, strict=True) for w in parts[0]], command, s)
    except _Unknown:
        return None
    if "" in words[1:] and words[0] not in ("echo", "printf"):
        return None  # (`ls ""`, `touch "$UNSET"`: an empty name, which each program refuses in words of its own)
    return simple.answer(words, command, s)


def _fed_answer(s: TerminalState, fed: Heredoc) -> tuple[str, int] | None:
    """`cat <<EOF` prints the text; `tee [-a] FILE <<EOF` writes it and prints it (FILE's folder
    there); `python3 - <<EOF` runs it (its traceback names `<stdin>`).
    Writing it with `cat > FILE` prints nothing: `silent`'s."""
    parts = _split(fed.line)
    if not parts or len(parts) != 1 or not fed.literal:
        return None
    words = parts[0]
    if words == ["cat"]:
        return fed.text, 0
    python = fed_to_python(words)
    if python is not None:
        return _python_c((fed.text, python[1]), s, python[0])
    names = [w for w in words[1:] if w not in ("-a", "--append")]
    if words[0] == "tee" and len(names) == 1 and _PLAIN.fullmatch(names[0]) and not names[0].startswith("-") and \
            posixpath.dirname(_abs(names[0], s)) in s.dirs and _abs(names[0], s) not in s.dirs:
        return fed.text, 0
    return None


def _specials_quoted(command: str) -> bool:
    """Every character the shell would expand in the line is quoted, so each word reaches the
    program as written: patterns, braces, `~` and backslashes only inside quotes, and no `$`,
    backquote or backslash inside double quotes either (bash reads those there)."""
    quote = ""
    for c in command:
        if quote == "'":
            quote = "" if c == "'" else quote
        elif quote == '"':
            if c in "$`\\":
                return False
            quote = "" if c == '"' else quote
        elif c in "'\"":
            quote = c
        elif c in "*?[]{}\\$`~":
            return False
    return not quote


def _python_c(one_liner: tuple[str, list[str]], s: TerminalState, program: str = "-c") -> tuple[str, int] | None:
    """What a one-liner prints where the state decides it (pyeval.py): python3 is the world's,
    and the modules the code imports are not shadowed from the shell's folder. `program`: sys.argv[0]."""
    code, argv = one_liner
    imported = pyeval.imports(code[:pycheck.MAX_CODE])
    if imported is None:  # (it does not compile: _project_run's)
        ran = _project_run(s, ["-c", code, *argv], program)
        return None if ran is None else ran[0]
    if len(code) > pycheck.MAX_CODE or "python3" in s.defined or \
            not (imported <= pyeval.UNSHADOWED or _no_shadowing(s, imported)) or not _plain_python(s):
        return None
    said = pyeval.outcome(code, _machine(s, argv, program))
    if said is not None:
        return said
    ran = _project_run(s, ["-c", code, *argv], program)
    return None if ran is None else ran[0]


@budget.bounded
@refusing_long_paths(lambda state, command, exit_code: next_cwd(command, state.get("cwd", ""), state.get("home", ""),
                                                                exit_code))
def cwd_after(state: dict[str, Any], command: str, exit_code: int) -> str:
    """The shell's folder after `command`: where the commands of a list that ran left it, where the
    state runs the list (`[ -d x ] && cd x || echo no`, `cd nope; ls`), else following each `cd`
    (next_cwd)."""
    command = streams.quiet(read_as_bash(state, command))  # (`cd src 2>/dev/null`: where `cd src` goes)
    listed = lists.commands(command, substitutions=True)
    ran = _compound(state, command)
    if ran is not None and ran[1] == exit_code:
        return ran[2]["cwd"]
    if listed and len(listed) > 1 and ran is None:
        evaluated = _evaluate(state, listed)
        if evaluated is not None and evaluated[1] == exit_code:
            return evaluated[2]["cwd"]
        if exit_code != 0:
            return lists.cds_first(TerminalState.model_validate(state), listed)
    line = (substitution.line(state, command, _said) if _substitutes(command) else command) or command
    if line.strip() == "cd -" and exit_code == 0 and state.get("vars", {}).get("OLDPWD"):
        return state["vars"]["OLDPWD"]  # (where the last `cd` left from)
    parts = _split(line) if "$" in line else None
    if parts and len(parts) == 1 and parts[0][0] == "cd":  # (`cd $HOME/src`: the variables the state knows)
        try:
            line = shlex.join(_expand(w, TerminalState.model_validate(state), strict=True) for w in parts[0])
        except _Unknown:
            pass
    return next_cwd(line, state.get("cwd", ""), state.get("home", ""), exit_code)


def _compound(state: dict[str, Any], command: str) -> tuple[str, int, dict[str, Any]] | None:
    """The compound line run once on this state for the outermost call's answer, folder and update."""
    return budget.remembered(state, command, lambda: compound.run(state, command, _evaluate, _said, _piped_on))


def _script(state: dict[str, Any], command: str) -> tuple[str, int, dict[str, Any]] | None:
    """The script the line runs, run once on this state for the outermost call's answer and update."""
    return budget.remembered(state, "\0script " + command, lambda: scripts.run(state, command, _evaluate))


def _piped_on(text: str, pipeline: str) -> tuple[str, int] | None:
    """What `pipeline` prints fed `text` (a loop's output), where it reads no file (filters.py)."""
    return filters.answer("printf FED | " + pipeline, lambda name: None,
                          lambda words: (text, True, 0) if words == ["printf", "FED"] else None)


def _evaluate(state: dict[str, Any], listed: list[tuple[str, str]]) -> tuple[str, int, dict[str, Any]] | None:
    """A list run as bash runs it (a command after `&&` where the last one succeeded, after `||`
    where it failed, after `;` always), each command answered by the state on the state the ones
    before it left: the output, the exit code and that state; None where one is not known."""
    staged, said, code, lines = state, [], 0, 0
    for op, text in listed:
        if not budget.spend():
            return None  # (the line's work spent: budget.py)
        lines += op == "\n"  # (bash names the line a command is on)
        if op == "&&" and code != 0 or op == "||" and code == 0:
            lines += text.count("\n")
            continue
        s = TerminalState.model_validate(staged)
        # (its substitutions worked out once, on the state it runs on: then answered, followed and applied)
        tested = text.lstrip().startswith("[[")  # (a loop's or a test's substitutions: worked out as they run)
        line = substitution.line(staged, text, _said) if _substitutes(text) and not compound.compounds(text) and \
            not tested else text
        if line is None:
            return None
        found = condition(s, line, _printing(staged))
        if found is None and (lists.commands(text, substitutions=True) or [("", text)])[0][1] == text:  # (no list again)
            found = answer(staged, line) or silent(staged, line)
        if found is None or lines and found[0].startswith("/bin/bash: line 1: "):
            return None  # (bash names the line a command is on: after a newline, not the first)
        lines += text.count("\n")
        budget.hear((line, found))
        out, code = found
        said.append(out)
        staged = apply(staged, line, out, code, cwd_after(staged, line, code))
    return "".join(said), code, staged


def _apply_segment(s: TerminalState, segment: str, output: str | None = None) -> None:
    """One command of a line whose commands all succeeded: a simple one as it is applied alone (what
    it printed not told apart from the rest, but a commit last, given the line's `output`), a pipeline
    as a whole (one that only reads changes nothing; another may have written anything)."""
    if "$(" in segment:  # (`git commit -m "$(cat <<'EOF' … EOF)"`: the message the state can read)
        segment = substitution.line(s.model_dump(), segment, _said) or segment
    parts = _split(segment)
    if parts is not None:
        kinds = _expansions(segment, s)
        for words in parts:
            _apply_one(s, _expand_words(words, segment, s), output if len(parts) == 1 else None, kinds=kinds)
    elif not _reads_only(segment, s):
        _forget_writes(s, None, _named_in(segment, s))


def _quiet_prefix(state: dict[str, Any], parts: list[list[str]]) -> dict[str, Any] | None:
    """The state once the parts of a line before its last ran, where each prints nothing and
    succeeds (`silent`'s, or a quiet `git add`), so that the line prints the last part's output
    alone; None where one may print or fail."""
    staged = state
    for part in parts[:-1]:
        line = shlex.join(part)
        s = TerminalState.model_validate(staged)
        if not (quiet_add(s, part) or silent(staged, line) == ("", 0)):
            return None
        staged = apply(staged, line, "", 0, next_cwd(line, s.cwd, s.home, 0))
    return staged


def _shows_commit(output: str) -> bool:
    """What a line printed shows a commit it made ("[main 1a2b3c4] …"): a commit that ends the line is
    given it, so that its id is known (history.apply finds it among the seconds before)."""
    return history._COMMITTED.search(output) is not None


_COMMIT = re.compile(r"\s*git\s+(?:-c\s+\S+\s+)*commit\s")
_COMMITS = re.compile(r"\bgit\s+(?:-c\s+\S+\s+)*(?:commit|merge|rebase|cherry-pick|revert|pull|am)\b")
_DEFINES = re.compile(r"\balias\s+([\w.-]+)=|\bfunction\s+([\w.-]+)|(?:^|[;&|]\s*)([\w.-]+)\s*\(\s*\)")  # alias, function


def _refused(state: dict[str, Any], command: str, output: str, exit_code: int, cwd_after: str) -> dict[str, Any]:
    """The state after a line with a path the rules do not read (state.TooLong, Detour): where each of
    its programs only reads (`cat nope/../README.md`), as it was, but its status and folder; otherwise
    what it may have written, forgotten (not_followed)."""
    try:
        quiet = _reads_only(command, TerminalState.model_validate(state))
    except _Unknown:
        quiet = False
    if not quiet:
        return not_followed(state, command, output, exit_code, cwd_after)
    return {**state, "cwd": cwd_after or state["cwd"], "status": exit_code & 255}


def apply(state: dict[str, Any], command: str, output: str, exit_code: int, cwd_after: str) -> dict[str, Any]:
    """The state after `command` printed `output` (exit code `exit_code`; `$?` in the next one), with
    the variables it may have set that the state does not hold noted (variables.noted), whoever
    answered it and whether or not the state followed it (a prefix's, `CI= python3 x.py`, the shell
    has not kept)."""
    prefixed = envprefix.split(state, command)
    if prefixed is None and machine.followed(state, command) and (ran := _script(state, command)) is not None and \
            ran[:2] == (output, exit_code):  # (the script ran on the state as it did for real)
        return variables.noted(state, {**ran[2], "status": exit_code & 255}, command, followed=True)
    return variables.noted(state, _apply_line(state, command, output, exit_code, cwd_after),
                           command if prefixed is None else prefixed[1])


@budget.bounded
@refusing_long_paths(_refused)
def _apply_line(state: dict[str, Any], command: str, output: str, exit_code: int, cwd_after: str) -> dict[str, Any]:
    prefixed = envprefix.split(state, command)  # (`CI=1 python3 x.py`: the variables the shell's again after it)
    if prefixed is not None:
        after = apply(envprefix.scoped(state, prefixed[0]), prefixed[1], output, exit_code, cwd_after)
        return envprefix.restored(state, after, prefixed[0])
    after = _applied(state, command, output, exit_code, cwd_after)
    git_dir_touched(state, after, command, lambda: _reads_only(command, TerminalState.model_validate(state)))
    gitremote.after_line(state.get("git"), after.get("git") or {}, command, output, exit_code)
    return after


def _unread(command: str, output: str) -> bool:
    """bash could not read the line (`-c: line 1:`, its syntax error; status 2, or the status before it
    where a `[[` in it could not be read): none of it ran. A line of its own (bash reads and runs a string
    one line at a time: a first line may have run before the second's error), with no bash or eval in it."""
    return "\n" not in command.strip() and bool(output) and \
        not re.search(r"\b(?:bash|eval)\b", command) and \
        all(line.startswith("/bin/bash: -c: line 1: ") for line in output.splitlines())


def _applied(state: dict[str, Any], command: str, output: str, exit_code: int, cwd_after: str) -> dict[str, Any]:
    if doubletest.inert(command) or _unread(command, output) or "[[" in command and doubletest.malformed(command) or \
            doubletest.inert(command, substituted=True) and _reads_only(command, TerminalState.model_validate(state)):
        # (`[[ 10 > 9 ]]`: no file 9 is written; `[[ $(wc -l < f) -eq 5 ]]`: nothing either; `[[ a b ]]; rm x`: bash
        # refused the whole line)
        return {**TerminalState.model_validate(state).model_dump(), "status": exit_code & 255}
    if doubletest.compares(command):  # (`[[ $a > $b ]] && …`: followed where the state ran the line as it ran)
        listed = lists.commands(command, substitutions=True)
        ran = _compound(state, command) if compound.compounds(command) else \
            _evaluate(state, listed) if listed and len(listed) > 1 else None
        if ran is not None and ran[:2] == (output, exit_code):
            return {**ran[2], "defined": state.get("defined", []), "status": exit_code & 255}
        return not_followed(state, command, output, exit_code, cwd_after)
    if modes.held(state) and not (len(parts := _split(command) or []) == 1 and modes.chmod_line(parts[0])):
        return not_followed(state, command, output, exit_code, cwd_after)  # (what it may have written: forgotten)
    command = read_as_bash(state, command)
    written = intofile.applied(state, command, output, exit_code, cwd_after, _said, apply)
    if written is not None:
        return written
    redirected = streams.read(command)  # (`mkdir d 2>/dev/null`: as `mkdir d`; `2> err.log` written)
    if redirected is not None and (redirected[1] is None or  # (heading a pipe: one that writes, as alone)
                                   _reads_only(redirected[1], s := TerminalState.model_validate(state)) and
                                   not _reads_only(redirected[0].line, s)):
        done = streams.applied(state, redirected[0], output if redirected[1] is None else None, exit_code, cwd_after,
                               _said, apply)
        if done is not None:
            return done
    listed = lists.commands(command, substitutions=True) if _substitutes(command) else None
    if listed and len(listed) == 1 and not compound.compounds(command):  # (a list's, or a loop's: as they run)
        command = substitution.line(state, command, _said) or command
    after = _apply(state, command, output, exit_code, cwd_after)
    after["status"] = exit_code & 255
    if exit_code == 0 and after.get("git") and _COMMITS.search(command) and \
            len(after["git"]["commits"]) == len((state.get("git") or {}).get("commits", [])) and \
            any(_in_repo(TerminalState.model_validate(where)) for where in (state, after)):
        after["git"]["unknown"] = True  # (a commit made that the state did not follow: its history is not known)
    if after.get("seen") and (exit_code != 0 and not _reads_only(command, TerminalState.model_validate(state)) or
                              set(after["files"]) != set(state.get("files", {})) or
                              set(after["dirs"]) != set(state.get("dirs", [])) or
                              after["deleted"] != state.get("deleted", []) or
                              after["env"].get("LANG") != state.get("env", {}).get("LANG")):
        after["seen"] = {}  # (something was made, removed or moved: what ls showed may have changed)
    return after


def _apply(state: dict[str, Any], command: str, output: str, exit_code: int, cwd_after: str) -> dict[str, Any]:
    s = TerminalState.model_validate(state)
    if re.match(r"\s*git\s+(?:log|show|rev-parse|branch)\b", command):
        _ids_shown(s, output)
    fed = heredoc(command)
    line = typed = fed.line if fed else command  # (the text fed is data: what it defines is not the shell's)
    s.defined += [next(g for g in m.groups() if g) for m in _DEFINES.finditer(line)]
    if re.search(r"\bgit\b", line) and re.search(r"\bconfig\b", line) and "git config" not in s.defined:
        s.defined.append("git config")  # git aliases may exist from now on
    listed = None if fed else lists.commands(line, substitutions=True)
    if compound.compounds(command) or listed and len(listed) > 1:
        evaluated = (_compound(state, command) if compound.compounds(command) else None) or \
            (_evaluate(state, listed) if listed and len(listed) > 1 else None)
        if evaluated is not None and evaluated[:2] == (output, exit_code):  # (the state ran it as reality did)
            staged = TerminalState.model_validate(evaluated[2])
            staged.defined = s.defined  # (its folder: where the commands that ran left it, not every `cd` of the line)
            return staged.model_dump()
    if not fed and ">" in line and "<<" not in line:  # (`mkdir d 2>/dev/null; ls` as `mkdir d; ls`; `2> f` written)
        line = streams.unredirected(s, line)
    # (`for`, `while`, `if`… that the state did not run: its words are no program's)
    parts = None if re.match(r"\s*(?:(?:for|while|until|if|case|select|function)\s|[({])", line) else _split(line)
    segments = lists.segments(line) if parts is None and not fed and exit_code == 0 else None
    if segments and len(segments) > 1:  # commands joined by && (all ran, and succeeded), pipelines among them
        for n, segment in enumerate(segments):
            _apply_segment(s, segment, output if n == len(segments) - 1 and _COMMIT.match(segment) and
                           _shows_commit(output) else None)
        s.cwd = cwd_after or s.cwd
        return s.model_dump()
    if parts is None:  # pipes, subshells, substitutions: unless every program only reads, forget what it may have changed
        if fed or not (_reads_only(command, s) or ran_in_a_pipe(command, s)):  # (the files it names: `ls | sort > f`)
            _forget_writes(s, None, _named_in(line, s))
        forget_assigned(s, line)
        parts = []
    kinds = _expansions(line, s)
    if len(parts) == 1 and kinds is not None and assigns_itself(line):
        kinds.add("variable")  # (`X=1 Y=$X`: Y has the new X, which the words here were not expanded with)
    each = lists.expansions_each(line, parts, s) if len(parts) > 1 and kinds is not None else None
    if each and kinds and kinds & QUOTED_DOLLAR:  # (each command's words are expanded with the line's: `$` and all)
        each = [None if k is None else k | (kinds & QUOTED_DOLLAR) for k in each]
    if exit_code != 0:
        forget_assigned(s, line)  # (`export F=a b.txt` failed: which of its variables it set, not followed)
    if exit_code != 0 and len(parts) > 1 and not (parts[-1][:2] == ["git", "commit"] and _quiet_prefix(state, parts)):
        if not _reads_only(command, s):  # (it failed, not run here: which command did, not known)
            _forget_writes(s, None, _named_in(line, s))
        s.cwd = cwd_after or s.cwd
        return s.model_dump()
    # the output is the last part's alone where those before it print nothing (`git add -A && git commit`)
    quiet_before = len(parts) > 1 and _quiet_prefix(state, parts) is not None
    # (each command as typed, its redirections too: `cat x > f 2>&1; ls` answered alone is not `cat x > f`)
    listed = lists.commands(typed) if len(parts) > 1 else None
    after_semicolon = [op in (";", "\n") for op, _ in listed[1:]] if listed and len(listed) == len(parts) else []
    if exit_code != 0 and len(parts) == 1 and not fed and _refused_before_anything(s, line, output, exit_code):
        parts = []  # (refused before it began: nothing changed)
    for n, words in enumerate(parts):
        if exit_code != 0 and len(parts) == 1:
            if words[0] == "chmod":
                try:
                    modes.apply(s, _expand_words(words, line, s, strict=True)[1:], exit_code, output)
                except _Unknown:
                    s.modes[s.cwd] = None  # (which paths it named: not known; nothing is answered until a chmod here)
                break
            if words[0] == "python3" and _walked_to_its_failure(s, words[1:], output, exit_code,
                                                                fed.text if fed and fed.literal else None):
                break  # (pyrun.py followed it to the assert that failed)
            if words[:2] == ["git", "add"] and exit_code == 1 and history.refused_ignored(output):
                history.apply(s, _expand_words(words, line, s), output)  # (the paths not ignored: added)
                break
            if exit_code not in (126, 127) and words[0] not in MODELLED and \
                    (_writes(words[0], words[1:], s) or fed and words[0] in INTERPRETERS) and \
                    not _ran_nothing(words, output):  # (`python3 - <<EOF`: its text, not a file `-`, ran)
                _forget_writes(s, None)  # a program that failed may still have written (python's __pycache__)
                _compiled_where_it_ran(s, words[0])
            _redirected_anyway(s, words, kinds, output)
            if done_in_turn(s, words, line, kinds, output, exit_code):
                break  # (`touch x nope/y`: x made)
            if words[0] in FILE_COMMANDS and not missing.nothing_done(words, output):
                _partly_done(s, words, kinds)
            break
        if exit_code != 0 and n == len(parts) - 1 and words[:2] == ["git", "commit"]:
            break  # (the line failed: a commit at its end made nothing, whatever ran before it)
        words = _expand_words(words, line, s)
        if fed and n == len(parts) - 1 and fed.literal and (python := fed_to_python(words)) and \
                fed_python(s, fed.text, python, output if len(parts) == 1 else None):
            continue  # (a program the walkers followed: what it compiled and wrote)
        if fed and n == len(parts) - 1 and words[0] in INTERPRETERS:
            # a script fed to a program that runs it may write anything: the files it names above all
            _forget_writes(s, None, _named_in(fed.text, s))
            continue
        last = n == len(parts) - 1
        if not last and n < len(after_semicolon) and after_semicolon[n] and \
                (alone := _said(s.model_dump(), listed[n][1])) is not None and alone[1] != 0:  # type: ignore[index]
            s = TerminalState.model_validate(apply(s.model_dump(), listed[n][1], *alone, s.cwd))  # type: ignore[index]
            continue  # (`rm ..; python3 x.py`: the line's status is the last one's; this one failed, as the state says)
        told = len(parts) == 1 or last and (quiet_before or words[:2] == ["git", "commit"] and _shows_commit(output))
        _apply_one(s, words, output if told else None, fed if last else None,
                   kinds=each[n] if each else kinds)
    s.cwd = cwd_after or s.cwd
    return s.model_dump()
