"""Symbolic Pursuit: closed-form models sum_k w_k G_k(ReLU(v_k.x)) mimicking a black box.

``meijerg`` / ``meijerg_grad``: vectorised Meijer G-functions with analytic gradients;
``SymbolicPursuitRegressor`` / ``SymbolicPursuitClassifier``: the estimators;
``explain_blackbox``: train-or-take a black box, fit the symbolic model on its outputs, report;
``ClosedForm`` / ``registered_closed_forms``: the closed forms a fitted term may be rewritten as
(a plugin adds more through the ``register_closed_forms`` hook).
"""

from interp.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".estimator": ["SymbolicPursuitClassifier", "SymbolicPursuitRegressor"],
    ".terms": ["Term"],
    ".method": ["explain_blackbox"],
    ".meijer": ["meijerg", "meijerg_grad"],
    ".closed_forms": ["ClosedForm", "registered_closed_forms"],
})
