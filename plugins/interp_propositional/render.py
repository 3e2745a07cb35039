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
    """What one run produced: the model fitted on all ``n_rows`` rows, its rules, the
    cross-validated AUC of each fold, the class names behind the labels 1 / 0 and the
    parameters the run resolved (the core adds its options)."""

    estimator: Any  # a fitted PropositionalSVC
    rules: TopRules
    auc_folds: tuple[float, ...]
    positive: str
    negative: str
    feature_names: tuple[str, ...]
    params: dict
    n_rows: int

    @property
    def given(self) -> bool:
        return self.estimator.selection_ is None


def _score_card(outcome: RunOutcome, n_var: int, L: int) -> Text:
    aucs, cv = outcome.auc_folds, len(outcome.auc_folds)
    inside = "" if outcome.given else ", selection inside each fold"
    return Text(
        f"features:  {n_var} binary variables, {L} leaves -> {n_var}^{L} = {n_var ** L:.3g} logical features\n"
        f"AUC:       {np.mean(aucs):.4f} +- {np.std(aucs):.4f} ({cv}-fold CV{inside}; "
        f"positive class {outcome.positive!r})"
    )


def _sections(outcome: RunOutcome, rule_rows: list[dict], candidates: list[dict], n_var: int, L: int) -> list:
    est = outcome.estimator
    how = "given" if outcome.given else f"selected among {est.n_candidates} by radius-margin ratio"
    if not outcome.given and est.selection_.n_rows < outcome.n_rows:
        how += f" on {est.selection_.n_rows:,} of the {outcome.n_rows:,} rows, drawn at random"
    search = "exact, all features enumerated" if outcome.rules.exact else "local search, not guaranteed best"
    sections = [Formula(est.formula_, title=f"formula ({how})"), _score_card(outcome, n_var, L)]
    if est.approximation_ is not None:
        sections.append(Text(f"approximation: {est.approximation_.describe()}; the rules are that model's",
                             title="kernel approximation"))
    sections.append(Table(("weight", "rule", "supports"), [(r["weight"], r["rule"], r["supports"]) for r in rule_rows],
                          title=f"top rules ({search})"))
    if candidates:
        sections.append(Table(("ratio", "formula"),
                              [(c["ratio"], c["formula"]) for c in candidates[:_CANDIDATES_SHOWN]],
                              title="candidates (lowest radius-margin ratio first)"))
    return sections


def _approximation_metric(est) -> dict:
    """``{"approximation": "nystroem m=..."}`` for an approximated model, nothing for the exact SVM
    (whose metrics stay as they were)."""
    if est.approximation_ is None:
        return {}
    return {"approximation": f"nystroem m={est.approximation_.n_landmarks}"}


def explanation(outcome: RunOutcome) -> Explanation:
    """The run as an ``interp.Explanation``: sections to read, metrics and payload as JSON."""
    est = outcome.estimator
    n_var = est.n_variables_
    L = n_leaves(parse(est.formula_, est.operators_))
    names = {"1": outcome.positive, "0": outcome.negative}  # the SVC's classes are the labels 1 / 0
    rule_rows = [{"rule": r.rule, "weight": r.weight, "supports": names[r.supports], "feature": r.feature}
                 for r in outcome.rules.rules]
    candidates = est.selection_.table(_CANDIDATES_KEPT) if est.selection_ is not None else []
    aucs = list(outcome.auc_folds)
    return Explanation(
        params=outcome.params,
        metrics={"auc": float(np.mean(aucs)), "auc_std": float(np.std(aucs)), "n_leaves": L, "n_variables": n_var,
                 **_approximation_metric(est)},
        payload={"formula": est.formula_, "positive_class": outcome.positive,
                 "negative_class": outcome.negative, "auc_folds": aucs, "rules": rule_rows,
                 "rules_exact": outcome.rules.exact, "candidates": candidates,
                 "approximation": None if est.approximation_ is None else attrs.asdict(est.approximation_),
                 "feature_names": list(outcome.feature_names)},
        sections=_sections(outcome, rule_rows, candidates, n_var, L),
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
    variables and the kernel, the ``top`` rules and the candidate formulas it was chosen among.
    (The cross-validated AUC is the ``propositional`` method's: a fitted model does not keep
    held-out rows.)"""
    from interp.display import Display

    rules = rules_frame(est, top)
    n_var, L = est.n_variables_, n_leaves(parse(est.formula_, est.operators_))
    how = "given" if est.selection_ is None else "selected by radius-margin ratio"
    kernel = "Nystroem approximation: " + est.approximation_.describe() if est.approximation_ is not None else "exact"
    sections = [Formula(est.formula_, title=f"formula ({how})"),
                Text(f"features:  {n_var} binary variables, {L} leaves -> {n_var}^{L} = {n_var ** L:.3g} logical "
                     f"features\nkernel:    {kernel}"),
                Table(("weight", "rule", "supports"), rules[["weight", "rule", "supports"]].itertuples(index=False),
                      title=f"top rules ({'exact, all features enumerated' if rules.attrs['exact'] else 'local search'})")]
    if est.selection_ is not None:
        sections.append(Table(("ratio", "formula"), [(c["ratio"], c["formula"]) for c in est.selection_.table(5)],
                              title="candidates (lowest radius-margin ratio first)"))
    return Display(f"PropositionalSVC on {n_var} binary variables", sections)
