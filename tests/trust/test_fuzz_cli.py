"""A fuzz test of the command line: hostile CSVs (names and values from HTML, TeX, control
characters, long and empty strings, duplicates, unicode) through every method and ``interp
report``.  Whatever the file, the command exits 0 or 2, says what is wrong in one line, never
shows a traceback or a raw control character, and the report passes ``interp.markup.audit``.

Bounded for CI: a few dozen rows, the methods' fast options, a fixed number of examples
(derandomised under CI by ``tests/conftest.py``).
"""

import csv
import tempfile
from pathlib import Path

import numpy as np
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from interp.cli import cli

from .hostile import HOSTILE, METHODS, check_output, check_page, fast_reports, flags

ROWS = 16
#: unicode without surrogates (a file holds none); controls, format characters and the rest
CHARACTERS = st.characters(blacklist_categories=("Cs",))
TEXT = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(CHARACTERS, max_size=12),
    st.text(st.sampled_from("<>&\"'$\\%#_{}^~ \t\n\r\x00\x07\x1b\x7f\x9b\u202e"), min_size=1, max_size=8),
    st.sampled_from(["", " ", "x" * 300, "名前", "ümlaut", "0", "1.5", "nan", "-inf", "True"]),
)


@st.composite
def columns(draw, name):
    """One column: numbers (from a drawn seed, so that drawing stays cheap) or a few text levels."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if draw(st.booleans()):
        return name, list(rng.normal(size=ROWS).round(3))
    levels = draw(st.lists(TEXT, min_size=1, max_size=3))
    return name, [levels[i] for i in rng.integers(0, len(levels), ROWS)]


@st.composite
def hostile_csvs(draw):
    """The rows of a CSV file (header first) and the name of its target column."""
    names = draw(st.lists(TEXT, min_size=1, max_size=4))
    target = draw(st.one_of(TEXT, st.sampled_from(names)))
    features = [draw(columns(name)) for name in names]
    labels = draw(st.one_of(st.just(["0", "1"]), st.lists(TEXT, min_size=2, max_size=3, unique=True)))
    column = [labels[i % len(labels)] for i in range(ROWS)]
    table = [*features, (target, column)]
    header = [name for name, _ in table]
    return [header, *zip(*(values for _, values in table))], target


def _write(rows, folder: Path) -> Path:
    path = folder / "data.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, quoting=csv.QUOTE_MINIMAL).writerows(rows)
    return path


@settings(max_examples=24, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(table=hostile_csvs(), command=st.sampled_from([*METHODS, "report"]))
def test_any_csv_through_any_command_fails_cleanly_or_runs(table, command):
    rows, target = table
    with tempfile.TemporaryDirectory() as folder:
        data = _write(rows, Path(folder))
        args = ["--data", str(data), "--target", target, "--quiet", "--out", str(Path(folder) / "out")]
        if command == "report":
            with fast_reports():
                result = CliRunner().invoke(cli, ["report", *args])
        else:
            result = CliRunner().invoke(cli, ["run", "--plugin", command, *args, *flags(command)])
        check_output(result)
        if command == "report" and (Path(folder) / "out" / "report.html").exists():
            check_page(Path(folder) / "out" / "report.html")
