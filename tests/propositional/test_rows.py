"""The propositional result as a model of the data's columns, and why each row gets its class."""

import numpy as np
import pytest

import interp
from interp.runner import run_method


@pytest.fixture(scope="module")
def votes():
    data = interp.load_dataset("house-votes-84")
    result = run_method("propositional", data, {"formula": "a & b", "C": 1.0, "cv": 2})
    model = result.estimator
    # the votes' levels are 0/1 columns already: the model reads them as they are, no binariser
    assert model.binarizer is None and list(model.feature_names_in_) == list(data.feature_names)
    return data.frame(), data.classes, model


def test_rows_sum_to_the_svms_decision_value(votes):
    table, _, model = votes
    rows = table.iloc[np.random.default_rng(0).choice(len(table), 30, replace=False)]
    values = model.decision_function(rows)
    for one, value in zip(model.for_rows(rows), values):
        assert abs(one.output - value) <= 1e-9 * max(1, abs(value))
        assert abs(one.baseline + sum(one.contributions.values()) - value) <= 1e-9 * max(1, abs(value))
        assert abs(one.baseline + sum(p.value for p in one.pieces) - value) <= 1e-9 * max(1, abs(value))
        assert one.pieces[-1].label == "other rules" and one.baseline_name == "the SVM's intercept"


def test_the_result_predicts_the_rule_lists_classes_by_name(votes):
    table, classes, model = votes
    predicted = model.predict(table)
    assert set(predicted) <= set(classes)
    np.testing.assert_array_equal(predicted, model.classes_[model.svm.predict_rules(model.binary(table))])
    decided = model.for_rows(table.iloc[:5])
    assert all(one.outcome.startswith(f"the rule list says {p}, by ") for one, p in zip(decided, predicted[:5]))


def test_a_column_no_shown_rule_reads_contributes_nothing(votes):
    table, _, model = votes
    for one in model.for_rows(table.iloc[:20]):
        read = {name for piece in one.pieces for name in piece.features}
        assert all(v == 0 for name, v in one.contributions.items() if name not in read | {"other rules"})
