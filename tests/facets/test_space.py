"""What domain knowledge asks of a card: bounds per row (monotone features, per-row bounds) in
the solver's box and in the card search, features made of several rows (max_features), and
missing values as a level of their own."""

import itertools
import json
import warnings

import attrs
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize, minimize_scalar
from scipy.stats import pearsonr
from sklearn.base import clone

import interp
from interp_facets import FacetsClassifier, FacetsClassifierCV, Objective, SolverOptions, card_features, solve
from interp_facets.search import card_losses
from interp_facets.space import CardSpace, DataDirections, RowLimits, resolve_space
from interp_facets.validation import resolve_penalty

INF = np.inf


def logistic_data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    z = X @ np.array([1.5, -2.0, 0.7]) - 0.3 + rng.logistic(size=n)
    return X, np.where(z > 0, 1.0, -1.0)


@pytest.mark.parametrize("penalty", ["facets", "scf", "l1"])
def test_per_row_bounds_give_the_bounded_minimiser(penalty):
    """Bounds that bind on two rows (a rising row held at 0, another capped at 2): our fit is
    within them and its objective is scipy's bounded minimum (Powell, an independent method)."""
    X, y = logistic_data()
    lower, upper = np.array([-INF, 0.0, -1.0]), np.array([2.0, INF, 1.0])
    objective = Objective("logistic", *resolve_penalty(penalty, 0.05), gamma=0.2, bounds=(lower, upper))
    lam = 0.002
    res = solve(X, y, objective, lam, SolverOptions("newton", tol=1e-9, max_iter=20000))
    free = solve(X, y, attrs.evolve(objective, bounds=None), lam, SolverOptions(tol=1e-9))
    assert free.u[0] > 2.5 and free.u[1] < -0.5  # both bounds bind
    assert res.converged and np.all(res.u >= lower) and np.all(res.u <= upper)
    assert res.u[0] == 2.0 and res.u[1] == 0.0

    def f(x):
        return objective.datafit.value(0.2 * X @ x[:3] + x[3], y) + lam * objective.penalty_value(x[:3])

    bounds = [(None if np.isinf(lo) else lo, None if np.isinf(hi) else hi) for lo, hi in zip(lower, upper)]
    x0 = np.r_[np.clip(free.u, lower, upper), free.intercept]
    for _ in range(3):  # Powell restarted where it stopped: it stalls on the kinks otherwise
        x0 = minimize(f, x0, method="Powell", bounds=bounds + [(None, None)],
                      options={"xtol": 1e-12, "ftol": 1e-15, "maxfev": 100000}).x
    assert res.objective <= f(x0) + 1e-9


@pytest.mark.parametrize("lo, hi", [(0.0, 3.7), (-2.5, 0.0), (-1.0, 0.5)])
def test_an_asymmetric_box_in_one_dimension_matches_brute_force(lo, hi):
    rng = np.random.default_rng(4)
    x = rng.normal(size=80)
    y = -1.3 * x + rng.normal(scale=0.5, size=80)
    pen, hyper = resolve_penalty("scf")
    objective = Objective("squared", pen, hyper, gamma=0.5, fit_intercept=False, bounds=([lo], [hi]))
    res = solve(x[:, None], y, objective, 0.2, SolverOptions(tol=1e-10, max_iter=10000))
    f = lambda u: np.mean((y - 0.5 * x * u) ** 2) / 2 + 0.2 * pen.value(np.array([u]), **hyper)  # noqa: E731
    ref = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12}).x
    assert res.converged and lo <= res.u[0] <= hi
    assert res.u[0] == pytest.approx(ref, abs=1e-6)


def brute_force(X, y_pm, space: CardSpace, ridge=0.0):
    """The lowest objective (training loss plus the card ridge) over every card in ``space``
    (integer points within its bounds, its rows and features), with a positive scale when its
    bounds fix the orientation."""
    values = [range(int(lo), int(hi) + 1) for lo, hi in zip(space.lower, space.upper)]
    cards = np.array([u for u in itertools.product(*values)
                      if 0 < np.count_nonzero(u) and space.counts(np.array(u))[0] <= space.max_rows
                      and space.counts(np.array(u))[1] <= space.max_features], dtype=float)
    fits = card_losses(X, y_pm, cards, "logistic", ridge)
    F = np.where(fits.scale > 0, fits.objective, np.inf) if space.oriented else fits.objective
    return F.min()


def rising_data(n=600, seed=0, d=5):
    """0/1 rows whose effect on the label is not monotone in the first three (a dip)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, d)).astype(float)
    score = X[:, :5] @ np.array([2.0, -1.5, 1.0, 1.0, -1.0][:d]) + rng.normal(scale=0.8, size=n)
    return X, (score > 0.8).astype(int)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("params", [
    dict(max_rows=3, monotone=[1, 1, 0, 0]),
    dict(max_rows=4, monotone={"x1": 1, "x3": -1}),
    dict(max_rows=4, point_bounds={"x0": (-1, 1), "x2": (0, 2)}),
    dict(max_rows=4, max_features=2, groups=["a", "a", "b", "c"]),
])
def test_the_search_reaches_the_bounded_brute_force_optimum(seed, params):
    """d = 4, points in [-2, 2]: every card the constraints allow enumerated."""
    X, y = rising_data(n=250, seed=seed, d=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = FacetsClassifierCV(max_points=2, **params).fit(X, y)
    limits = RowLimits(params["max_rows"], 2, params.get("max_features"))
    space = resolve_space(4, [f"x{j}" for j in range(4)], limits, monotone=params.get("monotone"),
                          point_bounds=params.get("point_bounds"), groups=params.get("groups"))
    u = model.points_
    assert np.all(u >= space.lower) and np.all(u <= space.upper) and model.gamma_ > 0
    rows, features = space.counts(u)
    assert rows <= space.max_rows and features <= space.max_features
    found = card_losses(X, 2.0 * y - 1, u, "logistic").objective[0]
    assert found == pytest.approx(brute_force(X, 2.0 * y - 1, space), abs=1e-9)


def test_a_monotone_feature_never_lowers_the_score_where_the_free_card_does():
    """Age in four cumulative bands whose third lowers the risk: the free card gives it negative
    points, so the score falls past 60; with monotone={"age": +1} no age row is negative and the
    score never falls as age grows."""
    rng = np.random.default_rng(0)
    n = 1500
    frame = pd.DataFrame({"age": rng.integers(20, 90, n).astype(float), "smoker": rng.integers(0, 2, n)})
    age = frame["age"].to_numpy()
    score = (age >= 40) + 2.0 * (age >= 50) - 2.0 * (age >= 60) + 1.5 * (age >= 70) + 1.5 * frame["smoker"]
    y = (score + rng.normal(scale=0.7, size=n) > 1.8).astype(int)
    design = card_features(None, None, raw=frame, n_thresholds=4)
    ages = np.arange(20, 90, dtype=float)
    grid = design.binarizer.transform(pd.DataFrame({"age": ages, "smoker": np.zeros(ages.size)}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        free = FacetsClassifierCV(max_rows=6, groups=design.groups).fit(design.X, y)
        rising = FacetsClassifierCV(max_rows=6, groups=design.groups,
                                    monotone=design.monotone({"age": 1})).fit(design.X, y)
    age_rows = np.array([g == "age" for g in design.groups])
    assert (free.points_[age_rows] < 0).any() and np.diff(grid @ free.points_).min() < 0
    assert (rising.points_[age_rows] >= 0).all() and np.diff(grid @ rising.points_).min() >= 0
    assert rising.score(design.X, y) > 0.75


def test_three_age_bands_count_as_one_feature():
    """max_features=2: the card holds the three age bands (one feature) and one other feature;
    counted as rows, the same card would need four of max_rows."""
    rng = np.random.default_rng(1)
    n = 800
    X = rng.integers(0, 2, size=(n, 6)).astype(float)
    X[:, 1] *= X[:, 0]  # age >= 40, >= 50, >= 60: nested bands
    X[:, 2] *= X[:, 1]
    y = (X[:, :4] @ np.array([1.0, 1.0, 1.0, 2.0]) + 0.4 * X[:, 4] + rng.normal(scale=0.6, size=n) > 2).astype(int)
    groups = ["age", "age", "age", "smoker", "bmi", "sex"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = FacetsClassifierCV(max_rows=6, max_features=2, groups=groups).fit(X, y)
        rows_only = FacetsClassifierCV(max_rows=2).fit(X, y)
    used = {groups[j] for j in np.flatnonzero(model.points_)}
    assert used == {"age", "smoker"} and np.all(model.points_[:3] > 0)
    assert np.count_nonzero(model.points_) == 4
    losses = card_losses(X, 2.0 * y - 1, np.array([model.points_, rows_only.points_]), "logistic").loss
    assert losses[0] < losses[1]  # two features, four rows: better than two rows


def test_fixed_fits_keep_the_bounds_in_the_solver():
    X, y = rising_data(seed=3)
    model = FacetsClassifier(lam=0.002, gamma=0.3, monotone=[1, 1, 0, 0, 0], max_points=None).fit(X, y)
    assert np.all(model.coef_grid_[:2] >= 0) and model.coef_grid_[1] == 0  # x1 wants < 0
    searched = FacetsClassifier(lam=0.002, gamma=0.3, max_rows=3, point_bounds={"x0": (0, 1)}).fit(X, y)
    assert 0 <= searched.points_[0] <= 1


@pytest.mark.parametrize("params, match", [
    ({"monotone": {"age": 1}}, "monotone names 'age', which is no column or feature"),
    ({"monotone": {"x0": 2}}, r"monotone takes \+1 \(rising\), -1 \(falling\) or 0"),
    ({"monotone": [1, 0]}, "monotone has 2 entries for 5 columns"),
    ({"point_bounds": {"x0": (1, 3)}}, "bounds must hold 0"),
    ({"point_bounds": {"x0": 4}}, r"point_bounds takes \(lowest, highest\) points"),
    ({"groups": ["a", "b"]}, "groups has 2 labels for 5 columns"),
    ({"max_features": 0}, "max_features must be an integer >= 1 or None"),
    ({"max_rows": None, "max_features": 2, "fit_intercept": False}, "max_features needs fit_intercept=True"),
])
def test_bad_constraints_are_one_line_input_errors(params, match):
    X, y = rising_data(n=60)
    for estimator in (FacetsClassifier(max_rows=3), FacetsClassifierCV(max_rows=3)):
        with pytest.raises(interp.InputError, match=match) as err:
            estimator.set_params(**params).fit(X, y)
        assert "\n" not in str(err.value)


def test_card_features_give_monotone_directions_to_rising_rows_only():
    frame = pd.DataFrame({"age": [30.0, 45, np.nan, 60, 72, 51, 38, 66] * 10,
                          "sex": ["F", "M", "M", "F", "M", "M", "F", "M"] * 10})
    design = card_features(None, None, raw=frame)
    directions = design.monotone({"age": 1})
    for name, group, rises, direction in zip(design.names, design.groups, design.rises, directions):
        assert direction == (1 if group == "age" and rises else 0)
        assert rises == (group == "age" and name != "age is missing")
    with pytest.raises(interp.InputError, match="'sex' is a text column"):
        design.monotone({"sex": 1})
    with pytest.raises(interp.InputError, match="not a column of the data"):
        design.monotone({"height": 1})


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 40), d=st.integers(1, 5))
def test_data_directions_of_columns_are_the_sign_of_their_correlation(seed, n, d):
    """Each column its own feature: its direction is the sign of its covariance with the
    target, computed exactly in integers (0 where it is exactly 0, a column or the target
    constant), and agrees with scipy's Pearson correlation wherever that is clearly non-zero."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < rng.random(d)).astype(int)
    y = (rng.random(n) < 0.5).astype(int)
    exact = [int(np.sign(n * int(X[:, j] @ y) - int(X[:, j].sum()) * int(y.sum()))) for j in range(d)]
    found = DataDirections().of(X, y).tolist()
    assert found == exact
    for j in range(d):
        if np.ptp(X[:, j]) and np.ptp(y) and abs(r := pearsonr(X[:, j], y).statistic) > 1e-9:
            assert found[j] == np.sign(r)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(6, 60), d=st.integers(1, 8))
def test_data_directions_of_features_are_their_sums_correlation_sign(seed, n, d):
    """Features of several columns, some with a column that does not rise (a missing flag):
    each rising column takes the sign of scipy's correlation between the target and the sum of
    its feature's rising columns on the rows where the feature's other columns are 0; the
    others are free.  Compared where that correlation is clearly non-zero."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, d)).astype(float)
    groups = tuple(str(g) for g in rng.integers(0, 3, d))
    rises = tuple(bool(r) for r in rng.random(d) < 0.75)
    X[:, ~np.array(rises)] = rng.random((n, d - sum(rises))) < 0.2
    y = (rng.random(n) < 0.5).astype(float)
    found = DataDirections(groups, rises).of(X, y)
    for j in range(d):
        if not rises[j]:
            assert found[j] == 0
            continue
        mine = [k for k in range(d) if groups[k] == groups[j]]
        present = ~X[:, [k for k in mine if not rises[k]]].any(axis=1)
        total = X[:, [k for k in mine if rises[k]]].sum(axis=1)[present]
        if present.sum() > 2 and np.ptp(total) and np.ptp(y[present]):
            r = pearsonr(total, y[present]).statistic
            if abs(r) > 1e-9:
                assert found[j] == np.sign(r)


def test_card_features_take_each_columns_direction_from_its_own_rows():
    """Age raises the risk, bmi lowers it (and is sometimes missing, which says nothing of the
    direction), sex is text: every rising age row is +1, every rising bmi row -1, the "is
    missing" row and the text levels free.  The direction is read on the rows that are not
    missing: a missing bmi (0 in every bmi threshold), frequent among the low-risk rows, would
    otherwise look like a low bmi and flip it."""
    rng = np.random.default_rng(0)
    n = 900
    age, bmi = rng.integers(20, 90, n).astype(float), rng.normal(27, 4, n).round(1)
    y = ((age - 55) / 10 - (bmi - 27) / 3 + rng.logistic(size=n) > 0).astype(int)
    bmi[(rng.random(n) < 0.6) & (y == 0)] = np.nan
    frame = pd.DataFrame({"age": age, "bmi": bmi, "sex": rng.choice(["F", "M"], n)})
    design = card_features(None, None, raw=frame)
    directions = design.data_directions().of(design.X, y)
    expected = [(1 if g == "age" else -1 if g == "bmi" else 0) if r else 0 for g, r in zip(design.groups, design.rises)]
    assert directions.tolist() == expected and "bmi is missing" in design.names
    filled = np.nan_to_num(design.X)  # the bmi rows alone, missing rows counted as the lowest bmi
    bmi_rows = [j for j, g in enumerate(design.groups) if g == "bmi" and design.rises[j]]
    assert pearsonr(filled[:, bmi_rows].sum(axis=1), y).statistic > 0  # the flip the mask avoids


def suppressor_data(n=2000, seed=0):
    """x0 and x1 move together; the label rises with x0 and falls with x1 given x0, yet x1
    alone rises with it (through x0): the free card gives x1 negative points, against what x1
    shows on its own."""
    rng = np.random.default_rng(seed)
    x0 = rng.integers(0, 2, n)
    x1 = np.where(rng.random(n) < 0.85, x0, 1 - x0)
    x2 = rng.integers(0, 2, n)
    y = (2.5 * x0 - 1.0 * x1 + 1.0 * x2 + rng.logistic(size=n) > 1.2).astype(int)
    return np.column_stack([x0, x1, x2]).astype(float), y


def test_data_directions_keep_every_row_with_its_own_association():
    X, y = suppressor_data()
    assert pearsonr(X[:, 1], y).statistic > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        free = FacetsClassifierCV(max_rows=3).fit(X, y)
        signed = FacetsClassifierCV(max_rows=3, monotone=DataDirections()).fit(X, y)
    assert free.points_[1] < 0 and free.points_[0] > 0
    assert np.all(signed.points_ >= 0) and signed.points_[0] > 0
    found = card_losses(X, 2.0 * y - 1, np.array([signed.points_]), "logistic").objective[0]
    best = min(card_losses(X, 2.0 * y - 1, np.array([u]), "logistic").objective[0]
               for u in itertools.product(range(6), repeat=3) if any(u))
    assert found == pytest.approx(best, abs=1e-9)  # the best card of non-negative points


def test_data_directions_are_read_at_each_fit_from_its_own_rows():
    """One estimator (cloned, as cross-validation does) fitted on two halves of the data where
    x0's association has opposite signs: each fit takes the direction of its own rows."""
    rng = np.random.default_rng(3)
    n = 800
    X = rng.integers(0, 2, size=(n, 3)).astype(float)
    half = np.arange(n) < n // 2
    y = ((np.where(half, 2.0, -2.0) * X[:, 0] + X[:, 1] + rng.logistic(size=n)) > 0.5).astype(int)
    estimator = FacetsClassifier(max_rows=2, monotone=DataDirections())
    first, second = clone(estimator).fit(X[half], y[half]), clone(estimator).fit(X[~half], y[~half])
    assert first.points_[0] > 0 and second.points_[0] < 0
    assert first.points_[1] > 0 and second.points_[1] > 0


def test_the_grid_cv_reads_each_folds_directions_from_its_training_rows(monkeypatch):
    """With max_rows=None the CV grid scores each fold's paths; their directions come from the
    fold's training rows (never from its test rows), the whole data's from all of them."""
    X, y = suppressor_data(n=300)
    seen = []
    read = DataDirections.of

    def spy(self, X_part, y_part):
        seen.append(len(y_part))
        return read(self, X_part, y_part)

    monkeypatch.setattr(DataDirections, "of", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = FacetsClassifierCV(cv=3, gammas=2, betas=4, monotone=DataDirections()).fit(X, y)
    assert sorted(seen) == [200, 200, 200, 300, 300]  # three folds; the search and the refit
    assert np.all(model.points_ >= 0)


def test_a_column_missing_on_every_row_stays_free():
    """No row where the column is present: no direction (and no warning from an empty mean)."""
    X = np.array([[0.0, 1.0, 1.0], [0.0, 1.0, 0.0], [0.0, 1.0, 1.0], [0.0, 1.0, 0.0]])
    y = np.array([1.0, 0.0, 1.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = DataDirections(groups=("a", "a", "b"), rises=(True, False, True)).of(X, y)
    assert found.tolist() == [0, 0, 1]


def test_bad_data_directions_are_one_line_input_errors():
    X, y = rising_data(n=60)
    with pytest.raises(interp.InputError, match="DataDirections has 2 rises flags for 5 columns") as err:
        FacetsClassifierCV(max_rows=3, monotone=DataDirections(rises=(True, False))).fit(X, y)
    assert "\n" not in str(err.value)
    with pytest.raises(interp.InputError, match="groups has 1 labels for 5 columns"):
        FacetsClassifier(max_rows=3, monotone=DataDirections(groups=("a",))).fit(X, y)


def test_the_method_gives_no_row_points_against_its_own_column_unless_told(run, tmp_path):
    """``interp run --method facets`` reads directions from the data by default; ``--monotone
    none`` gives the free card, whose x1 row goes against x1's own association."""
    X, y = suppressor_data()
    path = tmp_path / "suppressor.csv"
    pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "x2": X[:, 2], "y": y}).to_csv(path, index=False)
    cards = {}
    for choice in ("auto", "none"):
        done = run("run", "--plugin", "facets", "--data", path, "--target", "y", "--max-rows", "3", "--cv", "2",
                   "--monotone", choice, "--quiet", "--format", "json", "--seed", "0")
        assert done.exit_code == 0, done.output
        rows = json.loads(done.output)["explanation"]["score_card"]["rows"]
        cards[choice] = {r["feature"]: r["points"] for r in rows}
    assert cards["none"]["x1"] < 0 and all(points > 0 for points in cards["auto"].values())
    note = "each ordered column's points keep the sign of its association with the target"
    for choice in ("auto", "none"):
        text = run("run", "--plugin", "facets", "--data", path, "--target", "y", "--max-rows", "3", "--cv", "2",
                   "--monotone", choice, "--quiet", "--seed", "0").output
        assert (note in text) == (choice == "auto")
    bad = run("run", "--plugin", "facets", "--data", path, "--target", "y", "--monotone", "up")
    assert bad.exit_code == 2 and len(bad.output.strip().splitlines()) == 1


def test_a_design_of_text_levels_only_says_nothing_of_directions(run, tmp_path):
    """House votes are y/n/? answers: no ordered column, so nothing keeps a direction and the
    card's notes do not claim one."""
    text = run("run", "--plugin", "facets", "--dataset", "house-votes-84", "--max-rows", "3", "--quiet").output
    assert "score card" in text and "association with the target" not in text


def test_missing_numbers_are_a_row_of_their_own_never_an_error(run, tmp_path):
    """A CSV with blank cells: facets runs, the card may hold "bmi is missing", every row is
    scored; a method that does not take missing values refuses in one line, as before."""
    rng = np.random.default_rng(0)
    n = 300
    bmi = rng.normal(27, 4, n).round(1)
    y = (bmi > 28).astype(int)
    missing = rng.random(n) < 0.15
    y[missing] = (rng.random(missing.sum()) < 0.9).astype(int)  # a missing bmi says a lot
    frame = pd.DataFrame({"bmi": np.where(missing, np.nan, bmi), "age": rng.integers(20, 80, n), "y": y})
    path = tmp_path / "blanks.csv"
    frame.to_csv(path, index=False)
    done = run("run", "--plugin", "facets", "--data", path, "--target", "y", "--cv", "2", "--max-rows", "4",
               "--quiet", "--format", "json")
    assert done.exit_code == 0, done.output
    payload = json.loads(done.output)["explanation"]
    rows = {r["feature"]: r["points"] for r in payload["score_card"]["rows"]}
    assert rows.get("bmi is missing", 0) > 0
    refused = run("run", "--plugin", "featurevec", "--data", path, "--target", "y")
    assert refused.exit_code == 2 and "contains nan in 'bmi'" in refused.output
    assert len(refused.output.strip().splitlines()) == 1
    never = run("run", "--plugin", "facets", "--data", path, "--target", "y", "--binarize", "never")
    assert never.exit_code == 2 and "leave out --binarize never" in never.output
