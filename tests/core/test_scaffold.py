"""`interp new-plugin` writes installable packages whose own tests pass once installed.

The fast tests render every kind and check the names and folders it refuses.  The slow one does
what a plugin author does with each of the six kinds: generate it, install it (a real wheel
build with pip) in a fresh virtual environment, run the tests it ships and see it loaded in
`interp plugins`.  To stay quick (about 40 s on 2 cores) that environment is a venv without pip
whose site-packages point at this test environment's (a .pth file), so interp and its
dependencies are not downloaded again, and the six packages are installed with
``--no-deps --no-build-isolation`` in one pip call.
"""

import ast
import fnmatch
import json
import os
import site
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest
import yaml

import interp
from interp.errors import InputError
from interp.scaffold import KINDS, check_name, new_plugin, plan_plugin

ROOT = Path(__file__).parents[2]
TEMPLATES = ROOT / "framework" / "interp" / "templates"


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_renders_to_python_that_parses_and_a_pyproject_with_its_entry_point(kind, tmp_path):
    plan = plan_plugin("dead_zone", kind, tmp_path)
    files = dict(plan.files)
    assert plan.root == tmp_path / "interp-dead-zone" and not plan.root.exists()  # planned, not written
    assert {"pyproject.toml", "README.md", "src/interp_dead_zone/__init__.py", "src/interp_dead_zone/plugin.py",
            "tests/test_dead_zone.py"} <= set(files)
    for path, text in files.items():
        assert "$" not in text.replace("${{ matrix.", ""), path  # every placeholder substituted (not GitHub's)
        if path.endswith(".py"):
            ast.parse(text, filename=path)
    project = tomllib.loads(files["pyproject.toml"])["project"]
    assert project["name"] == "interp-dead-zone"
    assert project["entry-points"]["interp"] == {"dead_zone": "interp_dead_zone.plugin:DeadZonePlugin"}
    assert "## What to edit" in files["README.md"] and "interp new-plugin dead_zone --kind " + kind in files["README.md"]
    workflow = yaml.safe_load(files[".github/workflows/tests.yml"])  # CI: its tests, strict about plugins
    steps = workflow["jobs"]["test"]["steps"]
    assert steps[-2]["run"] == 'python -m pip install -e ".[test]"' and steps[-1]["run"] == "python -m pytest"
    assert steps[-1]["env"] == {"INTERP_STRICT_PLUGINS": "1"}
    assert steps[1]["with"]["python-version"] == "${{ matrix.python-version }}"


def test_the_package_is_written_where_asked_and_listed(run, tmp_path):
    result = run("new-plugin", "dead_zone", "--kind", "penalty", "--dir", tmp_path / "plugins")
    assert result.exit_code == 0, result.output
    root = tmp_path / "plugins" / "interp-dead-zone"
    written = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    assert written == [".github/workflows/tests.yml", "README.md", "pyproject.toml", "src/interp_dead_zone/__init__.py",
                       "src/interp_dead_zone/components.py", "src/interp_dead_zone/plugin.py",
                       "tests/test_dead_zone.py"]
    assert all(f"    {name}" in result.output for name in written)


@pytest.mark.parametrize("name", ["Dead", "dead-zone", "9lives", "_private", "dead__zone", "dead_", "class",
                                  "dé", "a;rm -rf", "<b>x</b>", "x" * 41, ""])
def test_a_bad_name_is_refused_in_one_line(run, tmp_path, name):
    result = run("new-plugin", name, "--kind", "method", "--dir", tmp_path)
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert result.output.startswith("Error: plugin name ")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("name, kind, message", [
    ("facets", "penalty", "a plugin named 'facets' is installed already (built-in)"),
    ("l1", "penalty", "a penalty named 'l1' is registered already (plugin 'facets')"),
    ("svd", "embedding", "an embedding named 'svd' is registered already (plugin 'featurevec')"),
    ("symbolic", "method", "a plugin named 'symbolic' is installed already"),
])
def test_a_name_that_is_taken_is_refused(name, kind, message):
    with pytest.raises(InputError) as info:
        check_name(name, KINDS[kind], interp.get_registry())
    assert str(info.value).startswith(message) and str(info.value).endswith("; choose another name")


def test_an_existing_folder_and_an_unknown_kind_are_refused(run, tmp_path):
    (tmp_path / "interp-dead-zone").mkdir()
    result = run("new-plugin", "dead_zone", "--kind", "family", "--dir", tmp_path)
    assert result.exit_code == 2 and "interp-dead-zone' exists already" in result.output
    assert not any((tmp_path / "interp-dead-zone").iterdir())
    with pytest.raises(InputError, match="unknown plugin kind 'widget'; choose one of family, penalty"):
        plan_plugin("dead_zone", "widget", tmp_path)


def test_every_template_is_package_data():
    """A pip install (not editable) ships only what package-data names."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["interp"]
    templates = [str(p.relative_to(TEMPLATES.parent)) for p in TEMPLATES.rglob("*") if p.is_file()]
    assert templates and all(any(fnmatch.fnmatch(t, pattern) for pattern in patterns) for t in templates)
    used = {source for kind in KINDS.values() for source, _ in kind.files}
    used |= {"pyproject.toml", "README.md", "__init__.py", "ci/tests.yml"} | {f"{k}/README.part.md" for k in KINDS}
    assert {t.removeprefix("templates/").removesuffix(".tmpl") for t in templates} == used


def _fresh_environment(folder: Path) -> Path:
    """A new venv (no pip of its own) that also sees this environment's packages; its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    parents = site.getsitepackages() + [sysconfig.get_paths()["purelib"]]
    lines = "".join(f"import site; site.addsitedir({p!r})\n" for p in dict.fromkeys(parents))
    Path(purelib, "_test_environment.pth").write_text(lines)
    return python


def rows_of(listing: subprocess.CompletedProcess) -> dict:
    """The rows of ``interp plugins --json`` by plugin name."""
    assert listing.returncode == 0, listing.stderr
    return {row["name"]: row for row in json.loads(listing.stdout)}


def _run(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("INTERP_DISABLE_PLUGINS", "PYTHONPATH")}
    env["INTERP_STRICT_PLUGINS"] = "1"
    return subprocess.run([str(python), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


ANOTHER_RENDERER = """
import interp
from interp_made_library.components import Renderer


class Ascii(Renderer):
    name = "ascii"

    def render(self, explanation):
        return explanation.method


class Plugin:
    @interp.hookimpl
    def register_made_library_renderers(self, register):
        register(Ascii())
"""


def _another_package(folder: Path) -> Path:
    """A package of someone else that plugs into the library scaffold's hook (the scaffolds'
    own tests must pass with it installed)."""
    (folder / "another_renderer").mkdir(parents=True)
    (folder / "another_renderer" / "__init__.py").write_text(ANOTHER_RENDERER)
    (folder / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "another-renderer"\nversion = "0.1"\n'
        '[project.entry-points.interp]\nanother = "another_renderer:Plugin"\n')
    return folder


@pytest.mark.slow
def test_each_kind_installs_in_a_fresh_environment_passes_its_tests_and_is_listed(tmp_path):
    names = {kind: f"made_{kind}" for kind in KINDS}
    roots = [new_plugin(name, kind, tmp_path, registry=interp.get_registry()).root for kind, name in names.items()]
    roots.append(_another_package(tmp_path / "another"))
    python = _fresh_environment(tmp_path / "venv")
    installed = _run(python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                     *map(str, roots), cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr[-3000:]
    tests = _run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *(str(r / "tests") for r in roots[:-1]),
                 cwd=tmp_path)
    assert tests.returncode == 0, tests.stdout[-5000:]
    shipped = sum((r / "tests" / f"test_{name}.py").read_text().count("\ndef test_") for r, name in
                  zip(roots, names.values()))
    assert rows_of(_run(python, "-m", "interp.cli", "plugins", "--json", cwd=tmp_path))["another"]["registered"] == \
        {"made_library_renderers": ["ascii"]}  # it did plug into the library while the tests ran
    assert f"{shipped} passed" in tests.stdout and shipped >= 4 * len(KINDS)
    rows = rows_of(_run(python, "-m", "interp.cli", "plugins", "--json", cwd=tmp_path))
    for kind, name in names.items():
        assert rows[name]["status"] == "loaded" and rows[name]["source"] == "interp-" + name.replace("_", "-")
        catalogue = KINDS[kind].catalogue
        if catalogue:
            assert rows[name]["registered"] == {catalogue: [name]}
    # the same packages are not visible to this test environment: the fresh one is its own
    assert "made_method" not in interp.get_registry().methods
