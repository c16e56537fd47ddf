"""Shell scripts: a file the shell runs in a child bash (`bash run.sh`, `./run.sh` of an executable
one, `sh run.sh`), code given to one (`bash -c 'cd src && ls'`), or a file the shell reads in
itself (`source .env`, `. ./env.sh`), where the state knows the text. It is run statement by
statement on the state, as any line is (shell._evaluate): what it prints, its status, the files it
writes. A child's variables, folder and functions are its own: after it, the shell's are as they
were; it starts with what the shell exported, and `$?` at 0. A sourced file's are the shell's.

Agents write a script and run it (`cat > build.sh <<'EOF' … EOF; chmod +x build.sh; ./build.sh`),
and keep settings in a file they source. Each was the model's, and the state then forgot every file
(a script may write anything), so `ls` and `cat` after it went to the model too.

A child run with words after its name (`bash run.sh a b`, `./run.sh x`) reads them as `$1`…`$9`
(one not given is unset) and `$#`. Left to the model: a text the state cannot run (it bails on any
statement it does not know), one that reads its arguments all at once or moves them (`$@`, `$*`,
`shift`, `getopts`), or its own name (`$0`), `exit` but as the last statement, `set` but `-e`, `-u` and
`-o pipefail` before the first command (and with `-e`, a statement that fails inside a loop, an `if`
or a list, where bash's rule for leaving is subtle), bash's own messages (`bash: line 3: …` names
the script and the line), and `sh` of a text where dash and bash may differ (`echo -e`, `[[`,
braces, backslashes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from . import lists, modes
from .state import TerminalState, _abs, _contents, _Unknown
from .variables import BASH_OWN, may_set, started_with

# A line that may run a script: cheap to ask of every line before anything is parsed
_MAY_RUN = re.compile(r"\s*(?:(?:bash|sh|source|\.)\s|[\w.~-]*/)")
_BASH = re.compile(r"#!\s*(?:/usr)?/bin/(?:env\s+)?bash\s*$")
_SH = re.compile(r"#!\s*(?:/usr)?/bin/(?:env\s+)?sh\s*$")
# What dash (Debian's sh) may read otherwise than bash, or not at all
_NOT_DASH = re.compile(r"\\|\[\[|\$'|(?<!\$)\{|\becho\s+-|\b(?:source|function|local|declare|typeset|let|select|"
                       r"shopt|mapfile|readarray|printf|read)\b|==|\(\(|=\(|<<<|&>|\|&|\$(?:RANDOM|BASH\w*)")
_ARGUMENTS = re.compile(r"\$(?:[0-9@*#]|\{[0-9@*#])|\b(?:shift|getopts)\b")
# What the state does not follow of a script's arguments: all of them at once, its name, moving them
_ALL_ARGUMENTS = re.compile(r"\$(?:[0@*]|\{[#!]?[0@*])|\b(?:shift|getopts)\b")
_POSITIONAL = re.compile(r"\$\{?([1-9])")
_EXIT = re.compile(r"exit(?:\s+(\d{1,3}))?")
_REFERENCED = re.compile(r"\$\{?#?([A-Za-z_]\w*)")  # (`${#X}` reads X too)
MAX_TEXT = 20_000  # characters: a longer script is the model's (each statement is run on the state)


@dataclass(frozen=True)
class Script:
    text: str  # its statements (the shebang, comments and the leading `set` taken out)
    child: bool  # run in a child bash (its variables, folder and functions its own)
    errexit: bool  # `set -e`: the first statement that fails ends it, with its status
    exit_code: int | None  # `exit N` as its last statement (-1: `exit`, the status before it)
    arguments: tuple[str, ...] = ()  # the words after its name (`bash run.sh a b`): `$1`, `$2`, `$#`


def run(state: dict[str, Any], command: str,
        evaluate: Callable[[dict[str, Any], list[tuple[str, str]]], tuple[str, int, dict[str, Any]] | None]
        ) -> tuple[str, int, dict[str, Any]] | None:
    """What the script `command` runs prints, its status and the state after it (the shell's own
    variables and folder as they were, for a child); None where the state cannot run it as bash does."""
    if not _MAY_RUN.match(command):
        return None
    s = TerminalState.model_validate(state)
    try:
        script = _read(command, s)
    except _Unknown:
        return None
    start = _child(state, script.arguments) if script is not None and script.child else state
    listed = lists.commands(script.text, substitutions=True) if script is not None and start is not None else None
    if script is None or start is None or listed is None:
        return None
    said, code, staged = [], 0, start
    for statement in _statements(listed):
        ran = evaluate(staged, statement)
        if ran is None or "/bin/bash: " in ran[0]:  # (bash's own messages name the script and its line)
            return None
        said.append(ran[0])
        code, staged = ran[1], ran[2]
        if script.errexit and code != 0:
            if len(statement) > 1 or re.match(r"\s*(?:if|for|while|until|case|!|\{)\b", statement[0][1]):
                return None  # (a list, a loop, an `if`: whether bash leaves there is its subtle rule)
            break
    else:
        if script.exit_code is not None:
            code = code if script.exit_code < 0 else script.exit_code
    return "".join(said), code, _back(state, staged, code) if script.child else {**staged, "status": code}


def _read(command: str, s: TerminalState) -> Script | None:
    """The script a line runs, where it is one the state knows and can run."""
    code = re.fullmatch(r"\s*(bash|sh) -c (?:'([^']*)'|\"([^\"$`\\!]*)\")\s*", command)
    if code:
        text = code.group(2) if code.group(2) is not None else code.group(3)
        return _parsed(text, s, child=True, dash=code.group(1) == "sh")
    if re.search(r"[$`*?\[\]{}~'\"\\;&|<>()#]", command):
        return None  # (one plain command, its words as written)
    words = command.split()
    if words[0] in ("source", ".") and len(words) == 2:
        text = _text(words[1], s, sourced=True)
        return None if text is None or re.search(r"\b(?:cd|pushd|popd|return|exit|set|shopt)\b", text) else \
            _parsed(text, s, child=False, dash=False)  # (what would change the shell's folder or options)
    if words[0] in ("bash", "sh") and len(words) >= 2 and not words[1].startswith("-"):
        text, arguments = _text(words[1], s), tuple(words[2:])
        dash = words[0] == "sh"
    elif "/" in words[0]:
        path = _abs(words[0], s)
        mode = modes.of(path, s)
        text = _text(words[0], s)
        if text is None or mode is None or not mode & 0o100 or not (_BASH.match(text.split("\n", 1)[0]) or
                                                                     _SH.match(text.split("\n", 1)[0])):
            return None  # (not executable: "Permission denied"; no `#!`: bash runs it its own way)
        dash, arguments = bool(_SH.match(text.split("\n", 1)[0])), tuple(words[1:])
    else:
        return None
    return None if text is None else _parsed(text, s, child=True, dash=dash, arguments=arguments)


def _text(word: str, s: TerminalState, sourced: bool = False) -> str | None:
    """The file's text, where the state knows it (a name `source` would look for in PATH first: not)."""
    if sourced and "/" not in word and not word.startswith("."):
        return None
    text = _contents(word, s)
    return text if text is not None and len(text) <= MAX_TEXT and "\0" not in text else None


def _parsed(text: str, s: TerminalState, child: bool, dash: bool, arguments: tuple[str, ...] = ()) -> Script | None:
    """The script's statements, its `set` and its last `exit` read; None where bash (or dash, for
    `sh`) would run it in a way the state does not follow."""
    if dash and _NOT_DASH.search(text) or "\r" in text or \
            _ARGUMENTS.search(text) and (not child or _ALL_ARGUMENTS.search(text) or len(arguments) > 9):
        return None  # (`$1`, `${2:-x}`, `$#` of a child run with its words; `$@`, `shift`…: the model's)
    lines = [line for line in text.split("\n") if line.strip() and not line.lstrip().startswith("#")]
    options: set[str] = set()
    while lines and lines[0].split()[0] == "set":
        read = _options(lines[0].split()[1:])
        if read is None or not child:
            return None  # (one the state does not follow; a sourced `set -e` stays the shell's)
        options |= read
        lines = lines[1:]
    if "pipefail" in options and "|" in text.replace("||", ""):
        return None  # (a pipeline's status: the last command to fail, which the state does not keep)
    exit_code = None
    if lines and (last := _EXIT.fullmatch(lines[-1].strip())):
        exit_code = int(last.group(1)) & 255 if last.group(1) else -1
        lines = lines[:-1]
    body = "\n".join(lines)
    if not child and exit_code is not None or re.search(r"\b(?:exit|set|exec|trap|wait)\b", body) or \
            re.search(r"(?:^|[^&])&(?:[^&>]|$)", body):
        return None
    if "nounset" in options and (not _all_set(body, s) or
                                 any(int(n) > len(arguments) for n in _POSITIONAL.findall(body))):
        return None  # (bash stops at the first unset one: "unbound variable")
    return Script(body, child, "errexit" in options, exit_code, arguments)


def _options(words: list[str]) -> set[str] | None:
    """What `set -e`, `set -eu`, `set -euo pipefail`, `set -o errexit` turn on; None for anything else."""
    options, i = set(), 0
    while i < len(words):
        if not re.fullmatch(r"-[euo]+", words[i]):
            return None
        for letter in words[i][1:]:
            if letter == "o":
                i += 1
                if i >= len(words) or words[i] not in ("errexit", "nounset", "pipefail"):
                    return None
                options.add(words[i])
            else:
                options.add({"e": "errexit", "u": "nounset"}[letter])
        i += 1
    return options or None


def _all_set(body: str, s: TerminalState) -> bool:
    """Under `set -u` every variable the text reads is one it sets, one the shell exported or one
    every shell starts with: bash would otherwise stop at the first unset one."""
    named = (may_set(body) or set()) | set(started_with(s)) | set(s.env) | BASH_OWN
    return all(name in named for name in _REFERENCED.findall(body))


def _statements(listed: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """The list's statements, each a list of its own (`a && b`: one), the first with no operator."""
    out: list[list[tuple[str, str]]] = []
    for op, text in listed:
        if op in ("", "\n", ";") or not out:
            out.append([("", text)])
        else:
            out[-1].append((op, text))
    return out


def _child(state: dict[str, Any], arguments: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """The state a child bash starts on: the shell's exported variables (a value not known may be
    exported: kept not known), none of its own, its arguments (`$1`… and `$#`, as variables.py reads
    them), `$?` 0; None where the shell defined functions (one exported would be the child's too)."""
    if [d for d in state.get("defined") or [] if d != "git config"]:
        return None
    variables = state.get("vars") or {}
    own = {name: None for name, value in variables.items() if value is None or name == "OLDPWD"}
    # (one the shell holds a value of and did not export is not the child's, whatever a line may have set)
    maybe = [name for name in state.get("maybe_set") or [] if variables.get(name) is None]
    positional = {str(n): word for n, word in enumerate(arguments, 1)}
    return {**state, "vars": {**own, **positional, "#": str(len(arguments))}, "maybe_set": maybe, "status": 0}


def _back(state: dict[str, Any], after: dict[str, Any], code: int) -> dict[str, Any]:
    """The shell's state after its child: the files and repository as the child left them, its own
    folder, variables and definitions as they were, `$?` the child's status."""
    kept = ("cwd", "env", "vars", "defined", "names_known", "maybe_set")
    return {**after, **{k: state[k] for k in kept if k in state}, "status": code & 255}

