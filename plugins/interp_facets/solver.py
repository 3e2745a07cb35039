"""Proximal gradient descent (ISTA, FISTA with restart) for penalised linear models.

The problem solved is eq. (9) of the paper,

    min_{w, b}  loss(X w + b, y) + lam * Omega(w / gamma),

written in the grid coordinates ``u = w / gamma`` (eq. 8): ``loss(gamma X u + b) + lam Omega(u)``.
One proximal step in ``u`` with step ``1 / L`` is exactly the scaled proximal step of eq. (16) in
``w`` (``w+ = gamma prox_{lam / (L gamma^2)... }``), but the iterate is kept in grid units, so a
coordinate on a plateau of the Facets prox is an exact integer and its subdifferential is read
without rounding.

``loss`` is the mean squared loss ``sum (y - z)^2 / (2 n)`` or the mean logistic loss
``sum log(1 + exp(-y z)) / n`` with ``y`` in {-1, +1}; with ``penalty="l1"`` and ``gamma=1`` these
are scikit-learn's ``Lasso(alpha=lam)`` and ``LogisticRegression(C=1 / (n lam))`` objectives.

The penalty is any registered ``interp.Penalty``: ``prox(w, step, **hyper)``, ``value(w,
**hyper)`` and (optional) ``subdiff_distance(w, grad, **hyper)``.  The intercept is not
penalised.  The stopping test is ``dist(-grad_j, lam d Omega(u_j)) <= tol * max(lam, 0.1 c_j)``
for every coordinate j, with ``c_j = |d loss / d u_j|`` at the intercept-only model, together
with ``|d loss / d b| <= tol * max(lam, 0.1 max_j c_j)``: the tolerance is in units of the
penalty's own subgradient (the plateaus of the Facets subdifferential have width 1), so a
coordinate whose optimum sits inside a plateau is reached exactly once ``tol`` is below the
plateau margin; ``c_j`` (the strength that zeroes coordinate j alone) floors it for nearly
unpenalised problems, per coordinate, so that one large-scale feature does not loosen the test
for the others.  A penalty without ``subdiff_distance`` uses the gradient-mapping norm instead.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple

import attrs
import numpy as np
from scipy.special import expit

from interp import InputError

from .newton import newton_loop

__all__ = ["SOLVERS", "Problem", "SolveResult", "solve", "check_solver", "gram_matrix", "null_intercept",
           "null_threshold", "LOSSES"]


#: the loops :func:`solve` runs (see its docstring)
SOLVERS = ("newton", "fista", "ista")


def check_solver(solver) -> str:
    """``solver`` if it names one of :data:`SOLVERS`, else a one-line InputError."""
    if solver not in SOLVERS:
        raise InputError(f"solver must be one of {', '.join(map(repr, SOLVERS))}, got {solver!r}")
    return solver


def _logistic_value(z: np.ndarray, y: np.ndarray) -> float:
    m = -y * z
    return float(np.maximum(m, 0.0).sum() + np.log1p(np.exp(-np.abs(m))).sum()) / z.shape[0]


def _logistic_grad(z: np.ndarray, y: np.ndarray) -> np.ndarray:
    return -y * expit(-y * z) / z.shape[0]


def _logistic_both(z: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    m = -y * z
    e = np.exp(-np.abs(m))
    n = z.shape[0]
    value = float(np.maximum(m, 0.0).sum() + np.log1p(e).sum()) / n
    # sigmoid(m) from the same exponential
    sig = np.where(m >= 0, 1.0, e) / (1.0 + e)
    return value, -y * sig / n


def _logistic_grad_curv(z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The gradient and the second derivative of the mean loss in z, from one sigmoid."""
    s = expit(-y * z)
    n = z.shape[0]
    return -y * s / n, s * (1.0 - s) / n


def _squared_value(z: np.ndarray, y: np.ndarray) -> float:
    r = z - y
    return float(r @ r) / (2 * z.shape[0])


def _squared_grad(z: np.ndarray, y: np.ndarray) -> np.ndarray:
    return (z - y) / z.shape[0]


def _squared_both(z: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    r = z - y
    n = z.shape[0]
    return float(r @ r) / (2 * n), r / n


def _squared_grad_curv(z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return _squared_grad(z, y), np.full(z.shape[0], 1.0 / z.shape[0])


class Loss(NamedTuple):
    """A mean loss of the scores z given y: what each solver needs of it, with the pieces that
    share work (one exponential, one sigmoid) computed together."""

    value: Callable  # (z, y) -> float
    grad: Callable  # (z, y) -> d loss / d z
    curvature: float  # a bound on one sample's second derivative
    value_and_grad: Callable  # (z, y) -> (value, grad)
    grad_and_curv: Callable  # (z, y) -> (grad, second derivative per sample)


LOSSES = {
    "logistic": Loss(_logistic_value, _logistic_grad, 0.25, _logistic_both, _logistic_grad_curv),
    "squared": Loss(_squared_value, _squared_grad, 1.0, _squared_both, _squared_grad_curv),
}


@attrs.define
class SolveResult:
    u: np.ndarray  # coefficients in grid units (w / gamma)
    intercept: float
    n_iter: int
    converged: bool
    objective: float
    criterion: float  # final value of the stopping criterion
    lipschitz: float  # last accepted backtracking constant (a warm start for the next fit)


def gram_matrix(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(X^T X / n, mean of X): what every Hessian bound and the squared loss's (constant)
    Hessian are made of; computed once per path and reused by all its fits."""
    return X.T @ X / X.shape[0], X.mean(axis=0)


def curvature_matrix(X: np.ndarray, gamma: float, loss: str, fit_intercept: bool = True,
                     gram: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """An upper bound H of the Hessian of the loss in (u, b): curv * [gamma X, 1]^T [gamma X, 1] / n.

    ``gram`` (see :func:`gram_matrix`) may be given to reuse it across a grid.
    """
    d = X.shape[1]
    curv = LOSSES[loss].curvature
    G, m = gram if gram is not None else gram_matrix(X)
    k = d + 1 if fit_intercept else d
    H = np.empty((k, k))
    H[:d, :d] = gamma * gamma * G
    if fit_intercept:
        H[:d, d] = H[d, :d] = gamma * m
        H[d, d] = 1.0
    return curv * H


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


def null_intercept(y, loss: str, fit_intercept: bool = True) -> float:
    """The intercept of the best model with w = 0 (the log-odds, or the mean of y)."""
    if not fit_intercept:
        return 0.0
    if loss == "logistic":
        p = np.clip(np.mean(y > 0), 1e-12, 1 - 1e-12)
        return float(np.log(p / (1 - p)))
    return float(np.mean(y))


def null_threshold(X, y, loss: str, fit_intercept: bool = True) -> float:
    """c = max_j |d loss / d w_j| at the intercept-only model: lam / gamma >= c gives w = 0
    for penalties whose subdifferential at 0 is [-1, 1] (facets, scf, l1)."""
    return float(np.max(np.abs(_null_gradient(X, y, loss, fit_intercept)[0]), initial=0.0))


def _null_gradient(X, y, loss: str, fit_intercept: bool) -> tuple[np.ndarray, float]:
    """(d loss / d w, d loss / d b) at the intercept-only model."""
    gz = LOSSES[loss].grad(np.full(X.shape[0], null_intercept(y, loss, fit_intercept)), y)
    return X.T @ gz, float(gz.sum()) if fit_intercept else 0.0


@functools.lru_cache(maxsize=64)
def _prox_abilities(prox, hyper: tuple) -> tuple[bool, bool]:
    """(Does ``prox`` take a step per coordinate, does it take a 2-D stack of points and steps?)
    Each is checked against calls with one point and one scalar step, on random points."""
    rng = np.random.default_rng(0)
    Z, S = rng.normal(scale=3.0, size=(2, 7)), rng.uniform(0.1, 2.0, size=(2, 7))

    def call(z, s):
        return np.asarray(prox(z, s, **dict(hyper)), dtype=float)

    def agrees(make):
        try:
            return bool(np.array_equal(make(), ref))
        except Exception:  # whatever a third-party prox raises on input it does not take
            return False

    try:
        ref = np.array([[call(np.array([z]), float(s))[0] for z, s in zip(zr, sr)] for zr, sr in zip(Z, S)])
    except Exception:
        return False, False  # not even one point: the solver's own call will say what is wrong
    vector = agrees(lambda: np.stack([call(z, s) for z, s in zip(Z, S)]))
    return vector, vector and agrees(lambda: call(Z, S))


class Problem:
    """``loss(gamma X u + b, y) + lam * penalty(u)`` with the pieces every solver loop needs.

    Holds the data, the penalty, the diagonal metric ``D`` (per-coordinate steps ``1 / (L D_j)``)
    and the scale of the stopping criterion, so that the first-order loop and the Newton loop
    (:mod:`.newton`) share one definition of a step, of the objective and of convergence.
    """

    def __init__(self, X, y, *, loss, penalty, lam, gamma, hyper, fit_intercept, metric,
                 precondition, gram):
        self.X, self.y, self.loss = X, y, loss
        self.lam, self.gamma, self.hyper = lam, gamma, hyper
        self.fit_intercept = fit_intercept
        self.penalty = penalty
        self.d = d = X.shape[1]
        self._loss_fns = LOSSES[loss]
        if gram is None and (metric is None or loss == "squared"):
            gram = gram_matrix(X)  # the metric's and the squared loss's Hessian's, made once
        self._gram = gram
        if metric is None:
            metric = metric_and_bound(curvature_matrix(X, gamma, loss, fit_intercept, gram), precondition)
        D, self.lipschitz_max = metric
        self.Du = D[:d]
        self.Db = float(D[d]) if fit_intercept else 1.0
        # What the penalty's prox takes besides one scalar step (probed once per prox): a step
        # per coordinate (else the first-order loops use the plain metric, and the Newton step's
        # per-coordinate steps are served one distinct value at a time) and a 2-D stack of points.
        try:
            self._vector_prox, self._stacked = _prox_abilities(penalty.prox, tuple(sorted(hyper.items())))
        except TypeError:  # unhashable hyperparameters: assume the least
            self._vector_prox = self._stacked = False
        self.vector_steps = bool(d) and not np.all(self.Du == self.Du[0])
        if self.vector_steps and lam > 0 and not self._vector_prox:
            D, self.lipschitz_max = metric_and_bound(
                curvature_matrix(X, gamma, loss, fit_intercept, gram), False)
            self.Du, self.Db = D[:d], (float(D[d]) if fit_intercept else 1.0)
            self.vector_steps = False
        # The criterion is measured in units of lam (the plateau width of the penalty's
        # subdifferential), floored per coordinate at 0.1 times the strength that zeroes that
        # coefficient (its gradient at the intercept-only model, in grid units): below that floor
        # the coordinate is nearly unpenalised, its plateaus are too narrow to matter, and a
        # tolerance relative to a vanishing lam would only burn iterations.  The intercept's
        # floor is 0.1 * lam_null (gamma times the null threshold, the largest of them).
        self.b_null = null_intercept(y, loss, fit_intercept)
        gw, gb = _null_gradient(X, y, loss, fit_intercept)
        self.null_grads = (gamma * gw, gb)  # in (u, b), at the intercept-only model
        self.coef_scale = np.maximum(max(lam, 1e-12), 0.1 * np.abs(self.null_grads[0]))
        self.crit_scale = float(np.max(self.coef_scale, initial=max(lam, 1e-12)))
        self._X32 = self._work = None  # X in single precision and the Hessian's buffer, made once

    # ----------------------------------------------------------------- smooth part
    def scores(self, u: np.ndarray, b: float) -> np.ndarray:
        return self.gamma * (self.X @ u) + b

    def value(self, z: np.ndarray) -> float:
        return self._loss_fns.value(z, self.y)

    def grads(self, z: np.ndarray) -> tuple[np.ndarray, float]:
        """Gradient of the loss in (u, b) at the scores z."""
        return self._chain(self._loss_fns.grad(z, self.y))

    def value_and_grads(self, z: np.ndarray) -> tuple[float, np.ndarray, float]:
        fz, gz = self._loss_fns.value_and_grad(z, self.y)
        return (fz, *self._chain(gz))

    def grads_and_curvature(self, z: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        """The gradient in (u, b) and the Hessian's sample weights (the second derivative of the
        mean loss in each score z_i) at z; the logistic ones share one sigmoid."""
        gz, w = self._loss_fns.grad_and_curv(z, self.y)
        return (*self._chain(gz), w)

    def _chain(self, gz: np.ndarray) -> tuple[np.ndarray, float]:
        """The gradient in (u, b) from the gradient in the scores."""
        return self.gamma * (self.X.T @ gz), float(gz.sum()) if self.fit_intercept else 0.0

    def hessian(self, w: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Hessian of the loss in (u[cols], b) for the sample weights w (see
        :meth:`grads_and_curvature`), b last with an intercept.

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
        return self.lam * float(self.penalty.value(u, **self.hyper)) if self.lam > 0 else 0.0

    def prox(self, v: np.ndarray, step) -> np.ndarray:
        if self.lam <= 0:
            return v
        if self._vector_prox or np.ndim(step) == 0:
            return np.asarray(self.penalty.prox(v, self.lam * step, **self.hyper), dtype=float)
        # a prox that takes one scalar step: one call per distinct step (the prox is separable)
        v = np.asarray(v, dtype=float)
        step = np.broadcast_to(step, v.shape)
        out = np.empty(v.shape)
        for s in np.unique(step):
            at = step == s
            out[at] = self.penalty.prox(v[at], self.lam * float(s), **self.hyper)
        return out

    def prox_rows(self, Z: np.ndarray, step) -> np.ndarray:
        """The prox of every row of ``Z`` (k, d) with ``step`` (broadcast to Z): one call instead
        of k when the penalty's prox works elementwise on 2-D input (probed in ``__init__``); on
        small problems each call's fixed cost is what counts."""
        if self.lam <= 0:
            return Z
        if self._stacked:
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
        lam, dist_fn = self.lam, self.penalty.subdiff_distance
        if lam <= 0:
            dist = np.abs(gu)
        elif dist_fn is not None:
            dist = lam * np.asarray(dist_fn(u, gu / lam, **self.hyper), dtype=float)
        else:  # gradient mapping, zero exactly at a minimiser
            step = self.steps(L)[0]
            dist = np.abs(u - self.prox(u - step * gu, step)) / step
        dist = dist / self.coef_scale
        crit = max(float(np.max(dist, initial=0.0)), abs(gb) / self.crit_scale if self.fit_intercept else 0.0)
        return crit, dist

    def criterion(self, u: np.ndarray, gu: np.ndarray, gb: float, L: float) -> float:
        return self.stationarity(u, gu, gb, L)[0]

    # ----------------------------------------------------------------- one proximal step
    def prox_step(self, u, b, f, gu, gb, L):
        """A backtracked proximal gradient step from (u, b), whose loss is f and gradient (gu, gb).

        ``L`` is divided by 1.25 first, then doubled until the sufficient-decrease test holds
        (never above the bound, where it always holds).  Returns (u+, b+, z+, f+, L, zeta, step):
        ``zeta`` is the point the prox was applied to, with per-coordinate ``step``.
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
                return u_new, b_new, z_new, f_new, L, zeta, step_u
            L = min(2.0 * L, cap)


def solve(
    X: np.ndarray,
    y: np.ndarray,
    *,
    loss: str,
    penalty: Any,
    lam: float,
    gamma: float = 1.0,
    hyper: dict | None = None,
    solver: str = "newton",
    tol: float = 1e-4,
    max_iter: int = 1000,
    fit_intercept: bool = True,
    u0: np.ndarray | None = None,
    b0: float = 0.0,
    lipschitz: float | None = None,
    metric: tuple[np.ndarray, float] | None = None,
    precondition: bool = True,
    check_every: int = 10,
    gram: tuple[np.ndarray, np.ndarray] | None = None,
) -> SolveResult:
    """Minimise ``loss(gamma X u + b) + lam * penalty(u)``.

    ``solver`` is ``"ista"`` (plain proximal gradient: every iterate is a prox output, so it
    sits on the penalty's plateaus), ``"fista"`` (Nesterov momentum with gradient-based
    restart; its iterates are prox outputs too) or ``"newton"`` (proximal gradient steps that
    identify the plateaus, each followed by a Newton step on the coordinates off them; see
    :mod:`.newton`).  Steps: per coordinate ``1 / (L D_j)`` with the Jacobi metric ``D = diag``
    of the Hessian bound (``precondition=True``; features on very different scales then cost
    nothing) or ``D = 1``.  ``L`` by backtracking from ``lipschitz`` (or the bound).
    ``metric`` = (D, bound) may be given to reuse it across a path.
    """
    check_solver(solver)
    if loss not in LOSSES:
        raise InputError(f"loss must be one of {', '.join(map(repr, LOSSES))}, got {loss!r}")
    X = np.asarray(X, dtype=float)
    if not X.flags.f_contiguous:
        # column-major makes both X @ u and X.T @ g fast (one BLAS-friendly layout)
        X = np.asfortranarray(X)
    y = np.asarray(y, dtype=float)
    P = Problem(X, y, loss=loss, penalty=penalty, lam=lam, gamma=gamma, hyper=dict(hyper or {}),
                fit_intercept=fit_intercept, metric=metric, precondition=precondition, gram=gram)
    u = np.zeros(P.d) if u0 is None else np.array(u0, dtype=float)
    b = float(b0) if fit_intercept else 0.0
    L = max(min(lipschitz if lipschitz else P.lipschitz_max, P.lipschitz_max), 1e-12)
    if u0 is None and fit_intercept:
        # Above the null threshold (a strong penalty; the head of every path) the intercept-only
        # model is the solution: start there when it passes the stopping test.  Otherwise b0,
        # which measured fewer Newton iterations than the null model at weak penalties.
        if P.criterion(u, *P.null_grads, L) <= tol:
            b = P.b_null
    if solver == "newton":
        u, b, f, it, converged, crit, L = newton_loop(P, u, b, L, tol, max_iter)
    else:
        u, b, f, it, converged, crit, L = _first_order(P, u, b, L, tol, max_iter, solver == "fista",
                                                       check_every)
    return SolveResult(u=u, intercept=float(b), n_iter=int(it), converged=bool(converged),
                       objective=float(f + P.penalty_value(u)), criterion=float(crit),
                       lipschitz=float(L))


def _first_order(P: Problem, u, b, L, tol, max_iter, fista, check_every):
    """ISTA, or FISTA with gradient restart; returns (u, b, loss, n_iter, converged, crit, L)."""
    z = P.scores(u, b)
    f = P.value(z)
    # FISTA state: extrapolated point (uy, by, zy) and momentum t
    uy, by, zy = u, b, z
    t = 1.0
    crit = np.inf
    converged = False
    it = 0
    Du, Db = P.Du, P.Db
    for it in range(1, max_iter + 1):
        fy, gu, gb = P.value_and_grads(zy)
        if not fista or it == 1 or (it - 1) % check_every == 0:
            if fista and (uy is not u):
                gu_x, gb_x = P.grads(z)
                crit = P.criterion(u, gu_x, gb_x, L)
            else:
                crit = P.criterion(uy, gu, gb, L)
            if crit <= tol:
                converged = True  # n_iter counts this last (checking) pass too
                break
        u_new, b_new, z_new, f_new, L, _, _ = P.prox_step(uy, by, fy, gu, gb, L)
        if fista:
            # gradient restart (O'Donoghue & Candes), in the metric: drop momentum going uphill
            if float(((uy - u_new) * Du) @ (u_new - u)) + Db * (by - b_new) * (b_new - b) > 0:
                t = 1.0
                uy, by, zy = u_new, b_new, z_new
            else:
                t_next = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
                beta = (t - 1.0) / t_next
                t = t_next
                uy = u_new + beta * (u_new - u)
                by = b_new + beta * (b_new - b)
                zy = z_new + beta * (z_new - z)
        else:
            uy, by, zy = u_new, b_new, z_new
        u, b, z, f = u_new, b_new, z_new, f_new
    else:
        # final check at the last iterate
        gu, gb = P.grads(z)
        crit = P.criterion(u, gu, gb, L)
        converged = crit <= tol
        it = max_iter
    return u, b, f, it, converged, crit, L


def refit_scale(S: np.ndarray, y: np.ndarray, loss: str, ridge: float = 1e-6,
                n_newton: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Per column of the scores ``S`` (n, m): the unpenalised 1-D fit ``y ~ a * S[:, k] + b``.

    Used to re-estimate the scale ``a`` and the intercept ``b`` of a model whose points are
    frozen (the points, and so the integrity, do not change; the grid step becomes ``a *
    gamma``).  Logistic loss: damped Newton on the mean log-loss with a tiny ridge on ``a``
    (so that separable scores stay finite); squared loss: closed form.  Returns (a, b).
    """
    S = np.asarray(S, dtype=float)
    if S.ndim == 1:
        S = S[:, None]
    n, m = S.shape
    y = np.asarray(y, dtype=float)
    s_mean = S.mean(axis=0)
    Sc = S - s_mean
    var = np.mean(Sc * Sc, axis=0)
    if loss == "squared":
        a = np.where(var > 0, (Sc.T @ (y - y.mean())) / n / np.maximum(var + ridge, 1e-300), 0.0)
        return a, y.mean() - a * s_mean
    y01 = (y + 1) / 2
    a = np.zeros(m)
    b = np.full(m, null_intercept(y, loss))

    def objective(Sc_, a_, b_):
        Z = Sc_ * a_ + b_
        return np.logaddexp(0.0, -y[:, None] * Z).mean(axis=0) + 0.5 * ridge * a_ * a_

    f = objective(S, a, b)
    act = np.arange(m)  # the columns still moving: the others are left alone
    for _ in range(n_newton):
        Sa, aa, ba, fa = S[:, act], a[act], b[act], f[act]
        P = expit(Sa * aa + ba)
        R = P - y01[:, None]
        W = P * (1 - P)
        ga = (R * Sa).mean(axis=0) + ridge * aa
        gb = R.mean(axis=0)
        haa = (W * Sa * Sa).mean(axis=0) + ridge
        hab = (W * Sa).mean(axis=0)
        hbb = W.mean(axis=0) + 1e-12
        det = haa * hbb - hab * hab
        det = np.where(det > 1e-300, det, 1e-300)
        da = -(hbb * ga - hab * gb) / det
        db = -(haa * gb - hab * ga) / det
        t = np.ones(act.size)
        f_new = objective(Sa, aa + da, ba + db)
        for _ in range(30):  # halve the steps of the columns whose objective went up
            bad = np.flatnonzero(f_new > fa + 1e-15)
            if bad.size == 0:
                break
            t[bad] /= 2
            f_new[bad] = objective(Sa[:, bad], aa[bad] + t[bad] * da[bad], ba[bad] + t[bad] * db[bad])
        ok = f_new <= fa + 1e-15
        a[act] = np.where(ok, aa + t * da, aa)
        b[act] = np.where(ok, ba + t * db, ba)
        f[act] = np.where(ok, f_new, fa)
        act = act[(np.abs(ga) >= 1e-10) | (np.abs(gb) >= 1e-10)]
        if act.size == 0:
            break
    return a, b
