"""Files read, listed, moved and matched in the terminal's state, against the real bubblewrap
sandbox (tests/sandboxed.py): every answer byte for byte, and the lines named here answered."""

from __future__ import annotations

import pytest

from mcp_world.executors.sandbox import bwrap_available

from .sandboxed import side_by_side, unanswered

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")


def test_a_folder_moved_or_copied_onto_the_name_of_one_removed_holds_what_came():
    """`rm -r spec` then `mv tests spec` (or `cp -r src d2`): what is under the name now is what
    came. Before, the removal still stood for everything under it, and `cat spec/test_notes.py` was
    answered "No such file or directory". A folder moved or copied whole is answered too."""
    lines = ["mkdir spec", "rm -r spec", "mv tests spec", "cat spec/test_notes.py", "git status --short",
             "mkdir d2 && touch d2/x", "rm -r d2", "cp -r src d2", "ls d2", "cat d2/notes.py", "cp -r src d2",
             "ls d2", "mv d2 spec", "ls spec", "mv spec spec/x"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines) - {"mv spec spec/x"}) == set()



def test_reading_backwards_checksums_and_folders_named_as_they_are():
    """`tac`, `md5sum`/`sha1sum`/`sha256sum`/`sha512sum` of a file or a pipe (and the refusal of one
    that is not there), `ls -d` of paths and of `*/` (the folders, each with its slash, as bash
    expands it)."""
    lines = ["tac src/notes.py", "md5sum README.md", "sha256sum src/notes.py", "cat README.md | md5sum",
             "printf 'a\\nb' > x", "tac x", "cat x | tac", "sha1sum x", "sha512sum x", "md5sum nope", "tac nope",
             "ls | tac", "tac README.md | head -2", "ls -d */", "ls -d src tests", "ls -d", "ls -d s*", "ls -1d */",
             "ls -d */ | wc -l", "ls -d src/ README.md", "mkdir e && ls -d */", "for d in */; do echo $d; done"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_a_pattern_starting_with_a_dot_matches_the_repository_s_own_folder():
    """`.g*` and `.*` match `.git`, which the state holds apart from the files it lists. Before,
    `echo .g* | wc -c` counted the pattern itself: 4, where bash counts `.git`: 5."""
    lines = ["echo .g* | wc -c", "echo .* | wc -w", "ls -d .* | wc -l", "for f in .*; do echo $f; done"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_names_handed_on_by_xargs_to_grep_and_cat():
    """`find … | xargs grep -l|-n|-c …` and `| xargs cat`: the command run once over the names in
    the order they came (one name: grep shows none), and xargs's 123 where grep selected nothing."""
    lines = ["find . -name '*.py' | xargs grep -l def", "find . -name '*.py' | xargs grep -n def",
             "find . -name '*.py' | xargs grep -c import", "find . -name '*.py' | xargs grep nothing",
             "find . -name '*.md' | xargs grep -n notes", "find . -name '*.py' | xargs cat | wc -l",
             "find . -name '*.py' | sort | xargs grep -h def", "git ls-files | xargs grep -l add"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_tr_uniq_and_head_of_all_but_the_last_lines():
    """`tr` deleting, squeezing, keeping and translating sets and classes; `uniq -d`/`-u`; `head -n
    -N`. Before, every tr but `a-z A-Z` was the model's."""
    lines = ["head -n -1 src/notes.py", "head -n-2 README.md", "cat README.md | head -n -3",
             "tr -d ' ' < requirements.txt", "tr '[:lower:]' '[:upper:]' < README.md", "cat README.md | tr -s ' '",
             "tr -d '[:space:]' < README.md", "cat README.md | tr -d '[:punct:]'", "tr 'abc' 'x' < README.md",
             "cat README.md | tr -cd 'a-z'", "cat README.md | tr ' ' '\\n' | sort | uniq -c | sort -rn | head -3",
             "cat README.md | tr -s ' ' '\\n' | grep -v '^$' | sort | uniq -c | sort -nr | head -5",
             "uniq -d README.md", "uniq -u README.md", "sort README.md | uniq -d"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()



def test_double_quotes_bash_reads_as_written_are_read_as_single_quotes_are():
    """`tr " " "\\n"`, `awk -F, "{print NF}"`, `sed -n "1,2p"`: a double-quoted word with no `$`,
    backquote or backslash bash takes off is the same word single-quoted, and is answered as it is.
    Before, each went to the model (the 135M model printed another command's output for the first)."""
    lines = ['cat README.md | tr -s " " "\\n" | sort | uniq -c | sort -rn | head -3', 'awk -F, "{print NF}" README.md',
             'cat README.md | tr " " "\\n" | wc -l', 'sed -n "1,2p" README.md', 'echo "a b" | tr " " "\\n"',
             'printf "%s\\n" a b | sort -r', 'cut -d" " -f1 README.md', 'x=1; echo "$x" | tr 1 2']
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines) - {'x=1; echo "$x" | tr 1 2'}) == set()


def test_sort_keys_du_of_a_pattern_and_numbered_lines_piped_on_are_answered_as_run():
    """`sort -k2 -n`, `-k2,2nr`, `-t= -k2`, `-u` by key, `-h` (sortkeys.py); `du -sh *` and `du -sh * |
    sort -h` (what is big here); `cat -n f | head` and `cat -A f | head` (numbered or shown lines piped
    on); `awk -F'=='`; `git blame f | head -1`. Before, each went to the model."""
    lines = ["printf 'b 2\\na 10\\nc 1\\nd 10\\n' > t.txt", "sort -k2 -n t.txt", "sort -k2,2nr t.txt",
             "sort -k2nr -k1,1 t.txt", "sort -k2,2n -u t.txt", "sort -t= -k2 requirements.txt", "ls -l | sort -k5 -n",
             "du -sh *", "du -sh * | sort -h", "du -sk * | sort -rn | head -2", "du -sh s*",
             "cat -n src/notes.py | head -2", "cat -n README.md | sed -n '2,3p'", "cat -A README.md | head -2",
             "awk -F'==' '{print $2}' requirements.txt", "git blame src/notes.py | head -1",
             "cut -d' ' -f2 t.txt | sort -n | uniq -c"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_ls_of_several_names_files_folders_and_missing_ones_is_answered_as_run():
    """`ls a b dir`: the names not there first, with ls's complaint and status 2, then the files as
    named, then each folder under its name; in a pipe, the files a pattern matched (`ls *.txt | wc -l`
    after a file was made: bash hands ls every name). Before, any file among the names sent the line
    to the model."""
    lines = ["ls README.md src/notes.py", "ls ./README.md src/../requirements.txt", "ls src nope README.md tests",
             "ls nope src", "ls -a src README.md", "ls src/ README.md", "ls -A tests README.md nope", "echo x > 1a.txt",
             "ls *.txt | wc -l", "ls *.txt src | head -3", "ls requirements.txt 1a.txt"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    # (a file named as a folder): the model's
    assert [said for _, said, _ in side_by_side(["ls README.md/ src"])] == [None]


def test_ls_a_of_a_folder_with_dot_files_the_episode_made_lists_them_in_byte_order():
    """`touch .env && ls -a`: in the C locale the sandbox runs in, ls sorts names as bytes, dot files
    among them (`.cache`, `.env`, `.git`, `Zed`, `_x`). Before, a dot file anywhere in the folder sent
    `ls -a` to the model; in another locale (strcoll's order) it still does."""
    lines = ["touch .env", "ls -a", "ls -A", "mkdir -p src/.cache && touch src/.hidden src/_x src/Zed", "ls -a src",
             "ls -A src", "cd src", "ls -a", "cd .."]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert side_by_side(["touch src/.x", "export LANG=en_US.UTF-8", "ls -a src"])[-1][1] is None


def test_a_commands_patterns_are_expanded_as_bash_does_where_the_state_knows_the_folders():
    """`ls src/*.py tests/*.py`, `echo *`, `head -1 *.md`, `rm *.log`, `grep -n add src/*.py tests/*.py`: a
    simple command's patterns are expanded before it runs, in the folders the state knows whole, sorted
    as bash sorts them; one that matches nothing is the word as typed. Before, any pattern but those of
    a few commands (`ls`, `wc`, `du`) sent the line to the model. A list's commands are each expanded
    as they run (`touch a.log && ls *.log`)."""
    lines = ["echo *", "ls src/*.py tests/*.py", "echo */", "echo src/*", "cat *.txt", "wc -l src/*.py tests/*.py",
             "touch a.log b.log", "ls *.log", "head -1 *.log *.md", "rm *.log", "ls", "ls *.log",
             "grep -n add src/*.py tests/*.py", "ls -d s* t*", "cd s*", "pwd", "cd ..", "echo .*",
             "touch c.log && ls *.log", "rm -f *.log; ls *.log"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_a_pattern_that_matched_nothing_reaches_the_tool_as_it_is():
    """`cat *.py` in a folder without one: bash hands `*.py` on as typed (no nullglob), and the tool
    complains of a file of that name, between ' ' where coreutils quotes it (`wc: '*.py'`) and as it is
    where grep names it; several names, some matched, each in turn (`wc -l *.md *.py`). Before, every
    such line was the model's; agents type them in the wrong folder."""
    lines = ["wc -l *.py", "cat *.py", "head *.py", "tail -n 3 *.py", "grep foo *.py", "nl *.py", "md5sum *.py",
             "rm *.pyc", "wc -l src/*.txt", "wc -l *.md *.py", "cat *.md *.py", "head -5 *.txt *.md", "cat 'a*b'",
             "cat *.py 2>/dev/null", "cd src && wc -l *.md", "cat ../*.py", "cd .."]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    said = {c: s for c, s, _ in seen}
    assert said["wc -l *.py"] == ("wc: '*.py': No such file or directory\n", 1)
    assert said["grep foo *.py"] == ("grep: *.py: No such file or directory\n", 2)


def test_patterns_above_the_last_part_are_expanded_part_by_part_and_sorted_whole():
    """`cat */*.py`, `wc -l */*.py`, `grep -n def */*.py`, `ls -d */*/`, `echo ./*/x`, `../*/src/*.py`:
    each part's pattern matched in the folders the parts before it reached, and the whole list sorted
    as bash sorts it (`a-b/y` before `a/sub`: `-` is below `/`), dot names only for a dot pattern, a
    file never gone into. Before, a pattern above the last part sent the line to the model."""
    lines = ["mkdir -p a/sub a-b b/.hid && touch a/x a-b/y b/z a/sub/q b/.hid/w && echo hi > a/.dot", "echo */*",
             "ls -d */*/", "echo */*/", "echo */.*", "echo a*/*", "cat */notes.py | head -1", "wc -l */*.py",
             "grep -n def */*.py", "ls */*", "echo ./*/x", "echo ../*/src/*.py", "head -n1 */*.py", "rm */x && ls a",
             "echo */*/q", "ls -d ../*/", "echo src/../*/sub"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert dict((c, said) for c, said, _ in seen)["echo */*"][0].startswith("a-b/y a/sub a/x b/z")


def test_ls_of_names_some_missing_with_its_errors_sent_away_shows_the_listing_alone():
    """`ls src nope 2>/dev/null`: ls complains of every name not there before it lists anything, so its
    complaints and its listing are told apart, and what reaches the terminal, the pipe or the file is
    answered. Before, such a line (its output and errors both) was the model's."""
    lines = ["ls src nope 2>/dev/null", "ls nope src README.md 2>/dev/null", "ls src nope 2>&1 >/dev/null",
             "ls src nope README.md 2>/dev/null | wc -l", "ls nope1 src nope2 2> err.txt; cat err.txt",
             "ls -a src nope 2>/dev/null", "ls src nope 2>/dev/null || echo some missing"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_a_stream_redirected_shows_what_reaches_the_terminal_and_changes_what_the_command_changes():
    """`2>/dev/null`, `2>&1`, `>/dev/null 2>&1`, `&>/dev/null`, `>&2`, `2> err.txt`, alone, in a list and
    heading a pipe (streams.py): the command answered without them, then what reaches the terminal or
    the pipe. Before, each was the model's, and the words after the command were read as its own:
    `mkdir d 2>/dev/null` made no folder in the state (`ls` was answered without it), and `echo x > f
    2>&1` wrote `x 2 >& 1` into f."""
    lines = ["ls nope 2>/dev/null", "ls src 2>/dev/null", "cat README.md 2>/dev/null | head -1",
             'cat src/notes.py | grep -n "def" 2>/dev/null', "ls | grep x 2>&1",
             "cat nope 2>/dev/null || echo missing", "ls nope 2>&1", "git status 2>/dev/null | head -2",
             "find . -name '*.py' 2>/dev/null", "ls -la 2>/dev/null | wc -l",
             "which python3 >/dev/null 2>&1 && echo yes", "cat src/notes.py 2>&1 | head -2",
             "wc -l src/notes.py 2>/dev/null", "ls nope >/dev/null", "ls src >/dev/null", "cd src 2>/dev/null && pwd",
             "cd ..", "echo hi >&2", "ls nope 2>&1 | wc -l", "mkdir d 2>/dev/null", "ls", "echo x > f 2>&1", "cat f",
             "mkdir e >/dev/null 2>&1", "ls", "echo y > g 2>/dev/null", "cat g", "rm f g 2>/dev/null", "ls",
             "command -v git >/dev/null && echo ok", "ls nope &>/dev/null || echo none",
             "git rev-parse --git-dir >/dev/null 2>&1 && echo repo", "rm nope 2>/dev/null; echo $?",
             "cat nope 2>&1; echo $?"]
    lines += ["ls nope 2> err.txt", "cat err.txt", "rm .. 2>> err.txt; cat err.txt", "echo 'a  b' >&2",
              "cd src 2>/dev/null | head -1", "pwd", "git status --short 2> err2.txt", "rm err2.txt 2>&1 | wc -l",
              "git status --short 2>/dev/null", "rm src/notes.py 2>/dev/null | head -1", "mkdir src/notes.py 2>&1",
              "ls src", "cd src 2> err3.txt; cat err3.txt", "cd ..", "cat err3.txt", "echo x >& /dev/null"]
    declined = ["echo x >&3", "echo x 3>&1", "echo x 2>&-"]  # (descriptors not read here: before, `x >& 3` and so on)
    seen = side_by_side(lines + declined + ["ls nope >& out2.txt", "cat out2.txt"])  # (ls's complaint in out2.txt)
    assert unanswered(seen, set(lines)) == set()
    assert [said for command, said, _ in seen if command in declined] == [None] * len(declined)


def test_a_command_that_failed_before_a_semicolon_changed_nothing_where_the_model_answered_the_line():
    """`mkdir README.md; date`: the line's status is the last command's, and the model answers it (what
    `date` prints is not known here); the state applies each command as it ran. Before, each before the
    last was taken as done: README.md became a folder, and after `rm ..; date` the project's parent was gone."""
    lines = ["mkdir README.md; date", "cat README.md", "rm ..; date", "ls ..", "rm nope; touch new.txt; date", "ls",
             "mkdir d1 d2 > made.txt 2>&1; cat made.txt", "ls"]  # (and `mkdir` with its output sent to a file)
    seen = side_by_side(lines)
    assert unanswered(seen, {"cat README.md", "ls ..", "ls"}) == set()


def test_ls_l_of_several_names_and_cat_of_names_some_not_there_are_answered_as_run():
    """`ls -l` given several names: the complaints first, the files' rows as one table sized by every
    name given (the folders' own rows too), then each folder's rows under its name; `ls -ld` each
    name's own row; an empty folder's `total 0`. `cat a nope`, `head -2 a nope b`, `wc -l a src`:
    each name's part or complaint in turn, and with the errors sent away, the rest alone. `ls -lS`
    (the largest first), `-r` (backwards). Before, each was the model's, and `ls -l` of an empty
    folder raised in the rules."""
    lines = ["ls -l README.md src", "ls -la src tests README.md nope", "ls -ld src tests", "ls -lhd . src/ README.md",
             "mkdir -p a/b && touch a/x && ls -l a a/x a/b", "ls -l a/b", "ls -ld a/b nope a", "ls -l nope",
             "chmod 600 a/x && ls -l a/x README.md", "cat README.md nope.md", "cat nope.md src README.md",
             "cat README.md nope.md 2>/dev/null", "cat pyproject.toml setup.py requirements.txt 2>/dev/null",
             "cat README.md nope.md 2> err.txt; cat err.txt", "printf abc > n.txt && cat n.txt nope n.txt",
             "head -2 README.md nope n.txt", "head -2 nope README.md", "head -n 1 README.md src n.txt",
             "head -3 README.md nope 2>/dev/null", "wc -l README.md nope n.txt", "wc README.md nope",
             "wc -l README.md src", "wc -l README.md src 2>/dev/null", "wc -w nope1 nope2", "ls -lS", "ls -lhSr src",
             "ls -lar"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_diff_of_a_file_and_its_edited_copy_is_answered_as_run():
    """`diff README.md R2.md` after a copy edited (a line changed, one added, one removed, a last line
    without its newline): GNU diff's normal form, exit 1 (gnudiff.py); `cmp`: the first byte and line
    that differ, `EOF on` the shorter, `-s`. Before, the model's."""
    lines = ["cp README.md R2.md && echo extra >> R2.md", "diff README.md R2.md", "sed -i 's/tiny/small/' R2.md",
             "diff README.md R2.md", "diff R2.md README.md", "printf 'a\\nb' > x.txt && printf 'a\\nc\\n' > y.txt",
             "diff x.txt y.txt", "cp src/notes.py n2.py && sed -i '2d' n2.py", "diff src/notes.py n2.py",
             "diff n2.py src/notes.py; echo $?", "cmp README.md R2.md", "cmp -s README.md R2.md; echo $?",
             "cmp README.md README.md", "cmp README.md nope", "cmp src README.md", "cp README.md R3.md",
             "echo more >> R3.md && cmp R3.md README.md", "printf '' > e.txt && cmp e.txt README.md", "cmp x.txt y.txt"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_stat_with_a_format_prints_what_ls_l_shows_of_each_name():
    """`stat -c '%s %n %a %A %U %G %F %h'`, `--format=`, a file made empty (`regular empty file`), a
    set-uid mode (`4755`), a name not there in its turn (exit 1). A time or an inode: the model's.
    Before, every `stat` was."""
    lines = ["stat -c '%s %n %a %A %U %G %F %h %u %g %b' README.md src .git", "stat -c %s README.md",
             "touch e && stat -c '%F|%s|%b' e", "stat --format='%n: %s bytes' README.md",
             "chmod 4755 e && stat -c %a e",
             "stat -c '%a' nope", "stat -c %s README.md nope", "echo hello >> README.md && stat -c %s README.md",
             "mkdir -p d/e && stat -c '%h %s' d"]
    seen = side_by_side(lines + ["stat -c %y README.md", "stat -c %i README.md"])
    assert unanswered(seen, set(lines)) == set() and [s for _, s, _ in seen[-2:]] == [None, None]


def test_ls_d_of_a_name_not_there():
    """`ls -d NAME` of a name not there: ls's complaint first, then the names that are, exit 2 (the model's
    before: a fresh world's `ls -d made_here` came back as a made-up listing of files)."""
    lines = ["ls -d made_here", "ls -d nope src README.md", "ls -d1 a b", "ls -d src/nope", "ls -d ~/nope"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert seen[1][1] == ("ls: cannot access 'nope': No such file or directory\nREADME.md\nsrc\n", 2)


def test_a_path_that_steps_back_through_a_name_not_there_or_a_file_is_left_to_the_model():
    """`cat nope/../README.md`, `ls README.md/..`, `mkdir -p nope/../y`: the kernel walks a path name by
    name, so `nope/..` is refused where `nope` is missing or a file ("No such file or directory", "Not a
    directory"), and `mkdir -p` makes `nope` on its way. The rules read paths as normpath does, which drops
    the pair unseen: each of these was answered, confidently wrong (the file's text, the folder's
    listing, a line's count; after `mkdir -p`, a listing without `nope`). Now the model's, and what such a
    line may have written is forgotten (a line that only reads leaves the state as it was); a path that
    steps back through folders the state holds is the state's as before."""
    lines = ["cat nope/../README.md", "ls nope/..", "cat README.md/../README.md", "ls src/notes.py/..",
             "wc -l nope/../README.md", "head -1 nope/../README.md", "ls", "touch nope/../x", "mkdir -p nope/../y",
             "ls", "cat src/../README.md | head -1", "cd src/../tests", "ls ../src/..", "cat ../README.md/.",
             "sed 's/../x/' ../tests/test_notes.py | head -1"]
    seen = side_by_side(lines)
    answered = [c for c, s, _ in seen if s is not None]
    assert answered == ["ls", "cat src/../README.md | head -1", "cd src/../tests",  # (`ls` after the reads: they
                        "sed 's/../x/' ../tests/test_notes.py | head -1"]  # only read; after mkdir: the model's)
