"""``PropositionalSVC``: an SVM with a propositional kernel, chosen or selected, that explains
itself as logical rules."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.svm import SVC
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from interp import InputError
from interp.preprocessing import binarize_unless_binary

from .explain import TopRules, explain_svc
from .formula import operators_of, parse, to_string
from .kernels import check_binary, propositional_kernel
from .selection import select_kernel

__all__ = ["PropositionalSVC"]

_BINARIZE_MODES = {"error": "never", "auto": "auto"}  # this estimator's option -> the core's mode


class PropositionalSVC(ClassifierMixin, BaseEstimator):
    """Soft-margin SVM with a propositional kernel on binary features.

    Parameters (scikit-learn style, one per knob, hence more than eight)
    ----------
    formula : the kernel's formula; None selects it among ``n_candidates`` random formulas
        (generator parameters ``p``, ``eta``) by the radius-margin ratio on the training data.
    C : SVM regularisation.
    normalize : use the normalised kernel.
    max_leaves : largest number of leaves of a drawn candidate (None: any).
    binarize : "error" (default) rejects non-binary X with an InputError; "auto" encodes
        non-binary X with a ``TabularBinarizer`` fitted on the training data (``binarizer_``).
    random_state, n_jobs : for the candidate draw and the parallel ranking.
    third_party_operators : let the candidate draw use every registered operator besides the
        built-ins too.

    Attributes: ``formula_``, ``operators_`` (the formula's operators by name, resolved at fit:
    prediction and rules never consult the registry, so a pickled model works where the
    operators are not registered), ``selection_`` (None when ``formula`` was given), ``svc_``,
    ``X_fit_``, ``classes_``.
    """

    def __init__(self, formula=None, C: float = 1.0, normalize: bool = True, n_candidates: int = 30,
                 p: float = 0.4, eta: float = 0.7, max_leaves: int | None = 8,
                 binarize: str = "error", class_weight=None, random_state=None, n_jobs=None,
                 third_party_operators: bool = False) -> None:
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

    def fit(self, X, y):
        X, y = validate_data(self, X, y)
        check_classification_targets(y)
        if self.binarize not in _BINARIZE_MODES:
            raise InputError(f"binarize must be 'error' or 'auto', got {self.binarize!r}")
        features = binarize_unless_binary(X, self._names(X), mode=_BINARIZE_MODES[self.binarize])
        self.binarizer_ = features.binarizer
        X = check_binary(features.X)
        self.selection_ = None
        if self.formula is None:
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
        K = propositional_kernel(self.formula_, X, normalize=self.normalize, operators=self.operators_)
        # break_ties: multi-class predictions agree with the argmax of decision_function
        self.svc_ = SVC(C=self.C, kernel="precomputed", class_weight=self.class_weight,
                        break_ties=len(np.unique(y)) > 2, random_state=self.random_state).fit(K, y)
        self.classes_ = self.svc_.classes_
        self.X_fit_ = X
        return self

    def _names(self, X) -> list[str]:
        names = getattr(self, "feature_names_in_", None)
        return [str(n) for n in names] if names is not None else [f"x{i}" for i in range(X.shape[1])]

    def _kernel(self, X) -> np.ndarray:
        check_is_fitted(self, "svc_")
        X = validate_data(self, X, reset=False)
        if self.binarizer_ is not None:
            X = self.binarizer_.transform(pd.DataFrame(X, columns=self._names(X)))
        X = check_binary(X)
        return propositional_kernel(self.formula_, X, self.X_fit_, normalize=self.normalize,
                                    operators=self.operators_)

    def decision_function(self, X) -> np.ndarray:
        check_is_fitted(self, "svc_")
        return self.svc_.decision_function(self._kernel(X))

    def predict(self, X) -> np.ndarray:
        check_is_fitted(self, "svc_")
        return self.svc_.predict(self._kernel(X))

    def explain(self, top: int = 5, feature_names=None, **options) -> TopRules:
        """The ``top`` logical features with the largest weights, as rules (binary only).

        Returns ``TopRules(rules, exact)``; see :func:`interp_propositional.top_rules`."""
        check_is_fitted(self, "svc_")
        if feature_names is None and self.binarizer_ is not None:
            feature_names = list(self.binarizer_.get_feature_names_out())
        if feature_names is None:
            feature_names = getattr(self, "feature_names_in_", None)
        return explain_svc(self.svc_, self.X_fit_, formula=parse(self.formula_, self.operators_),
                           normalize=self.normalize, feature_names=feature_names, top=top, **options)
