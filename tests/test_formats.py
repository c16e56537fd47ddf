
import pytest

from mcp_world.domain import load_domain
from mcp_world.rules import Call, FormatError, exit_code_for

from .helpers import domain_code

next_cwd = domain_code("terminal", "output").next_cwd


def term(raw, command="ls", state=None, truncated=False):
    state = state or {"cwd": "/home/user/app", "home": "/home/user"}
    return load_domain("terminal").rules.parse(raw, Call("run_command", {"command": command}, state, truncated))


def test_terminal_output_is_kept_verbatim_with_exit_code_and_cwd():
    p = term("README.md\nsrc\n")
    assert p.text == "README.md\nsrc\n"
    assert p.structured == {"output": "README.md\nsrc\n", "exit_code": 0, "cwd": "/home/user/app"}


def test_terminal_empty_output_stays_empty():
    assert term("", "mkdir build").text == ""


def test_terminal_strips_fences_and_echoed_prompt_lines():
    assert term("```\n$ ls\na\n```").text == "a\n"


def test_terminal_rejects_an_explanation_instead_of_output():
    with pytest.raises(FormatError, match="explains"):
        term("This command lists the contents of the directory.")


def test_terminal_rejects_degenerate_repetition_when_cut_at_max_tokens():
    with pytest.raises(FormatError, match="repetition"):
        term("x\n" + "-pipenv-pip\n" * 40, truncated=True)


@pytest.mark.parametrize("out, code", [
    ("cat: x: No such file or directory\n", 1), ("bash: foo: command not found\n", 127),
    ("fatal: not a git repository\n", 128), ("hello\n", 0), ("", 0),
])
def test_exit_codes_follow_the_output(out, code):
    assert exit_code_for(out) == code


@pytest.mark.parametrize("cmd, cwd, expected", [
    ("cd src", "/home/user/app", "/home/user/app/src"),
    ("cd .. && ls", "/home/user/app", "/home/user"),
    ("cd", "/tmp", "/home/user"),
    ("cd ~/x", "/tmp", "/home/user/x"),
    ("cd /etc; cd ../var", "/", "/var"),
    ("ls", "/tmp", "/tmp"),
])
def test_cwd_follows_cd(cmd, cwd, expected):
    assert next_cwd(cmd, cwd, "/home/user", 0) == expected


def test_html_documents_parse_with_url_status_and_title():
    fmt = load_domain("browser").rules
    call = Call("browser_navigate", {"url": "https://shop.example/"}, {})
    raw = fmt.prefill(call) + "<title>Shop</title></head><body><h1>Hi</h1></body></html>"
    p = fmt.parse(raw, call)
    assert p.structured == {"url": "https://shop.example/", "status": 200, "title": "Shop"}
    assert p.text.startswith("<!DOCTYPE html>")


def test_html_clicks_take_the_url_from_the_canonical_link_and_404_titles_set_status():
    fmt = load_domain("browser").rules
    call = Call("browser_click", {"target": "x"}, {"url": "https://a.example/"})
    p = fmt.parse(fmt.prefill(call) + 'https://a.example/missing"><title>404 Not Found</title></head><body>nope</body></html>', call)
    assert p.structured["url"] == "https://a.example/missing" and p.structured["status"] == 404


def test_html_without_a_body_is_rejected():
    fmt = load_domain("browser").rules
    with pytest.raises(FormatError, match="body"):
        fmt.parse("I cannot show that page.", Call("browser_snapshot", {}, {}))


def test_truncated_html_is_closed_and_marked_repaired():
    fmt = load_domain("browser").rules
    call = Call("browser_navigate", {"url": "https://a.example/"}, {}, truncated=True)
    p = fmt.parse(fmt.prefill(call) + "<title>A</title></head><body><ul><li>one", call)
    assert p.repaired and p.text.rstrip().endswith("</html>")


def test_the_shipped_android_demonstrations_are_valid_dumps():
    fmt = load_domain("android").rules
    for d in load_domain("android").demonstrations:
        p = fmt.parse(d.observation, Call(d.tool, d.arguments, {}))
        assert p.structured["package"] == "com.android.settings" and p.structured["node_count"] > 3


def test_android_dumps_need_nodes_with_class_and_bounds():
    fmt = load_domain("android").rules
    call = Call("android_dump_ui", {}, {})
    with pytest.raises(FormatError, match="bounds"):
        fmt.parse("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
                  '<node class="a" bounds="wide"/></hierarchy>', call)
    with pytest.raises(FormatError, match="not well-formed"):
        fmt.parse("<?xml version='1.0' ?><hierarchy><node", call)
    with pytest.raises(FormatError, match="hierarchy"):
        fmt.parse("<?xml version='1.0' ?><screen/>", call)


def test_a_dump_cut_at_max_tokens_loses_only_the_unfinished_node():
    fmt = load_domain("android").rules
    node = ('<node index="0" text="" resource-id="" class="a.B" package="p" content-desc="" checkable="false" checked="false" '
            'clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" '
            'password="false" selected="false" bounds="[0,0][10,10]"')
    raw = fmt.prefill(Call("android_dump_ui", {}, {})) + node + ">" + node + " />" + '<node index="2" text="half'
    p = fmt.parse(raw, Call("android_dump_ui", {}, {}, truncated=True))
    assert p.repaired and p.structured["node_count"] == 2 and p.text.endswith("</hierarchy>")
    with pytest.raises(FormatError):
        fmt.parse(raw, Call("android_dump_ui", {}, {}, truncated=False))
