"""A Nystroem feature map of a propositional kernel: kernels beyond an exact Gram matrix.

An exact SVM needs the n x n Gram matrix of its training rows (8 n^2 bytes: 0.8 GB at 10,000
rows, 80 GB at 100,000).  The Nystroem map replaces it by the kernel against m landmark rows L:

    phi(x) = K(x, L) U_k diag(lambda_k)^(-1/2),       K(L, L) = U diag(lambda) U^T,

keeping the k eigenpairs with lambda >= ``EIGEN_CUT`` * lambda_max (the others carry directions
the landmarks barely span, and their inverse square roots would amplify round-off).  Then
phi(x) . phi(z) is the kernel projected on the span of the landmarks' features; it equals
k(x, z) whenever x or z is a landmark.  A linear model w on phi has the decision function

    f(x) = w . phi(x) + b = sum_j alpha_j k(x, l_j) + b,      alpha = U_k diag(lambda_k)^(-1/2) w,

a kernel expansion over the landmarks, which is how a fitted model predicts and explains itself.

K(X, L) is computed in row blocks of about ``BLOCK_ENTRIES`` kernel values, each a joblib task
(``n_jobs``; under ``joblib.parallel_backend("dask")`` a task on the cluster), so memory beyond
the result stays O(block x m); the blocks do not depend on ``n_jobs``, and each runs its
product on one BLAS thread and row-major operands, hence the numbers are the same to the bit
wherever they run.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
from joblib import Parallel, delayed
from scipy import linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data
from interp.blas import single_threaded_blas

from interp import InputError, KernelOperator, progress

from .formula import operators_of, parse, to_string
from .kernels import check_binary, check_count, propositional_kernel

__all__ = ["PropositionalNystroem", "draw_landmarks", "kernel_blocks", "EIGEN_CUT", "BLOCK_ENTRIES"]

#: eigenvalues of K(L, L) below this fraction of the largest are cut
EIGEN_CUT = 1e-6
#: kernel values per task: rows per block = BLOCK_ENTRIES // m (64 MB of float64 at 2**23)
BLOCK_ENTRIES = 2**23


def draw_landmarks(X: np.ndarray, n_landmarks: int, random_state=None) -> np.ndarray:
    """Indices of ``n_landmarks`` distinct rows of the binary matrix X drawn at random (all
    distinct rows when there are fewer), in the order drawn.

    Distinct rows, because a repeated landmark adds nothing to the map (its eigenvalue is 0)."""
    rng = check_random_state(random_state)
    order = rng.permutation(X.shape[0])
    packed = np.packbits(np.asarray(X, dtype=bool), axis=1)[order]
    keys = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first = np.unique(keys, return_index=True)  # first occurrence of each distinct row in the draw
    return order[np.sort(first)[:n_landmarks]]


def _block(formula: str, operators: Mapping[str, KernelOperator], rows: np.ndarray, landmarks: np.ndarray,
           normalize: bool, right: np.ndarray) -> np.ndarray:
    """One task: K(rows, landmarks) @ right, in right's precision, computed the same way wherever
    the task runs (the serial path, a worker process, a Dask worker): on one BLAS thread and on
    row-major operands.  A threaded product sums in another order; so does numpy with an operand
    that arrives unaligned from a worker's unpickling (it copies it to row-major first) when
    the serial path multiplies the column-major ``components_`` as it is."""
    K = propositional_kernel(formula, rows, landmarks, normalize=normalize, operators=operators)
    with single_threaded_blas():
        return np.ascontiguousarray(K, dtype=right.dtype) @ np.ascontiguousarray(right)


def kernel_blocks(formula: str, operators: Mapping[str, KernelOperator], X: np.ndarray, landmarks: np.ndarray,
                  normalize: bool, right: np.ndarray, n_jobs=None) -> np.ndarray:
    """K(X, landmarks) @ right, computed in row blocks as joblib tasks (see the module notes),
    reporting a step per block when there are several (``interp.progress``).

    ``right`` is the (m, k) matrix of the feature map or the (m, c) coefficients of a kernel
    expansion; the result has its dtype.  (Seven parameters: what one task needs, and n_jobs.)"""
    step = max(1, BLOCK_ENTRIES // max(1, landmarks.shape[0]))
    starts = range(0, X.shape[0], step)
    out = np.empty((X.shape[0], right.shape[1]), dtype=right.dtype)
    tasks = (delayed(_block)(formula, operators, X[s:s + step], landmarks, normalize, right) for s in starts)
    blocks = Parallel(n_jobs=n_jobs, return_as="generator")(tasks)
    if len(starts) > 1:  # a long map (2.1 million rows: 250 blocks, minutes) shows its progress
        blocks = progress.track(blocks, f"kernel of {X.shape[0]:,} rows", total=len(starts))
    for block, s in zip(blocks, starts):  # blocks first: its last step is reported before zip stops
        out[s:s + step] = block
    return out


class PropositionalNystroem(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Nystroem feature map of a propositional kernel (binary input), for linear models.

    ``n_components`` landmark rows (distinct training rows drawn with ``random_state``) define
    phi(x) = K(x, L) K(L, L)^(-1/2), computed with the eigendecomposition of K(L, L), small
    eigenvalues cut (``EIGEN_CUT``): ``n_features_out_`` <= ``n_components`` columns, float32
    for the normalised kernel (values of |phi(x)| <= 1; half the memory of float64), float64
    otherwise.  ``transform`` computes K(X, L) in row blocks as joblib tasks (``n_jobs``).

    Attributes: ``formula_`` (printed), ``operators_`` (resolved at fit, kept: a pickled map
    needs no registry), ``landmarks_`` (m, n), ``components_`` (m, k) = U_k diag(lambda_k)^(-1/2),
    ``eigenvalues_`` (k,).  Its output columns are named ``propositionalnystroem0``, ...
    (``get_feature_names_out``), so ``set_output(transform="pandas")`` gives a DataFrame.
    """

    def __init__(self, formula: str = "a & b", normalize: bool = True, n_components: int = 1000,
                 random_state=None, n_jobs=None) -> None:
        self.formula = formula
        self.normalize = normalize
        self.n_components = n_components
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y=None):
        X = check_binary(validate_data(self, X))
        n_components = check_count(self.n_components, "n_components")
        node = parse(self.formula)
        self.formula_, self.operators_ = to_string(node), operators_of(node)
        self.landmarks_ = X[draw_landmarks(X, n_components, self.random_state)]
        K = propositional_kernel(self.formula_, self.landmarks_, normalize=self.normalize, operators=self.operators_)
        # one BLAS thread: an eigensolver of this size gains little from more, and OpenBLAS
        # threads waiting for a busy core slow it down by an order of magnitude
        with single_threaded_blas():
            values, vectors = linalg.eigh(K, driver="evd")  # divide and conquer: all pairs, fast
        keep = values >= EIGEN_CUT * max(values[-1], 0.0)
        if values[-1] <= 0 or not keep.any():
            raise InputError(f"the kernel of {self.formula_!r} is 0 on every landmark row; "
                             "use another formula or more varied rows")
        keep = np.flatnonzero(keep)[::-1]  # largest eigenvalue first
        self.eigenvalues_ = values[keep]
        dtype = np.float32 if self.normalize else np.float64
        self.components_ = (vectors[:, keep] / np.sqrt(self.eigenvalues_)).astype(dtype)
        self.n_features_out_ = len(keep)
        return self

    @property
    def _n_features_out(self) -> int:
        """The number of output columns, which ``get_feature_names_out`` names."""
        return self.n_features_out_

    def transform(self, X) -> np.ndarray:
        check_is_fitted(self, "components_")
        X = check_binary(validate_data(self, X, reset=False))
        return kernel_blocks(self.formula_, self.operators_, X, self.landmarks_, self.normalize,
                             self.components_, self.n_jobs)

    def expansion(self, coef) -> np.ndarray:
        """alpha = components_ @ coef (float64): the landmarks' coefficients of a linear model
        ``coef`` (k,) or (k, c) on this map, so that coef . phi(x) = K(x, L) alpha."""
        check_is_fitted(self, "components_")
        return self.components_.astype(np.float64) @ np.asarray(coef, dtype=np.float64)

    def decision(self, X, alpha) -> np.ndarray:
        """K(X, L) @ alpha in float64, by blocks: a kernel expansion over the landmarks."""
        check_is_fitted(self, "components_")
        alpha = np.asarray(alpha, dtype=np.float64)
        flat = alpha.ndim == 1
        out = kernel_blocks(self.formula_, self.operators_, check_binary(X), self.landmarks_, self.normalize,
                            alpha[:, None] if flat else alpha, self.n_jobs)
        return out[:, 0] if flat else out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = []  # float32 or float64 by ``normalize``, not by input
        return tags
