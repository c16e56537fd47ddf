"""`python3 -m json.tool [OPTIONS] [FILE]`: the JSON a file or the pipe holds, pretty-printed as Python
3.11's json.tool prints it, or its error.

    python3 -m json.tool package.json            cat data.json | python3 -m json.tool | head -20
    python3 -m json.tool --sort-keys --indent 2 f.json      echo '{"a": 1}' | python3 -m json.tool --compact

The text goes to this Python's own `json` module, which json.tool runs (parsing runs nothing), so an
answer holds where this Python is the world's (stdlib_imports.PYTHON) and nothing in the shell's folder
stands in for `json` (the shell's checks: shell.py). Text that is not JSON is json.tool's one-line
complaint (`Expecting value: line 1 column 1 (char 0)`, exit 1); a file not there or a folder is
argparse's refusal (`unopened`, exit 2). The options json.tool has, each as
written in full: `--sort-keys`, `--no-ensure-ascii`, `--indent N`, `--tab`, `--no-indent`, `--compact`.
Left to the model: `--json-lines` (what a failing line leaves printed depends on buffers), an output
file, an abbreviated or unknown option (argparse's own ways), a file not known, nesting deep enough
to exhaust Python's recursion (a traceback).
"""

from __future__ import annotations

import json
import sys
from typing import Any, Callable

from . import stdlib_imports

MAX_TEXT = 1_000_000  # characters of JSON parsed here (past them: the model's)
_FLAGS = {"--sort-keys": ("sort_keys", True), "--no-ensure-ascii": ("ensure_ascii", False),
          "--tab": ("indent", "\t"), "--no-indent": ("indent", None), "--compact": ("compact", True)}
_INDENTING = ("--indent", "--tab", "--no-indent", "--compact")  # (argparse: at most one of them)


class Unknown(Exception):
    """What json.tool prints here is not decided (the caller's None)."""


def tool(args: list[str]) -> tuple[Callable[[str], tuple[str, int]], list[str]] | None:
    """json.tool's work on the text it reads, and the file it names (none: it reads its input);
    None for what is left to the model."""
    if stdlib_imports.PYTHON != f"{sys.version_info[0]}.{sys.version_info[1]}":
        return None
    options: dict[str, Any] = {"sort_keys": False, "indent": 4, "ensure_ascii": True, "compact": False}
    files: list[str] = []
    given, i = [], 0
    while i < len(args):
        a = args[i]
        if a in _FLAGS:
            key, value = _FLAGS[a]
            options[key] = value
        elif a == "--indent" and i + 1 < len(args) and args[i + 1].isdigit() and len(args[i + 1]) < 4:
            options["indent"] = int(args[i + 1])
            i += 1
        elif a == "-" or not a.startswith("-"):
            files.append(a)
        else:
            return None
        given.append(a)
        i += 1
    if len(files) > 1 or sum(a in _INDENTING for a in given) > 1:
        return None  # (an output file; options argparse refuses together)
    dump: dict[str, Any] = {"sort_keys": options["sort_keys"], "indent": options["indent"],
                            "ensure_ascii": options["ensure_ascii"]}
    if options["compact"]:
        dump.update(indent=None, separators=(",", ":"))

    def run(text: str) -> tuple[str, int]:
        if len(text) > MAX_TEXT or "\0" in text:
            raise Unknown
        try:
            value = json.loads(text)
            return json.dumps(value, **dump) + "\n", 0
        except ValueError as error:  # (json.tool: `raise SystemExit(e)`, said on stderr)
            return f"{error}\n", 1
        except RecursionError:
            raise Unknown from None

    return run, [f for f in files if f != "-"]


USAGE = """usage: python -m json.tool [-h] [--sort-keys] [--no-ensure-ascii]
                           [--json-lines]
                           [--indent INDENT | --tab | --no-indent | --compact]
                           [infile] [outfile]
"""


def unopened(name: str, folder: bool) -> tuple[str, int]:
    """json.tool given a file that is not there, or a folder: argparse's refusal (its usage first), exit 2."""
    error = f"[Errno 21] Is a directory: {name!r}" if folder else f"[Errno 2] No such file or directory: {name!r}"
    return f"{USAGE}python -m json.tool: error: argument infile: can't open {name!r}: {error}\n", 2
