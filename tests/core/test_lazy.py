"""Loading the plugins is cheap: the core and the plugins' packages import heavy modules on first use."""

import subprocess
import sys
import textwrap
import types

import pytest

from interp.lazy import lazy_exports

BUILTIN = ("symbolic", "facets", "featurevec", "propositional")


def test_listing_the_plugins_imports_no_estimator_library():
    """``interp plugins`` (and every ``interp run``) loads every plugin; neither they nor the
    core may pull in pandas, scikit-learn, matplotlib, sympy, mpmath or scipy (the Meijer G
    evaluator's scipy.special) only to register components."""
    code = textwrap.dedent("""
        import sys
        import interp
        registry = interp.get_registry()
        print(",".join(sorted(p.name for p in registry.plugins if p.status == "loaded")))
        print(",".join(m for m in ("pandas", "sklearn", "matplotlib", "sympy", "mpmath", "scipy")
                       if m in sys.modules))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded, heavy = out.stdout.splitlines()
    assert set(BUILTIN) <= set(loaded.split(","))
    assert heavy == ""


def test_the_plugins_listing_builds_every_catalogue_without_sympy_or_scipy():
    """``interp plugins`` lists what every plugin registered, the closed forms too: building that
    catalogue names the forms' scipy and sympy functions without importing them."""
    code = textwrap.dedent("""
        import sys
        from interp.cli import main
        sys.argv = ["interp", "plugins"]
        try:
            main()
        except SystemExit as done:
            assert not done.code, done.code
        print(",".join(m for m in ("sympy", "scipy", "mpmath") if m in sys.modules), file=sys.stderr)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "closed form" in out.stdout and "bessel_j0" in out.stdout
    assert out.stderr.strip() == ""


@pytest.mark.parametrize("plugin", BUILTIN)
def test_every_public_name_of_a_plugin_resolves(plugin):
    package = __import__(f"interp_{plugin}")
    for name in package.__all__:
        assert getattr(package, name) is not None, name
        assert name in dir(package)
    with pytest.raises(AttributeError, match=f"interp_{plugin}' has no attribute 'nope'"):
        package.nope


def test_lazy_exports_imports_on_first_use_and_keeps_the_value(monkeypatch):
    package = types.ModuleType("lazy_probe")
    monkeypatch.setitem(sys.modules, "lazy_probe", package)
    package.__getattr__, package.__dir__, package.__all__ = lazy_exports(
        "lazy_probe", {"textwrap": ["dedent"], "json": ["dumps", "loads"]})
    assert package.__all__ == ["dedent", "dumps", "loads"]
    assert "dedent" not in vars(package)
    assert package.dedent is textwrap.dedent
    assert vars(package)["dedent"] is textwrap.dedent  # kept: the next lookup is a plain one
    assert {"dedent", "dumps", "loads"} <= set(dir(package))
