"""Saved runs: a folder with explanation.json, the plots (PNG) and the fitted estimator (joblib)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import joblib

from .errors import InputError
from .results import Explanation

EXPLANATION_FILE = "explanation.json"
ESTIMATOR_FILE = "estimator.joblib"


class VersionWarning(UserWarning):
    """A saved estimator was written by another version of interp."""


def save_run(explanation: Explanation, out_dir: str | Path) -> list[Path]:
    """Write the explanation, its figures and its estimator into ``out_dir``; return the paths."""
    from . import __version__

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = [explanation.save(out / EXPLANATION_FILE)]
    for name, figure in explanation.figures.items():
        path = out / f"{name}.png"
        figure.savefig(path, dpi=110, bbox_inches="tight")
        written.append(path)
    if explanation.estimator is not None:
        path = out / ESTIMATOR_FILE
        joblib.dump(
            {"interp_version": __version__, "plugin": explanation.plugin, "estimator": explanation.estimator},
            path,
        )
        written.append(path)
    return written


def load_run(run_dir: str | Path) -> Explanation:
    """The explanation saved in a run folder."""
    path = Path(run_dir) / EXPLANATION_FILE
    if not path.is_file():
        raise InputError(f"{str(run_dir)!r} is not a saved run: {EXPLANATION_FILE} not found")
    try:
        return Explanation.load(path)
    except (ValueError, KeyError) as err:
        raise InputError(f"{str(path)!r} is not a valid explanation: {err}") from None


def load_estimator(run_dir: str | Path) -> Any:
    """The fitted estimator of a saved run (this unpickles: load only runs you trust).

    Warns with ``VersionWarning`` when the run was saved by another version of interp.
    """
    from . import __version__

    path = Path(run_dir) / ESTIMATOR_FILE
    if not path.is_file():
        raise InputError(f"no saved estimator in {str(run_dir)!r}")
    saved = joblib.load(path)
    if not isinstance(saved, dict) or "estimator" not in saved:
        raise InputError(f"{str(path)!r} was not written by interp")
    if saved.get("interp_version") != __version__:
        warnings.warn(
            f"{path} was saved by interp {saved.get('interp_version')}, this is {__version__}: "
            "results may differ; refit to be sure",
            VersionWarning,
            stacklevel=2,
        )
    return saved["estimator"]
