"""The penalised problem every solver loop works on, in grid coordinates.

The problem is eq. (9) of the paper,

    min_{w, b}  loss(X w + b, y) + lam * Omega(w / gamma),

written in the grid coordinates ``u = w / gamma`` (eq. 8): ``loss(gamma X u + b) + lam Omega(u)``.
One proximal step in ``u`` with step ``1 / L`` is exactly the scaled proximal step of eq. (16) in
``w``, but the iterate is kept in grid units, so a coordinate on a plateau of the Facets prox is
an exact integer and its subdifferential is read without rounding.

``loss`` is a datafit (`.datafits`); with ``penalty="l1"`` and ``gamma=1`` the squared and
logistic problems are scikit-learn's ``Lasso(alpha=lam)`` and ``LogisticRegression(C=1 / (n
lam))`` objectives.  The penalty is any ``interp.Penalty``, bound to its hyperparameters
(``Objective.bound``): ``prox(w, step)``, ``value(w)`` and (optional) ``subdiff_distance(w,
grad)``.  The intercept is not penalised.  With ``max_points`` the points are kept in the box
``|u_j| <= max_points`` (and with ``bounds`` in ``lower_j <= u_j <= upper_j``, per coordinate):
every prox is clipped to it and the stopping test adds the box's normal cone (at a bound, a
gradient pushing outwards is optimal).

The stopping test is ``dist(-grad_j, lam d Omega(u_j)) <= tol * max(lam, 0.1 c_j)`` for every
coordinate j, with ``c_j = |d loss / d u_j|`` at the intercept-only model, together with ``|d
loss / d b| <= tol * max(lam, 0.1 max_j c_j)``: the tolerance is in units of the penalty's own
subgradient (the plateaus of the Facets subdifferential have width 1), so a coordinate whose
optimum sits inside a plateau is reached exactly once ``tol`` is below the plateau margin;
``c_j`` (the strength that zeroes coordinate j alone) floors it for nearly unpenalised problems,
per coordinate, so that one large-scale feature does not loosen the test for the others.  A
penalty without ``subdiff_distance`` uses the gradient-mapping norm instead.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from interp import InputError, Penalty
from interp.components import BoundPenalty

from .datafits import Datafit, get_datafit

__all__ = ["Objective", "Problem", "ProxStep", "SolveResult", "gram_matrix", "curvature_matrix",
           "metric_and_bound", "step_metric", "null_intercept", "null_gradient", "null_threshold"]


def _check_loss(instance, attribute, loss) -> None:
    get_datafit(loss)


def _check_max_points(instance, attribute, max_points) -> None:
    if max_points is not None and not (isinstance(max_points, (int, float, np.integer, np.floating))
                                       and not isinstance(max_points, bool) and max_points > 0
                                       and np.isfinite(max_points)):
        raise InputError(f"max_points must be None or a number > 0, got {max_points!r}")


def _check_bounds(instance, attribute, bounds) -> None:
    if bounds is None:
        return
    lower, upper = (np.asarray(b, dtype=float) for b in bounds)
    if lower.shape != upper.shape or lower.ndim != 1 or np.any(lower > 0) or np.any(upper < 0) \
            or np.isnan(lower).any() or np.isnan(upper).any():
        raise InputError("bounds must be two 1-D arrays (lower, upper) with lower <= 0 <= upper")


def _check_penalty(instance, attribute, penalty) -> None:
    if not isinstance(penalty, (Penalty, BoundPenalty)):
        raise InputError(f"penalty must be an interp.Penalty (look a name up with resolve_penalty), "
                         f"got {penalty!r}")


@attrs.frozen(eq=False)
class Objective:
    """``loss(gamma X u + b, y) + lam * penalty(u, **hyper)``: what is minimised, but for the
    data and ``lam`` (which a path varies).

    ``loss`` names a datafit ("logistic" or "squared"), ``penalty`` is an ``interp.Penalty``
    and ``hyper`` its hyperparameters (or ``penalty`` is one already bound,
    ``SCF.bind(eps=0.05)``, and ``hyper`` is left out); ``bound`` is the penalty bound to them,
    what the solvers call, and ``hyper`` then holds all of them, defaults included.  ``gamma`` is
    the grid step and ``fit_intercept`` says whether the unpenalised intercept ``b`` is fitted
    (else b = 0).  ``max_points`` (None: no bound) constrains every point to ``|u_j| <=
    max_points``: the minimiser is then that of the penalty plus the indicator of the box, whose
    prox is the penalty's prox clipped to the box (both are separable and the penalty is convex
    in each coordinate).  ``bounds`` = (lower, upper), one value per coordinate with ``lower <= 0
    <= upper`` (infinite: unbounded), narrows the box per coordinate: a monotone feature's rows
    keep one sign, a row may have bounds of its own (see `.space`).
    """

    loss: str = attrs.field(validator=_check_loss)
    penalty: Penalty = attrs.field(validator=_check_penalty)
    hyper: dict = attrs.field(factory=dict, converter=lambda h: dict(h or {}))
    gamma: float = 1.0
    fit_intercept: bool = True
    max_points: float | None = attrs.field(default=None, validator=_check_max_points)
    bounds: tuple | None = attrs.field(default=None, validator=_check_bounds, repr=False)
    bound: BoundPenalty = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        penalty, hyper = self.penalty, self.hyper
        if isinstance(penalty, BoundPenalty):
            if hyper:
                raise InputError(f"penalty {penalty.penalty.name!r} is bound already: give its hyperparameters "
                                 "to bind() or as hyper, not both")
            penalty, hyper = penalty.penalty, penalty.hyper
        bound = penalty.bind(**hyper)
        for field, value in (("penalty", penalty), ("hyper", dict(bound.hyper)), ("bound", bound)):
            object.__setattr__(self, field, value)

    @property
    def datafit(self) -> Datafit:
        return get_datafit(self.loss)

    def penalty_value(self, u: np.ndarray):
        """``Omega(u)`` (without lam)."""
        return self.bound.value(u)

    def box(self, d: int) -> tuple[np.ndarray, np.ndarray] | None:
        """(lower, upper) per coordinate of ``d``: ``bounds`` within ``|u_j| <= max_points``, or
        None when nothing is bounded."""
        M = np.inf if self.max_points is None else float(self.max_points)
        if self.bounds is None:
            return None if np.isinf(M) else (np.full(d, -M), np.full(d, M))
        lower, upper = (np.asarray(b, dtype=float) for b in self.bounds)
        if lower.size != d:
            raise InputError(f"bounds have {lower.size} values for {d} coefficients")
        return np.maximum(lower, -M), np.minimum(upper, M)


@attrs.define
class SolveResult:
    """What a solver loop returns."""

    u: np.ndarray  # coefficients in grid units (w / gamma)
    intercept: float
    n_iter: int
    converged: bool
    objective: float
    criterion: float  # final value of the stopping criterion
    lipschitz: float  # last accepted backtracking constant (a warm start for the next fit)


@attrs.frozen(eq=False)
class ProxStep:
    """A backtracked proximal gradient step: the new point ``u = prox(zeta, step)``, its
    intercept ``b``, scores ``z`` and loss ``f``, and the accepted ``lipschitz`` constant."""

    u: np.ndarray
    b: float
    z: np.ndarray
    f: float
    lipschitz: float
    zeta: np.ndarray
    step: Any  # per-coordinate steps (array) or one scalar step


def gram_matrix(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(X^T X / n, mean of X): what every Hessian bound and the squared loss's (constant)
    Hessian are made of; computed once per path and reused by all its fits."""
    return X.T @ X / X.shape[0], X.mean(axis=0)


def curvature_matrix(X: np.ndarray, objective: Objective,
                     gram: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """An upper bound H of the Hessian of the loss in (u, b): curv * [gamma X, 1]^T [gamma X, 1] / n.

    ``gram`` (see `gram_matrix`) may be given to reuse it across a grid.
    """
    d, gamma = X.shape[1], objective.gamma
    G, m = gram if gram is not None else gram_matrix(X)
    k = d + 1 if objective.fit_intercept else d
    H = np.empty((k, k))
    H[:d, :d] = gamma * gamma * G
    if objective.fit_intercept:
        H[:d, d] = H[d, :d] = gamma * m
        H[d, d] = 1.0
    return objective.datafit.curvature * H


def metric_and_bound(H: np.ndarray, precondition: bool) -> tuple[np.ndarray, float]:
    """The diagonal metric D (Jacobi: diag H, or ones) and L = lambda_max(D^-1/2 H D^-1/2).

    With it, ``loss(x + d) <= loss(x) + g.d + L/2 sum_j D_j d_j^2``: the proximal step with
    per-coordinate steps ``1 / (L D_j)`` is a valid majorise-minimise step (variable metric
    proximal gradient; the penalty is separable, so its prox takes the steps elementwise).
    """
    k = H.shape[0]
    if k == 0:
        return np.ones(0), 1e-12
    diag = np.diag(H).copy()
    if precondition:
        top = float(diag.max(initial=0.0))
        D = np.maximum(diag, max(top, 1e-300) * 1e-10)
    else:
        D = np.ones(k)
    s = 1.0 / np.sqrt(D)
    M = H * s[:, None] * s[None, :]
    if k <= 3000:
        L = float(np.linalg.eigvalsh(M)[-1])
    else:  # trace bound (PSD)
        L = float(np.trace(M))
    return D, max(L, 1e-12)


def step_metric(X: np.ndarray, objective: Objective, precondition: bool = True,
                gram: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, float]:
    """(D, bound) of `metric_and_bound` for the objective's Hessian bound: what a path
    computes once and hands to each of its fits."""
    return metric_and_bound(curvature_matrix(X, objective, gram), precondition)


def null_intercept(y, loss: str, fit_intercept: bool = True) -> float:
    """The intercept of the best model with w = 0 (the log-odds, or the mean of y)."""
    return get_datafit(loss).null_intercept(y) if fit_intercept else 0.0


def null_gradient(X, y, loss: str, fit_intercept: bool = True) -> tuple[np.ndarray, float]:
    """(d loss / d w, d loss / d b) at the intercept-only model."""
    gz = get_datafit(loss).gradient(np.full(X.shape[0], null_intercept(y, loss, fit_intercept)), y)
    return X.T @ gz, float(gz.sum()) if fit_intercept else 0.0


def null_threshold(X, y, loss: str, fit_intercept: bool = True) -> float:
    """c = max_j |d loss / d w_j| at the intercept-only model: lam / gamma >= c gives w = 0
    for penalties whose subdifferential at 0 is [-1, 1] (facets, scf, l1)."""
    return float(np.max(np.abs(null_gradient(X, y, loss, fit_intercept)[0]), initial=0.0))


class Problem:
    """``loss(gamma X u + b, y) + lam * penalty(u)`` on data ``X, y``, with the pieces every
    solver loop needs.

    Holds the data, the objective, the diagonal metric ``D`` (per-coordinate steps ``1 / (L
    D_j)``) and the scale of the stopping criterion, so that the first-order loop
    (`.first_order`) and the Newton loop (`.newton`) share one definition of a step,
    of the objective and of convergence.  ``gram`` and ``metric`` (see `step_metric`) may
    be given to reuse them along a path.
    """

    def __init__(self, X, y, objective: Objective, lam: float, *, precondition: bool = True,
                 gram=None, metric=None):
        self.X, self.y, self.objective, self.lam = X, y, objective, lam
        self.loss, self.penalty = objective.loss, objective.bound
        self.gamma, self.fit_intercept = objective.gamma, objective.fit_intercept
        self.d = X.shape[1]
        self.box = objective.box(self.d)  # (lower, upper) per coordinate, or None
        self._datafit = objective.datafit
        if gram is None and (metric is None or self.loss == "squared"):
            gram = gram_matrix(X)  # the metric's and the squared loss's Hessian's, made once
        self._gram = gram
        self._set_metric(metric if metric is not None else step_metric(X, objective, precondition, gram))
        self._set_criterion_scale()
        self._X32 = self._work = None  # X in single precision and the Hessian's buffer, made once

    def _set_metric(self, metric: tuple[np.ndarray, float]) -> None:
        """The per-coordinate metric; a penalty whose prox does not declare
        ``per_coordinate_steps`` gets the plain metric in the first-order loops (the Newton
        step's per-coordinate steps are then served one distinct value at a time)."""
        d = self.d
        D, self.lipschitz_max = metric
        self.Du = D[:d]
        self.Db = float(D[d]) if self.fit_intercept else 1.0
        self.vector_steps = bool(d) and not np.all(self.Du == self.Du[0])
        if self.vector_steps and self.lam > 0 and not self.penalty.per_coordinate_steps:
            D, self.lipschitz_max = step_metric(self.X, self.objective, False, self._gram)
            self.Du, self.Db = D[:d], (float(D[d]) if self.fit_intercept else 1.0)
            self.vector_steps = False

    def _set_criterion_scale(self) -> None:
        """The criterion is measured in units of lam (the plateau width of the penalty's
        subdifferential), floored per coordinate at 0.1 times the strength that zeroes that
        coefficient (its gradient at the intercept-only model, in grid units): below that floor
        the coordinate is nearly unpenalised, its plateaus are too narrow to matter, and a
        tolerance relative to a vanishing lam would only burn iterations.  The intercept's floor
        is 0.1 * lam_null (gamma times the null threshold, the largest of them)."""
        lam = self.lam
        self.b_null = null_intercept(self.y, self.loss, self.fit_intercept)
        gw, gb = null_gradient(self.X, self.y, self.loss, self.fit_intercept)
        self.null_grads = (self.gamma * gw, gb)  # in (u, b), at the intercept-only model
        self.coef_scale = np.maximum(max(lam, 1e-12), 0.1 * np.abs(self.null_grads[0]))
        self.crit_scale = float(np.max(self.coef_scale, initial=max(lam, 1e-12)))

    # ----------------------------------------------------------------- smooth part
    def scores(self, u: np.ndarray, b: float) -> np.ndarray:
        return self.gamma * (self.X @ u) + b

    def value(self, z: np.ndarray) -> float:
        return self._datafit.value(z, self.y)

    def grads(self, z: np.ndarray) -> tuple[np.ndarray, float]:
        """Gradient of the loss in (u, b) at the scores z."""
        return self._chain(self._datafit.gradient(z, self.y))

    def value_and_grads(self, z: np.ndarray) -> tuple[float, np.ndarray, float]:
        fz, gz = self._datafit.value_and_gradient(z, self.y)
        return (fz, *self._chain(gz))

    def grads_and_curvature(self, z: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        """The gradient in (u, b) and the Hessian's sample weights (the second derivative of the
        mean loss in each score z_i) at z; the logistic ones share one sigmoid."""
        gz, w = self._datafit.gradient_and_curvature(z, self.y)
        return (*self._chain(gz), w)

    def _chain(self, gz: np.ndarray) -> tuple[np.ndarray, float]:
        """The gradient in (u, b) from the gradient in the scores."""
        return self.gamma * (self.X.T @ gz), float(gz.sum()) if self.fit_intercept else 0.0

    def hessian(self, w: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Hessian of the loss in (u[cols], b) for the sample weights w (see
        `grads_and_curvature`), b last with an intercept.

        The logistic one is summed in single precision: its O(n k^2) product is the Newton
        loop's main cost, and single precision halves its memory traffic.  The Hessian only
        shapes the Newton direction; the step is then checked in double precision.
        """
        gamma = self.gamma
        if self.loss == "squared":  # constant: one Gram matrix serves every call
            G, m = self._gram
            Hc, hb = G[np.ix_(cols, cols)], m[cols]
        else:
            r = np.sqrt(w).astype(np.float32)
            if self._work is None:  # one buffer for every call (no fresh pages per iteration)
                self._X32 = self.X.astype(np.float32, order="F")
                self._work = np.empty_like(self._X32, order="F")
            S = self._work[:, : cols.size]
            np.multiply(self._X32 if cols.size == self.d else self._X32[:, cols], r[:, None], out=S)
            Hc, hb = S.T @ S, S.T @ r
        k = cols.size
        H = np.empty((k + 1, k + 1) if self.fit_intercept else (k, k))
        H[:k, :k] = gamma * gamma * Hc
        if self.fit_intercept:
            H[:k, k] = H[k, :k] = gamma * hb
            H[k, k] = w.sum()
        return H

    # ----------------------------------------------------------------- penalty
    def penalty_value(self, u: np.ndarray) -> float:
        return self.lam * float(self.objective.penalty_value(u)) if self.lam > 0 else 0.0

    def prox(self, v: np.ndarray, step) -> np.ndarray:
        """The prox of ``lam * penalty`` (plus the box, ``lower <= u <= upper``) at ``v``."""
        return self.clip(self._penalty_prox(v, step))

    def clip(self, u: np.ndarray) -> np.ndarray:
        """``u`` clipped to the box: with the penalty's prox, the prox of penalty plus box."""
        return u if self.box is None else np.clip(u, *self.box)

    def _penalty_prox(self, v: np.ndarray, step) -> np.ndarray:
        """The prox of ``lam * penalty`` alone (no box)."""
        if self.lam <= 0:
            return v
        prox = self.penalty.prox
        if self.penalty.per_coordinate_steps or np.ndim(step) == 0:
            return np.asarray(prox(v, self.lam * step), dtype=float)
        # a prox that takes one scalar step: one call per distinct step (the prox is separable)
        v = np.asarray(v, dtype=float)
        step = np.broadcast_to(step, v.shape)
        out = np.empty(v.shape)
        for s in np.unique(step):
            at = step == s
            out[at] = prox(v[at], self.lam * float(s))
        return out

    def prox_rows(self, Z: np.ndarray, step) -> np.ndarray:
        """The prox of every row of ``Z`` (k, d) with ``step`` (broadcast to Z): one call instead
        of k when the penalty declares ``any_shape`` (its prox works elementwise on 2-D input);
        on small problems each call's fixed cost is what counts."""
        if self.lam <= 0 or self.penalty.any_shape:
            return self.prox(Z, step)
        step = np.broadcast_to(step, Z.shape)
        return np.stack([self.prox(z, s) for z, s in zip(Z, step)])

    def steps(self, L: float):
        """Per-coordinate steps (array, or a scalar without a metric) and the intercept's step."""
        if self.vector_steps:
            su = 1.0 / (L * self.Du)
        else:
            su = 1.0 / (L * (float(self.Du[0]) if self.d else 1.0))
        return su, 1.0 / (L * self.Db)

    def stationarity(self, u: np.ndarray, gu: np.ndarray, gb: float, L: float) -> tuple[float, np.ndarray]:
        """(criterion, per-coordinate residual): the residual is ``dist(-grad_j, lam d Omega(u_j))``
        (the gradient-mapping residual for a penalty without ``subdiff_distance``) in units of
        ``coef_scale``, zero exactly where u_j is optimal; the criterion is its max and
        ``|d loss / d b|`` in units of ``crit_scale``."""
        lam = self.lam
        if lam <= 0:
            dist = np.abs(gu)
        elif self.penalty.has_subdiff_distance:
            dist = lam * np.asarray(self.penalty.subdiff_distance(u, gu / lam), dtype=float)
        else:  # gradient mapping, zero exactly at a minimiser; self.prox clips, so it has the box already
            step = self.steps(L)[0]
            dist = np.abs(u - self.prox(u - step * gu, step)) / step
        if self.box is not None and (lam <= 0 or self.penalty.has_subdiff_distance):
            dist = self._box_residual(u, gu, dist, L)
        dist = dist / self.coef_scale
        crit = max(float(np.max(dist, initial=0.0)), abs(gb) / self.crit_scale if self.fit_intercept else 0.0)
        return crit, dist

    def _box_residual(self, u: np.ndarray, gu: np.ndarray, dist: np.ndarray, L: float) -> np.ndarray:
        """``dist`` with the box's normal cone added: at a bound any gradient pushing outwards
        past the penalty's subdifferential is optimal.  The penalty's prox is monotone, so
        -grad_j lies at or beyond the subdifferential's inner end exactly when one unclipped
        proximal step from u_j does not move it inwards (for any step).  A coordinate whose
        bounds meet (both 0: the row may not enter) is always optimal."""
        lower, upper = self.box
        outward = np.where(u >= upper, 1.0, np.where(u <= lower, -1.0, 0.0))
        at = np.flatnonzero(outward)
        if not at.size:
            return dist
        step = self.steps(L)[0]
        s = step[at] if np.ndim(step) else step
        moved = self._penalty_prox(u[at] - s * gu[at], s) - u[at]
        dist = dist.copy()
        dist[at[(outward[at] * moved >= 0) | (lower[at] == upper[at])]] = 0.0
        return dist

    def criterion(self, u: np.ndarray, gu: np.ndarray, gb: float, L: float) -> float:
        return self.stationarity(u, gu, gb, L)[0]

    def result(self, u: np.ndarray, b: float, f: float, n_iter: int, criterion: float, L: float,
               tol: float) -> SolveResult:
        """The `SolveResult` of a loop that stopped at (u, b), whose loss is ``f``."""
        return SolveResult(u=u, intercept=float(b), n_iter=int(n_iter), converged=bool(criterion <= tol),
                           objective=float(f + self.penalty_value(u)), criterion=float(criterion),
                           lipschitz=float(L))

    # ----------------------------------------------------------------- one proximal step
    def prox_step(self, u, b, f, gu, gb, L) -> ProxStep:
        """A backtracked proximal gradient step from (u, b), whose loss is f and gradient (gu, gb).

        ``L`` is divided by 1.25 first, then doubled until the sufficient-decrease test holds
        (never above the bound, where it always holds).
        """
        cap = self.lipschitz_max * 1.0000001
        L = max(L / 1.25, 1e-12)
        Du, Db = self.Du, self.Db
        while True:
            step_u, step_b = self.steps(L)
            zeta = u - step_u * gu
            u_new = self.prox(zeta, step_u)
            b_new = b - step_b * gb if self.fit_intercept else 0.0
            du = u_new - u
            db = b_new - b
            z_new = self.scores(u_new, b_new)
            f_new = self.value(z_new)
            quad = float((du * du) @ Du) if self.d else 0.0
            model = f + float(gu @ du) + gb * db + 0.5 * L * (quad + Db * db * db)
            if f_new <= model + 1e-15 * max(1.0, abs(f)) or L >= cap:
                return ProxStep(u=u_new, b=b_new, z=z_new, f=f_new, lipschitz=L, zeta=zeta, step=step_u)
            L = min(2.0 * L, cap)
