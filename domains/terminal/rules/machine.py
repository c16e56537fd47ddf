"""What the machine is, as every world's shell finds it (a Debian 12 system, as the shadow sandbox
runs one: executors/sandbox.py): where its programs are (`which`, `command -v`, `type`) and what is
in its environment (`printenv`), who the shell runs as (`id`, `whoami`) and the machine's name.

Only the programs every such machine has are placed here: Debian's essential packages (coreutils,
grep, sed, findutils, diffutils, tar, gzip, bash, dash, debianutils, mawk, perl) and the git and
Python 3 every world says it has. A name not among them may or may not be installed (node, pytest,
make, curl): the model answers, as it does for a name the episode made an alias or a function of.
"""

from __future__ import annotations

import posixpath
import re

from . import modes
from .state import TerminalState, _absent
from .variables import EXPORTED, _user, started_with

# Commands that print who the shell runs as, or the machine's name (the world's hostname; `-f`
# and `-i` ask the resolver, which is the machine's)
WHO_AND_WHERE = {("whoami",): "user", ("id", "-un"): "user", ("id", "-nu"): "user",
                 ("hostname",): "host", ("hostname", "-s"): "host", ("uname", "-n"): "host",
                 ("uname", "--nodename"): "host", ("uname",): "system", ("uname", "-s"): "system",
                 ("id",): "ids", ("id", "-u"): "uid", ("id", "-g"): "uid"}
PYTHON = "3.11.2"  # Debian 12's python3 (its security updates keep the version)
UID = 1000  # the sandbox's user (executors/sandbox.py SandboxLimits.uid), its group the same

# In /usr/bin (merged /usr: found there first on the PATH, before /bin)
PROGRAMS = frozenset("""
    [ arch base32 base64 basename cat chgrp chmod chown cksum comm cp csplit cut date dd df dir dircolors dirname du
    echo env expand expr factor false fmt fold groups head hostid id install join link ln logname ls md5sum mkdir
    mkfifo mknod mktemp mv nice nl nohup nproc numfmt od paste pathchk pr printenv printf ptx pwd readlink realpath
    rm rmdir seq sha1sum sha224sum sha256sum sha384sum sha512sum shred shuf sleep sort split stat stdbuf stty sum
    sync tac tail tee test timeout touch tr true truncate tsort tty uname unexpand uniq unlink users vdir wc who
    whoami yes grep egrep fgrep sed find xargs diff diff3 cmp sdiff tar gzip gunzip zcat bash sh dash which
    hostname awk mawk perl git python3 python3.11
""".split())
BUILTINS = frozenset("""
    : . alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo
    enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd
    printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type
    typeset ulimit umask unalias unset wait [
""".split())
# What else the sandbox's shell has in its environment: bash's own, and the file that carries the
# shell on between commands (all else is the episode's exports, or the machine's above)
UNFOLLOWED = frozenset({"SHLVL", "_", "OLDPWD", "BASH_ENV"})
KEYWORDS = frozenset("if then else elif fi case esac for select while until do done in function time { } ! [[ ]]"
                     " coproc".split())
# bash's own, which no Debian package installs a program of (`kill` and `time` are programs too, on
# some machines): `which` finds none
NO_PROGRAM = (BUILTINS | KEYWORDS) - PROGRAMS - frozenset(". : kill time { } ! [[ ]] coproc help".split())


def answer(words: list[str], s: TerminalState) -> tuple[str, int] | None:
    """`which NAMES`, `command -v NAMES`, `type [-t] NAMES` and `printenv [NAMES]` where the state
    knows every name, who the shell runs as on which machine (WHO_AND_WHERE), and `python3 --version`;
    None for anything else."""
    cmd, args = words[0], words[1:]
    if (cmd, *args) in WHO_AND_WHERE and cmd not in s.defined and "PATH" not in s.env:
        said = {"host": s.host, "user": _user(s), "system": "Linux", "uid": str(UID) if _user(s) != "root" else "",
                "ids": f"uid={UID}({_user(s)}) gid={UID}({_user(s)}) groups={UID}({_user(s)})"
                if _user(s) not in ("", "root") else ""}[WHO_AND_WHERE[(cmd, *args)]]
        return (said + "\n", 0) if said else None
    if cmd in s.defined or any(name in s.defined for name in args) or "PATH" in s.env or "PATH" in s.vars:
        return None  # (an alias or function of the episode's; a PATH of its own)
    if cmd == "python3":
        return (f"Python {PYTHON}\n", 0) if args in (["--version"], ["-V"]) else None
    if cmd == "printenv":
        return _printenv(args, s)
    options, names = (args[:1], args[1:]) if args[:1] in (["-v"], ["-t"]) else ([], args)
    if not names or any(n.startswith("-") for n in names):
        return None
    if cmd == "which" and not options:
        return _which(names)
    if cmd == "command" and options == ["-v"]:
        return _command_v(names)
    if cmd == "type" and options != ["-v"]:
        return _type(names, short=options == ["-t"])
    return None


def _which(names: list[str]) -> tuple[str, int] | None:
    if any(n not in PROGRAMS | NO_PROGRAM for n in names):
        return None
    return "".join(f"/usr/bin/{n}\n" for n in names if n in PROGRAMS), int(any(n not in PROGRAMS for n in names))


def _command_v(names: list[str]) -> tuple[str, int] | None:
    if any(n not in PROGRAMS | BUILTINS | KEYWORDS for n in names):
        return None
    return "".join(f"{n}\n" if n in BUILTINS | KEYWORDS else f"/usr/bin/{n}\n" for n in names), 0


def _type(names: list[str], short: bool) -> tuple[str, int] | None:
    if any(n not in PROGRAMS | BUILTINS | KEYWORDS for n in names):
        return None
    said = []
    for n in names:
        kind = "keyword" if n in KEYWORDS else "builtin" if n in BUILTINS else "file"
        if short:
            said.append(f"{kind}\n")
        else:
            said.append(f"{n} is a shell {kind}\n" if kind != "file" else f"{n} is /usr/bin/{n}\n")
    return "".join(said), 0


def _printenv(names: list[str], s: TerminalState) -> tuple[str, int] | None:
    """Each named variable's value where it is in the environment; nothing for one the shell has but
    did not export, nor for one it does not have, and then the status 1. (`printenv` alone lists the
    sandbox's whole environment, which holds more than is followed here: the model's.)"""
    if not names or any(n.startswith("-") or "=" in n for n in names):
        return None
    values: list[str | None] = []
    for name in names:
        known, value = environ_value(name, s)
        if not known:
            return None
        values.append(value)
    return "".join(f"{v}\n" for v in values if v is not None), int(any(v is None for v in values))


def environ_value(name: str, s: TerminalState) -> tuple[bool, str | None]:
    """(known, the value) of a variable in the environment a program the shell runs is given: None
    where it is not there (the shell has it but did not export it, or has it not at all). Not known:
    a value not known; the machine's, not followed here; one the state keeps as exported that the
    shell may not have (`TZ=UTC` changes how programs run, but is not exported unless asked); one
    not in env after a line that may have exported what the state cannot name (`source .env`,
    `set -a`: `names_known`), or that may have set it (`maybe_set`)."""
    fixed = started_with(s)
    if name in s.vars and s.vars[name] is None or name in UNFOLLOWED or name in fixed and not fixed[name] or \
            name in s.env and name not in fixed and (name in EXPORTED or name.startswith(("LC_", "BASH"))) or \
            name not in s.env and name not in fixed and \
            (not s.names_known or name in s.maybe_set and name not in s.vars):
        return False, None
    return True, s.env.get(name, None if name in s.vars else fixed.get(name))


def followed(state: dict, command: str) -> bool:
    """The shell is one the state follows: it finds the machine's programs (`finds_programs`), its home
    is the world's and its folder where it is (no `HOME=…` or `PWD=…` of the episode's, on this line or
    before: `~` would be another folder, and the sandbox takes `$PWD` for where the shell is), and
    no mode is held that refuses the user what the rules take it may do (modes.py)."""
    if modes.held(state):
        return False
    env, variables = state.get("env") or {}, state.get("vars") or {}
    if any(name in env and env[name] != state.get(key) or name in variables
           for name, key in (("HOME", "home"), ("PWD", "cwd"))) or _SETS_HOME.search(command):
        return False
    return finds_programs(state)


_SETS_HOME = re.compile(r"(?:^|[\s;&|(`]|\$\()(?:HOME|PWD)\+?=")


def finds_programs(state: dict) -> bool:
    """The shell finds the machine's programs where every world has them: its PATH is the sandbox's, or
    a known one that reaches /usr/bin past folders that are not there (`export PATH=~/.local/bin:$PATH`).
    Otherwise (`export PATH=~/bin`, a value not known) a program may be another, or none: the model's."""
    env, variables = state.get("env") or {}, state.get("vars") or {}
    if "PATH" not in env and "PATH" not in variables:
        return True
    value = variables["PATH"] if "PATH" in variables else env["PATH"]
    folders = value.split(":") if value is not None else []
    if "/usr/bin" not in folders:
        return False
    s = TerminalState.model_validate(state)
    before = folders[:folders.index("/usr/bin")]
    return all(f == "/usr/local/bin" or f.startswith("/") and _not_there(f, s) for f in before)


def _not_there(path: str, s: TerminalState) -> bool:
    """Nothing is at `path`, nor at a folder above it (~/.local/bin where ~/.local is not)."""
    while path not in ("/", ""):
        if _absent(path, s):
            return True
        path = posixpath.dirname(path)
    return False
