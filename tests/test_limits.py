"""What every built-in method refuses before any work: bad run settings, a model file it does
not explain, and each option beyond its declared maximum; one line, exit code 2."""

import pytest

import interp

METHODS = ("symbolic", "facets", "featurevec", "propositional")
DATASET = {"symbolic": "diabetes", "facets": "breast-cancer", "featurevec": "breast-cancer",
           "propositional": "house-votes-84"}

#: one value above each work option's declared maximum, and the maximum the message names
OVER = [
    ("symbolic", "--n-restarts", "1000000000", "100"),
    ("symbolic", "--maxiter", "1000000000", "10,000"),
    ("symbolic", "--max-terms", "21", "20"),
    ("symbolic", "--max-fit-rows", "100001", "100,000"),
    ("symbolic", "--max-blackbox-rows", "1000001", "1,000,000"),
    ("facets", "--cv", "51", "50"),
    ("facets", "--n-gammas", "100000", "100"),
    ("facets", "--n-betas", "100000", "1,000"),
    ("facets", "--max-iter", "100001", "100,000"),
    ("facets", "--n-thresholds", "1000000", "50"),
    ("facets", "--max-points", "101", "100"),
    ("facets", "--pool", "1001", "1,000"),
    ("featurevec", "--paths", "1000000000", "10,000,000"),
    ("featurevec", "--bootstrap", "1000000000", "1,000"),
    ("featurevec", "--window", "101", "100"),
    ("featurevec", "--top-k", "1001", "1,000"),
    ("propositional", "--select", "1000000000", "1,000"),
    ("propositional", "--C", "1e308", "1e+06"),
    ("propositional", "--cv", "51", "50"),
    ("propositional", "--top", "101", "100"),
    ("propositional", "--max-leaves", "101", "100"),
    ("propositional", "--n-landmarks", "10001", "10,000"),
    ("propositional", "--selection-rows", "10001", "10,000"),
    ("propositional", "--max-exact-rows", "100001", "100,000"),
]


def _one_line_error(result, *words):
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("Error: "), result.output
    for word in words:
        assert word in result.output, result.output


@pytest.mark.parametrize("plugin", METHODS)
@pytest.mark.parametrize("args, message", [
    (("--seed", "-1"), "--seed must be an integer from 0 to 4294967295, got -1"),
    (("--n-jobs", "0"), "--n-jobs must be a number of parallel jobs"),
])
def test_bad_run_settings_are_the_users_error(run, plugin, args, message):
    _one_line_error(run("run", "--method", plugin, "--dataset", DATASET[plugin], "--quiet", *args), message)


@pytest.mark.parametrize("plugin, flag, value, maximum", OVER, ids=[f"{p}{f}" for p, f, _, _ in OVER])
def test_every_work_option_has_a_maximum(run, plugin, flag, value, maximum):
    _one_line_error(run("run", "--method", plugin, "--dataset", DATASET[plugin], "--quiet", flag, value),
                    f"{flag} must be <= {maximum}, got ")


def test_every_numeric_option_of_the_built_in_methods_declares_a_maximum_or_is_a_cap():
    """A number option without a maximum is one whose large values cost nothing more: a cap on
    rows (all of them beyond), a strength, a tolerance, a fraction checked by the method."""
    caps = {("facets", "lam"), ("facets", "gamma"), ("facets", "max_cv_rows"), ("facets", "max_rows"),
            ("facets", "eps"), ("facets", "snap_tol"), ("symbolic", "simplify_tol")}
    methods = interp.get_registry().methods
    unbounded = {(name, o.name) for name in METHODS for o in methods[name].options
                 if o.type in (int, float) and o.max is None}
    assert unbounded == caps


@pytest.mark.parametrize("plugin", ["facets", "propositional"])
def test_a_missing_model_file_is_one_line(run, plugin, tmp_path):
    """Every method explains a model file (through ``interp.explain``); one that is not
    there is named in one line."""
    missing = tmp_path / "never-read.joblib"
    result = run("run", "--method", plugin, "--dataset", DATASET[plugin], "--quiet", "--model-file", missing,
                 "--trust-model-file")
    _one_line_error(result, "cannot load model file", "never-read.joblib")
