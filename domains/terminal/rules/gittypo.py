"""What git prints for a subcommand it does not have (`git chekout main`): the same every time, from
the list of commands it has and git's own weighing of typing mistakes (help.c, help_unknown_cmd):
swapping two letters costs nothing, a letter added 1, changed 2, left out 3; a common command the
typed word begins is as good as can be; suggestions only under a similarity of 7. Checked against
git in the sandbox (benchmarks/state_vs_real.py).
"""

from __future__ import annotations

# git 2.39's commands (its exec path: builtins and helpers), the candidates it weighs
COMMANDS = frozenset("""
    add add--interactive am annotate apply archive bisect bisect--helper blame branch bugreport bundle cat-file
    check-attr check-ignore check-mailmap check-ref-format checkout checkout--worker checkout-index cherry
    cherry-pick clean clone column commit commit-graph commit-tree config count-objects credential
    credential-cache credential-cache--daemon credential-store daemon describe diagnose diff diff-files
    diff-index diff-tree difftool difftool--helper env--helper fast-export fast-import fetch fetch-pack
    filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects fsmonitor--daemon gc
    get-tar-commit-id grep hash-object help hook http-backend http-fetch http-push imap-send index-pack init
    init-db instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge
    merge-base merge-file merge-index merge-octopus merge-one-file merge-ours merge-recursive merge-resolve
    merge-subtree merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects
    pack-redundant pack-refs patch-id prune prune-packed pull push quiltimport range-diff read-tree rebase
    receive-pack reflog remote remote-ext remote-fd remote-ftp remote-ftps remote-http remote-https repack
    replace request-pull rerere reset restore rev-list rev-parse revert rm send-pack sh-i18n--envsubst shell
    shortlog show show-branch show-index show-ref sparse-checkout stage stash status stripspace submodule
    submodule--helper subtree switch symbolic-ref tag unpack-file unpack-objects update-index update-ref
    update-server-info upload-archive upload-pack var verify-commit verify-pack verify-tag version web--browse
    whatchanged worktree write-tree
""".split())
# Its common commands (`git help`): a typed word that begins one of these gets it as a suggestion
COMMON = frozenset("add bisect branch clone commit diff fetch grep init log merge mv pull push rebase reset restore "
                   "rm show status switch tag".split())
SIMILARITY_FLOOR = 7
# A word this much longer than every command is at least 3 x 15 + 1 from each (a letter left out
# costs 3) and begins none: no suggestion, so no distance needs computing (a long word costs nothing)
LONGEST = max(map(len, COMMANDS)) + 15


def levenshtein(a: str, b: str, swap: int = 0, change: int = 2, add: int = 1, drop: int = 3) -> int:
    """git's weighted edit distance (levenshtein.c), with adjacent transpositions."""
    before = [0] * (len(b) + 1)
    row = [j * add for j in range(len(b) + 1)]
    for i in range(len(a)):
        new = [(i + 1) * drop] + [0] * len(b)
        for j in range(len(b)):
            cost = row[j] + change * (a[i] != b[j])
            if i > 0 and j > 0 and a[i - 1] == b[j] and a[i] == b[j - 1] and cost > before[j - 1] + swap:
                cost = before[j - 1] + swap
            cost = min(cost, row[j + 1] + drop, new[j] + add)
            new[j + 1] = cost
        before, row = row, new
    return row[len(b)]


def unknown(word: str) -> str | None:
    """git's message for `git WORD` when WORD is no command of its own (None: it is one)."""
    if word in COMMANDS:
        return None
    if len(word) > LONGEST:
        return f"git: '{word}' is not a git command. See 'git --help'.\n"
    scored = sorted((0 if name in COMMON and name.startswith(word) else levenshtein(word, name) + 1, name)
                    for name in COMMANDS)
    n = 0
    while n < len(scored) and scored[n][0] == 0:
        n += 1  # prefix matches first
    best = SIMILARITY_FLOOR + 1
    if n < len(scored):
        best = scored[n][0]
        n += 1
        while n < len(scored) and scored[n][0] == best:
            n += 1
    out = f"git: '{word}' is not a git command. See 'git --help'.\n"
    if best < SIMILARITY_FLOOR:
        out += "\nThe most similar command is\n" if n == 1 else "\nThe most similar commands are\n"
        out += "".join(f"\t{name}\n" for _, name in scored[:n])
    return out
