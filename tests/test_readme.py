"""README.md names every public module of the package, and the command line's judged checks."""

import importlib
import pkgutil
import re
from pathlib import Path

import rnndoc
from rnndoc.verdict import TOLERANCES

README = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")


def _public_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(rnndoc.__path__, "rnndoc."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            importlib.import_module(info.name)
            names.append(info.name.removeprefix("rnndoc."))
    return names


def test_the_module_list_names_every_public_module():
    listed = set(re.findall(r"`([a-z_]+(?:\.[a-z_]+)?)`", README))
    missing = [name for name in _public_modules() if name not in listed]
    assert not missing, f"README.md's module list lacks {missing}"


def test_the_command_line_section_names_every_judged_check():
    section = README.split("## The command line", 1)[1].split("\n## ", 1)[0]
    for name in TOLERANCES:
        assert f"`{name}`" in section, name
    assert "not judged" in section
