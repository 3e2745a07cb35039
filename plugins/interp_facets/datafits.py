"""Datafits: the mean losses of the scores ``z = gamma X u + b``, one class per loss.

As in skglm's ``datafits``, a datafit is the smooth part of the objective, and each solver asks
it only for what it needs: the value, the gradient in z, a bound on the curvature (for the step
metric), the second derivative per sample (for the Newton step), the intercept of the best
model with w = 0, and the loss of many score columns at once (the snap and the scale refit).
The pieces that share work (one exponential, one sigmoid) are computed together.

``Logistic`` is ``sum log(1 + exp(-y z)) / n`` with ``y`` in {-1, +1}; ``Squared`` is
``sum (y - z)^2 / (2 n)``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from scipy.special import expit

from interp import InputError

__all__ = ["Datafit", "Logistic", "Squared", "DATAFITS", "get_datafit"]


class Datafit:
    """The mean loss of scores ``z`` given targets ``y`` (see the subclasses)."""

    name: ClassVar[str] = ""
    #: a bound on one sample's second derivative in z
    curvature: ClassVar[float] = 1.0

    def value(self, z: np.ndarray, y: np.ndarray) -> float:
        raise NotImplementedError

    def gradient(self, z: np.ndarray, y: np.ndarray) -> np.ndarray:
        """d loss / d z."""
        raise NotImplementedError

    def value_and_gradient(self, z: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
        raise NotImplementedError

    def gradient_and_curvature(self, z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """d loss / d z and the second derivative of the mean loss in each z_i."""
        raise NotImplementedError

    def column_values(self, Z: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The mean loss of every column of the scores ``Z`` (n, m)."""
        raise NotImplementedError

    def null_intercept(self, y: np.ndarray) -> float:
        """The intercept of the best model with w = 0."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Logistic(Datafit):
    """``sum log(1 + exp(-y z)) / n``, y in {-1, +1}.

    ``value`` sums ``max(m, 0) + log1p(exp(-|m|))`` with ``m = -y z`` (the solvers' objective,
    whose every bit decides a backtracking test); ``column_values`` is the same per column
    (vectorised over columns, in place; ``logaddexp`` gives the same to rounding at three times
    the cost).
    """

    name = "logistic"
    curvature = 0.25

    def value(self, z, y):
        m = -y * z
        return float(np.maximum(m, 0.0).sum() + np.log1p(np.exp(-np.abs(m))).sum()) / z.shape[0]

    def gradient(self, z, y):
        return -y * expit(-y * z) / z.shape[0]

    def value_and_gradient(self, z, y):
        m = -y * z
        e = np.exp(-np.abs(m))
        n = z.shape[0]
        value = float(np.maximum(m, 0.0).sum() + np.log1p(e).sum()) / n
        sig = np.where(m >= 0, 1.0, e) / (1.0 + e)  # sigmoid(m) from the same exponential
        return value, -y * sig / n

    def gradient_and_curvature(self, z, y):
        s = expit(-y * z)
        n = z.shape[0]
        return -y * s / n, s * (1.0 - s) / n

    def column_values(self, Z, y):
        M = -y[:, None] * Z
        out = np.abs(M)
        np.negative(out, out=out)
        np.exp(out, out=out)
        np.log1p(out, out=out)
        out += np.maximum(M, 0.0, out=M)
        return out.mean(axis=0)

    def null_intercept(self, y):
        """The log-odds of the positive class."""
        p = np.clip(np.mean(y > 0), 1e-12, 1 - 1e-12)
        return float(np.log(p / (1 - p)))


class Squared(Datafit):
    """``sum (y - z)^2 / (2 n)``."""

    name = "squared"
    curvature = 1.0

    def value(self, z, y):
        r = z - y
        return float(r @ r) / (2 * z.shape[0])

    def gradient(self, z, y):
        return (z - y) / z.shape[0]

    def value_and_gradient(self, z, y):
        r = z - y
        n = z.shape[0]
        return float(r @ r) / (2 * n), r / n

    def gradient_and_curvature(self, z, y):
        return self.gradient(z, y), np.full(z.shape[0], 1.0 / z.shape[0])

    def column_values(self, Z, y):
        R = Z - y[:, None]
        return 0.5 * np.mean(R * R, axis=0)

    def null_intercept(self, y):
        """The mean of y."""
        return float(np.mean(y))


#: the datafits by the name the estimators and ``Objective.loss`` use
DATAFITS: dict[str, Datafit] = {fit.name: fit for fit in (Logistic(), Squared())}


def get_datafit(loss: str) -> Datafit:
    """The datafit named ``loss``, or a one-line InputError naming the known ones."""
    try:
        return DATAFITS[loss]
    except (KeyError, TypeError):
        raise InputError(f"loss must be one of {', '.join(map(repr, DATAFITS))}, got {loss!r}") from None
