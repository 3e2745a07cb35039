"""Tabular input: CSV files, DataFrames, arrays and bundled data sets -> a validated Dataset.

Every bad-input error of the command line is raised here, once, as an ``InputError`` with one
line that names the problem.  Categorical columns are one-hot encoded with names such as
``color=red``; a missing categorical value (empty cell, ``?`` stays ``?``) is a level of its own,
``color=missing`` for empty cells.

pandas is imported when a table is read, not with this module: the registry and ``interp
plugins`` / ``--help`` need none of it.
"""

from __future__ import annotations

import csv
import sys
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Sequence

import attrs
import numpy as np

from .errors import InputError
from .preprocessing import MAX_CLASSES, ColumnLogic, infer_task

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Dataset", "load_dataset", "bundled_datasets", "check_finite", "columns_for_model", "MAX_CLASSES"]

#: A target that is integer-valued with at most this many distinct values is a class label.


@attrs.frozen(eq=False)
class BundledDataset:
    """A data set shipped inside the package (CSV + source note in ``interp/datasets``)."""

    name: str
    file: str
    target: str
    description: str
    source: str


BUNDLED = {
    d.name: d
    for d in (
        BundledDataset(
            "breast-cancer",
            "breast_cancer.csv",
            "malignant",
            "Wisconsin diagnostic breast cancer: 569 rows, 30 numeric features, binary target",
            "scikit-learn load_breast_cancer (BSD-3-Clause); UCI, CC BY 4.0",
        ),
        BundledDataset(
            "diabetes",
            "diabetes.csv",
            "progression",
            "Diabetes progression: 442 rows, 10 numeric features, numeric target",
            "scikit-learn load_diabetes, unscaled (BSD-3-Clause); Efron et al. 2004",
        ),
        BundledDataset(
            "house-votes-84",
            "house_votes_84.csv",
            "party",
            "1984 US Congress votes: 435 rows, 16 categorical y/n/? votes, party as target",
            "UCI Congressional Voting Records (CC BY 4.0), via gowriks12/Voting_data_analysis",
        ),
    )
}


def bundled_datasets() -> dict[str, BundledDataset]:
    """The data sets shipped with interp, by name."""
    return dict(BUNDLED)


@attrs.frozen(eq=False)
class Dataset:
    """Validated data: ``X`` (float64, n x d) with ``feature_names``, target ``y`` (n,).

    ``raw`` keeps the feature columns as read (before one-hot encoding) for methods that want
    their own encoding; ``categorical`` names the columns that were one-hot encoded and
    ``one_hot`` holds, for each, the indices of its level columns in ``X``.
    """

    X: np.ndarray
    y: np.ndarray | None
    feature_names: tuple[str, ...]
    target_name: str = "y"
    name: str = "data"
    raw: pd.DataFrame | None = None
    categorical: tuple[str, ...] = ()
    one_hot: tuple[tuple[int, ...], ...] = ()

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def task(self) -> str:
        """"classification" for text, boolean or small integer targets, else "regression"."""
        if self.y is None:
            raise InputError("this data set has no target")
        return infer_task(self.y)

    @property
    def classes(self) -> np.ndarray:
        return np.unique(self.y)

    def column_logic(self) -> ColumnLogic:
        """What the columns of ``X`` say of each other: the levels of a one-hot encoded column
        exclude each other, and one of them holds in every row (missing being a level of its own)."""
        return ColumnLogic(exclusive=tuple(g for g in self.one_hot if len(g) > 1), complete=self.one_hot)

    def frame(self) -> pd.DataFrame:
        """X as a DataFrame with the feature names as columns."""
        import pandas as pd

        return pd.DataFrame(self.X, columns=list(self.feature_names))

    def table(self) -> pd.DataFrame:
        """The user's own columns: ``raw`` as read (text columns included), or ``frame()`` for
        data given as arrays."""
        return self.raw if self.raw is not None else self.frame()

    def check_complete(self) -> None:
        """Raise an InputError naming the first missing number (for a method that cannot take
        missing values; see ``load_dataset(..., missing=True)``)."""
        check_finite(self.X, self.feature_names)

    def require(self, task: str) -> None:
        """Raise an InputError unless the target suits a method that needs ``task``."""
        if task == "any":
            return
        if self.y is None:
            raise InputError("this method needs a target column")
        if task == "classification":
            if self.classes.size < 2:
                raise InputError(
                    f"target {self.target_name!r} has a single class ({self.classes[0]!r}); "
                    "a classifier needs at least two"
                )
        elif task == "regression" and self.y.dtype.kind in "OUSb":
            raise InputError(f"target {self.target_name!r} is not numeric; this method regresses")


def check_finite(X: np.ndarray, names: Sequence[str] | None = None, what: str = "X") -> None:
    """Raise an InputError naming the first column and row holding NaN or inf."""
    X = np.asarray(X)
    if X.dtype.kind not in "fc":
        return
    bad = ~np.isfinite(X)
    if not bad.any():
        return
    if X.ndim == 1:
        row = int(np.argmax(bad))
        raise InputError(f"{what} contains {X[row]} at row {row}")
    row, col = (int(v) for v in np.argwhere(bad)[0])
    label = names[col] if names is not None else f"column {col}"
    raise InputError(f"{what} contains {X[row, col]} in {label!r} (row {row}, and {bad.sum()} cells in all)")


#: the largest magnitude a number may have: its square is still finite (sums of squares, the
#: variances and norms methods compute, stay finite); and the smallest nonzero one: a normal
#: float (a subnormal one has lost precision, and its reciprocal overflows)
LARGEST_NUMBER = float(np.sqrt(np.finfo(float).max))
SMALLEST_NUMBER = float(np.finfo(float).tiny)


def check_magnitude(X: np.ndarray, names: Sequence[str] | None = None, what: str = "X") -> None:
    """An InputError naming the first column and row holding a number beyond what the methods
    compute with: larger in magnitude than ``LARGEST_NUMBER`` or, nonzero, smaller than
    ``SMALLEST_NUMBER`` (NaN is left to ``check_finite`` and to the methods that take it)."""
    X = np.asarray(X)
    if X.dtype.kind not in "fc" or X.size == 0:
        return
    size = np.abs(np.where(np.isnan(X), 1.0, X))
    bad = (size > LARGEST_NUMBER) | ((size > 0) & (size < SMALLEST_NUMBER))
    if not bad.any():
        return
    where = tuple(int(v) for v in np.argwhere(bad)[0])
    value = float(X[where])
    how = (f"larger than {LARGEST_NUMBER:.3g} in magnitude, so its square overflows" if abs(value) > LARGEST_NUMBER
           else f"smaller than {SMALLEST_NUMBER:.3g} in magnitude (a subnormal float)")
    if X.ndim == 1:
        place = f"{what} holds {value!r} at row {where[0]}"
    else:
        label = repr(str(names[where[1]])) if names is not None else str(where[1])
        place = f"column {label} of {what} holds {value!r} (row {where[0]})"
    raise InputError(f"{place}: {how}; rescale it (its logarithm, or other units)")


def as_numeric(series: pd.Series, missing: tuple[str, ...] = ()) -> pd.Series | None:
    """The column as float if every present value is a number, else None (categorical).

    Cells that are NaN, or whose stripped text is one of ``missing``, are missing and become NaN.
    """
    import pandas as pd

    if pd.api.types.is_bool_dtype(series) or pd.api.types.is_numeric_dtype(series):
        return series.astype(float)
    text = series.dropna().astype(str).str.strip()
    present = text[~text.isin(missing)]
    if present.empty or pd.to_numeric(present, errors="coerce").isna().any():
        return None
    out = pd.to_numeric(series.astype(str).str.strip(), errors="coerce")
    return out.where(series.notna(), np.nan).astype(float)


def _numeric(series: pd.Series) -> pd.Series | None:
    """``as_numeric``, and an InputError for a column that is mostly numbers with some text."""
    import pandas as pd

    values = as_numeric(series)
    if values is not None:
        return values
    text = series.dropna().astype(str).str.strip()
    parsed = pd.to_numeric(text, errors="coerce")
    n_numbers = int(parsed.notna().sum())
    if n_numbers and n_numbers >= len(text) / 2:
        junk = text[parsed.isna()]
        raise InputError(
            f"column {series.name!r} mixes numbers and text (e.g. {junk.iloc[0]!r} at row "
            f"{junk.index[0]}); clean it or make it all text"
        )
    return None


class _Encoded(NamedTuple):
    """The feature table as numbers: ``X``, its column ``names``, the text columns that were
    one-hot encoded (``categorical``) and, for each, the indices of its level columns."""

    X: np.ndarray
    names: list[str]
    categorical: tuple[str, ...]
    one_hot: tuple[tuple[int, ...], ...]


def level_text(series: pd.Series) -> pd.Series:
    """A text column's cells as the names of their levels: stripped, a missing cell as
    ``missing`` (the one-hot encoding's column ``col=level`` holds where the cell is ``level``)."""
    return series.astype(object).where(series.notna(), "missing").astype(str).str.strip()


def _encode(features: pd.DataFrame) -> _Encoded:
    columns, names, categorical, one_hot = [], [], [], []
    for col in features.columns:
        series = features[col]
        values = _numeric(series)
        if values is not None:
            columns.append(values.to_numpy(dtype=float)[:, None])
            names.append(str(col))
            continue
        categorical.append(str(col))
        levels = level_text(series)
        first = len(names)
        for level in sorted(levels.unique()):
            columns.append((levels == level).to_numpy(dtype=float)[:, None])
            names.append(f"{col}={level}")
        one_hot.append(tuple(range(first, len(names))))
    X = np.hstack(columns) if columns else np.empty((len(features), 0))
    return _Encoded(X, names, tuple(categorical), tuple(one_hot))


def _target(series: pd.Series) -> np.ndarray:
    if series.isna().any():
        row = int(np.flatnonzero(series.isna().to_numpy())[0])
        raise InputError(f"target {series.name!r} is missing at row {row}")
    values = _numeric(series)
    if values is not None:
        y = values.to_numpy(dtype=float)
        check_finite(y, what=f"target {series.name!r}")
        check_magnitude(y, what=f"target {series.name!r}")
        return y
    return series.astype(str).str.strip().to_numpy(dtype=object)


def _check_unique(names: Sequence[str], message: str) -> None:
    """An InputError, ``message`` with the name filled in, for the first of ``names`` given
    twice: a method would mix the two up, or silently use one of them."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(message.format(repr(name)))
        seen.add(name)


def from_frame(frame: pd.DataFrame, target: str | None, name: str = "data", missing: bool = False) -> Dataset:
    """Validate a DataFrame whose column ``target`` is the label; with ``missing``, a missing
    number stays NaN in ``X`` (infinities are still refused)."""
    if frame.shape[1] == 0 or frame.shape[0] == 0:
        raise InputError(f"data set {name!r} is empty")
    frame = frame.rename(columns=str)
    _check_unique(list(frame.columns), "two columns are named {}; give each its own name")
    if target is not None and target not in frame.columns:
        shown = ", ".join(list(frame.columns)[:12])
        raise InputError(f"target column {target!r} not found; columns are: {shown}")
    if len(frame) < 2:
        raise InputError(f"data set {name!r} has {len(frame)} row; at least 2 are needed")
    features = frame.drop(columns=[target]) if target is not None else frame
    if features.shape[1] == 0:
        raise InputError(f"data set {name!r} has no feature columns besides the target")
    X, names, categorical, one_hot = _encode(features)
    _check_unique(names, "two features are named {} (a column, and a level of a text column); rename the column")
    check_finite(np.where(np.isnan(X), 0.0, X) if missing else X, names)
    check_magnitude(X, names, what="the data")
    y = _target(frame[target]) if target is not None else None
    return Dataset(X, y, tuple(names), target or "", name, features.reset_index(drop=True), categorical, one_hot)


def from_arrays(
    X: Any, y: Any = None, feature_names: Sequence[str] | None = None, name: str = "data"
) -> Dataset:
    """Validate numeric arrays (n x d) and an optional target."""
    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as err:
        raise InputError(f"X must be numeric: {err}") from None
    if X.ndim != 2:
        raise InputError(f"X must be 2-D (rows x features), got shape {X.shape}")
    if X.shape[0] < 2:
        raise InputError(f"X has {X.shape[0]} row; at least 2 are needed")
    if feature_names is None:
        feature_names = [f"x{i}" for i in range(X.shape[1])]
    if len(feature_names) != X.shape[1]:
        raise InputError(f"{len(feature_names)} feature names for {X.shape[1]} columns")
    _check_unique(list(map(str, feature_names)), "two features are named {}; give each its own name")
    check_finite(X, feature_names)
    check_magnitude(X, feature_names, what="the data")
    if y is not None:
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise InputError(f"y has shape {y.shape}; expected ({X.shape[0]},) to match X")
        import pandas as pd

        y = _target(pd.Series(y, name="y"))
    return Dataset(X, y, tuple(map(str, feature_names)), "y", name)


def closest_bundled(name: str | Path) -> str | None:
    """The bundled data set whose name is close to ``name`` (``breast_cancer`` or ``Diabetes``),
    or None: a typed name that misses by a character gets a suggestion, not just a list."""
    import difflib

    close = difflib.get_close_matches(Path(name).stem.lower().replace("_", "-"), BUNDLED, n=1, cutoff=0.75)
    return close[0] if close else None


def missing_file(path: str | Path) -> str:
    """The one line for a data file that is not a file: a folder, or nothing, then naming the
    bundled data set it may have meant (``--data breast_cancer``: ``--dataset breast-cancer``)."""
    if Path(path).is_dir():
        return f"data file {str(path)!r} is a folder, not a CSV file"
    close = closest_bundled(path)
    hint = f"; did you mean the bundled data set {close!r} (--dataset {close})?" if close else ""
    return f"data file {str(path)!r} not found{hint}"


def read_csv(path: str | Path) -> pd.DataFrame:
    """Read a CSV with a header row, with one-line errors for missing, empty or broken files."""
    import pandas as pd

    path = Path(path)
    if not path.is_file():
        raise InputError(missing_file(path))
    try:
        # the header as written, checked before the body is parsed (pandas renames a repeated
        # 'a' to 'a.1'; a million repeated names would take minutes to parse first)
        _check_unique(_header(path), "two columns are named {} in the header; give each its own name")
        frame = pd.read_csv(path, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise InputError(f"data file {str(path)!r} is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError, csv.Error) as err:
        first = str(err).strip().splitlines()[0]
        raise InputError(f"cannot parse {str(path)!r} as CSV: {first}") from None
    return frame


def _header(path: Path) -> list[str]:
    """The column names of a CSV file's first record, as pandas reads them (leading spaces
    skipped, quotes removed), read without the rest of the file."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        return next(csv.reader(f, skipinitialspace=True), [])


def load_dataset(
    source: Any, target: str | None = None, *, y: Any = None, feature_names: Sequence[str] | None = None,
    missing: bool = False,
) -> Dataset:
    """Load data for a method.

    ``source`` is a bundled data-set name (``interp datasets`` lists them), a CSV path, a
    pandas DataFrame (with ``target`` naming the label column) or a numeric array (with ``y``).
    A missing number in a table is an error unless ``missing`` (for methods that take them:
    ``Method.missing``), when it stays NaN.
    """
    if isinstance(source, Dataset):
        return source
    pd = sys.modules.get("pandas")  # a DataFrame can only exist once pandas is imported
    if pd is not None and isinstance(source, pd.DataFrame):
        if y is not None:
            return from_arrays(source.to_numpy(), y, list(map(str, source.columns)))
        return from_frame(source, target, missing=missing)
    if isinstance(source, (str, Path)):
        if str(source) in BUNDLED and not Path(source).exists():
            info = BUNDLED[str(source)]
            ref = resources.files("interp") / "datasets" / info.file
            with resources.as_file(ref) as path:
                frame = read_csv(path)
            return from_frame(frame, target or info.target, name=info.name, missing=missing)
        if target is None:
            if not Path(source).exists():
                known = ", ".join(BUNDLED)
                close = closest_bundled(source)
                guess = f"did you mean {close!r}? " if close else ""
                raise InputError(f"unknown data set {str(source)!r}; {guess}bundled: {known} (or a CSV path)")
            raise InputError("a CSV file needs --target naming the label column")
        return from_frame(read_csv(source), target, name=Path(source).stem, missing=missing)
    return from_arrays(source, y, feature_names)


def columns_for_model(model: Any, names: Sequence[str], what: str = "the model") -> list[int]:
    """The positions, in ``names`` (the data's columns), of the columns a fitted ``model`` takes,
    in its order: by its ``feature_names_in_`` when it has them (the data's columns in another
    order are reordered; a name missing from either side is an InputError naming it), else by
    position, when the number of columns matches its ``n_features_in_`` (an InputError when
    not).  A model with neither takes the columns as they are."""
    names = [str(n) for n in names]
    fitted = getattr(model, "feature_names_in_", None)
    if fitted is not None:
        fitted = [str(n) for n in fitted]
        position = {n: i for i, n in enumerate(names)}
        missing = [n for n in fitted if n not in position]
        known = set(fitted)
        extra = [n for n in names if n not in known]
        for side, how in ((missing, "lacks"), (extra, "has")):
            if side:
                more = f" and {len(side) - 3} more" if len(side) > 3 else ""
                raise InputError(f"the data {how} column{'s' if len(side) > 1 else ''} "
                                 f"{', '.join(map(repr, side[:3]))}{more} that {what} was "
                                 f"{'fitted on' if how == 'lacks' else 'not fitted on'}")
        return [position[n] for n in fitted]
    expected = getattr(model, "n_features_in_", None)
    if expected is not None and int(expected) != len(names):
        raise InputError(f"{what} was fitted on {int(expected)} columns; the data has {len(names)}")
    return list(range(len(names)))
