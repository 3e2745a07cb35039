"""Symbolic Pursuit: closed-form models sum_k w_k G_k(ReLU(v_k.x)) mimicking a black box.

``meijerg`` / ``meijerg_grad``: vectorised Meijer G-functions with analytic gradients;
``SymbolicPursuitRegressor`` / ``SymbolicPursuitClassifier``: the estimators;
``explain_blackbox``: train-or-take a black box, fit the symbolic model on its outputs, report.
"""

from .estimator import SymbolicPursuitClassifier, SymbolicPursuitRegressor, Term
from .explain import explain_blackbox
from .meijer import meijerg, meijerg_grad

__all__ = ["meijerg", "meijerg_grad", "SymbolicPursuitRegressor", "SymbolicPursuitClassifier", "Term",
           "explain_blackbox"]
