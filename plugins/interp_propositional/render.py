"""How a ``propositional`` run reads: the chosen formula, the score card, the rules and the best
candidates as typed sections, beside the JSON payload and metrics."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from interp import Explanation, Formula, Table, Text

from .explain import TopRules
from .formula import n_leaves, parse

__all__ = ["RunOutcome", "explanation"]

_CANDIDATES_KEPT, _CANDIDATES_SHOWN = 10, 5


@attrs.frozen
class RunOutcome:
    """What one run produced: the model shown, its top-weighted features (``rules``), the
    cross-validation (``checked``: a ``method.CrossValidated``), the class names behind the
    labels 1 / 0 and the parameters the run resolved (the core adds its options)."""

    estimator: Any  # a fitted PropositionalSVC
    rules: TopRules
    checked: Any
    positive: str
    negative: str
    feature_names: tuple[str, ...]
    params: dict
    n_rows: int

    @property
    def given(self) -> bool:
        return self.estimator.selection_ is None

    def mean(self, name: str) -> float:
        return float(np.mean([getattr(f, name) for f in self.checked.folds]))

    def std(self, name: str) -> float:
        return float(np.std([getattr(f, name) for f in self.checked.folds]))


def _score_card(outcome: RunOutcome, n_var: int, L: int) -> Text:
    cv = len(outcome.checked.folds)
    inside = "" if outcome.given else ", selection inside each fold"
    m, s = outcome.mean, outcome.std
    return Text(
        f"features:  {n_var} binary variables, {L} leaves -> {n_var}^{L} = {n_var ** L:.3g} logical features\n"
        f"AUC:       {m('auc'):.4f} +- {s('auc'):.4f} ({cv}-fold CV{inside}; positive class {outcome.positive!r})\n"
        f"accuracy:  SVM {m('accuracy'):.4f} +- {s('accuracy'):.4f}, rule model {m('rule_accuracy'):.4f} +- "
        f"{s('rule_accuracy'):.4f} in {m('n_rules'):.1f} rules ({cv}-fold CV)\n"
        f"agreement: the rule model gives the SVM's class on {m('agreement'):.4f} of held-out rows "
        f"(C = {outcome.estimator.C_:g})"
    )


def one_class_warning(outcome: RunOutcome, y_share: float) -> str:
    """A sentence when the SVM put most held-out rows in one class and is no more accurate
    than always saying the larger class (``y_share``: its share of the rows), else ""."""
    share, acc = outcome.mean("majority_share"), outcome.mean("accuracy")
    if share < 0.9 or acc > y_share + 0.01:
        return ""
    return (f"warning: the SVM puts {share:.0%} of held-out rows in one class and its accuracy {acc:.3f} is "
            f"no better than always saying the larger class ({y_share:.3f}), whatever its AUC: its threshold "
            f"is off (try another --C); the rule model is the classifier to read")


def _rule_rows(est, stats) -> list[dict]:
    """The rule model as rows: how each rule reads, its class and its held-out statistics."""
    rows = []
    for i, st in enumerate(stats):
        when = "else" if st.rule is None else ("if" if i == 0 else "else if")
        rows.append({"when": when, "rule": st.rule or "", "class": st.label, "rows": st.decided,
                     "accuracy": st.accuracy, "agreement": st.agreement})
    return rows


def _sections(outcome: RunOutcome, rule_rows: list[dict], model_rows: list[dict], candidates: list[dict],
              n_var: int, L: int, warning: str) -> list:
    est, checked = outcome.estimator, outcome.checked
    how = "given" if outcome.given else ("chosen by the rule model's CV accuracy" if est.selection == "rules"
                                         else f"selected among {est.n_candidates} by radius-margin ratio")
    if not outcome.given and est.selection_.n_rows < checked.n_train:
        how += f" on {est.selection_.n_rows:,} of the {checked.n_train:,} rows, drawn at random"
    search = "exact, all features enumerated" if outcome.rules.exact else "local search, not guaranteed best"
    sections = [Formula(est.formula_, title=f"formula ({how})"), _score_card(outcome, n_var, L)]
    if warning:
        sections.append(Text(warning, title="one class"))
    if est.approximation_ is not None:
        sections.append(Text(f"approximation: {est.approximation_.describe()}; the rules are that model's",
                             title="kernel approximation"))
    sections.append(Table(
        ("", "rule", "class", "rows", "accuracy", "agreement"),
        [(r["when"], r["rule"], r["class"], r["rows"], r["accuracy"], r["agreement"]) for r in model_rows],
        title=f"rule model (fitted with the SVM on {checked.n_train:,} rows; rows it decides, accuracy and "
              f"agreement with the SVM on the other {checked.n_test:,})"))
    sections.append(Table(("weight", "rule", "supports"), [(r["weight"], r["rule"], r["supports"]) for r in rule_rows],
                          title=f"the SVM's top weighted features ({search})"))
    if candidates:
        columns = [k for k in candidates[0] if k not in ("radius", "margin")]
        title = getattr(est.selection_, "title", "candidates (lowest radius-margin ratio first)")
        sections.append(Table(tuple(columns), [tuple(c[k] for k in columns) for c in candidates[:_CANDIDATES_SHOWN]],
                              title=title))
    return sections


def _approximation_metric(est) -> dict:
    """``{"approximation": "nystroem m=..."}`` for an approximated model, nothing for the exact SVM
    (whose metrics stay as they were)."""
    if est.approximation_ is None:
        return {}
    return {"approximation": f"nystroem m={est.approximation_.n_landmarks}"}


def explanation(outcome: RunOutcome, y_share: float = 0.5) -> Explanation:
    """The run as an ``interp.Explanation``: sections to read, metrics and payload as JSON."""
    est = outcome.estimator
    n_var = est.n_variables_
    L = n_leaves(parse(est.formula_, est.operators_))
    names = {"1": outcome.positive, "0": outcome.negative}  # the SVC's classes are the labels 1 / 0
    rule_rows = [{"rule": r.rule, "weight": r.weight, "supports": names[r.supports], "feature": r.feature}
                 for r in outcome.rules.rules]
    model_rows = [{**r, "class": names[r["class"]]} for r in _rule_rows(est, outcome.checked.rule_stats)]
    candidates = est.selection_.table(_CANDIDATES_KEPT) if est.selection_ is not None else []
    folds = outcome.checked.folds
    warning = one_class_warning(outcome, y_share)
    rule_model = est.rule_model_.to_dict()
    rule_model["rules"] = [{**r, "then": names[r["then"]]} for r in rule_model["rules"]]
    rule_model["default"] = names[rule_model["default"]]
    return Explanation(
        params=outcome.params,
        metrics={"auc": outcome.mean("auc"), "auc_std": outcome.std("auc"), "accuracy": outcome.mean("accuracy"),
                 "rule_accuracy": outcome.mean("rule_accuracy"), "agreement": outcome.mean("agreement"),
                 "n_rules": outcome.mean("n_rules"), "C": est.C_, "n_leaves": L, "n_variables": n_var,
                 **_approximation_metric(est)},
        payload={"formula": est.formula_, "positive_class": outcome.positive,
                 "negative_class": outcome.negative, "folds": [attrs.asdict(f) for f in folds],
                 "auc_folds": [f.auc for f in folds], "rule_model": rule_model, "rule_model_held_out": model_rows,
                 "one_class_warning": warning, "rules": rule_rows,
                 "rules_exact": outcome.rules.exact, "candidates": candidates,
                 "approximation": None if est.approximation_ is None else attrs.asdict(est.approximation_),
                 "feature_names": list(outcome.feature_names)},
        sections=_sections(outcome, rule_rows, model_rows, candidates, n_var, L, warning),
        estimator=est,
    )


def rules_frame(est, top: int = 5, feature_names=None, logic=None):
    """The ``top`` rules of a fitted ``PropositionalSVC`` (``explain``) as a DataFrame: ``rule``
    (its plain form, on the rows ``logic`` allows), ``weight``, the class it ``supports`` and the
    kernel's ``feature``; ``frame.attrs["exact"]`` says whether every logical feature was
    enumerated (else a local search found them)."""
    import pandas as pd

    found = est.explain(top=top, feature_names=feature_names, logic=logic)
    frame = pd.DataFrame([(r.rule, r.weight, r.supports, r.feature) for r in found.rules],
                         columns=["rule", "weight", "supports", "feature"])
    frame.attrs["exact"] = found.exact
    return frame


def estimator_display(est, top: int = 5):
    """A fitted ``PropositionalSVC`` in a notebook (``interp.display``): its formula, the binary
    variables and the kernel, its rule model, the ``top`` weighted features and the candidate
    formulas it was chosen among.  (Held-out accuracy and agreement are the ``propositional``
    method's: a fitted model does not keep held-out rows.)"""
    from interp.display import Display

    rules = rules_frame(est, top)
    n_var, L = est.n_variables_, n_leaves(parse(est.formula_, est.operators_))
    how = "given" if est.selection_ is None else ("chosen by the rule model's CV accuracy"
                                                  if hasattr(est.selection_, "accuracies") else
                                                  "selected by radius-margin ratio")
    kernel = "Nystroem approximation: " + est.approximation_.describe() if est.approximation_ is not None else "exact"
    sections = [Formula(est.formula_, title=f"formula ({how})"),
                Text(f"features:  {n_var} binary variables, {L} leaves -> {n_var}^{L} = {n_var ** L:.3g} logical "
                     f"features\nkernel:    {kernel}")]
    if getattr(est, "rule_model_", None) is not None:
        sections.append(Text(str(est.rule_model_), title="rule model"))
    sections.append(Table(("weight", "rule", "supports"), rules[["weight", "rule", "supports"]].itertuples(index=False),
                          title=f"top weighted features ({'exact, all features enumerated' if rules.attrs['exact'] else 'local search'})"))
    if est.selection_ is not None:
        table = est.selection_.table(5)
        columns = [k for k in table[0] if k not in ("radius", "margin")]
        sections.append(Table(tuple(columns), [tuple(c[k] for k in columns) for c in table],
                              title=getattr(est.selection_, "title", "candidates (lowest radius-margin ratio first)")))
    return Display(f"PropositionalSVC on {n_var} binary variables", sections)
