"""Per-chapter execution keys: a chapter re-executes exactly when the package code it runs changed.

jupyter-cache (myst-nb's ``cache`` execution mode) keys a notebook on its code cells' source
and metadata and on its ``kernelspec``; it cannot see the ``rnndoc`` modules a chapter imports.
This extension closes the gap, without naming any module:

1. the import closure of a chapter is read from its code cells (``import rnndoc.x``,
   ``from rnndoc.x import y``, ``from rnndoc import x``), then from the imports inside those
   modules (absolute and relative, at any depth, including the packages a module lives in);
2. the closure's files are hashed and the hash is written into the chapter's ``kernelspec``
   (the one notebook metadata field jupyter-cache hashes), before myst-nb reads the notebook;
3. each file of the closure is noted as a dependency of the page, so Sphinx re-reads (and
   myst-nb re-executes) the page when one of them is newer than the page's last read.

A chapter that imports nothing of the package gets the same key whatever the package holds.
The library and Python versions are not part of this key: ``conf.py`` keys the whole cache
folder on them, so a change there still re-executes everything.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

#: The key's name in the notebook's ``kernelspec`` (taken out again of the downloadable notebooks).
KEY = "rnndoc_code_key"


def package_modules(package_dir: Path) -> dict[str, Path]:
    """Map every module of the package in ``package_dir`` to its file: ``{"pkg.sub.mod": path}``."""
    package_dir = Path(package_dir)
    modules = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _is_package(name: str, modules: Mapping[str, Path]) -> bool:
    return modules[name].name == "__init__.py"


def imported_names(source: str, module: str | None = None, is_package: bool = False) -> set[str]:
    """Every module name an import statement of ``source`` may load (at any depth in the code).

    ``from a import b`` yields both ``a`` and ``a.b`` (``b`` may be a submodule); relative
    imports are resolved against ``module``. String constants are included too, so that
    ``importlib.import_module("pkg.mod")`` counts. Unknown names are filtered out later.
    """
    # IPython magics and shell escapes are not Python: blank those lines, keep the rest.
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    tree = ast.parse("\n".join(lines))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the importing module's package
                if module is None:
                    continue
                parts = module.split(".")
                base_parts = parts if is_package else parts[:-1]
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
    return names


def closure(roots: Iterable[str], modules: Mapping[str, Path]) -> set[str]:
    """The package modules that importing ``roots`` executes: themselves, their parent
    packages and, recursively, everything they import."""
    todo = [name for name in roots if name in modules]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parent = name.rpartition(".")[0]
        if parent in modules:  # importing pkg.sub runs pkg/__init__.py first
            todo.append(parent)
        source = modules[name].read_text("utf-8")
        found = imported_names(source, module=name, is_package=_is_package(name, modules))
        todo.extend(found.intersection(modules))
    return seen


def code_key(names: Iterable[str], modules: Mapping[str, Path]) -> str:
    """A hash of the files of the given modules (their names and bytes, in sorted order)."""
    digest = hashlib.sha256()
    for name in sorted(names):
        digest.update(name.encode() + b"\0" + modules[name].read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def notebook_code(text: str) -> list[str]:
    """The code cells' sources of a MyST-NB Markdown notebook."""
    from myst_nb.core.read import read_myst_markdown_notebook  # noqa: PLC0415 (Sphinx-time only)
    from myst_parser.config.main import MdParserConfig  # noqa: PLC0415

    notebook = read_myst_markdown_notebook(text, config=MdParserConfig())
    return [cell.source for cell in notebook.cells if cell.cell_type == "code"]


def _yaml_char(char: str) -> str:
    """``char``, or its ``\\uXXXX`` escape where YAML would not read it back as itself."""
    code = ord(char)
    printable = code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xD7FF
    printable = printable or 0xE000 <= code <= 0xFFFD or code >= 0x10000
    printable = printable and code not in (0x2028, 0x2029)  # line and paragraph separators
    return char if printable else f"\\u{code:04x}"


def with_key(text: str, key: str) -> str:
    """``text`` with ``key`` added to the kernelspec of its YAML top matter.

    The top matter is rewritten as one line of JSON (valid YAML) padded with empty lines, so
    every line of the chapter keeps its number (warnings and the source map stay right).
    """
    import yaml  # noqa: PLC0415 (a dependency of myst-parser)

    lines = text.split("\n")
    end = next(i for i in range(1, len(lines)) if lines[i].startswith(("---", "...")))
    metadata = yaml.safe_load("\n".join(lines[1:end])) or {}
    metadata.setdefault("kernelspec", {})[KEY] = key
    # JSON is YAML, except that YAML reads \\uD800-style surrogate pairs as two characters: the
    # characters are written as they are, escaping only those YAML refuses or takes for breaks.
    line = "".join(map(_yaml_char, json.dumps(metadata, sort_keys=True, ensure_ascii=False)))
    header = [line] + [""] * (end - 2)
    return "\n".join([lines[0], *header, *lines[end:]])


def strip_key(notebook) -> None:
    """Take the key out of a notebook (the downloadable copies do not need it)."""
    notebook.metadata.get("kernelspec", {}).pop(KEY, None)


def _chapter_key(app, code_cells: Iterable[str]) -> str:
    """The chapter's key; notes each module of its closure as a dependency of the page."""
    modules = package_modules(Path(app.config.execution_keys_package))
    roots: set[str] = set()
    for cell in code_cells:
        roots |= imported_names(cell)
    names = closure(roots, modules)
    for name in sorted(names):
        app.env.note_dependency(str(modules[name]))
    return code_key(names, modules)


def _on_source_read(app, docname: str, source: list[str]) -> None:
    from myst_nb.core.read import is_myst_markdown_notebook  # noqa: PLC0415

    if not app.config.execution_keys_package:
        return
    text = source[0]
    if str(app.env.doc2path(docname)).endswith(".ipynb"):
        notebook = json.loads(text)
        cells = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                 for c in notebook["cells"] if c["cell_type"] == "code"]  # fmt: skip
        notebook.setdefault("metadata", {}).setdefault("kernelspec", {})[KEY] = _chapter_key(app, cells)
        source[0] = json.dumps(notebook)
    elif is_myst_markdown_notebook(text):
        source[0] = with_key(text, _chapter_key(app, notebook_code(text)))


def setup(app):
    """Register the ``source-read`` handler; ``execution_keys_package`` is the package's folder."""
    app.add_config_value("execution_keys_package", "", "env", types=[str])
    app.connect("source-read", _on_source_read)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


def chapter_closures(docs: Path, package_dir: Path) -> dict[str, list[str]]:
    """``{docname: [module, ...]}`` for every MyST-NB notebook page under ``docs``."""
    from myst_nb.core.read import is_myst_markdown_notebook  # noqa: PLC0415

    modules = package_modules(package_dir)
    found = {}
    for path in sorted(Path(docs).rglob("*.md")):
        if "_build" in path.relative_to(docs).parts:
            continue
        text = path.read_text("utf-8")
        if not is_myst_markdown_notebook(text):
            continue
        roots: set[str] = set()
        for cell in notebook_code(text):
            roots |= imported_names(cell)
        found[path.relative_to(docs).with_suffix("").as_posix()] = sorted(closure(roots, modules))
    return found


if __name__ == "__main__":  # python docs/_ext/execution_keys.py DOCS PACKAGE_DIR: the closures as JSON
    import sys

    print(json.dumps(chapter_closures(Path(sys.argv[1]), Path(sys.argv[2])), indent=1))
