"""Kernel selection by the radius-margin ratio.

* Radius of the minimum enclosing ball: R^2 = max_{a >= 0, sum a = 1} sum_i a_i K_ii - a^T K a.
* Distance between the convex hulls of the two classes:
  m^2 = min_{g >= 0, sum_{+} g = 1, sum_{-} g = 1} (y*g)^T K (y*g).
* Ratio (R^2 / m^2) / n_examples; smaller is better (m = 0: the classes' hulls touch, the
  ratio is infinite).

Both are convex QPs over (products of) simplices.  Default solver ``"svm"``: both are solved as
hard-margin SVMs by libsvm's SMO (``sklearn.svm.SVC(kernel="precomputed")``, C = 1e7): the hull
distance is 2/|w|; for a kernel with constant diagonal D (every normalised kernel) the radius is
R^2 = D - dist(0, hull)^2, the hull distance between the points and the origin.  libsvm stopping
at the box bound C means the hulls intersect (m = 0).  ``solver="slsqp"`` solves the QPs with
``scipy.optimize.minimize(method="SLSQP")`` (slow beyond a few hundred examples; used to check
the default), ``"pgd"`` with an accelerated projected gradient method; either is used for the
radius of a kernel whose diagonal is not constant.  Rows that occur with both labels (identical
binary vectors) can never be separated by any kernel; they are left out of the hull distance
(``drop_conflicts``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from joblib import Parallel, delayed
from scipy import linalg, optimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils import check_random_state

from interp import InputError, KernelOperator, progress
from interp.blas import single_threaded_blas
from interp.preprocessing import binary_labels

from .formula import n_leaves, operators_of, to_string
from .generator import random_formula
from .kernels import check_binary, propositional_kernel
from .operators import generator_operators, operators

__all__ = ["radius", "hull_distance", "radius_margin_ratio", "select_kernel", "KernelSelection"]


def _project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection of v onto {x >= 0, sum x = 1}."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    k = np.arange(1, v.size + 1)
    rho = np.nonzero(u - css / k > 0)[0][-1]
    return np.maximum(v - css[rho] / (rho + 1), 0.0)


def _project(v: np.ndarray, groups: list[np.ndarray]) -> np.ndarray:
    out = np.empty_like(v)
    for g in groups:
        out[g] = _project_simplex(v[g])
    return out


def _qp_pgd(Q: np.ndarray, c: np.ndarray, groups: list[np.ndarray], tol: float, max_iter: int):
    """min x^T Q x + c^T x over a product of simplices (FISTA with adaptive restart)."""
    m = Q.shape[0]
    lmax = float(linalg.eigh(Q, eigvals_only=True, subset_by_index=[m - 1, m - 1])[0]) if m > 1 else float(Q[0, 0])
    L = max(2.0 * lmax, 1e-300)
    x = np.zeros(m)
    for g in groups:
        x[g] = 1.0 / len(g)
    y, t = x.copy(), 1.0
    scale = max(float(np.abs(np.diag(Q)).max()), float(np.abs(c).max()) if c.size else 0.0, 1e-300)
    for it in range(max_iter):
        grad = 2.0 * (Q @ y) + c
        x_new = _project(y - grad / L, groups)
        if np.dot(y - x_new, x_new - x) > 0:  # restart momentum
            t = 1.0
        t_new = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
        y = x_new + ((t - 1.0) / t_new) * (x_new - x)
        x, t = x_new, t_new
        if it % 10 == 9:
            gx = 2.0 * (Q @ x) + c
            gap = float(gx @ x) - sum(float(gx[g].min()) for g in groups)
            f = float(x @ Q @ x + c @ x)
            if gap <= tol * max(abs(f), 1e-9 * scale):
                break
    return x, float(x @ Q @ x + c @ x)


def _qp_slsqp(Q: np.ndarray, c: np.ndarray, groups: list[np.ndarray], tol: float, max_iter: int):
    m = Q.shape[0]
    x0 = np.zeros(m)
    for g in groups:
        x0[g] = 1.0 / len(g)
    cons = [{"type": "eq", "fun": (lambda x, g=g: x[g].sum() - 1.0),
             "jac": (lambda x, g=g: np.isin(np.arange(m), g).astype(float))} for g in groups]
    res = optimize.minimize(lambda x: x @ Q @ x + c @ x, x0, jac=lambda x: 2.0 * (Q @ x) + c,
                            method="SLSQP", bounds=[(0.0, None)] * m, constraints=cons,
                            options={"ftol": 1e-14, "maxiter": max_iter})
    x = _project(res.x, groups)
    return x, float(x @ Q @ x + c @ x)


_HARD_C = 1e7


def _svm_norm2(K: np.ndarray, s: np.ndarray) -> float:
    """Squared distance between the hulls of the +1 and -1 points (hard-margin SVM), 0 if they
    intersect."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        try:
            svm = SVC(kernel="precomputed", C=_HARD_C, tol=1e-7, max_iter=200_000).fit(K, s)
        except ConvergenceWarning:
            return 0.0
    a = svm.dual_coef_[0]
    if np.abs(a).max() >= 0.999 * _HARD_C:
        return 0.0
    sv = svm.support_
    w2 = float(a @ K[np.ix_(sv, sv)] @ a)
    return 4.0 / w2 if w2 > 0 else 0.0


def _solve(Q, c, groups, solver: str, tol: float, max_iter: int):
    if solver == "pgd":
        return _qp_pgd(Q, c, groups, tol, max_iter)
    if solver == "slsqp":
        return _qp_slsqp(Q, c, groups, tol, max_iter)
    raise InputError(f"unknown QP solver {solver!r}; choose svm, slsqp or pgd")


def radius(K, solver: str = "svm", tol: float = 1e-7, max_iter: int = 20000) -> float:
    """Radius of the minimum enclosing ball of the points whose Gram matrix is K."""
    K = np.asarray(K, dtype=float)
    diag = np.diag(K)
    if solver == "svm" and np.allclose(diag, diag[0], rtol=1e-12, atol=0):
        m = K.shape[0]
        aug = np.zeros((m + 1, m + 1))
        aug[:m, :m] = K
        d2 = _svm_norm2(aug, np.r_[np.ones(m), -1.0])
        return float(np.sqrt(max(diag[0] - d2, 0.0)))
    if solver == "svm":
        solver = "pgd"
    _, f = _solve(K, -np.diag(K).copy(), [np.arange(K.shape[0])], solver, tol, max_iter)
    return float(np.sqrt(max(-f, 0.0)))


def _conflicts(X: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Mask of rows whose exact copy occurs with the other label."""
    _, group = np.unique(np.asarray(X), axis=0, return_inverse=True)
    _, label = np.unique(np.asarray(s), return_inverse=True)
    n_labels = int(label.max()) + 1
    pairs = np.unique(group.ravel() * n_labels + label.ravel())  # distinct (row value, label)
    mixed = np.bincount(pairs // n_labels) > 1
    return mixed[group.ravel()]


def hull_distance(K, y, solver: str = "svm", tol: float = 1e-7, max_iter: int = 20000) -> float:
    """Distance between the convex hulls of the two classes in the kernel's feature space."""
    K = np.asarray(K, dtype=float)
    s = binary_labels(y, signed=True, what="the labels of the radius-margin ratio").values
    if solver == "svm":
        return float(np.sqrt(_svm_norm2(K, s)))
    Q = K * np.outer(s, s)
    groups = [np.flatnonzero(s > 0), np.flatnonzero(s < 0)]
    _, f = _solve(Q, np.zeros(K.shape[0]), groups, solver, tol, max_iter)
    return float(np.sqrt(max(f, 0.0)))


def radius_margin_ratio(K, y, X=None, drop_conflicts: bool = True, solver: str = "svm") -> dict:
    """R, m and (R^2/m^2)/n for a training Gram matrix K and labels y.

    With ``X`` and ``drop_conflicts``, rows whose identical copy has the other label are left
    out of the hull distance.
    """
    K = np.asarray(K, dtype=float)
    y = np.asarray(y)
    R = radius(K, solver=solver)
    keep = np.ones(len(y), dtype=bool)
    if X is not None and drop_conflicts:
        keep = ~_conflicts(np.asarray(X), np.asarray(y))
        if len(np.unique(y[keep])) < 2:
            keep = np.ones(len(y), dtype=bool)
    m = hull_distance(K[np.ix_(keep, keep)], y[keep], solver=solver)
    ratio = (R * R) / (m * m) / len(y) if m > 1e-9 * max(R, 1e-300) else float("inf")
    return {"radius": R, "margin": m, "ratio": ratio, "n_conflicts": int((~keep).sum())}


@dataclass
class KernelSelection:
    """Candidates ranked by the radius-margin ratio (best first).

    ``operators``: the operators the candidates use, by name, as resolved when they were
    scored (so the selection can be reused where they are not registered); ``n_rows``: the
    rows the ratios were computed on."""

    formulas: list[str]
    ratios: list[float]
    radii: list[float]
    margins: list[float]
    n_conflicts: int = 0
    extra: dict = field(default_factory=dict)
    operators: dict[str, KernelOperator] = field(default_factory=dict)
    n_rows: int = 0

    @property
    def best(self) -> str:
        return self.formulas[0]

    def table(self, top: int | None = None) -> list[dict]:
        rows = zip(self.formulas, self.ratios, self.radii, self.margins)
        out = [{"formula": f, "ratio": r, "radius": R, "margin": m} for f, r, R, m in rows]
        return out[:top] if top else out


def _score(formula: str, X: np.ndarray, y: np.ndarray, normalize: bool, solver: str,
           known: dict[str, KernelOperator]) -> dict:
    """One task: the radius-margin ratio of a candidate, with one BLAS thread wherever the task
    runs, so that its numbers do not depend on where (serial, a worker, a Dask worker)."""
    with single_threaded_blas():
        K = propositional_kernel(formula, X, normalize=normalize, operators=known)
        return radius_margin_ratio(K, y, X=X, solver=solver)


def candidate_formulas(n_candidates: int, p: float = 0.4, eta: float = 0.7, random_state=None,
                       max_leaves: int | None = None, operators=None) -> list[str]:
    """Distinct random formulas from the generator (``operators``: its choices, see
    `random_formula`), skipping those with more than ``max_leaves`` leaves."""
    rng = check_random_state(random_state)
    pool = generator_operators() if operators is None else tuple(operators)
    seen: list[str] = []
    for _ in range(50 * n_candidates):
        if len(seen) >= n_candidates:
            break
        node = random_formula(p, eta, rng, as_string=False, operators=pool)
        if max_leaves is not None and n_leaves(node) > max_leaves:
            continue
        f = to_string(node)
        if f not in seen:
            seen.append(f)
    return seen


def _two_classes(y) -> np.ndarray:
    """``y`` as it is with two classes, else its most frequent class against the rest."""
    y = np.asarray(y)
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < 2:
        raise InputError("kernel selection needs at least two classes")
    if classes.size > 2:
        y = (y == classes[np.argmax(counts)]).astype(int)
    return y


def select_kernel(X, y, n_candidates: int = 30, p: float = 0.4, eta: float = 0.7,
                  normalize: bool = True, candidates=None, random_state=None, n_jobs=None,
                  max_leaves: int | None = 8, solver: str = "svm",
                  third_party_operators: bool = False) -> KernelSelection:
    """Draw ``n_candidates`` random formulas (or rank ``candidates``) by radius-margin ratio.

    ``y`` with more than two classes is reduced to its most frequent class against the rest.
    ``max_leaves`` skips drawn formulas with more leaves (keeps rules readable; None: no limit).
    ``third_party_operators`` lets the generator draw every registered operator besides the
    built-ins too.  The candidates are scored in parallel by joblib (``n_jobs``, any backend,
    e.g. ``joblib.parallel_backend("dask")``); the ranking does not depend on ``n_jobs``.
    (The keyword parameters are those of ``PropositionalSVC``, hence more than eight.)
    """
    X = check_binary(X)
    y = _two_classes(y)
    known = operators()
    if candidates is None:
        if int(n_candidates) < 1:
            raise InputError(f"n_candidates must be at least 1, got {n_candidates}")
        pool = generator_operators(third_party_operators, known)
        candidates = candidate_formulas(int(n_candidates), p, eta, random_state, max_leaves, pool)
    candidates = [str(f) for f in candidates]
    used = {name: op for f in candidates for name, op in operators_of(f, known).items()}
    jobs = (delayed(_score)(f, X, y, normalize, solver, used) for f in candidates)
    results = list(progress.track(
        Parallel(n_jobs=n_jobs, return_as="generator")(jobs), "radius-margin", total=len(candidates)))
    order = sorted(range(len(candidates)), key=lambda i: (results[i]["ratio"], i))
    return KernelSelection(
        formulas=[candidates[i] for i in order],
        ratios=[results[i]["ratio"] for i in order],
        radii=[results[i]["radius"] for i in order],
        margins=[results[i]["margin"] for i in order],
        n_conflicts=results[0]["n_conflicts"] if results else 0,
        operators=used,
        n_rows=len(y),
    )
