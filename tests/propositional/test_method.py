"""The ``propositional`` method through the runner and the command line."""

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner

import interp
from interp.cli import cli
from interp.runner import run_method


def test_registered_method_and_options():
    method = interp.get_registry().methods["propositional"]
    assert method.plugin == "propositional" and method.task == "classification"
    names = {o.name for o in method.options}
    assert {"formula", "select", "C", "cv", "top"} <= names


def test_run_with_formula_on_house_votes():
    data = interp.load_dataset("house-votes-84")
    result = run_method("propositional", data, {"formula": "a & ~b", "cv": 3, "top": 3},
                        interp.RunContext(seed=0, quiet=True))
    assert result.metrics["auc"] > 0.95
    payload = result.payload
    assert payload["formula"] == "a & ~b" and payload["positive_class"] == "republican"
    assert len(payload["rules"]) == 3 and payload["rules_exact"] is True
    first = payload["rules"][0]["rule"]
    assert " & ~" in first and "=" in first  # concrete variables such as physician_fee_freeze=y
    assert "top weighted features" in result.text and "rule model" in result.text and first in result.text
    assert result.payload["rule_model"]["default"] in ("democrat", "republican")
    assert result.metrics["rule_accuracy"] > 0.9 and result.metrics["agreement"] > 0.9
    assert result.estimator.svm.formula_ == "a & ~b"
    json.loads(result.to_json())


def test_run_with_selection_is_reproducible():
    data = interp.load_dataset("house-votes-84")
    opts = {"selection": "radius-margin", "select": 4, "cv": 2, "top": 2}
    a = run_method("propositional", data, opts, interp.RunContext(seed=1, quiet=True))
    b = run_method("propositional", data, opts, interp.RunContext(seed=1, quiet=True))
    assert a.payload["formula"] == b.payload["formula"]
    assert a.metrics["auc"] == b.metrics["auc"] > 0.9
    assert len(a.payload["candidates"]) == 4


def test_numeric_data_is_binarised():
    data = interp.load_dataset("breast-cancer")
    rows = np.random.default_rng(0).choice(data.n_samples, 150, replace=False)
    small = interp.load_dataset(data.frame().iloc[rows].assign(malignant=data.y[rows]), "malignant")
    result = run_method("propositional", small, {"formula": "a | b", "cv": 3, "top": 2},
                        interp.RunContext(seed=0, quiet=True))
    assert result.metrics["auc"] > 0.9
    assert any(">" in r["rule"] for r in result.payload["rules"])  # quantile thresholds


def test_cli_json_and_formula_error():
    runner = CliRunner()
    res = runner.invoke(cli, ["run", "--plugin", "propositional", "--dataset", "house-votes-84",
                              "--formula", "a | b", "--cv", "2", "--format", "json", "--quiet"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output[res.output.index("{"):])
    assert out["explanation"]["formula"] == "a | b" and out["metrics"]["auc"] > 0.9
    bad = runner.invoke(cli, ["run", "--plugin", "propositional", "--dataset", "house-votes-84",
                              "--formula", "a & (b |", "--quiet"])
    assert bad.exit_code == 2
    assert "position" in bad.output


def test_option_bounds_are_one_line_errors(run):
    cases = [(["--cv", "1"], "--cv must be >= 2"), (["--top", "0"], "--top must be >= 1"),
             (["--selection", "radius-margin", "--select", "0"], "--select N with N >= 1"), (["--C", "-1"], "--C must be positive"),
             (["--p", "1.5"], "--p must be <= 1"), (["--max-leaves", "-1"], "--max-leaves must be >= 0"),
             (["--positive", "whig"], "--positive 'whig' is not a class")]
    for args, words in cases:
        res = run("run", "--plugin", "propositional", "--dataset", "house-votes-84", "--quiet", *args)
        assert res.exit_code == 2 and words in res.output and res.output.count("\n") == 1, (args, res.output)


def test_a_numeric_class_is_named_as_written(run):
    """breast-cancer's 0/1 target is read as numbers: --positive 1 used to be refused
    ("classes are: 0.0, 1.0") and the run named its class '1.0'."""
    data = interp.load_dataset("breast-cancer")
    assert data.y.dtype.kind == "f"
    args = ["run", "--plugin", "propositional", "--dataset", "breast-cancer", "--formula", "a", "--cv", "2",
            "--top", "1", "--format", "json", "--quiet"]
    for given, positive, negative in (("1", "1", "0"), ("1.0", "1", "0"), ("0", "0", "1"), ("", "1", "0")):
        out = json.loads(run(*args, *(["--positive", given] if given else [])).output)["explanation"]
        assert (out["positive_class"], out["negative_class"]) == (positive, negative), given
        rule = out["rules"][0]
        assert rule["supports"] == (positive if rule["weight"] > 0 else negative)
    res = run(*args, "--positive", "2")
    assert res.exit_code == 2 and "--positive '2' is not a class; classes are: 0, 1" in res.output, res.output


def test_third_party_operators_are_drawn_when_asked(run, majority):
    args = ["run", "--plugin", "propositional", "--dataset", "house-votes-84", "--selection", "radius-margin",
            "--select", "6", "--cv", "2", "--top", "1", "--max-leaves", "5", "--seed", "3", "--format", "json", "--quiet"]
    plain = json.loads(run(*args).output)
    opted = json.loads(run(*args, "--third-party-operators").output)
    assert opted["params"]["third_party_operators"] is True
    assert not any("maj(" in c["formula"] for c in plain["explanation"]["candidates"])
    assert any("maj(" in c["formula"] for c in opted["explanation"]["candidates"])


def test_sections_are_typed():
    data = interp.load_dataset("house-votes-84")
    result = run_method("propositional", data, {"formula": "a & ~b", "cv": 2, "top": 2},
                        interp.RunContext(seed=0, quiet=True))
    formula, card, model, rules = result.sections
    assert isinstance(formula, interp.Formula) and formula.text == "a & ~b" and "given" in formula.title
    assert isinstance(card, interp.Text) and "AUC:" in card.body and "accuracy:  SVM" in card.body
    assert isinstance(model, interp.Table) and model.columns == ("", "rule", "class", "rows", "accuracy", "agreement")
    assert [row[0] for row in model.rows] == ["if"] + ["else if"] * (len(model.rows) - 2) + ["else"]
    assert sum(row[3] for row in model.rows) == 435 - 435 // 2  # the first fold's held-out rows
    assert isinstance(rules, interp.Table) and rules.columns == ("weight", "rule", "supports")
    assert [list(row) for row in rules.rows] == [[r["weight"], r["rule"], r["supports"]]
                                                 for r in result.payload["rules"]]
