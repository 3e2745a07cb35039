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
penalised.  The stopping test is ``max_j dist(-grad_j, lam d Omega(u_j)) <= tol`` together with
``|d loss / d b| <= tol``, both divided by ``max(lam, 0.1 lam_null)``: the tolerance is in
units of the penalty's own subgradient (the plateaus of the Facets subdifferential have width
1), so a coordinate whose optimum sits inside a plateau is reached exactly once ``tol`` is below
the plateau margin; ``lam_null`` (the strength that zeroes the model) floors it for nearly
unpenalised problems.  A penalty without ``subdiff_distance`` uses the gradient-mapping norm instead.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
from scipy.special import expit

__all__ = ["SolveResult", "solve", "lipschitz_bound", "LOSSES"]


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


def _squared_both(z: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    r = z - y
    n = z.shape[0]
    return float(r @ r) / (2 * n), r / n


def _squared_value(z: np.ndarray, y: np.ndarray) -> float:
    r = z - y
    return float(r @ r) / (2 * z.shape[0])


def _squared_grad(z: np.ndarray, y: np.ndarray) -> np.ndarray:
    return (z - y) / z.shape[0]


#: name -> (value(z, y), gradient wrt z, curvature bound of the per-sample loss)
LOSSES = {
    "logistic": (_logistic_value, _logistic_grad, 0.25),
    "squared": (_squared_value, _squared_grad, 1.0),
}
_BOTH = {"logistic": _logistic_both, "squared": _squared_both}


@attrs.define
class SolveResult:
    u: np.ndarray  # coefficients in grid units (w / gamma)
    intercept: float
    n_iter: int
    converged: bool
    objective: float
    criterion: float  # final value of the stopping criterion
    lipschitz: float  # last accepted backtracking constant (a warm start for the next fit)


def curvature_matrix(X: np.ndarray, gamma: float, loss: str, fit_intercept: bool = True,
                     gram: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """An upper bound H of the Hessian of the loss in (u, b): curv * [gamma X, 1]^T [gamma X, 1] / n.

    ``gram`` = (X^T X / n, mean of X) may be given to reuse it across a grid.
    """
    n, d = X.shape
    curv = LOSSES[loss][2]
    if gram is None:
        gram = (X.T @ X / n, X.mean(axis=0))
    G, m = gram
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


def lipschitz_bound(X: np.ndarray, gamma: float, loss: str, fit_intercept: bool = True,
                    gram: tuple[np.ndarray, np.ndarray] | None = None) -> float:
    """An upper bound of the Lipschitz constant of the loss gradient in (u, b) (Euclidean)."""
    return metric_and_bound(curvature_matrix(X, gamma, loss, fit_intercept, gram), False)[1]


def solve(
    X: np.ndarray,
    y: np.ndarray,
    *,
    loss: str,
    penalty: Any,
    lam: float,
    gamma: float = 1.0,
    hyper: dict | None = None,
    solver: str = "fista",
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
    """Minimise ``loss(gamma X u + b) + lam * penalty(u)`` by proximal gradient descent.

    ``solver`` is ``"ista"`` (plain proximal gradient: every iterate is a prox output, so it
    sits on the penalty's plateaus) or ``"fista"`` (Nesterov momentum with gradient-based
    restart; its iterates are prox outputs too).  Steps: per coordinate ``1 / (L D_j)`` with the
    Jacobi metric ``D = diag`` of the Hessian bound (``precondition=True``; features on very
    different scales then cost nothing) or ``D = 1``.  ``L`` by backtracking: it starts at
    ``lipschitz`` (or the bound), is divided by 1.25 before each step and doubled until the
    sufficient-decrease test holds (never above the bound, where the test always holds).
    ``metric`` = (D, bound) may be given to reuse it across a path.
    """
    hyper = dict(hyper or {})
    fval, fgrad, _ = LOSSES[loss]
    prox, pvalue = penalty.prox, penalty.value
    dist_fn = penalty.subdiff_distance
    n, d = X.shape
    X = np.asarray(X, dtype=float)
    if not X.flags.f_contiguous:
        # column-major makes both X @ u and X.T @ g fast (one BLAS-friendly layout)
        X = np.asfortranarray(X)
    y = np.asarray(y, dtype=float)
    u = np.zeros(d) if u0 is None else np.array(u0, dtype=float)
    b = float(b0) if fit_intercept else 0.0
    if metric is None:
        metric = metric_and_bound(curvature_matrix(X, gamma, loss, fit_intercept, gram), precondition)
    D, lipschitz_max = metric
    Du = D[:d]
    Db = float(D[d]) if fit_intercept else 1.0
    L = min(lipschitz if lipschitz else lipschitz_max, lipschitz_max)
    L = max(L, 1e-12)
    vector_steps = not np.all(Du == Du[0]) if d else False
    if vector_steps and lam > 0:
        try:  # a third-party prox may only take a scalar step: then use the plain metric
            np.asarray(prox(u, lam / Du, **hyper), dtype=float)
        except (TypeError, ValueError):
            D, lipschitz_max = metric_and_bound(curvature_matrix(X, gamma, loss, fit_intercept, gram), False)
            Du, Db, vector_steps = D[:d], (float(D[d]) if fit_intercept else 1.0), False
            L = lipschitz_max

    def penalty_value(v: np.ndarray) -> float:
        return lam * float(pvalue(v, **hyper)) if lam > 0 else 0.0

    def prox_step(v: np.ndarray, step) -> np.ndarray:
        if lam <= 0:
            return v
        return np.asarray(prox(v, lam * step, **hyper), dtype=float)

    def criterion(u_: np.ndarray, gu: np.ndarray, gb: float) -> float:
        if lam <= 0:
            du = float(np.max(np.abs(gu), initial=0.0))
        elif dist_fn is not None:
            du = lam * float(np.max(np.asarray(dist_fn(u_, gu / lam, **hyper)), initial=0.0))
        else:  # gradient mapping, zero exactly at a minimiser
            step = 1.0 / (L * Du) if vector_steps else 1.0 / (L * float(Du[0]) if d else 1.0)
            du = float(np.max(np.abs(u_ - prox_step(u_ - step * gu, step)) / step, initial=0.0))
        crit_ = max(du, abs(gb) if fit_intercept else 0.0)
        return crit_ / crit_scale

    fboth = _BOTH[loss]

    # The criterion is measured in units of lam (the plateau width of the penalty's
    # subdifferential), floored at 0.1 * lam_null, where lam_null = max_j |d loss / d u_j| at
    # the intercept-only model is the strength that zeroes every coefficient: below that floor
    # the problem is nearly unpenalised, its plateaus are too narrow to matter, and a
    # tolerance relative to a vanishing lam would only burn iterations.
    if fit_intercept:
        if loss == "logistic":
            p_ = min(max(float(np.mean(y > 0)), 1e-12), 1 - 1e-12)
            b_null = np.log(p_ / (1 - p_))
        else:
            b_null = float(np.mean(y))
    else:
        b_null = 0.0
    lam_null = float(np.max(np.abs(gamma * (X.T @ fgrad(np.full(n, b_null), y))), initial=0.0))
    crit_scale = max(lam, 0.1 * lam_null, 1e-12)

    def grads(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        gz = fgrad(z, y)
        return gz, gamma * (X.T @ gz), float(gz.sum()) if fit_intercept else 0.0

    def value_and_grads(z: np.ndarray) -> tuple[float, np.ndarray, float]:
        fz, gz = fboth(z, y)
        return fz, gamma * (X.T @ gz), float(gz.sum()) if fit_intercept else 0.0

    z = gamma * (X @ u) + b
    f = fval(z, y)
    fista = solver == "fista"
    # FISTA state: extrapolated point (uy, by, zy) and momentum t
    uy, by, zy, fy = u, b, z, f
    t = 1.0
    crit = np.inf
    converged = False
    it = 0
    shrink = 1.25
    cap = lipschitz_max * 1.0000001
    for it in range(1, max_iter + 1):
        fy, gu, gb = value_and_grads(zy)
        if not fista or it == 1 or (it - 1) % check_every == 0:
            if fista and (uy is not u):
                _, gu_x, gb_x = grads(z)
                crit = criterion(u, gu_x, gb_x)
            else:
                crit = criterion(uy, gu, gb)
            if crit <= tol:
                converged = True  # n_iter counts this last (checking) pass too
                break
        L = max(L / shrink, 1e-12)
        while True:
            step_u = 1.0 / (L * Du) if vector_steps else 1.0 / (L * (float(Du[0]) if d else 1.0))
            step_b = 1.0 / (L * Db)
            u_new = prox_step(uy - step_u * gu, step_u)
            b_new = by - step_b * gb if fit_intercept else 0.0
            du = u_new - uy
            db = b_new - by
            z_new = gamma * (X @ u_new) + b_new
            f_new = fval(z_new, y)
            quad = float((du * du) @ Du) if d else 0.0
            model = fy + float(gu @ du) + gb * db + 0.5 * L * (quad + Db * db * db)
            if f_new <= model + 1e-15 * max(1.0, abs(fy)) or L >= cap:
                break
            L = min(2.0 * L, cap)
        if fista:
            # gradient restart (O'Donoghue & Candes), in the metric: drop momentum going uphill
            if float(((uy - u_new) * Du) @ (u_new - u)) + Db * (by - b_new) * (b_new - b) > 0:
                t = 1.0
                uy, by, zy, fy = u_new, b_new, z_new, f_new
            else:
                t_next = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
                beta = (t - 1.0) / t_next
                t = t_next
                uy = u_new + beta * (u_new - u)
                by = b_new + beta * (b_new - b)
                zy = z_new + beta * (z_new - z)
            u, b, z, f = u_new, b_new, z_new, f_new
        else:
            u, b, z, f = u_new, b_new, z_new, f_new
            uy, by, zy, fy = u, b, z, f
    else:
        # final check at the last iterate
        _, gu, gb = grads(z)
        crit = criterion(u, gu, gb)
        converged = crit <= tol
        it = max_iter
    objective = f + penalty_value(u)
    return SolveResult(u=u, intercept=float(b), n_iter=int(it), converged=bool(converged),
                       objective=float(objective), criterion=float(crit), lipschitz=float(L))


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
    p0 = np.clip(y01.mean(), 1e-12, 1 - 1e-12)
    a = np.zeros(m)
    b = np.full(m, np.log(p0 / (1 - p0)))

    def objective(a_, b_):
        Z = S * a_ + b_
        return np.logaddexp(0.0, -y[:, None] * Z).mean(axis=0) + 0.5 * ridge * a_ * a_

    f = objective(a, b)
    for _ in range(n_newton):
        Z = S * a + b
        P = expit(Z)
        R = P - y01[:, None]
        W = P * (1 - P)
        ga = (R * S).mean(axis=0) + ridge * a
        gb = R.mean(axis=0)
        haa = (W * S * S).mean(axis=0) + ridge
        hab = (W * S).mean(axis=0)
        hbb = W.mean(axis=0) + 1e-12
        det = haa * hbb - hab * hab
        det = np.where(det > 1e-300, det, 1e-300)
        da = -(hbb * ga - hab * gb) / det
        db = -(haa * gb - hab * ga) / det
        t = np.ones(m)
        for _ in range(30):  # halve the steps of the columns whose objective went up
            f_new = objective(a + t * da, b + t * db)
            bad = f_new > f + 1e-15
            if not bad.any():
                break
            t = np.where(bad, t / 2, t)
        a, b, f = a + t * da, b + t * db, np.minimum(f, objective(a + t * da, b + t * db))
        if np.max(np.abs(ga), initial=0.0) < 1e-10 and np.max(np.abs(gb), initial=0.0) < 1e-10:
            break
    return a, b
