"""The contracts a plugin fills in, validated when they are created.

The four extension points (ridge families, penalties, embeddings, kernel operators) are small
classes a plugin either *subclasses*, defining the behaviour as methods:

    class Lasso(interp.Penalty):
        name = "lasso"

        def value(self, w):
            return float(np.abs(w).sum())

        def prox(self, w, step):
            return np.sign(w) * np.maximum(np.abs(w) - step, 0.0)

    register(Lasso())

or *instantiates* with the behaviour passed in as callables
(``interp.Penalty("lasso", value=..., prox=...)``).  Either way the instance is validated once,
is frozen afterwards, and pickles with the fitted model that uses it, so a saved model never
needs the registry again.  The registry labels each registered component with the name of the
plugin that gave it (the ``plugin`` attribute).

``Method`` and ``Option`` describe what ``interp run --method NAME`` runs.
"""

from __future__ import annotations

import copy
import importlib
import keyword
import numbers
import re
from typing import Any, Callable, ClassVar, Mapping

import attrs
import numpy as np

from .attribution import attributed
from .errors import InputError, PluginError

__all__ = ["Component", "RidgeFamily", "Penalty", "BoundPenalty", "Embedding", "EmbeddedFeatures",
           "KernelOperator", "Option", "Method"]


def first_sentence(doc: str) -> str:
    """The first sentence of a docstring's first paragraph on one line, however its lines wrap
    (a sentence ends at ".", "!" or "?" before a blank and a capital letter, so "e.g. x" does
    not end one); the whole paragraph when it has no such end."""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    end = re.search(r"[.!?](?=\s+[A-Z])", paragraph)
    return paragraph[: end.end()] if end else paragraph


class Component:
    """What every extension-point component has: a ``name``, a ``description``, the
    ``plugin`` that registered it and the ``defaults`` of its own parameters.

    Subclasses set ``name`` (and anything else) as class attributes or pass them to
    ``__init__``; a subclass with its own ``__init__`` sets its attributes first and calls
    ``super().__init__()`` last, because the instance is validated and frozen there.

    ``defaults`` declares the component's parameters once (e.g. ``{"eps": 0.1}``): names
    (identifiers) and default values (bool, int, float or str, which also give each parameter
    its type).  A consumer resolves the values a user gives with `resolve_hyper` and
    calls the component's methods with them as keyword arguments (``**hyper``); ``interp run``
    takes them as ``--<option>-param NAME=VALUE`` for an option that names the component.
    """

    kind: ClassVar[str] = "component"
    name: str = ""
    description: str = ""
    plugin: str = ""
    defaults: Mapping[str, Any] = {}

    def __init__(self, name: str | None = None, *, description: str | None = None, **behaviour: Any):
        if name is not None:
            self._set("name", name)
        if description is not None:
            self._set("description", description)
        elif not self.description and type(self).__doc__ and type(self).__module__ != __name__:
            self._set("description", first_sentence(type(self).__doc__))
        for field, value in behaviour.items():
            if value is not None:
                self._set(field, value)
        self._set("defaults", dict(self.defaults))
        self._check_name()
        self._check_defaults()
        self.validate()
        self._set("_frozen", True)

    # -- what subclasses override -------------------------------------------------------------
    def validate(self) -> None:
        """Raise ``PluginError`` (through ``self.fail``) if the component is inconsistent."""

    def check_hyper(self, hyper: dict[str, Any]) -> dict[str, Any]:
        """The parameters ``hyper`` (every name in ``defaults``) as the methods take them, or an
        ``InputError`` naming the bad one.  Override it to check ranges (the default accepts
        any value of the declared type)."""
        return hyper

    # -- parameters ---------------------------------------------------------------------------
    def resolve_hyper(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``defaults`` updated with ``given``, checked by `check_hyper`.  A name not in
        ``defaults`` is an ``InputError`` listing the parameters the component takes."""
        given = dict(given or {})
        unknown = sorted(set(given) - set(self.defaults))
        if unknown:
            allowed = ", ".join(sorted(self.defaults)) or "none"
            raise InputError(f"{self.kind} {self.name!r} has no parameter {unknown[0]!r} (it takes: {allowed})")
        return self.check_hyper({**self.defaults, **given})

    # -- shared machinery ---------------------------------------------------------------------
    def _set(self, field: str, value: Any) -> None:
        object.__setattr__(self, field, value)

    def __setattr__(self, field: str, value: Any) -> None:
        if self.__dict__.get("_frozen"):
            raise AttributeError(f"{self.kind} {self.name!r} is frozen: cannot set {field!r}")
        object.__setattr__(self, field, value)

    def labelled(self, plugin: str) -> "Component":
        """A copy of this component that names the plugin which registered it."""
        clone = copy.copy(self)
        clone._set("plugin", plugin)
        return clone

    def fail(self, message: str) -> None:
        origin = f" from plugin {self.plugin!r}" if self.plugin else ""
        raise PluginError(f"invalid {self.kind} {self.name!r}{origin}: {message}", plugin=self.plugin)

    def provides(self, method: str) -> bool:
        """True when ``method`` was given as a callable or defined by a subclass."""
        return callable(getattr(self, method, None))

    def _check_name(self) -> None:
        name = self.name
        if not isinstance(name, str) or not name or any(c.isspace() for c in name):
            self.fail("the name must be a non-empty string without spaces")

    def _check_defaults(self) -> None:
        for key, value in self.defaults.items():
            if not (isinstance(key, str) and key.isidentifier()) or keyword.iskeyword(key):
                self.fail(f"parameter names in defaults must be Python identifiers, got {key!r}")
            if not isinstance(value, (bool, numbers.Real, str)):
                self.fail(f"the default of parameter {key!r} must be a bool, number or str, got {value!r}")

    def _public_state(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._public_state() == other._public_state()

    def __hash__(self) -> int:
        return hash((type(self), self.name, self.plugin))

    def __repr__(self) -> str:
        origin = f", plugin={self.plugin!r}" if self.plugin else ""
        return f"{type(self).__name__}(name={self.name!r}{origin})"


def _floats(values: Any) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


class RidgeFamily(Component):
    """A family of univariate ridge functions for Symbolic Pursuit.

    Either a Meijer G configuration ``G^{m,n}_{p,q}(a; b | s z^r)`` given by ``orders=(m, n, p,
    q)`` and initial ``init_a`` (p values), ``init_b`` (q values), ``init_scale`` s and
    ``init_power`` r; or any differentiable family with ``init_theta`` and the two methods

    - ``value(theta, z) -> (N,)``;
    - ``gradient(theta, z) -> (dtheta of shape (len(theta), N), dz of shape (N,))``;

    and optionally ``bounds``, one (lo, hi) pair per parameter (None for no bound), which the
    optimiser keeps theta inside, and

    - ``expression(theta, u) -> sympy expression``: how a fitted term prints, g(theta, u) as a
      sympy expression of the sympy symbol ``u`` (e.g. ``sympy.tanh(a * u + b)`` with the
      numbers of theta).  It must equal ``value(theta, u)`` to 1e-8 (relative) where the term is
      evaluated, as numpy/scipy (or mpmath) evaluate it; Symbolic Pursuit checks that and
      otherwise, or without ``expression``, prints the term as the family's name applied to u
      (``tanh_ab(u1)``), which hides its parameters.  ``interp.testing.check_ridge_family``
      checks it.
    """

    kind = "ridge family"
    orders: tuple[int, int, int, int] | None = None
    init_a: tuple[float, ...] = ()
    init_b: tuple[float, ...] = ()
    init_scale: float = 1.0
    init_power: float = 1.0
    init_theta: tuple[float, ...] = ()
    bounds: Any = None
    value: Callable | None = None
    gradient: Callable | None = None
    expression: Callable | None = None

    def __init__(self, name: str | None = None, *, orders: Any = None, init_a: Any = None, init_b: Any = None,
                 init_scale: float | None = None, init_power: float | None = None, init_theta: Any = None,
                 value: Callable | None = None, gradient: Callable | None = None,
                 expression: Callable | None = None, description: str | None = None):
        """One keyword per field of the two kinds of family (every one optional, so that a
        subclass can set them as class attributes instead), hence the length."""
        for field, given, convert in (("orders", orders, lambda o: tuple(int(v) for v in o)),
                                      ("init_a", init_a, _floats), ("init_b", init_b, _floats),
                                      ("init_scale", init_scale, float), ("init_power", init_power, float),
                                      ("init_theta", init_theta, _floats)):
            current = given if given is not None else getattr(self, field)
            self._set(field, None if current is None else convert(current))
        super().__init__(name, description=description, value=value, gradient=gradient, expression=expression)

    @property
    def is_meijer(self) -> bool:
        return self.orders is not None

    def validate(self) -> None:
        if self.orders is None:
            if not (self.provides("value") and self.provides("gradient")):
                self.fail("give either orders=(m, n, p, q) or both value and gradient callables")
            if not self.init_theta:
                self.fail("a custom family needs init_theta (its initial parameters)")
            return
        if self.provides("value") or self.provides("gradient") or self.provides("expression"):
            self.fail("a Meijer G family takes orders, not value/gradient/expression callables")
        if len(self.orders) != 4:
            self.fail(f"orders must be (m, n, p, q), got {self.orders}")
        m, n, p, q = self.orders
        if not (0 <= m <= q and 0 <= n <= p):
            self.fail(f"orders (m, n, p, q) = {self.orders} need 0 <= m <= q and 0 <= n <= p")
        if q == 0:
            self.fail("q must be at least 1")
        if len(self.init_a) != p:
            self.fail(f"init_a has {len(self.init_a)} values, p = {p} needed")
        if len(self.init_b) != q:
            self.fail(f"init_b has {len(self.init_b)} values, q = {q} needed")


class Penalty(Component):
    """A separable penalty Omega(w) = sum_i omega(w_i) with its proximal operator.

    - ``value(w, **hyper) -> float``;
    - ``prox(w, step, **hyper) -> array``: argmin_u (u - w)^2 / 2 + step * omega(u), elementwise;
    - ``subdiff_distance(w, grad, **hyper) -> array`` (optional): the per-coordinate distance of
      ``-grad`` to the subdifferential at ``w``, the solvers' stopping test.

    ``defaults`` names the penalty's own hyperparameters and their defaults (e.g.
    ``{"eps": 0.1}``, see `Component`); they arrive as the keyword arguments ``**hyper``.  A
    solver never passes them itself: it works on ``penalty.bind(**hyper)``, a `BoundPenalty`
    whose methods take no hyperparameters, checked once by `check_hyper` when it is made.

    What the prox supports besides one point array and one scalar step is *declared*, as class
    attributes (or keyword arguments), never probed: ``per_coordinate_steps`` (``step`` may be
    an array of w's shape, one step per coordinate) and ``any_shape`` (``prox`` works
    elementwise on arrays of any shape, e.g. a 2-D stack of points with steps of that shape).
    Both default to False, which every prox satisfies: the solvers then call it one distinct
    step, and one point vector, at a time.  ``interp.testing.check_penalty`` checks what is
    declared.
    """

    kind = "penalty"
    per_coordinate_steps: bool = False
    any_shape: bool = False
    value: Callable | None = None
    prox: Callable | None = None
    subdiff_distance: Callable | None = None

    def __init__(self, name: str | None = None, value: Callable | None = None, prox: Callable | None = None,
                 subdiff_distance: Callable | None = None, defaults: Mapping[str, float] | None = None,
                 *, per_coordinate_steps: bool | None = None, any_shape: bool | None = None,
                 description: str | None = None):
        """One argument per method, the defaults and the two declarations (every one optional,
        so that a subclass can define them in its body instead), hence the length."""
        for field, given in (("per_coordinate_steps", per_coordinate_steps), ("any_shape", any_shape)):
            self._set(field, getattr(self, field) if given is None else given)
        super().__init__(name, description=description, value=value, prox=prox,
                         subdiff_distance=subdiff_distance, defaults=defaults)

    def validate(self) -> None:
        for method in ("value", "prox"):
            if not self.provides(method):
                self.fail(f"{method} must be callable")
        if self.subdiff_distance is not None and not callable(self.subdiff_distance):
            self.fail("subdiff_distance must be callable or None")
        for field in ("per_coordinate_steps", "any_shape"):
            if not isinstance(getattr(self, field), bool):
                self.fail(f"{field} must be True or False, got {getattr(self, field)!r}")

    def bind(self, **hyper: Any) -> "BoundPenalty":
        """This penalty with its hyperparameters fixed: ``defaults`` updated with ``hyper``,
        checked by `check_hyper` (`resolve_hyper`).  A name not in ``defaults`` is an
        ``InputError``."""
        return BoundPenalty(self, self.resolve_hyper(hyper))


@attrs.frozen(eq=False)
class BoundPenalty:
    """A `Penalty` with its hyperparameters bound (made by ``Penalty.bind``): ``value(w)``,
    ``prox(w, step)`` and ``subdiff_distance(w, grad)`` take none, and the penalty's
    declarations (``per_coordinate_steps``, ``any_shape``) are read from it.  It pickles with
    the penalty object, so it never needs the registry."""

    penalty: Penalty
    hyper: Mapping[str, Any] = attrs.field(converter=dict)
    _calls: list = attrs.field(factory=lambda: [0], init=False, repr=False)  # prox calls, for sampling

    @property
    def per_coordinate_steps(self) -> bool:
        return self.penalty.per_coordinate_steps

    @property
    def any_shape(self) -> bool:
        return self.penalty.any_shape

    @property
    def has_subdiff_distance(self) -> bool:
        return self.penalty.provides("subdiff_distance")

    def value(self, w: Any) -> float:
        """``Omega(w)``; NaN, or anything but a number, is the penalty's bug (``Penalty.fail``)."""
        with attributed(self.penalty, "value"):
            out = self.penalty.value(w, **self.hyper)
            number = float(out)
        if np.isnan(number):
            self.penalty.fail(f"value returned {out!r} at points of shape {np.shape(w)}")
        return out

    def prox(self, w: Any, step: Any) -> Any:
        """The penalty's prox at ``w``, checked where it returns: an array of w's shape, finite
        where w is, and, on a sample of the calls (the first few, then one in
        ``PROX_SAMPLE_EVERY``), no worse a minimiser than a few candidates (`check_proximal`)."""
        with attributed(self.penalty, "prox"):
            out = self.penalty.prox(w, step, **self.hyper)
            got = np.asarray(out, dtype=float)
        if got.shape != np.shape(w):
            self.penalty.fail(f"prox of points of shape {np.shape(w)} returned shape {got.shape}")
        if not np.isfinite(got).all() and np.isfinite(w).all():
            self.penalty.fail(f"prox returned NaN or infinity at finite points (step {_shown_step(step)})")
        self._calls[0] += 1
        if self._calls[0] <= PROX_SAMPLE_FIRST or self._calls[0] % PROX_SAMPLE_EVERY == 0:
            check_proximal(self, np.asarray(w, dtype=float), step, got)
        return out

    def subdiff_distance(self, w: Any, grad: Any) -> Any:
        """The penalty's ``subdiff_distance``, checked to be of w's shape and free of NaN."""
        with attributed(self.penalty, "subdiff_distance"):
            out = self.penalty.subdiff_distance(w, grad, **self.hyper)
            got = np.asarray(out, dtype=float)
        if got.shape != np.shape(w) or np.isnan(got).any():
            self.penalty.fail(f"subdiff_distance at points of shape {np.shape(w)} returned "
                              f"{'NaN' if got.shape == np.shape(w) else f'shape {got.shape}'}")
        return out


#: the prox calls of a bound penalty checked by `check_proximal`: the first few, then one in so many
PROX_SAMPLE_FIRST, PROX_SAMPLE_EVERY = 5, 64
#: how much worse than a candidate a returned proximal point may be, relative to the objective's scale
PROX_TOLERANCE = 1e-7


def _shown_step(step: Any) -> str:
    return f"{float(step):g}" if np.ndim(step) == 0 else f"an array of {np.size(step)}"


def check_proximal(bound: BoundPenalty, w: np.ndarray, step: Any, proxed: np.ndarray) -> None:
    """Refuse ``proxed`` as ``prox(w, step)`` when one of a few candidates u (``w`` itself, 0,
    and w shrunk towards 0 by 50%, 10%, 1% and 0.1%) has a lower objective
    ``|u - w|^2 / 2 + step * value(u)``: the prox is its minimiser.  Checked for one vector of
    finite points and one positive step (the objective needs a scalar step); an identity prox,
    or one that returns NaN-free nonsense, fails at the shrunk candidates for any penalty that
    grows with |w|."""
    steps = np.unique(np.asarray(step, dtype=float))
    if w.ndim != 1 or steps.size != 1 or not steps[0] > 0 or not np.isfinite(w).all():
        return
    s = float(steps[0])

    def objective(u: np.ndarray) -> float:
        return 0.5 * float((u - w) @ (u - w)) + s * float(bound.value(u))

    at_prox = objective(proxed)
    tolerance = PROX_TOLERANCE * (1.0 + abs(at_prox) + 0.5 * float(w @ w))
    for label, u in (("w itself", w), ("0", np.zeros_like(w))) + tuple(
            (f"w shrunk by {t:g}", (1.0 - t) * w) for t in (0.5, 0.1, 0.01, 0.001)):
        better = objective(u)
        if better < at_prox - tolerance:
            bound.penalty.fail(f"prox(w, {s:g}) is not a proximal point: |u - w|^2 / 2 + step * value(u) is "
                               f"{at_prox:.6g} at the returned u but {better:.6g} at u = {label} "
                               f"(interp.testing.check_penalty shows where)")


@attrs.frozen
class EmbeddedFeatures:
    """What an embedding returns: one row of ``vectors`` per feature.

    ``explained_variance_ratio`` and ``singular_values`` (one value per dimension) are given by
    embeddings that come from a matrix factorisation and are None otherwise.
    """

    vectors: np.ndarray
    explained_variance_ratio: np.ndarray | None = None
    singular_values: np.ndarray | None = None


class Embedding(Component):
    """A way to turn a feature-by-feature association matrix into one vector per feature.

    ``embed(matrix, **hyper) -> EmbeddedFeatures`` (or an array of shape (n_features,
    n_dims)), where ``matrix`` is a symmetric non-negative (n_features, n_features)
    ``scipy.sparse.csr_matrix`` of float64 (``matrix.toarray()`` gives it dense): for Feature
    Vectors, how often two features occur close together on the root-to-leaf paths of a tree
    ensemble, which it embeds in 2 dimensions (a point and an angle per feature).  A vector's
    length should say how important the feature is and its direction what it has in common
    with the others.  ``hyper`` are the embedding's own parameters, declared with their
    defaults in ``defaults`` (none by default).  ``interp.testing.check_embedding`` checks it
    as Feature Vectors calls it.
    """

    kind = "embedding"
    embed: Callable | None = None

    def __init__(self, name: str | None = None, embed: Callable | None = None, *,
                 defaults: Mapping[str, Any] | None = None, description: str | None = None):
        super().__init__(name, description=description, embed=embed, defaults=defaults)

    def validate(self) -> None:
        if not self.provides("embed"):
            self.fail("embed must be callable")

    def features(self, matrix: Any, hyper: Mapping[str, Any] | None = None) -> EmbeddedFeatures:
        """``embed(matrix, **hyper)`` as an ``EmbeddedFeatures`` record, its shape checked;
        ``hyper``: the parameters as `resolve_hyper` returns them (default: ``defaults``)."""
        with attributed(self, "embed"):
            out = self.embed(matrix, **(self.defaults if hyper is None else hyper))
            if not isinstance(out, EmbeddedFeatures):
                out = EmbeddedFeatures(vectors=np.asarray(out, dtype=float))
            vectors = np.asarray(out.vectors, dtype=float)
        if vectors.ndim != 2 or vectors.shape[0] != matrix.shape[0]:
            raise PluginError(f"embedding {self.name!r} from plugin {self.plugin!r} returned shape "
                              f"{vectors.shape}, not (n_features = {matrix.shape[0]}, n_dims)", plugin=self.plugin)
        return attrs.evolve(out, vectors=vectors)


#: the symbols the formula grammar reads, by the arity of the operator they stand for
#: (``interp_propositional.formula`` gives each its precedence); any other operator is written
#: as a call, ``name(a, b, c)``
OPERATOR_SYMBOLS: dict[int, tuple[str, ...]] = {1: ("~",), 2: ("&", "|", "^", "->", "<->")}


def _bits(values: Any) -> tuple[int, ...]:
    return tuple(int(v) if v in (0, 1, True, False) else -1 for v in values)


class KernelOperator(Component):
    """A logical operator of any arity, defined by its truth table.

    Row ``r`` of ``truth_table`` is the output for operand values given by the binary digits of
    ``r``, first operand most significant: for arity 2 the rows are (0,0), (0,1), (1,0), (1,1),
    so ``and`` is (0, 0, 0, 1) and ``imp`` (x -> y) is (1, 1, 0, 1).  ``symbol`` is the sign
    the formula parser and printer use for the operator (``&``, ``|``, ``^``, ``->``, ``<->`` for
    a binary one, ``~`` for a unary one); empty: written ``name(a, b)``.  A symbol is a name
    under the registry's rules: a built-in operator keeps its symbol, one two third parties
    claim goes to neither, and an operator whose symbol is refused stays, callable by name.

    ``combine(blocks)`` composes the kernel; the default is the joint-truth-table rule, which
    every truth table satisfies, and a subclass may override it with a closed form.
    """

    kind = "kernel operator"
    arity: int = 0
    truth_table: tuple[int, ...] = ()
    symbol: str = ""

    def __init__(self, name: str | None = None, arity: int | None = None, truth_table: Any = None,
                 *, symbol: str | None = None, description: str | None = None):
        self._set("arity", int(arity if arity is not None else self.arity))
        self._set("truth_table", _bits(truth_table if truth_table is not None else self.truth_table))
        if symbol is not None:
            self._set("symbol", symbol)
        super().__init__(name, description=description)

    def validate(self) -> None:
        if not self.name.isidentifier():
            self.fail("the name must be an identifier (it is used as name(f1, ..., fk))")
        if self.arity < 1:
            self.fail(f"arity must be >= 1, got {self.arity}")
        if len(self.truth_table) != 2**self.arity:
            self.fail(f"truth table has {len(self.truth_table)} rows, 2**{self.arity} = "
                      f"{2**self.arity} needed")
        if any(v not in (0, 1) for v in self.truth_table):
            self.fail("truth table entries must be 0 or 1")
        readable = OPERATOR_SYMBOLS.get(self.arity, ())
        if not isinstance(self.symbol, str) or (self.symbol and self.symbol not in readable):
            takes = f"one of {', '.join(readable)}, or none" if readable else "none"
            self.fail(f"the formula parser cannot read the symbol {self.symbol!r}: an operator of arity "
                      f"{self.arity} takes {takes} (written {self.name}(...))")

    def combined(self, blocks: list) -> list:
        """``combine(blocks)`` as a consumer calls it: an exception inside is the operator's
        plugin's (``interp.attribution``), and a result that is not the 2 x 2 nested counts
        ``out[u][v]`` is refused (``fail``) before the consumer trips over it."""
        with attributed(self, "combine"):
            out = self.combine(blocks)
        if not _two_by_two(out):
            self.fail(f"combine of {len(blocks)} operands returned {type(out).__name__}, not the 2 x 2 nested "
                      f"counts out[u][v]")
        return out

    def combine(self, blocks: list) -> list:
        """The joint-state counts ``out[u][v]`` of ``name(f1, ..., fk)`` from its operands'.

        ``blocks[j][a][b]`` counts the features of operand j that are ``a`` on x and ``b`` on z
        (numbers or arrays that broadcast).  The joint-truth-table rule: ``out[T(r)][T(r')] +=
        prod_j blocks[j][r_j][r'_j]`` over every pair of rows r, r' of the truth table T.
        """
        k = len(blocks)
        if k != self.arity:
            raise InputError(f"operator {self.name!r} takes {self.arity} operands, got {k}")
        bits = [tuple((r >> (k - 1 - j)) & 1 for j in range(k)) for r in range(2**k)]
        out: list[list] = [[0, 0], [0, 0]]
        for r, row in enumerate(bits):
            for r2, row2 in enumerate(bits):
                product = blocks[0][row[0]][row2[0]]
                for j in range(1, k):
                    product = product * blocks[j][row[j]][row2[j]]
                u, v = self.truth_table[r], self.truth_table[r2]
                out[u][v] = out[u][v] + product
        return out


def _two_by_two(out: Any) -> bool:
    """Whether ``out`` is indexed as ``out[u][v]`` for u, v in 0, 1 (lists, tuples or an array)."""
    try:
        return len(out) == 2 and all(len(row) == 2 for row in out) and not isinstance(out, (str, dict))
    except TypeError:
        return False


# -- methods ------------------------------------------------------------------------------------
_OPTION_TYPES = (int, float, str, bool)


@attrs.frozen
class Option:
    """One option of a method: ``--name`` on the command line, a keyword of ``run``.

    The single declaration of the option: its ``default`` is what ``run`` receives when the
    user gives nothing (the run function declares no defaults of its own), ``type`` is int,
    float, str or bool (a flag), ``choices`` restricts a str option and ``min`` / ``max``
    bound a number (inclusive).  ``None`` is always accepted as "not given".

    Options that name registered components (resolved by `interp.component_options`):

    - ``catalogue="penalties"`` (a str option): the name of one component of that catalogue
      (``ridge_families``, ``penalties``, ``embeddings``, ``kernel_operators``), checked to be
      registered.  The option brings a companion, ``<name>_params`` (``--<name>-param
      KEY=VALUE``, repeatable), and ``run`` receives both: the name, and the component's
      parameters (its ``defaults`` updated with the given ones, checked).
    - ``catalogue=..., many=True``: a selection of that catalogue, written as comma-separated
      names or glob patterns, each either included or, prefixed with ``-``, excluded
      (``meijer_1002,sigmoid``, ``-meijer_2*``); ``run`` receives the tuple of the names
      selected; not given (None), every registered one.
    - ``param_of="penalty"``: a shortcut for one parameter (of this option's name) of the
      component that the option ``penalty`` names: given, it goes into ``penalty_params``
      (``run`` does not receive it on its own), and it is an error when the chosen component
      has no such parameter.  Its default must be None: the component's own default applies.
    """

    name: str
    type: type = str
    default: Any = None
    help: str = ""
    choices: tuple[str, ...] | None = attrs.field(
        default=None, converter=lambda c: None if c is None else tuple(c)
    )
    min: float | None = None
    max: float | None = None
    catalogue: str | None = None
    many: bool = False
    param_of: str | None = None

    def __attrs_post_init__(self) -> None:
        if not self.name.isidentifier() or keyword.iskeyword(self.name):
            raise PluginError(f"invalid option name {self.name!r}: must be a Python identifier")
        if self.type not in _OPTION_TYPES:
            raise PluginError(f"option {self.name!r}: type must be one of int, float, str, bool")
        self._check_component_fields()
        if self.default is not None:
            try:
                self.convert(self.default)
            except InputError as err:
                raise PluginError(f"option {self.name!r}: its default is invalid: {err}") from None

    def _check_component_fields(self) -> None:
        def fail(message: str) -> None:
            raise PluginError(f"option {self.name!r}: {message}")

        if self.catalogue is not None:
            if self.catalogue not in COMPONENT_CATALOGUES:
                fail(f"catalogue must be one of {', '.join(COMPONENT_CATALOGUES)}, got {self.catalogue!r}")
            if self.type is not str or self.choices is not None:
                fail("an option naming components is a str option without choices (the registry has them)")
        elif self.many:
            fail("many=True needs a catalogue")
        if self.param_of is not None and (self.catalogue is not None or self.default is not None):
            fail("an option with param_of names no catalogue and has the default None "
                 "(the component's own default applies)")

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def params_name(self) -> str | None:
        """The companion ``<name>_params`` of an option naming one component (else None)."""
        return f"{self.name}_params" if self.catalogue is not None and not self.many else None

    @property
    def params_flag(self) -> str:
        return f"{self.flag}-param"

    def convert(self, value: Any) -> Any:
        """``value`` as this option's type, or an InputError naming the flag and the problem.

        A selection (``many``) is a tuple of its comma-separated parts (a str) or of the given
        strings (a list or tuple)."""
        if value is None:
            return None
        if self.many:
            return self._selection(value)
        if self.type is bool:
            if not isinstance(value, (bool, np.bool_)):
                raise InputError(f"{self.flag} is a flag (True or False), got {value!r}")
            return bool(value)
        if self.type in (int, float):
            return self._number(value)
        value = str(value)
        if self.choices is not None and value not in self.choices:
            raise InputError(f"{self.flag} must be one of {', '.join(self.choices)}, got {value!r}")
        return value

    def _selection(self, value: Any) -> tuple[str, ...]:
        parts = value.split(",") if isinstance(value, str) else value
        if not isinstance(parts, (list, tuple)) or not all(isinstance(p, str) for p in parts):
            raise InputError(f"{self.flag} takes comma-separated names, got {value!r}")
        parts = tuple(p.strip() for p in parts)
        if not parts or not all(p and p != "-" for p in parts):
            raise InputError(f"{self.flag} has an empty name in {value!r}")
        return parts

    def _number(self, value: Any) -> int | float:
        kind = "an integer" if self.type is int else "a number"
        ok = isinstance(value, numbers.Integral) if self.type is int else isinstance(value, numbers.Real)
        if not ok or isinstance(value, (bool, np.bool_)):
            raise InputError(f"{self.flag} must be {kind}, got {value!r}")
        value = self.type(value)
        if self.type is float and not np.isfinite(value):
            raise InputError(f"{self.flag} must be finite, got {value}")
        if self.min is not None and value < self.min:
            raise InputError(f"{self.flag} must be >= {self._shown(self.min)}, got {self._shown(value)}")
        if self.max is not None and value > self.max:
            raise InputError(f"{self.flag} must be <= {self._shown(self.max)}, got {self._shown(value)}")
        return value

    @property
    def range_text(self) -> str:
        """The bounds of a number option as ``--help`` shows them ("1 to 12", ">= 0"), or ""."""
        if self.min is not None and self.max is not None:
            return f"{self._shown(self.min)} to {self._shown(self.max)}"
        if self.min is not None:
            return f">= {self._shown(self.min)}"
        return f"<= {self._shown(self.max)}" if self.max is not None else ""

    def _shown(self, bound: float) -> str:
        """A bound or value as the messages print it: 10,000,000 for an integer option, 1e+06 for a float one."""
        return f"{int(bound):,}" if self.type is int else f"{bound:g}"


#: the catalogues whose components an option may name (``Option(catalogue=...)``)
COMPONENT_CATALOGUES = ("ridge_families", "penalties", "embeddings", "kernel_operators")

RESERVED_OPTIONS = frozenset(
    {"method", "plugin", "data", "target", "dataset", "out", "format", "seed", "quiet", "n_jobs", "model_file",
     "trust_model_file", "help", "debug"}
)


def _load_callable(spec: str) -> Callable:
    module, _, attr = spec.partition(":")
    target: Any = importlib.import_module(module)
    for part in attr.split("."):
        target = getattr(target, part)
    if not callable(target):
        raise PluginError(f"{spec!r} is not callable")
    return target


@attrs.frozen
class Method:
    """What ``interp run --method NAME`` runs.

    ``run(data, ctx, **options) -> Explanation`` receives a validated ``interp.Dataset``, an
    ``interp.RunContext`` (seed, quiet, output folder, jobs) and every declared option, already
    converted and defaulted from ``options`` (``interp.component_options.resolve_options``); the core fills in the
    plugin name, version and data set of the result, and its ``params`` with the resolved
    options (and the seed) under the ones the method gives.  ``run`` is a callable or a ``"package.module:function"`` string,
    imported only when the method runs, so that listing plugins stays fast.  ``task`` is
    "classification", "regression" or "any": what target the method needs.  ``missing``: the
    method takes rows with missing numbers (NaN in ``data.X`` and ``data.raw``); for any other
    method the core refuses such data in one line before ``run`` is called.
    ``explains_model`` declares that the method explains a fitted model the user supplies
    (``ctx.model``, from ``--model-file``); for any other method the command line refuses the
    file before unpickling it.
    """

    name: str
    summary: str
    run: Callable | str
    options: tuple[Option, ...] = attrs.field(default=(), converter=tuple)
    task: str = "any"
    plugin: str = ""
    missing: bool = False
    explains_model: bool = False

    kind: ClassVar[str] = "method"

    def __attrs_post_init__(self) -> None:
        def fail(message: str) -> None:
            raise PluginError(f"invalid method {self.name!r}: {message}")

        if not isinstance(self.name, str) or not self.name or any(c.isspace() for c in self.name):
            fail("the name must be a non-empty string without spaces")
        if isinstance(self.run, str):
            if ":" not in self.run:
                fail(f"run must be a callable or 'module:function', got {self.run!r}")
        elif not callable(self.run):
            fail("run must be callable")
        if not isinstance(self.explains_model, bool):
            fail(f"explains_model must be True or False, got {self.explains_model!r}")
        if not self.summary or "\n" in self.summary:
            fail("summary must be one non-empty line")
        if self.task not in ("classification", "regression", "any"):
            fail(f"task must be classification, regression or any, got {self.task!r}")
        names = [o.name for o in self.options] + [o.params_name for o in self.options if o.params_name]
        clash = sorted(set(names) & RESERVED_OPTIONS)
        if clash:
            fail(f"option names {clash} are reserved by `interp run`")
        if len(set(names)) != len(names):
            fail("option names (and the <name>_params of options naming a component) must be unique")
        targets = {o.name for o in self.options if o.params_name}
        for option in self.options:
            if option.param_of is not None and option.param_of not in targets:
                fail(f"option {option.name!r} is a parameter of {option.param_of!r}, which is not an "
                     f"option naming one component (catalogue=..., many=False)")

    def labelled(self, plugin: str) -> "Method":
        return attrs.evolve(self, plugin=plugin)

    def load(self) -> Callable:
        """The run callable (imports its module when ``run`` is a string)."""
        return _load_callable(self.run) if isinstance(self.run, str) else self.run

