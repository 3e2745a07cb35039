"""Options that name registered components: one component with its parameters, or a selection.

A method declares them with ``interp.Option(..., catalogue=...)`` (see its docstring), and
`resolve_options` hands their converted values to `resolve`, which checks the names
against the registry, so that every method gets the same rules and the same one-line errors:

- one component (``--penalty mcp``): it must be registered; its parameters come from the
  companion ``--penalty-param NAME=VALUE`` (repeatable; a Python caller passes a dict as
  ``penalty_params``), each typed by the component's default for it, then completed and checked
  by ``component.resolve_hyper``.  An option declared ``param_of="penalty"`` (``--eps``) is one of
  those parameters under a flag of its own; given for a component that has no such parameter it
  is an error, never silently ignored.
- a selection (``--families meijer_1002,sigmoid``, ``--families=-meijer_2*``): comma-separated
  names or glob patterns; with no included pattern, every registered name is the start, and a
  pattern prefixed with ``-`` removes what it matches.  Every pattern must match a registered name, so a
  typo is an error rather than an empty or unchanged selection.
"""

from __future__ import annotations

import fnmatch
import math
import numbers
from typing import Any, Mapping, Sequence

from .components import Component, Method, Option
from .errors import InputError
from .registry import CATALOGUES, Catalogue, get_registry, plural

__all__ = ["resolve_options", "resolve", "select", "parse_params"]

_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def resolve_options(method: Method, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What ``method.run`` receives: every declared option, the given value (converted and
    checked) or, when it is not given or None, its default; then the options that name
    components resolved against the registry (`resolve`)."""
    given = dict(given or {})
    options = method.options
    known = [o.name for o in options] + [o.params_name for o in options if o.params_name]
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise InputError(f"method {method.name!r} has no option {unknown[0]!r}; it takes: " + (", ".join(known) or "none"))
    resolved = {o.name: o.default if given.get(o.name) is None else o.convert(given[o.name]) for o in options}
    if not any(o.catalogue for o in options):
        return resolved
    return resolve(options, resolved, {o.params_name: given.get(o.params_name) for o in options if o.params_name})


def resolve(options: Sequence[Option], resolved: dict[str, Any],
            companions: Mapping[str, Any]) -> dict[str, Any]:
    """``resolved`` (the converted options) with each option naming components resolved: a
    selection as the tuple of names, one component's ``<name>_params`` as its full checked
    parameters; the ``param_of`` shortcuts moved into those parameters."""
    out = dict(resolved)
    registry = get_registry()
    for option in options:
        if option.catalogue is None:
            continue
        catalogue = getattr(registry, option.catalogue)
        if option.many:
            out[option.name] = select(option, catalogue, resolved[option.name])
            continue
        shortcuts = {o: resolved[o.name] for o in options if o.param_of == option.name and resolved[o.name] is not None}
        out[option.params_name] = _component_params(option, catalogue, resolved[option.name],
                                                    companions.get(option.params_name), shortcuts)
    for option in options:
        if option.param_of is not None:
            del out[option.name]
    return out


def _label(option: Option) -> str:
    return CATALOGUES[option.catalogue][2]


def _component_params(option: Option, catalogue: Catalogue, name: str | None, raw: Any,
                      shortcuts: dict[Option, Any]) -> dict[str, Any]:
    """The parameters of the component ``name`` (or {} when none is chosen)."""
    if name is None:
        if raw or shortcuts:
            given = next(iter(shortcuts)).flag if shortcuts else option.params_flag
            raise InputError(f"{given} sets a parameter of the {_label(option)} of {option.flag}, which is not given")
        return {}
    try:
        component = catalogue[name]
    except KeyError as err:  # unknown, or refused by the name rules: the catalogue says which
        raise InputError(err.args[0]) from None
    given = parse_params(option, component, raw)
    for shortcut, value in shortcuts.items():
        if shortcut.name not in component.defaults:
            having = sorted(n for n, c in catalogue.items() if shortcut.name in c.defaults)
            raise InputError(f"{shortcut.flag} does not apply to {option.flag} {name} ({_takes(component)}); "
                             f"it sets the parameter {shortcut.name!r} of a {_label(option)} that has one "
                             f"({', '.join(having) or 'none is registered'})")
        if shortcut.name in given:
            raise InputError(f"give {shortcut.name!r} once: {shortcut.flag} or {option.params_flag} "
                             f"{shortcut.name}=VALUE")
        given[shortcut.name] = value
    try:
        return component.resolve_hyper(given)
    except InputError as err:
        raise InputError(f"{option.flag} {name}: {err}") from None


def _takes(component: Component) -> str:
    names = ", ".join(sorted(component.defaults))
    return f"its parameters: {names}" if names else "it takes no parameters"


def parse_params(option: Option, component: Component, raw: Any) -> dict[str, Any]:
    """``--<option>-param`` values as a dict, each typed by the component's default for it.

    ``raw`` is None, a mapping (Python callers) or a sequence of ``"NAME=VALUE"`` strings (the
    command line); a name given twice, a missing ``=`` or a name the component does not take
    is an ``InputError``."""
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        pairs = list(raw.items())
    elif isinstance(raw, (list, tuple)) and all(isinstance(item, str) for item in raw):
        pairs = [_split_pair(option, item) for item in raw]
    else:
        raise InputError(f"{option.params_flag} takes NAME=VALUE pairs (or a dict), got {raw!r}")
    given: dict[str, Any] = {}
    for key, value in pairs:
        if key in given:
            raise InputError(f"{option.params_flag} {key} is given twice")
        if key not in component.defaults:
            raise InputError(f"{option.params_flag} {key}: {component.kind} {component.name!r} has no parameter "
                             f"{key!r} ({_takes(component)})")
        given[key] = _typed(option, key, value, component.defaults[key])
    return given


def _split_pair(option: Option, item: str) -> tuple[str, str]:
    key, sep, value = item.partition("=")
    if not sep or not key.strip():
        raise InputError(f"{option.params_flag} takes NAME=VALUE, got {item!r}")
    return key.strip(), value.strip()


def _typed(option: Option, key: str, value: Any, default: Any) -> Any:
    """``value`` as the type of ``default`` (bool, int, float or str); text is parsed."""
    where = f"{option.params_flag} {key}"
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE or text in _FALSE:
            return text in _TRUE
        raise InputError(f"{where} must be true or false, got {value!r}")
    if isinstance(default, numbers.Real):
        return _number(where, value, integral=isinstance(default, numbers.Integral))
    return str(value)


def _number(where: str, value: Any, integral: bool) -> int | float:
    kind = "an integer" if integral else "a number"
    if isinstance(value, str):
        try:
            value = int(value) if integral else float(value)
        except ValueError:
            raise InputError(f"{where} must be {kind}, got {value!r}") from None
    ok = isinstance(value, numbers.Integral if integral else numbers.Real) and not isinstance(value, bool)
    if not ok:
        raise InputError(f"{where} must be {kind}, got {value!r}")
    value = int(value) if integral else float(value)
    if not math.isfinite(value):
        raise InputError(f"{where} must be finite, got {value}")
    return value


def select(option: Option, catalogue: Catalogue, patterns: tuple[str, ...] | None) -> tuple[str, ...]:
    """The names ``patterns`` select from ``catalogue`` (all of them for None), in the order
    the included patterns give (registry order within one pattern, and without any)."""
    names = list(catalogue)
    if patterns is None:
        return tuple(names)
    label = plural(_label(option))
    matches: dict[str, list[str]] = {}
    for pattern in patterns:
        found = fnmatch.filter(names, pattern.removeprefix("-"))
        if not found:
            raise InputError(f"{option.flag}: {pattern.removeprefix('-')!r} matches none of the registered "
                             f"{label} ({', '.join(names) or 'none'})")
        matches[pattern] = found
    included = [p for p in patterns if not p.startswith("-")]
    chosen = list(dict.fromkeys(n for p in included for n in matches[p])) if included else names
    excluded = {n for p in patterns if p.startswith("-") for n in matches[p]}
    chosen = [n for n in chosen if n not in excluded]
    if not chosen:
        raise InputError(f"{option.flag} {','.join(patterns)} leaves none of the registered {label}")
    return tuple(chosen)
