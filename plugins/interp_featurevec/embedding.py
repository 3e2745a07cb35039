"""From a co-occurrence matrix to 2-D feature vectors (truncated SVD with fixed signs).

``M`` is symmetric and non-negative, so its singular values are the absolute values of its
eigenvalues and its singular vectors are eigenvectors.  The two components of largest
singular value are kept and each feature's vector is its row of ``U * S`` (what scikit-learn's
``TruncatedSVD(2).fit_transform(M)`` returns, up to signs), divided by the largest row norm so
that the most important feature has norm 1 (the scaling of the paper's plots).

Sign convention (deterministic, whatever the solver):
  * axis 1: the column sums to a positive number (for a connected non-negative ``M`` this is
    the Perron vector, all entries >= 0, so every feature has a non-negative first coordinate
    and angles lie in [-90, 90] degrees);
  * axis 2: its entry of largest absolute value is positive (lowest feature index on ties,
    entries within 1e-9 relative of the maximum count as ties).
Angles are ``atan2(axis 2, axis 1)`` in degrees.  The explained variance ratio of component
k is ``s_k**2 / ||M||_F**2`` (the share of the matrix's energy it captures).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

DENSE_LIMIT = 2000  # up to this many features: dense symmetric eigensolver


def top2(M) -> tuple[np.ndarray, np.ndarray]:
    """The two largest-magnitude eigenpairs of symmetric ``M``: (values (2,), vectors (d, 2))."""
    d = M.shape[0]
    if d == 1:
        val = float(M.toarray()[0, 0]) if sp.issparse(M) else float(np.asarray(M)[0, 0])
        return np.array([val, 0.0]), np.array([[1.0, 0.0]])
    if d <= DENSE_LIMIT or not sp.issparse(M) or M.nnz == 0:
        A = M.toarray() if sp.issparse(M) else np.asarray(M, dtype=float)
        vals, vecs = np.linalg.eigh(A.astype(np.float64))
        order = np.argsort(-np.abs(vals), kind="stable")[:2]
        return vals[order], vecs[:, order]
    v0 = np.random.default_rng(0).random(d) + 0.5  # fixed start: reproducible
    vals, vecs = spla.eigsh(M.astype(np.float64), k=2, which="LM", v0=v0, tol=1e-10)
    order = np.argsort(-np.abs(vals), kind="stable")
    return vals[order], vecs[:, order]


def fix_signs(U: np.ndarray) -> np.ndarray:
    """Apply the sign convention of the module docstring to the columns of U (d, 2)."""
    U = np.array(U, dtype=float, copy=True)
    s = U[:, 0].sum()
    if abs(s) <= 1e-12 * max(np.abs(U[:, 0]).sum(), 1e-300):
        s = _largest(U[:, 0])
    if s < 0:
        U[:, 0] = -U[:, 0]
    if U.shape[1] > 1 and _largest(U[:, 1]) < 0:
        U[:, 1] = -U[:, 1]
    return U


def _largest(col: np.ndarray) -> float:
    a = np.abs(col)
    if a.size == 0 or a.max() == 0:
        return 1.0
    i = int(np.flatnonzero(a >= a.max() * (1 - 1e-9))[0])
    return float(col[i])


def embed_matrix(M) -> dict:
    """Embedding, importances, angles, singular values and explained variance of ``M``."""
    vals, vecs = top2(M)
    s = np.abs(vals)
    U = fix_signs(vecs)
    Z = U * s
    norms = np.linalg.norm(Z, axis=1)
    scale = norms.max() if norms.size and norms.max() > 0 else 1.0
    Z = Z / scale
    fro2 = float(M.multiply(M).sum()) if sp.issparse(M) else float((np.asarray(M) ** 2).sum())
    evr = s**2 / fro2 if fro2 > 0 else np.zeros(2)
    return {
        "embedding": Z,
        "importances": norms / scale,
        "angles": np.degrees(np.arctan2(Z[:, 1], Z[:, 0])),
        "singular_values": s,
        "explained_variance_ratio": evr,
        "vectors": U,
    }


def align(Z: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Flip the axes of Z (d, 2) to agree with ref (used for bootstrap replicates)."""
    Z = np.array(Z, copy=True)
    for j in range(Z.shape[1]):
        if float(Z[:, j] @ ref[:, j]) < 0:
            Z[:, j] = -Z[:, j]
    return Z
