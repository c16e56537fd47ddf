"""`git show [HEAD]` with the options agents add to it: which header git prints (`git log -1`'s,
`--oneline`, `--pretty=oneline`, a `--format`), which body (the patch, `--stat`, `--numstat`,
`--shortstat`, `--name-only`, `--name-status`, none with `-s`), and how git joins the two. The commit
is the last one, named as HEAD, @, its branch or its id (whole, or abbreviated as `git log --oneline`
shows it). What each
part says is the repository's (repository.py); this module only reads the arguments and joins.
Checked against git (tests/test_gitshow.py) and the sandbox (benchmarks/state_vs_real.py).
"""

from __future__ import annotations

from typing import Callable

from . import gitlog

BODIES = {"-p": "patch", "--patch": "patch", "--stat": "stat", "--numstat": "numstat", "--shortstat": "shortstat",
          "--name-only": "names", "--name-status": "status"}
QUIET = {"-s", "--no-patch"}  # (either one drops the body, whatever else asks for one)
ONELINE = {"--oneline", "--pretty=oneline"}


def options(args: list[str], which: Callable[[str], int | None]) -> tuple[list[str], str, int] | None:
    """(the arguments `git log -1` takes to print the header, the body's form: "" for none, the commit:
    how many before the last, as `which` reads its name), or None where another option, a revision
    `which` does not know, two revisions or a path is given, or two ask for different things."""
    header: list[str] | None = None
    dates: list[str] = []  # (`--date=short`: the header's dates' form)
    body, quiet, named = None, False, None
    for arg in args:
        if not arg.startswith("-") and (k := which(arg)) is not None and named in (None, k):
            named = k
            continue
        if arg in QUIET:
            quiet = True
        elif arg in BODIES and body in (None, BODIES[arg]):
            body = BODIES[arg]
        elif arg.startswith(("--format=", "--pretty=")) and header is None:
            parsed = gitlog.options([arg])
            if arg not in ONELINE and (parsed is None or parsed[1] is None or not parsed[1][1]):
                return None  # (an empty format prints no header at all, and no blank line)
            header = [arg]
        elif arg == "--oneline" and header is None:
            header = [arg]
        elif arg.startswith("--date=") and arg.removeprefix("--date=") in gitlog.DATES and not dates:
            dates = [arg]
        else:
            return None
    return (header or []) + dates, "" if quiet else body or "patch", named or 0


def answer(args: list[str], which: Callable[[str], int | None], header: Callable[[list[str], int], str | None],
           body: Callable[[str, int], str | None]) -> tuple[str, int] | None:
    """`git show ARGS`, from `header(log arguments, k)` (what `git log -1 ARGS` prints of the commit k
    before the last) and `body(form, k)` (its changes in that form): a one-line header runs straight
    into the body; any other is followed by a blank line (a `--pretty=format:` header, which ends
    without a newline, by a newline), and a header alone is printed as `git log -1` prints it."""
    parsed = options(args, which)
    if parsed is None:
        return None
    log_args, form, k = parsed
    top = header(log_args, k)
    below = body(form, k) if form else ""
    if top is None or below is None:
        return None
    if not below or set(log_args) & ONELINE:
        return top + below, 0
    return top + "\n" + below, 0
