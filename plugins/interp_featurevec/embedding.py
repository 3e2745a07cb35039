"""From a co-occurrence matrix to 2-D feature vectors.

The embedding step is a component: ``FeatureVectors(embedding=...)`` takes any
``interp.Embedding`` registered in the embeddings catalogue (or an instance), whose
``embed(M)`` gives one vector per feature.  `feature_map` then scales those vectors so that
the longest has length 1 (the scaling of the paper's plots) and reads off importances (lengths)
and angles.

The built-in embedding, `CooccurrenceSVD` (registered as ``"svd"``), is the paper's: a
truncated SVD of ``M`` with fixed signs.  ``M`` is symmetric and non-negative, so its singular
values are the absolute values of its eigenvalues and its singular vectors are eigenvectors.
The two components of largest singular value are kept and each feature's vector is its row of
``U * S`` (what scikit-learn's ``TruncatedSVD(2).fit_transform(M)`` returns, up to signs).

Sign convention (deterministic, whatever the solver):
  * axis 1: the column sums to a positive number (for a connected non-negative ``M`` this is
    the Perron vector, all entries >= 0, so every feature has a non-negative first coordinate
    and angles lie in [-90, 90] degrees);
  * axis 2: its entry of largest absolute value is positive (lowest feature index on ties,
    entries within 1e-9 relative of the maximum count as ties).
Angles are ``atan2(axis 2, axis 1)`` in degrees.  The explained variance ratio of component
k is ``s_k**2 / ||M||_F**2`` (the share of the matrix's energy it captures).

scipy is imported when a matrix is embedded, not with this module, because the plugin registers
the embedding at start-up (``interp plugins`` stays cheap).
"""

from __future__ import annotations

import attrs
import numpy as np

from interp import EmbeddedFeatures, Embedding, InputError, PluginError

DENSE_LIMIT = 2000  # up to this many features: dense symmetric eigensolver
SIGN_CONVENTION = "axis 1 sums positive; axis 2 largest-magnitude entry positive"


def _issparse(M) -> bool:
    import scipy.sparse as sp

    return sp.issparse(M)


def top2(M) -> tuple[np.ndarray, np.ndarray]:
    """The two largest-magnitude eigenpairs of symmetric ``M``: (values (2,), vectors (d, 2))."""
    d = M.shape[0]
    sparse = _issparse(M)
    if d == 1:
        val = float(M.toarray()[0, 0]) if sparse else float(np.asarray(M)[0, 0])
        return np.array([val, 0.0]), np.array([[1.0, 0.0]])
    if sparse and M.nnz == 0:  # all eigenvalues 0: the first two unit vectors, as eigh gives them, without
        return np.zeros(2), np.eye(d, 2)  # a dense d x d copy (20,000 features: 3 GB)
    if d <= DENSE_LIMIT or not sparse:
        A = M.toarray() if sparse else np.asarray(M, dtype=float)
        vals, vecs = np.linalg.eigh(A.astype(np.float64))
        order = np.argsort(-np.abs(vals), kind="stable")[:2]
        return vals[order], vecs[:, order]
    import scipy.sparse.linalg as spla

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


class CooccurrenceSVD(Embedding):
    """2-D truncated SVD of the feature co-occurrence matrix, signs fixed (Ghorbani et al., 2022)."""

    name = "svd"

    def embed(self, matrix) -> EmbeddedFeatures:
        """``U * S`` of the two largest singular values, with their explained variance ratios."""
        vals, vecs = top2(matrix)
        s = np.abs(vals)
        vectors = fix_signs(vecs) * s
        if _issparse(matrix):
            fro2 = float(matrix.multiply(matrix).sum())
        else:
            fro2 = float((np.asarray(matrix) ** 2).sum())
        evr = s**2 / fro2 if fro2 > 0 else np.zeros(2)
        return EmbeddedFeatures(vectors=vectors, explained_variance_ratio=evr, singular_values=s)


@attrs.frozen(eq=False)
class FeatureMap:
    """Feature vectors scaled so the longest has length 1, with what is read off them.

    ``importances`` are the lengths of the rows of ``embedding`` and ``angles`` their directions,
    ``atan2(axis 2, axis 1)`` in degrees.  ``singular_values`` and ``explained_variance_ratio``
    are the embedding's own (None when it does not give them).
    """

    embedding: np.ndarray
    importances: np.ndarray
    angles: np.ndarray
    singular_values: np.ndarray | None = None
    explained_variance_ratio: np.ndarray | None = None


def feature_map(matrix, embedding: Embedding | None = None, hyper=None) -> FeatureMap:
    """Embed the co-occurrence ``matrix`` with ``embedding`` (default: the paper's SVD) and its
    parameters ``hyper`` (default: its ``defaults``), and scale.

    The picture and the angles need two axes, so the embedding must give 2-D vectors (an
    InputError says so otherwise); non-finite vectors are the embedding's bug (PluginError).
    """
    embedding = embedding if embedding is not None else CooccurrenceSVD()
    out = embedding.features(matrix, hyper)
    Z = out.vectors
    if Z.shape[1] != 2:
        raise InputError(f"embedding {embedding.name!r} gives {Z.shape[1]}-D vectors; Feature Vectors "
                         f"needs 2-D ones (an angle and a point in the picture per feature)")
    if not np.isfinite(Z).all():
        raise PluginError(f"embedding {embedding.name!r} from plugin {embedding.plugin!r} returned "
                          f"NaN or infinite vectors", plugin=embedding.plugin)
    norms = np.linalg.norm(Z, axis=1)
    scale = norms.max() if norms.size and norms.max() > 0 else 1.0
    Z = Z / scale
    return FeatureMap(
        embedding=Z,
        importances=norms / scale,
        angles=np.degrees(np.arctan2(Z[:, 1], Z[:, 0])),
        singular_values=_optional_array(out.singular_values),
        explained_variance_ratio=_optional_array(out.explained_variance_ratio),
    )


def _optional_array(values) -> np.ndarray | None:
    return None if values is None else np.asarray(values, dtype=float)


def align(Z: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Flip the axes of Z (d, 2) to agree with ref (used for bootstrap replicates)."""
    Z = np.array(Z, copy=True)
    for j in range(Z.shape[1]):
        if float(Z[:, j] @ ref[:, j]) < 0:
            Z[:, j] = -Z[:, j]
    return Z
