"""The contracts a plugin fills in: frozen attrs classes, validated when they are created.

A plugin builds these and hands them to the ``register`` callable its hook receives; the
registry then labels each with the plugin's name (the ``plugin`` field).
"""

from __future__ import annotations

import keyword
from typing import Any, Callable, Mapping

import attrs

from .errors import PluginError

__all__ = ["RidgeFamily", "Penalty", "Embedding", "KernelOperator", "Option", "Method"]


def _fail(component: Any, message: str) -> None:
    kind = type(component).__name__
    name = getattr(component, "name", "?")
    origin = f" from plugin {component.plugin!r}" if getattr(component, "plugin", "") else ""
    raise PluginError(f"invalid {kind} {name!r}{origin}: {message}")


def _check_name(component: Any) -> None:
    name = component.name
    if not isinstance(name, str) or not name or any(c.isspace() for c in name):
        _fail(component, "the name must be a non-empty string without spaces")


def _floats(values: Any) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


@attrs.frozen
class RidgeFamily:
    """A family of univariate ridge functions for Symbolic Pursuit.

    Either a Meijer G configuration ``G^{m,n}_{p,q}(a; b | s z^r)`` given by ``orders=(m, n, p,
    q)`` and initial ``a`` (p values), ``b`` (q values), scale ``s`` and power ``r``; or any
    differentiable family given by ``value(theta, z) -> (N,)`` and ``gradient(theta, z) ->
    (dtheta of shape (len(theta), N), dz of shape (N,))`` with initial ``init_theta``.
    """

    name: str
    orders: tuple[int, int, int, int] | None = attrs.field(
        default=None, converter=lambda o: None if o is None else tuple(int(v) for v in o)
    )
    init_a: tuple[float, ...] = attrs.field(default=(), converter=_floats)
    init_b: tuple[float, ...] = attrs.field(default=(), converter=_floats)
    init_scale: float = attrs.field(default=1.0, converter=float)
    init_power: float = attrs.field(default=1.0, converter=float)
    value: Callable | None = None
    gradient: Callable | None = None
    init_theta: tuple[float, ...] = attrs.field(default=(), converter=_floats)
    description: str = ""
    plugin: str = ""

    @property
    def is_meijer(self) -> bool:
        return self.orders is not None

    def __attrs_post_init__(self) -> None:
        _check_name(self)
        if self.orders is None:
            if not (callable(self.value) and callable(self.gradient)):
                _fail(self, "give either orders=(m, n, p, q) or both value and gradient callables")
            if not self.init_theta:
                _fail(self, "a custom family needs init_theta (its initial parameters)")
            return
        if self.value is not None or self.gradient is not None:
            _fail(self, "a Meijer G family takes orders, not value/gradient callables")
        if len(self.orders) != 4:
            _fail(self, f"orders must be (m, n, p, q), got {self.orders}")
        m, n, p, q = self.orders
        if not (0 <= m <= q and 0 <= n <= p):
            _fail(self, f"orders (m, n, p, q) = {self.orders} need 0 <= m <= q and 0 <= n <= p")
        if q == 0:
            _fail(self, "q must be at least 1")
        if len(self.init_a) != p:
            _fail(self, f"init_a has {len(self.init_a)} values, p = {p} needed")
        if len(self.init_b) != q:
            _fail(self, f"init_b has {len(self.init_b)} values, q = {q} needed")


@attrs.frozen
class Penalty:
    """A separable penalty Omega(w) = sum_i omega(w_i) with its proximal operator.

    ``value(w, **hyper) -> float``, ``prox(w, step, **hyper) -> array`` (argmin_u
    (u - w)^2 / 2 + step * omega(u), elementwise) and optionally ``subdiff_distance(w, grad,
    **hyper) -> array``: the distance of ``-grad`` to the subdifferential at ``w``, used as a
    stopping test.  ``defaults`` names the penalty's own hyperparameters (e.g. ``{"eps": 0.1}``).
    """

    name: str
    value: Callable
    prox: Callable
    subdiff_distance: Callable | None = None
    defaults: Mapping[str, float] = attrs.field(factory=dict, converter=lambda d: dict(d))
    description: str = ""
    plugin: str = ""

    def __attrs_post_init__(self) -> None:
        _check_name(self)
        for field in ("value", "prox"):
            if not callable(getattr(self, field)):
                _fail(self, f"{field} must be callable")
        if self.subdiff_distance is not None and not callable(self.subdiff_distance):
            _fail(self, "subdiff_distance must be callable or None")


@attrs.frozen
class Embedding:
    """A way to turn a fitted model and its data into one vector per feature.

    ``embed(model, X, y=None, **options) -> array of shape (n_features, n_dims)``.
    """

    name: str
    embed: Callable
    description: str = ""
    plugin: str = ""

    def __attrs_post_init__(self) -> None:
        _check_name(self)
        if not callable(self.embed):
            _fail(self, "embed must be callable")


def _bits(values: Any) -> tuple[int, ...]:
    return tuple(int(v) if v in (0, 1, True, False) else -1 for v in values)


@attrs.frozen
class KernelOperator:
    """A logical operator of any arity, defined only by its truth table.

    Row ``r`` of ``truth_table`` is the output for operand values given by the binary digits of
    ``r``, first operand most significant: for arity 2 the rows are (0,0), (0,1), (1,0), (1,1),
    so ``and`` is (0, 0, 0, 1) and ``imp`` (x -> y) is (1, 1, 0, 1).
    """

    name: str
    arity: int = attrs.field(converter=int)
    truth_table: tuple[int, ...] = attrs.field(converter=_bits)
    symbol: str = ""
    description: str = ""
    plugin: str = ""

    def __attrs_post_init__(self) -> None:
        _check_name(self)
        if not self.name.isidentifier():
            _fail(self, "the name must be an identifier (it is used as name(f1, ..., fk))")
        if self.arity < 1:
            _fail(self, f"arity must be >= 1, got {self.arity}")
        if len(self.truth_table) != 2**self.arity:
            _fail(
                self,
                f"truth table has {len(self.truth_table)} rows, 2**{self.arity} = "
                f"{2**self.arity} needed",
            )
        if any(v not in (0, 1) for v in self.truth_table):
            _fail(self, "truth table entries must be 0 or 1")


_OPTION_TYPES = (int, float, str, bool)


@attrs.frozen
class Option:
    """One option of a method: ``--name`` on the command line, a keyword of ``run``.

    ``type`` is int, float, str or bool (a flag); ``choices`` restricts a str option.
    """

    name: str
    type: type = str
    default: Any = None
    help: str = ""
    choices: tuple[str, ...] | None = attrs.field(
        default=None, converter=lambda c: None if c is None else tuple(c)
    )

    def __attrs_post_init__(self) -> None:
        if not self.name.isidentifier() or keyword.iskeyword(self.name):
            raise PluginError(f"invalid option name {self.name!r}: must be a Python identifier")
        if self.type not in _OPTION_TYPES:
            raise PluginError(f"option {self.name!r}: type must be one of int, float, str, bool")

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


RESERVED_OPTIONS = frozenset(
    {"plugin", "data", "target", "dataset", "out", "format", "seed", "quiet", "n_jobs", "model_file",
     "trust_model_file", "help"}
)


@attrs.frozen
class Method:
    """What ``interp run --plugin NAME`` runs.

    ``run(data, ctx, **options) -> Explanation`` receives a validated ``interp.Dataset``, a
    ``interp.RunContext`` (seed, quiet, output folder) and the parsed options, and returns an
    ``interp.Explanation``; the core fills in plugin name, version and dataset name.
    ``task`` is "classification", "regression" or "any": what target the method needs.
    """

    name: str
    summary: str
    run: Callable
    options: tuple[Option, ...] = attrs.field(default=(), converter=tuple)
    task: str = "any"
    plugin: str = ""

    def __attrs_post_init__(self) -> None:
        _check_name(self)
        if not callable(self.run):
            _fail(self, "run must be callable")
        if not self.summary or "\n" in self.summary:
            _fail(self, "summary must be one non-empty line")
        if self.task not in ("classification", "regression", "any"):
            _fail(self, f"task must be classification, regression or any, got {self.task!r}")
        names = [o.name for o in self.options]
        clash = sorted(set(names) & RESERVED_OPTIONS)
        if clash:
            _fail(self, f"option names {clash} are reserved by `interp run`")
        if len(set(names)) != len(names):
            _fail(self, "option names must be unique")
