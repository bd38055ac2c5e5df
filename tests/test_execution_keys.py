"""The per-chapter execution keys of the book build (docs/_ext/execution_keys.py).

A chapter must re-execute exactly when a module in its import closure changes: these tests
build small packages on disk and check the closure, the key and the top-matter rewrite.
``nox -s buildtimes`` checks the same on the real book, with two builds.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "_ext"))

import execution_keys as ek  # docs/_ext is not a package: on the path above


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """pkg/{__init__, a, b, d, sub/__init__, sub/c}.py: c -> a -> b; d stands alone."""
    files = {
        "pkg/__init__.py": '"""The package."""\n',
        "pkg/a.py": "from .b import value\n",
        "pkg/b.py": "value = 1\n",
        "pkg/d.py": "import math\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/c.py": "def f():\n    from ..a import value  # imported where it is used\n    return value\n",
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "pkg"


def test_package_modules_names_every_file(package):
    modules = ek.package_modules(package)
    assert sorted(modules) == ["pkg", "pkg.a", "pkg.b", "pkg.d", "pkg.sub", "pkg.sub.c"]
    assert modules["pkg.sub"].name == "__init__.py"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import pkg.a", {"pkg.a"}),
        ("import pkg.a as alias", {"pkg.a"}),
        ("from pkg import a, b", {"pkg", "pkg.a", "pkg.b"}),
        ("from pkg.sub.c import f", {"pkg.sub.c", "pkg.sub.c.f"}),
        ("%matplotlib inline\nfrom pkg import d", {"pkg", "pkg.d"}),  # magics are not Python
        ("import importlib\nimportlib.import_module('pkg.b')", {"importlib", "pkg.b"}),
    ],
)
def test_imported_names(source, expected):
    assert ek.imported_names(source) == expected


def test_relative_imports_resolve_against_the_module():
    assert ek.imported_names("from .b import v", module="pkg.a") == {"pkg.b", "pkg.b.v"}
    assert ek.imported_names("from . import b", module="pkg.a") == {"pkg", "pkg.b"}
    assert ek.imported_names("from . import c", module="pkg.sub", is_package=True) == {"pkg.sub", "pkg.sub.c"}
    assert ek.imported_names("from ..a import v", module="pkg.sub.c") == {"pkg.a", "pkg.a.v"}


def test_closure_follows_imports_and_parent_packages(package):
    modules = ek.package_modules(package)
    assert ek.closure({"pkg.sub.c"}, modules) == {"pkg", "pkg.sub", "pkg.sub.c", "pkg.a", "pkg.b"}
    assert ek.closure({"pkg.d", "math"}, modules) == {"pkg", "pkg.d"}
    assert ek.closure({"numpy"}, modules) == set()


def test_key_changes_with_the_closure_only(package):
    modules = ek.package_modules(package)
    names = ek.closure({"pkg.sub.c"}, modules)
    before = ek.code_key(names, modules)
    (package / "d.py").write_text("import math  # edited, outside the closure\n")
    assert ek.code_key(names, modules) == before
    (package / "b.py").write_text("value = 2\n")  # inside, two imports away
    assert ek.code_key(names, modules) != before


CHAPTER = """---
file_format: mystnb
kernelspec:
  name: python3
  display_name: Python 3
---

# A chapter

```{code-cell} ipython3
from pkg import a
```
"""


def test_with_key_keeps_every_line_in_place():
    text = ek.with_key(CHAPTER, "0123abcd")
    assert text.count("\n") == CHAPTER.count("\n")
    assert text.splitlines()[6:] == CHAPTER.splitlines()[6:]
    metadata = yaml.safe_load("\n".join(text.splitlines()[1:5]))
    assert metadata["kernelspec"] == {"name": "python3", "display_name": "Python 3", ek.KEY: "0123abcd"}
    assert metadata["file_format"] == "mystnb"


_SCALARS = st.one_of(st.integers(), st.booleans(), st.text(min_size=1, max_size=12))


@example(extra={"a": "\u2028\x85\x7f\U00010000"}, key="0" * 16)  # YAML's breaks, refusals, surrogates
@given(
    extra=st.dictionaries(st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True), _SCALARS, max_size=4),
    key=st.from_regex(r"[0-9a-f]{16}", fullmatch=True),
)
def test_with_key_round_trips_any_top_matter(extra, key):
    metadata = {"file_format": "mystnb", "kernelspec": {"name": "python3", "display_name": "Python 3"}}
    metadata.update({name: value for name, value in extra.items() if name not in metadata})
    header = yaml.safe_dump(metadata, default_flow_style=False)
    chapter = f"---\n{header}---\n\n# Title\n"
    text = ek.with_key(chapter, key)
    assert text.count("\n") == chapter.count("\n")
    end = text.index("\n---\n")
    parsed = yaml.safe_load(text[4:end])
    assert parsed == {**metadata, "kernelspec": {**metadata["kernelspec"], ek.KEY: key}}


def test_strip_key_takes_it_out_again():
    class Notebook:
        metadata = {"kernelspec": {"name": "python3", ek.KEY: "0123"}}  # noqa: RUF012

    ek.strip_key(Notebook)
    assert Notebook.metadata == {"kernelspec": {"name": "python3"}}
