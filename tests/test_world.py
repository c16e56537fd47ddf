from pathlib import Path

import pytest

from mcp_world.domain import domain_names, load_domain
from mcp_world.errors import WorldFileError
from mcp_world.paths import DOMAINS_DIR
from mcp_world.world import available_worlds, load_world


def test_every_shipped_world_loads_and_the_required_ones_exist():
    names = available_worlds()
    assert {"devbox", "webshop", "phone", "office"} <= set(names)
    for name in names:
        assert load_world(name).name == name
    assert set(load_world("office").domains) == {"terminal", "browser", "android"}


def test_registered_domains_are_exactly_the_domain_folders():
    folders = sorted(p.name for p in DOMAINS_DIR.iterdir() if p.is_dir() and not p.name.startswith("_"))
    assert domain_names() == folders
    for name in folders:
        d = load_domain(name)
        assert d.system_prompt, name
        # The mcp domain's tools and demonstrations come from each world (declared or recorded).
        assert name == "mcp" or (d.tools and d.demonstrations), name


def test_domain_tools_carry_annotations_that_match_the_real_tool():
    term = load_domain("terminal").tool("run_command")
    assert term.annotations["destructiveHint"] is True and term.annotations["openWorldHint"] is True
    dump = load_domain("android").tool("android_dump_ui")
    assert dump.annotations["readOnlyHint"] is True


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "w.yaml"
    p.write_text(text)
    return p


@pytest.mark.parametrize("text, expected", [
    ("name: x\ndescription: y\ndomains: [terminal, spaceship]\n", "unknown domain(s) ['spaceship']; accepted"),
    ("name: x\ndomains: [terminal]\n", "description: required field is missing"),
    ("name: x\ndescription: y\ndomains: [terminal]\ncolour: red\n", "colour: unknown field; accepted fields: name"),
    ("name: x\ndescription: y\ndomains: []\n", "domains"),
    ("name: [unclosed\n", "is not valid YAML"),
    ("- just\n- a list\n", "must be a mapping"),
    ("name: x\ndescription: y\ndomains: [terminal]\nseed: {terminal: {cwd: /x, shell: zsh}}\n", "seed"),
])
def test_malformed_world_files_get_an_error_naming_the_field(tmp_path, text, expected):
    with pytest.raises(WorldFileError) as err:
        load_world(_write(tmp_path, text))
    assert expected in str(err.value)


def test_an_unknown_world_name_lists_the_shipped_worlds():
    with pytest.raises(WorldFileError, match="shipped worlds: desktop, devbox, helpdesk"):
        load_world("atlantis")


def test_a_seed_read_once_is_not_mistaken_for_another_that_took_its_id():
    """A world's copies share the cache of seeds read, keyed by the seed's id; an id is unique only
    while its object lives, so a seed collected after a verify run could hand its id to the next
    copy's, which then read the old files (the repository verify flake in test_shadow_repo.py)."""
    world = load_world("repo")
    raw = world.seed["swe"]
    copy = world.model_copy(update={"seed": {**world.seed, "swe": {**raw, "files": {**raw["files"], "x.py": "1\n"}}}})
    fresh = copy.seed["swe"]
    copy._seeds[("swe", id(fresh))] = ({"files": {}}, "what a collected seed of that id left")
    assert copy.seed_of("swe").files["x.py"] == "1\n"
    assert world.seed_of("swe") is world.seed_of("swe") and "x.py" not in world.seed_of("swe").files
