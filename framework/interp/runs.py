"""Saved runs: a folder with explanation.json, the plots (PNG) and the fitted estimator (joblib).

A run folder is written completely or not at all: everything goes into a hidden folder beside
it, which takes the run folder's name only once every file is written.  The folder is checked
before a method runs (``check_run_folder``), so that a run that cannot be saved is refused
before the work, not after it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
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


def _is_run_file(path: Path) -> bool:
    return path.is_file() and (path.name in (EXPLANATION_FILE, ESTIMATOR_FILE) or path.suffix == ".png")


def check_run_folder(out_dir: str | Path) -> Path:
    """``out_dir`` as a folder a run can be saved in, or an ``InputError`` that says why not.

    It may be missing (it is made, with its parents), empty, or a saved run (replaced as a
    whole); a file, a folder holding anything else, or a place that cannot be written is
    refused.  Nothing is left behind by the check.
    """
    out = Path(out_dir)
    here = Path.cwd().resolve()
    if out.resolve() in (here, *here.parents):
        raise InputError(f"cannot save the run in {str(out)!r}: it holds the current folder (give a new folder)")
    if out.is_dir():
        foreign = [p.name for p in out.iterdir() if not _is_run_file(p)]
        if foreign:
            raise InputError(f"cannot save the run in {str(out)!r}: the folder holds {foreign[0]!r}, which is "
                             "not part of a saved run (give a new or empty folder)")
    check_writable(out.parent, f"cannot save the run in {str(out)!r}")
    if out.exists() and not out.is_dir():
        raise InputError(f"cannot save the run in {str(out)!r}: it is a file, not a folder")
    return out


def check_writable(folder: str | Path, context: str) -> None:
    """An ``InputError`` starting with ``context`` unless files can be made in ``folder`` (or,
    when it is missing, in the nearest folder above it that exists); nothing is left behind."""
    existing = Path(folder)
    while not existing.exists():
        existing = existing.parent
    try:
        tempfile.TemporaryDirectory(dir=existing).cleanup()
    except OSError as err:
        raise InputError(f"{context}: {err.strerror or err} ({str(existing)!r})") from None


def save_run(explanation: Explanation, out_dir: str | Path) -> list[Path]:
    """Write the explanation, its figures and its estimator into ``out_dir``; return the paths.

    The folder is replaced as a whole when every file is written (see ``check_run_folder``
    for what it may hold before); if anything fails, nothing of this run is left on disk.
    """
    out = check_run_folder(out_dir)
    made = [folder for folder in out.absolute().parents if not folder.exists()]  # innermost first
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.partial-"))
    try:
        names = _write_files(explanation, staging)
        _replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        for folder in made:
            folder.rmdir()
        raise
    return [out / name for name in names]


def _write_files(explanation: Explanation, folder: Path) -> list[str]:
    """Write the run's files into ``folder``; their names."""
    from .version import __version__
    from .plotting import save_png

    explanation.save(folder / EXPLANATION_FILE)
    names = [EXPLANATION_FILE]
    for name, figure in explanation.figures.items():
        save_png(figure, folder / f"{name}.png", dpi=110)
        names.append(f"{name}.png")
    if explanation.estimator is not None:
        joblib.dump(
            {"interp_version": __version__, "plugin": explanation.plugin, "estimator": explanation.estimator},
            folder / ESTIMATOR_FILE,
        )
        names.append(ESTIMATOR_FILE)
    return names


def _replace(staging: Path, out: Path) -> None:
    """Give the written folder ``staging`` the name ``out``, the previous run there removed."""
    if not out.exists():
        os.replace(staging, out)
        return
    previous = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.previous-"))
    os.replace(out, previous / "run")
    os.replace(staging, out)
    shutil.rmtree(previous, ignore_errors=True)


def load_run(run_dir: str | Path) -> Explanation:
    """The explanation saved in a run folder."""
    path = Path(run_dir) / EXPLANATION_FILE
    if not path.is_file():
        raise InputError(f"{str(run_dir)!r} is not a saved run: {EXPLANATION_FILE} not found")
    try:
        return Explanation.load(path)
    except (ValueError, RecursionError) as err:  # InputError, JSON and UTF-8 decoding errors are ValueErrors
        raise InputError(f"{str(path)!r} is not a saved explanation: {err}") from None


def load_estimator(run_dir: str | Path) -> Any:
    """The fitted estimator of a saved run (this unpickles: load only runs you trust).

    Warns with ``VersionWarning`` when the run was saved by another version of interp.
    """
    from .version import __version__

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
