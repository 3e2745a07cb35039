"""Saved runs: a folder with explanation.json, the plots (PNG) and the fitted estimator (joblib).

A run folder is written completely or not at all: everything goes into a hidden folder beside
it, which takes the run folder's name only once every file is written.  The folder is checked
before a method runs (``check_run_folder``), so that a run that cannot be saved is refused
before the work, not after it.

interp replaces only what it wrote: each run folder holds a marker file, ``.interp-run``, that
names the files of the run; a folder is replaced only when it holds that marker and nothing
the marker does not name.  A report folder is marked the same way (``.interp-report``).  Any
other folder that is not empty is refused, so ``--out`` never deletes a user's files.
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
RUN_MARKER = ".interp-run"
REPORT_MARKER = ".interp-report"
REPORT_PAGE = "report.html"
_MARKER_HEADERS = {RUN_MARKER: "interp run folder, format 1", REPORT_MARKER: "interp report folder, format 1"}
_MARKER_MAX_BYTES = 65536


class VersionWarning(UserWarning):
    """A saved estimator was written by another version of interp."""


def marked_names(folder: Path, marker: str) -> set[str] | None:
    """The names the marker file ``marker`` in ``folder`` lists, or None when there is no valid
    marker (missing, a link, too long, or without its header line)."""
    path = folder / marker
    if path.is_symlink() or not path.is_file() or path.stat().st_size > _MARKER_MAX_BYTES:
        return None
    try:
        header, *names = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return set(names) if header == _MARKER_HEADERS[marker] else None


def write_marker(folder: Path, marker: str, names: list[str]) -> None:
    """Mark ``folder`` as interp's, its files ``names`` (see ``marked_names``)."""
    (folder / marker).write_text("\n".join([_MARKER_HEADERS[marker], *names]) + "\n", encoding="utf-8")


def _refusal(out: Path, entries: list[Path]) -> str:
    """Why the non-empty folder ``out``, which interp did not mark as a run, is not replaced."""
    where = f"cannot save the run in {str(out)!r}"
    if any(p.name == EXPLANATION_FILE for p in entries):
        return (f"{where}: it holds an explanation.json but no {RUN_MARKER} marker, so interp did not write it "
                "or an older interp did (give another folder, or delete this one yourself)")
    return f"{where}: the folder holds {entries[0].name!r}, which interp did not write (give a new or empty folder)"


def check_run_folder(out_dir: str | Path) -> Path:
    """``out_dir`` as a folder a run can be saved in, or an ``InputError`` that says why not.

    It may be missing (it is made, with its parents), empty, or a run interp saved, marked as
    such and holding nothing else (it is replaced as a whole); a file, any other folder, or a
    place that cannot be written is refused.  Nothing is left behind by the check.
    """
    out = Path(out_dir)
    here = Path.cwd().resolve()
    if out.resolve() in (here, *here.parents):
        raise InputError(f"cannot save the run in {str(out)!r}: it holds the current folder (give a new folder)")
    if out.is_dir():
        entries = sorted(out.iterdir())
        marked = marked_names(out, RUN_MARKER)
        if marked is None and entries:
            raise InputError(_refusal(out, entries))
        foreign = [p.name for p in entries if p.name != RUN_MARKER
                   and (p.name not in (marked or ()) or p.is_symlink() or not p.is_file())]
        if foreign:
            raise InputError(f"cannot save the run in {str(out)!r}: the folder holds {foreign[0]!r}, which interp "
                             "did not write (move it away, or give another folder)")
    check_writable(out.parent, f"cannot save the run in {str(out)!r}")
    if out.exists() and not out.is_dir():
        raise InputError(f"cannot save the run in {str(out)!r}: it is a file, not a folder")
    return out


def check_report_folder(out_dir: str | Path, runs: list[str]) -> Path:
    """``out_dir`` as a folder a report (its page and a run folder per name in ``runs``) can be
    written in, or an ``InputError``: it may be missing, empty, or a report interp wrote."""
    out = Path(out_dir)
    where = f"cannot write the report in {str(out)!r}"
    if out.exists() and not out.is_dir():
        raise InputError(f"{where}: it is a file, not a folder")
    if out.is_dir() and any(out.iterdir()) and marked_names(out, REPORT_MARKER) is None:
        raise InputError(f"{where}: the folder is not empty and holds no {REPORT_MARKER} marker, so interp did "
                         "not write it (give another folder, or delete this one yourself)")
    check_writable(out, where)
    for name in runs:
        check_run_folder(out / name)
    return out


def mark_report_folder(out_dir: str | Path) -> None:
    """Make ``out_dir`` (checked with ``check_report_folder``) and mark it as a report folder."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_marker(out, REPORT_MARKER, [REPORT_PAGE])


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
    write_marker(folder, RUN_MARKER, names)
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
