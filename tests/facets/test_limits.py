"""Facets refuses a fit beyond the memory budget before any work, in one line saying what fits:
a wide CSV (its d x d matrices), many rows, a huge grid; from the command line and from Python."""

import numpy as np
import pytest

import interp
from interp.resources import MEMORY_ENV, ResourceError, format_bytes


def _wide_csv(path, rows=50, columns=200):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, columns))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    header = ",".join([f"f{i}" for i in range(columns)] + ["y"])
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header=header, comments="", fmt="%.5g")
    return path


def test_a_wide_csv_is_refused_in_one_line_naming_the_features_that_fit(run, tmp_path, monkeypatch):
    """The shape of a 10,000-column CSV whose 30,000 x 30,000 Gram matrix crashed the fit, scaled
    down with the budget: 200 columns make 600 card features, 13 MB against a budget of 8 MiB."""
    from interp_facets.validation import fit_memory

    monkeypatch.setenv(MEMORY_ENV, "8M")
    result = run("run", "--method", "facets", "--data", _wide_csv(tmp_path / "wide.csv"), "--target", "y",
                 "--quiet")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    def need(d):  # the card search: 3 x 12 grid points, 5 folds
        return fit_memory(50, d, 36, folds=5)

    most = max(d for d in range(601) if need(d) <= 8 * 2**20)
    assert (f"facets on 50 rows x 600 card features (from 200 columns) needs about {format_bytes(need(600))} of "
            "memory, more than "
            f"the budget of 8 MiB ({MEMORY_ENV}): at most {most:,} features fit (drop columns, or lower "
            "--n-thresholds)") in result.output


def test_many_rows_are_refused_naming_the_rows_that_fit(run, monkeypatch):
    monkeypatch.setenv(MEMORY_ENV, "2M")
    result = run("run", "--method", "facets", "--dataset", "breast-cancer", "--quiet")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "facets on 569 rows x 90 card features (from 30 columns)" in result.output
    assert "rows fit (subsample the rows)" in result.output


def test_the_estimators_check_the_same_estimate(monkeypatch):
    from interp_facets import FacetsClassifier, FacetsClassifierCV

    monkeypatch.setenv(MEMORY_ENV, "8M")
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(50, 600)).astype(float)
    y = np.tile([0, 1], 25)
    with pytest.raises(ResourceError, match=r"a Facets fit on 50 rows x 600 features .* features fit \(select"):
        FacetsClassifier(lam=0.1, gamma=1.0).fit(X, y)
    data = interp.load_dataset("breast-cancer")
    monkeypatch.setenv(MEMORY_ENV, "50M")  # a huge grid: each of its points keeps its coefficients
    with pytest.raises(ResourceError, match=r"grid points fit \(fewer gammas or betas\)"):
        FacetsClassifierCV(gammas=1000, betas=10_000).fit(data.X, data.y)


def test_the_estimate_bounds_the_peak_it_was_calibrated_on():
    """32 d^2 bytes of dense matrices: 6,000 card features (2,000 columns of 50 rows) peaked at
    1.39 GB in all (0.2 GB of it the interpreter and the data)."""
    from interp_facets.validation import fit_memory

    assert 1.15e9 < fit_memory(50, 6000) < 1.3e9
