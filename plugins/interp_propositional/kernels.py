"""Propositional and Boolean kernels on binary data.

Both families depend on a pair of binary vectors (x, z) only through three integers:
p = |x|, q = |z| and s = <x, z> (and the number of variables n).  A Gram matrix is therefore
computed in two steps:

1. ``S = X Z^T`` (one matrix product), ``p`` and ``q`` (row sums);
2. the kernel is evaluated once per *distinct* triple (s, p, q) that occurs and gathered back
   into the m_x x m_z matrix (when the table of triples is smaller than the matrix; otherwise it
   is evaluated elementwise in row blocks).  Both paths give the same numbers.

Propositional kernels carry the four joint-state blocks (A11, A10, A01, A00) of every sub-formula
up the parse tree: a leaf gives (s, p - s, q - s, n - p - q + s) (small exact integers); an
operator composes its operands' blocks with ``interp.KernelOperator.combine``, by default the
joint-truth-table rule: for truth table f and operand blocks B_1..B_k,
``out[f(r)][f(r')] += prod_j B_j[r_j][r'_j]`` over all pairs of rows r, r' of the table.  Every
term is a product of non-negative numbers, so nothing large is ever subtracted.

Boolean kernels (Polato & Aiolli) are evaluated exactly with Python integers per distinct triple
(``math.comb``) and rounded once to float64.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping

import numpy as np
from sklearn.base import BaseEstimator

from interp import InputError, KernelOperator

from .formula import Formula, fold, n_leaves, operators_of, parse

__all__ = [
    "check_binary",
    "check_count",
    "propositional_kernel",
    "propositional_kernel_diagonal",
    "boolean_kernel",
    "normalize_kernel",
    "PropositionalKernel",
    "BooleanKernel",
    "BOOLEAN_KINDS",
]

_TABLE_LIMIT = 2**26  # largest table of (p, q, s) cells used by the gather path


# input checks --------------------------------------------------------------------------------
def check_binary(X, what: str = "X") -> np.ndarray:
    """``X`` as a float64 0/1 matrix; an InputError that suggests the binarizer otherwise."""
    names = None
    if hasattr(X, "columns"):
        names = [str(c) for c in X.columns]
    try:
        arr = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        raise InputError(
            f"{what} must be a binary 0/1 matrix but holds non-numeric values; encode it with "
            "interp_propositional.TabularBinarizer first"
        ) from None
    if arr.ndim != 2:
        raise InputError(f"{what} must be 2-D (rows x variables), got shape {arr.shape}")
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        row, col = (int(v) for v in np.argwhere(bad)[0])
        label = names[col] if names else f"column {col}"
        raise InputError(
            f"{what} must be binary (0/1) but {label} holds {arr[row, col]!r} (row {row}); "
            "encode it with interp_propositional.TabularBinarizer first"
        )
    return arr


def check_count(value, name: str) -> int:
    """``value`` as an int when it is a positive integer (not a bool), else a one-line InputError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _pair(X, Z) -> tuple[np.ndarray, np.ndarray]:
    X = check_binary(X, "X")
    Z = X if Z is None else check_binary(Z, "Z")
    if Z.shape[1] != X.shape[1]:
        raise InputError(f"X has {X.shape[1]} variables but Z has {Z.shape[1]}")
    if X.shape[1] == 0:
        raise InputError("X has no variables (columns)")
    return X, Z


# evaluation over distinct (s, p, q) triples --------------------------------------------------
def _gram(fn: Callable, X: np.ndarray, Z: np.ndarray, dense: bool = True) -> np.ndarray:
    """``fn(s, p, q, n)`` for every pair of rows, evaluated once per distinct triple.

    The row sums p, q are coded as small integers (their rank among the distinct values) and
    appended to X and Z, so that one matrix product gives, for every pair, the cell index
    ``(rank(p) |Q| + rank(q)) (n + 1) + s`` of a table holding the kernel of every triple.
    ``dense``: ``fn`` is cheap, fill every valid cell of the table instead of finding the cells
    that occur.
    """
    n = X.shape[1]
    p, q = X.sum(axis=1), Z.sum(axis=1)
    pv, pi = np.unique(p, return_inverse=True)
    qv, qi = np.unique(q, return_inverse=True)
    n_q, width = len(qv), n + 1
    cells = len(pv) * n_q * width
    m = X.shape[0] * Z.shape[0]
    if cells > min(_TABLE_LIMIT, max(4 * m, 4096)):
        out = np.empty((X.shape[0], Z.shape[0]))
        step = max(1, 2**20 // max(1, Z.shape[0]))
        for start in range(0, X.shape[0], step):
            rows = slice(start, start + step)
            S = X[rows] @ Z.T
            out[rows] = np.broadcast_to(fn(S, p[rows, None], q[None, :], n), out[rows].shape)
        return out
    ftype = np.float32 if cells <= 2**24 else np.float64
    Xa = np.hstack([X, (pi * (n_q * width))[:, None], np.ones((X.shape[0], 1))]).astype(ftype)
    Za = np.hstack([Z, np.ones((Z.shape[0], 1)), (qi * width)[:, None]]).astype(ftype)
    grid_p = np.repeat(pv, n_q * width)
    grid_q = np.tile(np.repeat(qv, width), len(pv))
    grid_s = np.tile(np.arange(width, dtype=float), len(pv) * n_q)
    table = np.zeros(cells)
    itype = np.int32 if cells < 2**31 else np.int64
    step = max(1, 2**21 // max(1, Z.shape[0]))
    if dense and cells <= 4 * m:
        valid = (grid_s <= np.minimum(grid_p, grid_q)) & (grid_s >= grid_p + grid_q - n)
        table[valid] = fn(grid_s[valid], grid_p[valid], grid_q[valid], n)
        out = np.empty((X.shape[0], Z.shape[0]))
        for start in range(0, X.shape[0], step):
            rows = slice(start, start + step)
            out[rows] = np.take(table, (Xa[rows] @ Za.T).astype(itype))  # np.take: table[...]'s values, faster
        return out
    keys = np.empty((X.shape[0], Z.shape[0]), dtype=itype)
    for start in range(0, X.shape[0], step):
        rows = slice(start, start + step)
        keys[rows] = Xa[rows] @ Za.T
    present = np.zeros(cells, dtype=bool)
    present[keys.ravel()] = True
    used = np.flatnonzero(present)
    table[used] = fn(grid_s[used], grid_p[used], grid_q[used], n)
    return np.take(table, keys)


def normalize_kernel(K: np.ndarray, dx: np.ndarray, dz: np.ndarray, X=None, Z=None) -> np.ndarray:
    """k(x, z) / sqrt(k(x, x) k(z, z)) with the zero-diagonal convention.

    Where k(x, x) = 0 (or k(z, z) = 0) the entry is 0, except that two *identical* rows whose
    self-kernel is 0 get 1; so a square Gram matrix keeps a unit diagonal (Polato's
    ``force_normalize``) and train/test matrices agree with it.  This is the kernel of the
    feature map phi(x)/|phi(x)|, completed by a private unit direction for each zero vector,
    hence still positive semi-definite.
    """
    K = np.asarray(K, dtype=float)
    sx, sz = np.sqrt(np.asarray(dx, dtype=float)), np.sqrt(np.asarray(dz, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = K / (sx[:, None] * sz[None, :])
    zx, zz = np.flatnonzero(sx == 0), np.flatnonzero(sz == 0)
    if zx.size:
        out[zx, :] = 0.0
    if zz.size:
        out[:, zz] = 0.0
    if zx.size and zz.size and X is not None and Z is not None:
        keys = {np.asarray(Z[j]).tobytes(): [] for j in zz}
        for j in zz:
            keys[np.asarray(Z[j]).tobytes()].append(j)
        for i in zx:
            for j in keys.get(np.asarray(X[i]).tobytes(), ()):
                out[i, j] = 1.0
    np.clip(out, 0.0, 1.0, out=out)
    return out


def _normalized(fn: Callable) -> Callable:
    """The normalised kernel as a function of the triple (s, p, q): k / sqrt(k_xx k_zz).

    With the zero-diagonal convention of `normalize_kernel`: where a self-kernel is 0 the
    value is 1 for identical rows (s = p = q exactly when x = z) and 0 otherwise."""

    def norm_fn(s, p, q, n):
        s, p, q = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (s, p, q)))
        k = np.asarray(fn(s, p, q, n), dtype=float)
        dp = np.asarray(fn(p, p, p, n), dtype=float)
        dq = np.asarray(fn(q, q, q, n), dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = k / (np.sqrt(dp) * np.sqrt(dq))  # symmetric in (x, z)
        out = np.where((dp == 0) | (dq == 0), 0.0, out)
        out = np.where((s == p) & (s == q), 1.0, out)  # x == z
        return np.clip(out, 0.0, 1.0)

    return norm_fn


# propositional kernels -----------------------------------------------------------------------
def _blocks(node: Formula, base: list[list]) -> list[list]:
    """The joint-state blocks of a parsed formula: a leaf's are ``base``; an operator composes
    its operands' with ``KernelOperator.combine`` (the joint-truth-table rule by default),
    called through ``combined``, which names the operator's plugin when it fails."""
    return fold(node, lambda leaf: base, lambda op, args: op.operator.combined(args))


def _check_size(node: Formula, n: int) -> None:
    digits = n_leaves(node) * math.log10(max(n, 1))
    if digits > 300:
        raise InputError(
            f"the feature space has about 10^{digits:.0f} dimensions (n^L with n = {n}, L = "
            f"{n_leaves(node)} leaves), beyond float64; use a formula with fewer leaves"
        )


def _prop_fn(node: Formula) -> Callable:
    def fn(s, p, q, n):
        s, p, q = (np.asarray(v, dtype=float) for v in (s, p, q))
        base = [[n - p - q + s, q - s], [p - s, s]]
        # a constant operator can leave combine's scalar 0: give every result the pairs' shape
        return np.broadcast_to(_blocks(node, base)[1][1], np.broadcast_shapes(s.shape, p.shape, q.shape))

    return fn


def _triple_fn(node: Formula, n: int, normalize: bool) -> Callable:
    """The kernel of a parsed formula on ``n`` variables as a function of (s, p, q, n),
    normalised when asked; an InputError when its n^L features are beyond float64."""
    _check_size(node, n)
    fn = _prop_fn(node)
    return _normalized(fn) if normalize else fn


def propositional_kernel_diagonal(formula: str | Formula, X, normalize: bool = False,
                                  operators: Mapping[str, KernelOperator] | None = None) -> np.ndarray:
    """The self-kernels k(x, x) of the rows of X: the diagonal of ``propositional_kernel(formula,
    X)`` (the same numbers) without the m x m matrix."""
    X, _ = _pair(X, None)
    p = X.sum(axis=1)
    return np.array(_triple_fn(parse(formula, operators), X.shape[1], normalize)(p, p, p, X.shape[1]), dtype=float)


def propositional_kernel(formula: str | Formula, X, Z=None, normalize: bool = False,
                         operators: Mapping[str, KernelOperator] | None = None) -> np.ndarray:
    """Gram matrix of the propositional kernel of ``formula`` between the rows of X and Z.

    Every leaf of the formula ranges over all n variables (with repetition), so a formula with L
    leaves has n^L Boolean features; k(x, z) counts those true at both x and z.  ``Z`` defaults
    to ``X``; ``normalize`` gives k / sqrt(k(x,x) k(z,z)) (see `normalize_kernel`).
    ``operators`` (name -> ``KernelOperator``, default: the registry) resolves the formula's
    operators when it is a string.
    """
    X, Z = _pair(X, Z)
    return _gram(_triple_fn(parse(formula, operators), X.shape[1], normalize), X, Z)


# Boolean kernels -----------------------------------------------------------------------------
def _comb(m: int, k: int) -> int:
    return math.comb(m, k) if 0 <= k <= m else 0


def _md(s: int, p: int, q: int, n: int, d: int) -> int:
    return _comb(n, d) - _comb(n - p, d) - _comb(n - q, d) + _comb(n - p - q + s, d)


def _bk_exact(kind: str, s: int, p: int, q: int, n: int, c: int, d: int) -> int:
    if kind == "mc":
        return _comb(s, c)
    if kind == "md":
        return _md(s, p, q, n, d)
    if kind == "mdnf":
        nc = _comb(n, c)
        cp, cq, cs = _comb(p, c), _comb(q, c), _comb(s, c)
        return _comb(nc, d) - _comb(nc - cp, d) - _comb(nc - cq, d) + _comb(nc - cp - cq + cs, d)
    if kind == "mcnf":
        return _comb(_md(s, p, q, n, d), c)
    agree = n - p - q + 2 * s
    if kind == "c":
        return _comb(agree, c)
    if kind == "d":
        return (2**d - 2) * _comb(n, d) + _comb(agree, d)
    if kind == "dnf":
        big = 2**c * _comb(n, c)
        nc = _comb(n, c)
        return _comb(big, d) - 2 * _comb(big - nc, d) + _comb(big - 2 * nc + _comb(agree, c), d)
    if kind == "cnf":
        return _comb((2**d - 2) * _comb(n, d) + _comb(agree, d), c)
    raise AssertionError(kind)


#: kind -> (degree names it uses, description)
BOOLEAN_KINDS = {
    "mc": (("c",), "monotone conjunctions of c distinct variables"),
    "md": (("d",), "monotone disjunctions of d distinct variables"),
    "mdnf": (("d", "c"), "disjunctions of d distinct monotone c-conjunctions"),
    "mcnf": (("d", "c"), "conjunctions of c distinct monotone d-clauses"),
    "c": (("c",), "conjunctions of c literals over distinct variables"),
    "d": (("d",), "disjunctions of d literals over distinct variables"),
    "dnf": (("d", "c"), "disjunctions of d distinct c-literal conjunctions"),
    "cnf": (("d", "c"), "conjunctions of c distinct d-literal clauses"),
}


def _boolean_fn(kind: str, c: int, d: int) -> Callable:
    def fn(s, p, q, n):
        s, p, q = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (s, p, q)))
        flat = [np.rint(a).astype(np.int64).ravel().tolist() for a in (s, p, q)]
        cache: dict = {}  # exact value per distinct triple (the elementwise path repeats them)
        vals = []
        for key in zip(*flat):
            v = cache.get(key)
            if v is None:
                exact = _bk_exact(kind, key[0], key[1], key[2], int(n), c, d)
                try:
                    v = float(exact)
                except OverflowError:
                    raise InputError(
                        f"the {kind} kernel with c={c}, d={d} on {n} variables exceeds the float64 "
                        "range; lower the degrees"
                    ) from None
                cache[key] = v
            vals.append(v)
        return np.asarray(vals, dtype=float).reshape(s.shape)

    return fn


def _degrees(kind: str, degrees: dict) -> tuple[int, int]:
    if kind not in BOOLEAN_KINDS:
        raise InputError(f"unknown Boolean kernel {kind!r}; choose one of {', '.join(BOOLEAN_KINDS)}")
    uses = BOOLEAN_KINDS[kind][0]
    extra = sorted(set(degrees) - set(uses))
    if extra:
        raise InputError(f"the {kind} kernel takes degrees {', '.join(uses)}, not {', '.join(extra)}")
    values = {}
    for name in ("c", "d"):
        value = degrees.get(name, 2)
        if isinstance(value, bool) or not float(value).is_integer() or int(value) < 1:
            raise InputError(f"degree {name} must be a positive integer, got {value!r}")
        values[name] = int(value)
    return values["c"], values["d"]


def boolean_kernel(kind: str, X, Z=None, normalize: bool = False, **degrees) -> np.ndarray:
    """Gram matrix of a Boolean kernel (Polato & Aiolli) between the rows of X and Z.

    ``kind`` is one of ``mc`` (c), ``md`` (d), ``mdnf`` (d disjuncts of c-conjunctions),
    ``mcnf`` (c conjuncts of d-clauses), ``c``, ``d``, ``dnf``, ``cnf``; degrees default to 2.
    Values are exact integers (Python arithmetic) rounded once to float64.
    """
    c, d = _degrees(kind, degrees)
    X, Z = _pair(X, Z)
    fn = _boolean_fn(kind, c, d)
    return _gram(_normalized(fn) if normalize else fn, X, Z, dense=False)


# scikit-learn kernel objects -----------------------------------------------------------------
class PropositionalKernel(BaseEstimator):
    """A propositional kernel as a callable for ``SVC(kernel=PropositionalKernel("a & ~b"))``.

    Its parameters (``formula``, ``normalize``) are visible to ``get_params``, so
    ``GridSearchCV(SVC(kernel=PropositionalKernel()), {"kernel__formula": [...]})`` works.
    The first call (the SVC's fit) resolves the formula's operators in the registry and keeps
    them (``operators_``, name -> ``KernelOperator``; resolved again when ``formula`` changes),
    so a pickled fitted SVC computes the same kernel where the operators are not registered.
    """

    def __init__(self, formula: str = "a & b", normalize: bool = True) -> None:
        self.formula = formula
        self.normalize = normalize

    def __call__(self, X, Z=None) -> np.ndarray:
        return propositional_kernel(self.formula, X, Z, normalize=self.normalize,
                                    operators=self.resolved_operators())

    def resolved_operators(self) -> dict[str, KernelOperator]:
        """The operators of ``formula``, resolved in the registry at the first call and kept."""
        if getattr(self, "resolved_formula_", None) != self.formula:
            self.operators_ = operators_of(self.formula)
            self.resolved_formula_ = self.formula
        return self.operators_


class BooleanKernel(BaseEstimator):
    """A Boolean kernel as a callable for ``SVC(kernel=BooleanKernel("mdnf", c=2, d=3))``."""

    def __init__(self, kind: str = "mc", c: int = 2, d: int = 2, normalize: bool = True) -> None:
        self.kind = kind
        self.c = c
        self.d = d
        self.normalize = normalize

    def __call__(self, X, Z=None) -> np.ndarray:
        uses = BOOLEAN_KINDS.get(self.kind, ((),))[0]
        degrees = {name: getattr(self, name) for name in uses}
        return boolean_kernel(self.kind, X, Z, normalize=self.normalize, **degrees)
