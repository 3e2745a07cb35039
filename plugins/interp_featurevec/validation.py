"""Checks of what Feature Vectors shows (section 3.3 and 3.4 of the paper).

* ``gaussian_knockoffs``: model-X knockoffs for a multivariate normal fit of X (equicorrelated
  construction); ``mixture_knockoffs``: the same within the components of a Gaussian mixture
  fit (the paper's construction for real data); ``make_knockoffs`` picks one by name.  A
  knockoff copy is exchangeable with its feature but carries no extra information about y, so
  a feature and its knockoff should get similar angles.
* ``knockoff_angle_test``: the permutation test of section 3.3: Feature Vectors on [X, X~];
  the statistic is the mean absolute angle difference between each feature and its knockoff,
  compared with the same mean over random pairings of the 2d features; returns the p-value.
* ``importance_curves`` / ``compare_importances`` / ``plot_curves``: the SSS (smallest
  sufficient subset: train on the top-k features) and SDS (smallest destroying subset: train
  without the top-k features) curves of section 3.4, comparing Feature Vectors importances
  with Gini, permutation importance and TreeSHAP (the latter only when ``shap`` is installed).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
from sklearn.utils import check_random_state

from interp.errors import InputError
from interp.preprocessing import infer_task

from .estimator import FeatureVectors


# -- knockoffs ---------------------------------------------------------------------------------
def _as_matrix(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] < 1:
        raise InputError("X must be a 2-D array with at least one column")
    return X


@dataclass(frozen=True)
class GaussianKnockoffLaw:
    """X~ | X of the equicorrelated Gaussian construction for covariance Sigma:
    ``X~ = X - (X - mu) @ shift + Z @ root.T`` with Z standard normal."""

    shift: np.ndarray  # Sigma^-1 D
    root: np.ndarray  # a square root of 2 D - D Sigma^-1 D

    def draw(self, X: np.ndarray, mu: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """Knockoffs of the rows ``X`` of a Gaussian of mean ``mu``, from standard normal ``noise``."""
        return X - (X - mu) @ self.shift + noise @ self.root.T


def gaussian_knockoff_law(Sigma: np.ndarray, shrink: float = 1e-6) -> GaussianKnockoffLaw:
    """The conditional law of the equicorrelated construction (see ``gaussian_knockoffs``)."""
    d = Sigma.shape[0]
    sd = np.sqrt(np.clip(np.diag(Sigma), 1e-300, None))
    Sigma = Sigma + shrink * np.diag(sd**2)
    Corr = Sigma / np.outer(sd, sd)
    lam_min = float(np.linalg.eigvalsh(Corr).min())
    s = 0.999 * min(1.0, 2.0 * max(lam_min, 0.0)) * sd**2
    if not np.any(s > 0):
        s = 1e-3 * sd**2
    Sinv_D = np.linalg.solve(Sigma, np.diag(s)).reshape(d, d)  # Sigma^-1 D
    cov = 2 * np.diag(s) - np.diag(s) @ Sinv_D
    cov = (cov + cov.T) / 2
    w, V = np.linalg.eigh(cov)
    return GaussianKnockoffLaw(shift=Sinv_D, root=V * np.sqrt(np.clip(w, 0, None)))


def gaussian_knockoffs(X, random_state=None, shrink: float = 1e-6) -> np.ndarray:
    """Second-order (Gaussian) model-X knockoffs, equicorrelated construction.

    With Sigma the (lightly regularised) covariance of X and s_j = min(1, 2 lambda_min(C)) *
    sigma_j^2 (C the correlation matrix), X~ | X ~ N(X - (X - mu) Sigma^-1 D,
    2 D - D Sigma^-1 D) with D = diag(s).  ``s`` is scaled by 0.999 so the conditional
    covariance stays positive definite.
    """
    X = _as_matrix(X)
    rng = check_random_state(random_state)
    n, d = X.shape
    mu = X.mean(axis=0)
    law = gaussian_knockoff_law(np.cov(X, rowvar=False).reshape(d, d), shrink)
    return law.draw(X, mu, rng.standard_normal((n, d)))


def mixture_knockoffs(X, n_components: int = 3, random_state=None, shrink: float = 1e-6) -> np.ndarray:
    """Model-X knockoffs for a Gaussian mixture fit of X (Gimenez, Ghorbani and Zou, 2019).

    The construction the paper uses on real data (section 3.3): fit a ``n_components``-component
    full-covariance mixture (scikit-learn ``GaussianMixture``), draw for every row a component k
    from its posterior p(k | x), then draw the row's knockoff from the Gaussian construction of
    ``gaussian_knockoffs`` for that component's mean and covariance.  Given k the pair (x, x~)
    is exchangeable, and k is drawn from the law of the component given x, so (X, X~) is
    exchangeable whenever X is such a mixture; unlike Gaussian knockoffs, X~ then also has the
    mixture's law (its clusters), not only its first two moments.
    """
    from sklearn.mixture import GaussianMixture

    X = _as_matrix(X)
    if isinstance(n_components, bool) or not isinstance(n_components, numbers.Integral) \
            or not 1 <= n_components <= X.shape[0]:
        raise InputError(f"n_components must be an integer in 1..n_samples, got {n_components!r}")
    rng = check_random_state(random_state)
    gmm = GaussianMixture(n_components, covariance_type="full", random_state=rng.randint(0, 2**31 - 1)).fit(X)
    post = np.cumsum(gmm.predict_proba(X), axis=1)
    component = np.minimum((post < rng.random_sample(X.shape[0])[:, None] * post[:, -1:]).sum(axis=1),
                           n_components - 1)
    noise = rng.standard_normal(X.shape)
    Xk = np.empty_like(X)
    for k in range(n_components):
        rows = component == k
        Xk[rows] = gaussian_knockoff_law(gmm.covariances_[k], shrink).draw(X[rows], gmm.means_[k], noise[rows])
    return Xk


#: The knockoff constructions ``knockoff_angle_test`` can use, by name.
KNOCKOFFS = {"gaussian": gaussian_knockoffs, "mixture": mixture_knockoffs}


def make_knockoffs(X, knockoff: str = "gaussian", random_state=None, **params) -> np.ndarray:
    """Knockoffs of X by the construction named ``knockoff`` ("gaussian" or "mixture"; ``params``
    go to it, e.g. ``n_components`` for "mixture")."""
    if knockoff not in KNOCKOFFS:
        raise InputError(f"knockoff must be one of {', '.join(KNOCKOFFS)}, got {knockoff!r}")
    return KNOCKOFFS[knockoff](X, random_state=random_state, **params)


def angle_difference(a, b) -> np.ndarray:
    """|a - b| in degrees, wrapped into [0, 180]."""
    diff = np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)) % 360.0
    return np.minimum(diff, 360.0 - diff)


@dataclass
class KnockoffTest:
    """Result of ``knockoff_angle_test``."""

    p_value: float
    statistic: float  # mean |angle(feature) - angle(knockoff)|
    null: np.ndarray = field(repr=False)  # the same mean under random pairings
    estimator: FeatureVectors = field(repr=False)
    knockoffs: np.ndarray = field(repr=False)


def knockoff_angle_test(X, y, n_permutations: int = 10_000, random_state=None, knockoffs=None,
                        knockoff: str = "gaussian", n_components: int = 3, **fv_params) -> KnockoffTest:
    """Permutation test: are features closer in angle to their own knockoffs than to random partners?

    Fits ``FeatureVectors(**fv_params)`` on [X, X~]: X~ = ``knockoffs`` when given, else drawn by
    the construction ``knockoff`` ("gaussian": ``gaussian_knockoffs``; "mixture":
    ``mixture_knockoffs`` with ``n_components`` components, the paper's choice for real data).
    The p-value is (1 + #{null means <= statistic}) / (1 + n_permutations), the null pairing the
    2d features uniformly at random into d pairs.
    """
    X = np.asarray(X, dtype=np.float64)
    rng = check_random_state(random_state)
    if knockoffs is None:
        extra = {"n_components": n_components} if knockoff == "mixture" else {}
        Xk = make_knockoffs(X, knockoff, rng, **extra)
    else:
        Xk = np.asarray(knockoffs, dtype=np.float64)
    if Xk.shape != X.shape:
        raise InputError(f"knockoffs have shape {Xk.shape}, X has {X.shape}")
    d = X.shape[1]
    fv_params.setdefault("random_state", rng.randint(0, 2**31 - 1))
    est = FeatureVectors(**fv_params).fit(np.hstack([X, Xk]), y)
    ang = est.angles_
    stat = float(angle_difference(ang[:d], ang[d:]).mean())
    perms = np.argsort(rng.random_sample((int(n_permutations), 2 * d)), axis=1)
    null = angle_difference(ang[perms[:, :d]], ang[perms[:, d:]]).mean(axis=1)
    p = (1.0 + float(np.sum(null <= stat))) / (1.0 + int(n_permutations))
    return KnockoffTest(p_value=p, statistic=stat, null=null, estimator=est, knockoffs=Xk)


# -- SSS / SDS -----------------------------------------------------------------------------------
def _is_classification(y) -> bool:
    return infer_task(y) == "classification"


def _default_model(classification: bool, random_state):
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    cls = RandomForestClassifier if classification else RandomForestRegressor
    return cls(n_estimators=50, random_state=random_state)


def compare_importances(X, y, *, fv: FeatureVectors | None = None, random_state=0, n_repeats: int = 5):
    """Global importances by Feature Vectors, Gini, permutation importance and (if installed)
    TreeSHAP, as {name: array (d,)}."""
    from sklearn.inspection import permutation_importance
    from sklearn.model_selection import train_test_split

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    classification = _is_classification(y)
    out = {}
    if fv is None:
        fv = FeatureVectors(random_state=random_state).fit(X, y)
    out["featurevec"] = np.asarray(fv.importances_, dtype=float)
    model = _default_model(classification, random_state).set_params(n_estimators=200)
    strat = y if classification else None
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=random_state, stratify=strat)
    model.fit(Xtr, ytr)
    out["gini"] = model.feature_importances_
    out["permutation"] = permutation_importance(model, Xte, yte, n_repeats=n_repeats,
                                                random_state=random_state).importances_mean
    try:  # optional
        import shap  # noqa: F401
    except ImportError:
        pass
    else:  # pragma: no cover - shap is not a dependency
        values = shap.TreeExplainer(model).shap_values(Xte)
        values = np.asarray(values)
        if values.ndim == 3:  # (classes, n, d) or (n, d, classes)
            values = np.abs(values).mean(axis=0 if values.shape[0] != Xte.shape[0] else 2)
        out["treeshap"] = np.abs(values).mean(axis=0)
    return out


def importance_curves(X, y, importances: dict, *, steps=None, cv: int = 3, random_state=0, model=None):
    """SSS and SDS curves: CV score when training on the top-k features only (SSS) and when
    training without them (SDS), for k in ``steps`` (default 1..d-1).

    Returns {"steps": array, "sss": {method: array}, "sds": {method: array}}.  The score is
    accuracy for classification and R^2 for regression, ``cv``-fold cross-validated.
    """
    from sklearn.base import clone
    from sklearn.model_selection import cross_val_score

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    d = X.shape[1]
    steps = np.arange(1, d) if steps is None else np.asarray(sorted(set(int(s) for s in steps if 1 <= s < d)))
    base = model if model is not None else _default_model(_is_classification(y), random_state)
    sss, sds = {}, {}
    for name, imp in importances.items():
        order = np.argsort(-np.asarray(imp, dtype=float), kind="stable")
        s_in, s_out = [], []
        for k in steps:
            s_in.append(float(np.mean(cross_val_score(clone(base), X[:, order[:k]], y, cv=cv))))
            s_out.append(float(np.mean(cross_val_score(clone(base), X[:, order[k:]], y, cv=cv))))
        sss[name] = np.array(s_in)
        sds[name] = np.array(s_out)
    return {"steps": steps, "sss": sss, "sds": sds}


def plot_curves(curves: dict, title: str = ""):
    """Two panels (SDS: lower is better; SSS: higher is better); returns the Figure."""
    from interp.plotting import figure

    fig = figure(figsize=(9, 3.6))
    ax1, ax2 = fig.subplots(1, 2)
    for name in curves["sds"]:
        ax1.plot(curves["steps"], curves["sds"][name], marker="o", ms=3, label=name)
        ax2.plot(curves["steps"], curves["sss"][name], marker="o", ms=3, label=name)
    ax1.set_title("SDS: top-k removed (lower is better)", fontsize=9)
    ax2.set_title("SSS: only top-k kept (higher is better)", fontsize=9)
    for ax in (ax1, ax2):
        ax.set_xlabel("k features")
        ax.set_ylabel("CV score")
        ax.grid(alpha=0.3)
    ax2.legend(fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
