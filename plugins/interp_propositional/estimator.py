"""``PropositionalSVC``: an SVM with a propositional kernel, chosen or selected, that explains
itself as logical rules; exact (a Gram matrix) on small data, a Nystroem approximation on big."""

from __future__ import annotations

import functools
import warnings

import attrs
import numpy as np
import pandas as pd
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.svm import SVC
from sklearn.utils import check_random_state, resample
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from interp import InputError
from interp.display import ExplainedEstimator
from interp.binarize import binarize_unless_binary
from interp.resources import check_sizes

from .explain import TopRules, explain_expansion, explain_svc, feature_coefficients, top_features
from .formula import operators_of, parse, to_string
from .kernels import check_binary, check_count, propositional_kernel
from .nystroem import BLOCK_ENTRIES, PropositionalNystroem
from .plain import PlainRule
from .rulelist import RuleList, literals
from .selection import select_kernel
from .shortlist import SELECTIONS, choose_C, seeded, select_by_rules

__all__ = ["PropositionalSVC", "Approximation", "APPROXIMATE_MODES", "fit_memory", "check_fit_memory"]

_BINARIZE_MODES = {"error": "never", "auto": "auto"}  # this estimator's option -> the core's mode
APPROXIMATE_MODES = ("auto", "never", "always")
#: SGD's budget: about this many single-row updates (5 to 1,000 passes over the rows), fewer
#: when the training loss improves by less than _SGD_TOL five passes in a row
_SGD_UPDATES, _SGD_TOL = 500_000, 1e-3
#: what a fit holds at once: float64 n x n kernels of the exact SVM (the Gram matrix, the
#: normalisation's temporaries, a fold's test kernel); float64 m x m kernels of the landmarks
#: (K(L, L) and the eigensolver's two); float64 s x s kernels per worker of the formula
#: selection on s rows (a candidate's Gram matrix and its radius and margin problems)
EXACT_COPIES, LANDMARK_COPIES, SELECTION_COPIES = 3, 3, 4


def fit_memory(n_rows: int, n_landmarks: int, selection_rows: int, *, approximate: bool, workers: int = 1) -> float:
    """The bytes a fit on ``n_rows`` rows allocates at its peak: the exact SVM's kernels, or the
    approximation's float32 map (rows x landmarks), its landmark kernels and ``workers`` kernel
    blocks; and the formula selection's kernels on ``selection_rows`` rows (0: a formula is
    given), ``workers`` candidates at once.  An upper bound of the large arrays (see
    :data:`EXACT_COPIES`)."""
    if approximate:
        m = min(n_rows, n_landmarks)
        fit = 4.0 * n_rows * m + 8.0 * LANDMARK_COPIES * m * m + 16.0 * min(n_rows * m, BLOCK_ENTRIES) * workers
    else:
        fit = 8.0 * EXACT_COPIES * n_rows * n_rows
    s = min(selection_rows, n_rows)
    return fit + 8.0 * SELECTION_COPIES * s * s * workers


def check_fit_memory(n_rows: int, n_landmarks: int, selection_rows: int, *, approximate: bool, workers: int = 1,
                     advice: dict | None = None) -> None:
    """A one-line ``ResourceError`` before any work when :func:`fit_memory` exceeds the memory
    budget (``interp.resources``), saying how many rows, landmarks or selection rows would fit;
    ``advice`` (by size: ``n_rows``, ``n_landmarks``, ``selection_rows``) says how to get there."""
    kind = f"the Nystroem approximation ({min(n_rows, n_landmarks):,} landmarks)" if approximate else "the exact SVM"
    check_sizes(functools.partial(fit_memory, approximate=approximate, workers=workers),
                {"n_rows": n_rows, "n_landmarks": n_landmarks if approximate else 0, "selection_rows": selection_rows},
                f"{kind} on {n_rows:,} rows" + (f", its formula selected on {min(n_rows, selection_rows):,}"
                                                 if selection_rows else ""),
                {"n_rows": "rows", "n_landmarks": "landmarks", "selection_rows": "selection rows"},
                advice or {"n_rows": "subsample the rows" + ("" if approximate else ", or approximate"),
                           "n_landmarks": "lower n_landmarks", "selection_rows": "lower selection_rows"})


@attrs.frozen
class Approximation:
    """How a model fitted beyond ``max_exact_rows`` approximates its kernel: a Nystroem map on
    ``n_landmarks`` distinct training rows keeping ``n_components`` eigenpairs, and a linear SVM
    (``SGDClassifier``, hinge loss) on the map of the ``n_rows`` training rows."""

    n_rows: int
    n_landmarks: int
    n_components: int

    def describe(self) -> str:
        """One line for a person: what was approximated and how."""
        return (f"nystroem m={self.n_landmarks:,} landmark rows ({self.n_components:,} components), "
                f"linear SVM (SGD, hinge loss) on {self.n_rows:,} rows")


def uses_approximation(approximate: str, n_rows: int, max_exact_rows: int) -> bool:
    """Whether ``n_rows`` training rows are fitted with the Nystroem approximation."""
    if approximate not in APPROXIMATE_MODES:
        raise InputError(f"approximate must be one of {', '.join(APPROXIMATE_MODES)}, got {approximate!r}")
    return approximate == "always" or (approximate == "auto" and n_rows > max_exact_rows)


class PropositionalSVC(ExplainedEstimator, ClassifierMixin, BaseEstimator):
    """Soft-margin SVM with a propositional kernel on binary features.

    The approximation (`interp_propositional.nystroem`) maps the rows to
    phi(x) = K(x, L) K(L, L)^(-1/2) and trains a linear SVM on phi by stochastic gradient descent
    (``SGDClassifier``, hinge loss, alpha = 1 / (C n): the SVM's objective).  SGD, not
    ``LinearSVC``: it trains in place on the float32 map, whereas liblinear copies a dense
    matrix into its sparse format (16 bytes a value: 1.3 GB at 80,000 rows x 1,000 landmarks).
    The model's decision function is the kernel expansion f(x) = sum_j alpha_j k(x, l_j) + b
    with alpha = K(L, L)^(-1/2) w over the landmarks, which is what ``predict`` evaluates and
    ``explain`` turns into rules.

    Fitted, it has ``formula_``, ``operators_`` (the formula's operators by name, resolved at fit:
    prediction and rules never consult the registry, so a pickled model works where the
    operators are not registered), ``selection_`` (None when ``formula`` was given),
    ``classes_``, ``n_variables_`` (binary columns), ``approximation_`` (an ``Approximation``,
    None for the exact SVM); exact: ``svc_``, ``X_fit_``; approximate: ``feature_map_`` (a
    ``PropositionalNystroem``), ``linear_`` (the ``SGDClassifier``), ``landmark_coef_``
    (alpha, one column per decision function) and ``intercept_``.

    One constructor keyword per knob, scikit-learn's style (hence more than eight).

    Parameters
    ----------
    formula
        The kernel's formula; None selects it among ``n_candidates`` random formulas
        (generator parameters ``p``, ``eta``) by the radius-margin ratio on the training data.
    C
        SVM regularisation.
    normalize
        Use the normalised kernel.
    max_leaves
        Largest number of leaves of a drawn candidate (None: any).
    binarize
        "error" (default) rejects non-binary X with an InputError; "auto" encodes
        non-binary X with a ``TabularBinarizer`` fitted on the training data (``binarizer_``).
    random_state, n_jobs
        For the candidate draw, the parallel ranking, the landmarks and the
        blocks of the Nystroem map.
    third_party_operators
        Let the candidate draw use every registered operator besides the
        built-ins too.
    approximate
        "auto" (default) fits the exact SVM up to ``max_exact_rows`` training rows
        (its Gram matrix takes 8 n^2 bytes: 0.8 GB at the default 10,000) and the Nystroem
        approximation above; "never" / "always" force one.
    n_landmarks
        Landmark rows of the approximation (distinct training rows drawn at random).
    selection_rows
        The formula selection (``formula=None``) computes the radius-margin ratios
        on at most this many training rows, drawn at random and stratified by class beyond (its
        cost grows faster than the rows); ``selection_.n_rows`` says how many.
    """

    def __init__(self, formula=None, C: float | None = None, normalize: bool = True, n_candidates: int = 30,
                 p: float = 0.4, eta: float = 0.7, max_leaves: int | None = 8,
                 binarize: str = "error", class_weight=None, random_state=None, n_jobs=None,
                 third_party_operators: bool = False, approximate: str = "auto",
                 max_exact_rows: int = 10_000, n_landmarks: int = 1000, selection_rows: int = 1000,
                 selection: str = "rules", max_rules: int = 10, rule_candidates: int = 40) -> None:
        self.formula = formula
        self.C = C
        self.normalize = normalize
        self.n_candidates = n_candidates
        self.p = p
        self.eta = eta
        self.max_leaves = max_leaves
        self.binarize = binarize
        self.class_weight = class_weight
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.third_party_operators = third_party_operators
        self.approximate = approximate
        self.max_exact_rows = max_exact_rows
        self.n_landmarks = n_landmarks
        self.selection_rows = selection_rows
        self.selection = selection
        self.max_rules = max_rules
        self.rule_candidates = rule_candidates

    def __setstate__(self, state):
        """A model pickled before the rule model: its new parameters get the values that
        describe it (radius-margin selection, the C it was fitted with); it has no rule model."""
        for name, value in (("selection", "radius-margin"), ("max_rules", 10), ("rule_candidates", 40)):
            state.setdefault(name, value)
        if "classes_" in state:
            state.setdefault("C_", state.get("C") or 1.0)
        super().__setstate__(state)

    def fit(self, X, y, column_logic=None):
        """Fit the SVM and its rule model on ``X``, ``y``.  ``column_logic`` (a
        ``ColumnLogic``) is what the binary columns say of each other, for the rules' plain
        forms (default: the model's own binarizer's, or nothing known)."""
        X, y = validate_data(self, X, y)
        check_classification_targets(y)
        if self.binarize not in _BINARIZE_MODES:
            raise InputError(f"binarize must be 'error' or 'auto', got {self.binarize!r}")
        for name in ("max_exact_rows", "n_landmarks", "selection_rows"):
            check_count(getattr(self, name), name)
        approximate = uses_approximation(self.approximate, X.shape[0], self.max_exact_rows)
        check_fit_memory(X.shape[0], int(self.n_landmarks), int(self.selection_rows) if self.formula is None else 0,
                         approximate=approximate, workers=effective_n_jobs(self.n_jobs))
        features = binarize_unless_binary(X, self._names(X), mode=_BINARIZE_MODES[self.binarize])
        self.binarizer_ = features.binarizer
        X = check_binary(features.X)
        self.n_variables_ = X.shape[1]
        self.column_logic_ = column_logic if column_logic is not None else features.logic
        self._explained = {}
        rng = check_random_state(self.random_state)
        chooses_C = self.C is None and not approximate
        rows = self._selection_rows(y, rng) if (self.formula is None or chooses_C) else slice(None)
        self._resolve_formula(X[rows], y[rows])
        if approximate:
            self.C_ = 1.0 if self.C is None else float(self.C)
            self._fit_nystroem(X, y, rng)
        else:
            self.C_ = self._chosen_C(X[rows], y[rows])
            self._fit_svc(X, y)
        self.rule_model_ = self._fit_rule_model(X, y)
        return self

    def _chosen_C(self, X: np.ndarray, y: np.ndarray) -> float:
        """``C``, or (None) the one of ``shortlist.C_GRID`` of best 3-fold accuracy on these rows."""
        if self.C is not None:
            return float(self.C)
        K = propositional_kernel(self.formula_, X, normalize=self.normalize, operators=self.operators_)
        return choose_C(K, y, self.class_weight, seeded(self.random_state))

    def _fit_rule_model(self, X: np.ndarray, y: np.ndarray) -> RuleList:
        """The decision list over the ``rule_candidates`` logical features the model weights
        most (binary models) and the binary variables and their negations, fitted on the
        training rows."""
        conditions: list[PlainRule] = []
        if len(self.classes_) == 2 and int(self.rule_candidates) > 0:
            node = parse(self.formula_, self.operators_)
            rows, coef = self._expansion()
            found, _ = top_features(node, rows, feature_coefficients(node, rows, coef, self.normalize),
                                    top=int(self.rule_candidates), reference=X, random_state=self.random_state)
            conditions = [PlainRule(node, tuple(assign)) for assign, _ in found]
        return RuleList(conditions + literals(X.shape[1], negated=True), feature_names=self._binary_names(),
                        logic=self.column_logic_, max_rules=int(self.max_rules),
                        random_state=seeded(self.random_state)).fit(X, y)

    def _expansion(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows and coefficients of the binary model's kernel expansion: the support vectors
        and dual coefficients, or the landmarks and alpha."""
        if self.approximation_ is None:
            return self.X_fit_[self.svc_.support_], self.svc_.dual_coef_[0]
        return self.feature_map_.landmarks_, self.landmark_coef_[:, 0]

    def _binary_names(self) -> list[str]:
        """The names of the binary columns the kernel reads."""
        if self.binarizer_ is not None:
            return [str(n) for n in self.binarizer_.get_feature_names_out()]
        names = getattr(self, "feature_names_in_", None)
        return [str(n) for n in names] if names is not None else [f"x{i}" for i in range(self.n_variables_)]

    def _selection_rows(self, y: np.ndarray, rng) -> np.ndarray | slice:
        """The rows of the formula selection: all, or ``selection_rows`` drawn at random,
        stratified by class (``rng`` is drawn from only then)."""
        if len(y) <= self.selection_rows:
            return slice(None)
        return np.sort(resample(np.arange(len(y)), replace=False, n_samples=self.selection_rows, stratify=y,
                                random_state=rng))

    def _resolve_formula(self, X: np.ndarray, y: np.ndarray) -> None:
        """``formula_`` and ``operators_``: the given formula, or the one selected on (X, y)."""
        self.selection_ = None
        if self.selection not in SELECTIONS:
            raise InputError(f"selection must be one of {', '.join(SELECTIONS)}, got {self.selection!r}")
        if self.formula is None and self.selection == "rules":
            self.selection_ = select_by_rules(X, y, self)
            self.formula_ = self.selection_.best
            self.operators_ = operators_of(self.formula_, self.selection_.operators)
        elif self.formula is None:
            self.selection_ = select_kernel(
                X, y, n_candidates=self.n_candidates, p=self.p, eta=self.eta,
                normalize=self.normalize, random_state=self.random_state, n_jobs=self.n_jobs,
                max_leaves=self.max_leaves, third_party_operators=self.third_party_operators,
            )
            self.formula_ = self.selection_.best
            self.operators_ = operators_of(self.formula_, self.selection_.operators)
        else:
            node = parse(self.formula)
            self.formula_ = to_string(node)
            self.operators_ = operators_of(node)

    def _fit_svc(self, X: np.ndarray, y: np.ndarray) -> None:
        K = propositional_kernel(self.formula_, X, normalize=self.normalize, operators=self.operators_)
        # break_ties: multi-class predictions agree with the argmax of decision_function
        self.svc_ = SVC(C=self.C_, kernel="precomputed", class_weight=self.class_weight,
                        break_ties=len(np.unique(y)) > 2, random_state=self.random_state).fit(K, y)
        self.classes_ = self.svc_.classes_
        self.X_fit_ = X
        self.approximation_ = None

    def _fit_nystroem(self, X: np.ndarray, y: np.ndarray, rng) -> None:
        """The Nystroem map on ``n_landmarks`` rows, a linear SVM on it, and its expansion."""
        self.feature_map_ = PropositionalNystroem(
            self.formula_, normalize=self.normalize, n_components=int(self.n_landmarks),
            random_state=rng, n_jobs=self.n_jobs).fit(X)
        phi = self.feature_map_.transform(X)
        self.linear_ = SGDClassifier(loss="hinge", alpha=1.0 / (self.C_ * len(y)), class_weight=self.class_weight,
                                     max_iter=int(np.clip(_SGD_UPDATES // len(y), 5, 1000)), tol=_SGD_TOL,
                                     random_state=rng.randint(2**31 - 1))
        with warnings.catch_warnings():  # the epoch cap is a budget, not an error
            warnings.simplefilter("ignore", ConvergenceWarning)
            self.linear_.fit(phi, y)
        del phi
        self.classes_ = self.linear_.classes_
        self.landmark_coef_ = self.feature_map_.expansion(self.linear_.coef_.T)
        self.intercept_ = self.linear_.intercept_.astype(np.float64)
        self.approximation_ = Approximation(len(y), self.feature_map_.landmarks_.shape[0],
                                            self.feature_map_.n_features_out_)

    def _names(self, X) -> list[str]:
        names = getattr(self, "feature_names_in_", None)
        return [str(n) for n in names] if names is not None else [f"x{i}" for i in range(X.shape[1])]

    def _binary(self, X) -> np.ndarray:
        """Rows to predict, validated and encoded as at fit."""
        X = validate_data(self, X, reset=False)
        if self.binarizer_ is not None:
            X = self.binarizer_.transform(pd.DataFrame(X, columns=self._names(X)))
        return check_binary(X)

    def _training_kernel(self, X) -> np.ndarray:
        """K(X, training rows) of the exact SVM."""
        return propositional_kernel(self.formula_, self._binary(X), self.X_fit_, normalize=self.normalize,
                                    operators=self.operators_)

    def decision_function(self, X) -> np.ndarray:
        check_is_fitted(self, "classes_")
        if self.approximation_ is None:
            return self.svc_.decision_function(self._training_kernel(X))
        scores = self.feature_map_.decision(self._binary(X), self.landmark_coef_) + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X) -> np.ndarray:
        check_is_fitted(self, "classes_")
        if self.approximation_ is None:
            return self.svc_.predict(self._training_kernel(X))
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int) if scores.ndim == 1 else np.argmax(scores, axis=1)]

    def explain(self, top: int = 5, feature_names=None, **options) -> TopRules:
        """The ``top`` logical features with the largest weights, as rules (binary only).

        Exact SVM: the weights sum over its support vectors; approximation: over the landmarks,
        with the expansion's coefficients (the same decision function, see the class notes).
        Each rule reads in its plain form on the rows the model's own binarizer produces (or
        the ``column_logic`` given to ``fit``); for columns binarised before the model, pass
        ``logic=binarizer.column_logic()``.  Computed once per fitted model and arguments.
        Returns ``TopRules(rules, exact)``; see `interp_propositional.top_rules`."""
        check_is_fitted(self, "classes_")
        key = (top, None if feature_names is None else tuple(feature_names), tuple(sorted(options.items())))
        cache = self.__dict__.setdefault("_explained", {})
        if key not in cache:
            cache[key] = self._explain(top, feature_names, **options)
        return cache[key]

    def _explain(self, top: int, feature_names, **options) -> TopRules:
        """`explain`, computed."""
        if options.get("logic") is None:  # a model pickled before the rule model has no column_logic_
            options["logic"] = getattr(self, "column_logic_", None) or (
                self.binarizer_.column_logic() if self.binarizer_ is not None else None)
        feature_names = self._binary_names() if feature_names is None else feature_names
        formula = parse(self.formula_, self.operators_)
        if self.approximation_ is None:
            return explain_svc(self.svc_, self.X_fit_, formula=formula, normalize=self.normalize,
                               feature_names=feature_names, top=top, **options)
        if len(self.classes_) != 2:
            raise InputError("rules are extracted for binary classifiers only")
        return explain_expansion(self.feature_map_.landmarks_, self.landmark_coef_[:, 0], formula, self.normalize,
                                 self.classes_, feature_names=feature_names, top=top, **options)

    def rule_contributions(self, X, top: int = 10):
        """Per row: the rule model's rules that fire (and the one that decides), and the SVM's
        decision value split into its ``top`` weighted features' parts, the rest ("other") and
        the intercept, which add up to ``decision_function`` (binary models; see
        `interp_propositional.contributions`)."""
        from .contributions import rule_contributions

        check_is_fitted(self, "rule_model_")
        return rule_contributions(self, X, top)

    def predict_rules(self, X) -> np.ndarray:
        """The rule model's (``rule_model_``) classes for the rows ``X``, read as ``predict``
        reads them."""
        check_is_fitted(self, "rule_model_")
        return self.rule_model_.predict(self._binary(X))

    def rules_frame(self, top: int = 5, feature_names=None, logic=None):
        """The ``top`` rules as a DataFrame: rule, weight, supports, feature
        (``render.rules_frame``); ``logic`` as in `explain`."""
        from .render import rules_frame

        check_is_fitted(self, "classes_")
        return rules_frame(self, top, feature_names, logic)

    def _display(self):
        from .render import estimator_display

        return estimator_display(self)
