"""Fixtures for the core: a toy method plugin and fake installed distributions."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import interp
from interp.testing import registered


def _toy_run(data, ctx, *, scale=1.0, label="toy", center=True):
    """Predict the mean; report it so tests can check options reached the method."""
    y = data.y.astype(float) if data.y.dtype.kind not in "OUS" else (data.y == data.classes[-1]).astype(float)
    mean = float(y.mean()) * scale
    return interp.Explanation(
        params={"scale": scale, "label": label, "center": center, "seed": ctx.seed},
        metrics={"mean": mean, "n": data.n_samples},
        payload={"features": list(data.feature_names)},
        text=f"{label}: mean {mean:.3f}",
    )


class ToyPlugin:
    @interp.hookimpl
    def register_methods(self, register):
        register(
            interp.Method(
                name="toy",
                summary="Predict the mean of the target.",
                run=_toy_run,
                options=(
                    interp.Option("scale", float, 1.0, "multiply the mean"),
                    interp.Option("label", str, "toy", "label in the text", choices=("toy", "other")),
                    interp.Option("center", bool, True, "a flag"),
                ),
                explains_model=True,
            )
        )
        register(interp.Method(name="toyclf", summary="Needs classes.", run=_toy_run, task="classification"))


@pytest.fixture
def toy_plugin():
    with registered(ToyPlugin(), "toy") as info:
        yield info


@pytest.fixture
def install_fake(tmp_path, monkeypatch):
    """Install a fake distribution: modules on sys.path and an entry point in group interp."""

    def install(dist: str, entry_points: dict[str, str], modules: dict[str, str] | None = None,
                version: str = "1.0", extra_path: Path | None = None) -> Path:
        root = tmp_path / dist
        root.mkdir()
        for module, code in (modules or {}).items():
            (root / f"{module}.py").write_text(textwrap.dedent(code))
        info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
        lines = "\n".join(f"{k} = {v}" for k, v in entry_points.items())
        (info / "entry_points.txt").write_text(f"[interp]\n{lines}\n")
        monkeypatch.syspath_prepend(str(root))
        if extra_path is not None:
            monkeypatch.syspath_prepend(str(extra_path))
        interp.registry.reset()
        return root

    yield install
    for name in [m for m in sys.modules if m.startswith(("fake_", "interp_example_plugin"))]:
        del sys.modules[name]


@pytest.fixture
def csv_file(tmp_path):
    def write(text: str, name: str = "data.csv") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).lstrip())
        return path

    return write


@pytest.fixture
def rng():
    return np.random.default_rng(0)
