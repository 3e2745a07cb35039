"""``interp new-plugin``: write an installable plugin package from the templates shipped with interp.

The templates are package data (``interp/templates``, read with ``importlib.resources``), so a pip
user has them without a source checkout.  They are rendered with ``string.Template`` (``$name``
placeholders, ``$$`` for a literal dollar): no template engine, no dependency.  Each kind of
plugin is a few files: the shared ``pyproject.toml`` (with the entry point), ``README.md``,
``__init__.py`` and a GitHub Actions workflow running the tests, and the kind's own modules and test, which runs the ``interp.testing`` checker the
built-in components pass.  Every file is rendered before the first is written, so a failure never
leaves half a package behind.
"""

from __future__ import annotations

import keyword
import re
from importlib import resources
from pathlib import Path
from string import Template

import attrs

from .errors import InputError

__all__ = ["KINDS", "Kind", "ScaffoldPlan", "new_plugin", "plan_plugin", "check_name"]

#: a plugin name: lowercase words of letters and digits joined by single underscores
NAME_PATTERN = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
MAX_NAME = 40


@attrs.frozen
class Kind:
    """One kind of plugin: what it registers and the templates (template -> path) it adds to
    the shared files.  ``catalogue`` is the ``interp.Plugin`` attribute (and registry
    catalogue) its component goes to, empty for a method's ``methods`` or a library's own."""

    name: str
    summary: str
    files: tuple[tuple[str, str], ...]
    catalogue: str = ""
    label: str = ""


_COMPONENT_FILES = (("component_plugin.py", "src/$package/plugin.py"),)
_SHARED_FILES = (("pyproject.toml", "pyproject.toml"), ("README.md", "README.md"),
                 ("__init__.py", "src/$package/__init__.py"), ("ci/tests.yml", ".github/workflows/tests.yml"))


def _component(name: str, summary: str, catalogue: str, label: str) -> Kind:
    files = _COMPONENT_FILES + ((f"{name}/components.py", "src/$package/components.py"),
                                (f"{name}/test.py", "tests/test_$name.py"))
    return Kind(name, summary, files, catalogue, label)


KINDS: dict[str, Kind] = {kind.name: kind for kind in (
    _component("family", "a ridge family for Symbolic Pursuit", "ridge_families", "ridge family"),
    _component("penalty", "a penalty for the Facets score cards", "penalties", "penalty"),
    _component("operator", "a logical operator for propositional kernels", "kernel_operators", "kernel operator"),
    _component("embedding", "an embedding for Feature Vectors", "embeddings", "embedding"),
    Kind("method", "a method for interp run", (("method/plugin.py", "src/$package/plugin.py"),
                                               ("method/method.py", "src/$package/method.py"),
                                               ("method/test.py", "tests/test_$name.py")), "methods", "method"),
    Kind("reader", "a tree reader for Feature Vectors: a plugin of a library's hook (register_tree_readers)",
         (("reader/plugin.py", "src/$package/plugin.py"), ("reader/components.py", "src/$package/components.py"),
          ("reader/test.py", "tests/test_$name.py"))),
    Kind("library", "a library with a hook, a component type and a catalogue of its own",
         (("library/hookspecs.py", "src/$package/hookspecs.py"),
          ("library/components.py", "src/$package/components.py"),
          ("library/plugin.py", "src/$package/plugin.py"),
          ("library/test.py", "tests/test_$name.py"))),
)}


@attrs.frozen
class ScaffoldPlan:
    """What ``new-plugin`` writes: the package folder and each file's path (relative) and text."""

    root: Path
    kind: Kind
    files: tuple[tuple[str, str], ...]


def check_name(name: str, kind: Kind, registry=None) -> None:
    """An ``InputError`` unless ``name`` makes a good plugin: an identifier of lowercase words,
    not already the name of an installed plugin or of a registered component of its kind
    (``registry``: the loaded one, or None to skip those two checks)."""
    if not (isinstance(name, str) and NAME_PATTERN.fullmatch(name)) or keyword.iskeyword(name):
        raise InputError(f"plugin name {name!r}: use lowercase letters and digits, words joined by single "
                         f"underscores, starting with a letter, not a Python keyword (e.g. dead_zone)")
    if len(name) > MAX_NAME:
        raise InputError(f"plugin name {name!r} has {len(name)} characters; at most {MAX_NAME}")
    if registry is None:
        return
    for info in registry.plugins:
        if info.name == name:
            raise InputError(f"a plugin named {name!r} is installed already ({info.source}); choose another name")
    if kind.catalogue and name in getattr(registry, kind.catalogue):
        owner = getattr(registry, kind.catalogue)[name].plugin
        article = "an" if kind.label[0] in "aeiou" else "a"
        raise InputError(f"{article} {kind.label} named {name!r} is registered already (plugin {owner!r}); "
                         f"choose another name")


def _variables(name: str, kind: Kind) -> dict[str, str]:
    from .version import __version__

    words = name.split("_")
    major_minor = ".".join(__version__.split(".")[:2])
    return {
        "name": name,
        "package": f"interp_{name}",
        "dist": "interp-" + "-".join(words),
        "Class": "".join(word.capitalize() for word in words),
        "CONSTANT": name.upper(),
        "kind": kind.name,
        "summary": kind.summary,
        "catalogue": kind.catalogue,
        "label": kind.label,
        "interp_requirement": f"interp>={major_minor}" if major_minor[:1].isdigit() else "interp",
    }


def _template(path: str) -> Template:
    return Template(resources.files("interp").joinpath("templates", path + ".tmpl").read_text(encoding="utf-8"))


def plan_plugin(name: str, kind: str, directory: str | Path = ".", registry=None) -> ScaffoldPlan:
    """Every file of the package ``interp-NAME`` of ``kind``, rendered, to be written in
    ``directory`` (checked: ``name`` with `check_name`, the package folder not there yet)."""
    if kind not in KINDS:
        raise InputError(f"unknown plugin kind {kind!r}; choose one of {', '.join(KINDS)}")
    spec = KINDS[kind]
    check_name(name, spec, registry)
    variables = _variables(name, spec)
    root = Path(directory) / variables["dist"]
    if root.exists():
        raise InputError(f"{str(root)!r} exists already: choose another --dir, or remove it")
    variables["kind_readme"] = _template(f"{kind}/README.part.md").substitute(variables).rstrip()
    files = tuple((Template(target).substitute(variables), _template(source).substitute(variables))
                  for source, target in _SHARED_FILES + spec.files)
    return ScaffoldPlan(root, spec, files)


def new_plugin(name: str, kind: str, directory: str | Path = ".", registry=None) -> ScaffoldPlan:
    """Write the package that `plan_plugin` plans; return the plan."""
    plan = plan_plugin(name, kind, directory, registry)
    for relative, text in plan.files:
        path = plan.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return plan
