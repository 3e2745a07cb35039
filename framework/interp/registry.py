"""Plugin loading, the catalogues of what plugins registered, and who gets each name.

Entry points of the group ``interp`` are loaded one by one: a plugin that fails to import, has a
hook no specification knows, raises while registering or registers an invalid component is
reported (a warning naming it and the error) and skipped; the others keep working.
``INTERP_STRICT_PLUGINS=1`` makes any such failure fatal; ``INTERP_DISABLE_PLUGINS=a,b`` skips
plugins by name.

Every name (of components in interp's catalogues and in the catalogues libraries add with
``add_hookspecs``, of the commands plugins add, of kernel-operator symbols) is settled here by
the rules of ``interp.names``, from every claim at once, so that the load order cannot matter;
a collision refuses only the colliding name.  The outcome is recorded on the plugins'
`PluginInfo` (``registered``, ``conflicts``), which ``interp plugins`` lists.
"""

from __future__ import annotations

import contextlib
import copy
import os
import traceback
import warnings
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any, Callable, Iterable, Iterator

import attrs
import pluggy

from . import hookcheck, hookspecs
from .components import Component, Embedding, KernelOperator, Method, Penalty, RidgeFamily
from .errors import PluginError
from .names import Conflict, both_or_all, listed, settle
from .plugin import unread_attributes

GROUP = "interp"
CORE_DISTRIBUTION = "interp"

#: catalogue key -> (hook name, component type, label used in messages)
CATALOGUES: dict[str, tuple[str, type, str]] = {
    "ridge_families": ("register_ridge_families", RidgeFamily, "ridge family"),
    "penalties": ("register_penalties", Penalty, "penalty"),
    "embeddings": ("register_embeddings", Embedding, "embedding"),
    "kernel_operators": ("register_kernel_operators", KernelOperator, "kernel operator"),
    "methods": ("register_methods", Method, "method"),
}
#: the catalogue of kernel-operator symbols (``&``, ``^``, ...): names under the same rules
SYMBOLS = "kernel_operator_symbols"
#: interp's own hooks (the ones a library's ``add_hookspecs`` adds are the others)
INTERP_HOOKS = frozenset(name for name in vars(hookspecs) if hasattr(getattr(hookspecs, name), "interp_spec"))


class PluginWarning(UserWarning):
    """A plugin failed to load or register and was skipped, or lost a name to another."""


@attrs.define
class PluginInfo:
    """What ``interp plugins`` reports about one plugin.

    ``registered``: catalogue key -> the names this plugin got (interp's catalogues,
    ``commands``, and catalogues of libraries gathered with `collect`); ``conflicts``:
    the names it shares with other plugins and who got each; ``replaces``: the plugins it
    declares it replaces; ``hooks``: the hooks it implements; ``hookspecs``: the hook
    specifications it added; ``traceback``: of its failure, which ``--debug`` shows.
    """

    name: str
    source: str  # "built-in", a distribution name, or "inline"
    version: str
    status: str = "loaded"  # loaded | failed | disabled
    error: str = ""
    registered: dict[str, list[str]] = attrs.field(factory=dict)
    conflicts: list[Conflict] = attrs.field(factory=list)
    replaces: tuple[str, ...] = ()
    hooks: list[str] = attrs.field(factory=list)
    hookspecs: list[str] = attrs.field(factory=list)
    entry_point: str = ""
    traceback: str = attrs.field(default="", repr=False)

    @property
    def builtin(self) -> bool:
        return self.source == "built-in"

    def to_dict(self) -> dict[str, Any]:
        out = attrs.asdict(self, recurse=False)
        out["replaces"] = list(self.replaces)
        out["conflicts"] = [{**c.to_dict(), "claimants": list(c.claimants), "replaced": list(c.replaced),
                             "summary": c.seen_by(self.name)} for c in self.conflicts]
        return out


class Catalogue(Mapping):
    """A read-only mapping name -> component; each component's ``plugin`` names its origin.

    ``refused`` maps a name no plugin got (contested, or interp's own) to why, for the
    message of a lookup that fails."""

    def __init__(self, label: str, items: dict[str, Any], refused: Mapping[str, str] | None = None) -> None:
        self._label, self._items, self._refused = label, dict(items), dict(refused or {})

    def __getitem__(self, name: str) -> Any:
        try:
            return self._items[name]
        except KeyError:
            if name in self._refused:
                raise KeyError(f"{self._label} {name!r} is not available: {self._refused[name]}") from None
            known = ", ".join(sorted(self._items)) or "none"
            raise KeyError(f"unknown {self._label} {name!r}; registered: {known}") from None

    def refusal(self, name: str) -> str | None:
        """Why no plugin got ``name`` (a conflict), or None."""
        return self._refused.get(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Catalogue({self._label}: {', '.join(self._items)})"


@attrs.frozen
class Registry:
    """Everything the loaded plugins registered, by catalogue, and every name conflict."""

    ridge_families: Catalogue
    penalties: Catalogue
    embeddings: Catalogue
    kernel_operators: Catalogue
    methods: Catalogue
    plugins: tuple[PluginInfo, ...]
    conflicts: tuple[Conflict, ...] = ()

    def plugin(self, name: str) -> PluginInfo:
        """The plugin named ``name`` (a loaded one before others of that name)."""
        found = sorted((info for info in self.plugins if info.name == name), key=lambda i: i.status != "loaded")
        if not found:
            raise KeyError(name)
        return found[0]


@attrs.frozen
class PluginCommand:
    """A command a plugin adds through ``register_commands``: its name, the click command and the
    plugin that added it."""

    name: str
    command: Any
    plugin: str = ""
    kind = "command"

    @property
    def description(self) -> str:
        return self.command.get_short_help_str(limit=200) if self.command is not None else ""


def _strict() -> bool:
    return os.environ.get("INTERP_STRICT_PLUGINS", "").strip().lower() in {"1", "true", "yes"}


def _disabled() -> set[str]:
    return {p.strip() for p in os.environ.get("INTERP_DISABLE_PLUGINS", "").split(",") if p.strip()}


def _first_line(err: BaseException) -> str:
    text = hookcheck.without_addresses(str(err)).strip().splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}".rstrip(": ")


def report_failure(info: PluginInfo, err: BaseException, stage: str) -> None:
    """Mark a plugin failed, warn, and in strict mode raise a PluginError naming it."""
    info.status, info.error = "failed", f"{stage}: {_first_line(err)}"
    info.traceback = "".join(traceback.format_exception(err))
    message = f"interp plugin {info.name!r} ({info.source}) failed to {stage}: {_first_line(err)}"
    if _strict():
        raise PluginError(message) from err
    warnings.warn(message + " (skipped; INTERP_STRICT_PLUGINS=1 makes this fatal)", PluginWarning, stacklevel=3)


def _report_conflicts(conflicts: Iterable[Conflict]) -> None:
    """Warn of each conflict that left a plugin out without its consent (fatal when strict)."""
    for conflict in conflicts:
        if conflict.silent():
            continue
        if _strict():
            raise PluginError(conflict.message())
        warnings.warn(conflict.message(), PluginWarning, stacklevel=4)


class _State:
    """The process-wide plugin manager, the load reports, and the cached catalogues."""

    pm: pluggy.PluginManager | None = None
    infos: dict[str, PluginInfo] = {}
    registry: Registry | None = None
    registry_key: tuple = ()
    gathered: dict[str, tuple[Any, Catalogue]] = {}


#: hook name -> (component type, label) of the catalogues libraries gathered with ``collect``
_LIBRARY_KINDS: dict[str, tuple[type, str]] = {}


class _Manager(pluggy.PluginManager):
    """A PluginManager that leaves out the catalogue hooks an ``interp.Plugin`` inherits but has
    nothing for (``penalties = ()``), so that a plugin's hooks are the ones it uses."""

    def parse_hookimpl_opts(self, plugin: object, name: str):
        opts = super().parse_hookimpl_opts(plugin, name)
        if opts is not None:
            attribute = getattr(getattr(plugin, name, None), "interp_catalogue", None)
            if attribute is not None and not getattr(plugin, attribute, ()):
                return None
        return opts


def _new_manager() -> pluggy.PluginManager:
    pm = _Manager(GROUP)
    pm.add_hookspecs(hookspecs)
    # historic: a plugin registered later has its add_hookspecs called on registration
    pm.hook.add_hookspecs.call_historic(kwargs={"pluginmanager": pm})
    return pm


def declared_replaces(plugin: object) -> tuple[str, ...]:
    """The plugins ``plugin`` declares it replaces: its ``replaces`` attribute, a plugin name or
    a tuple of them (a ``PluginError`` when it is anything else)."""
    value = getattr(plugin, "replaces", ())
    names = (value,) if isinstance(value, str) else value
    if not isinstance(names, (tuple, list, set, frozenset)) or not all(isinstance(n, str) and n for n in names):
        raise PluginError(f"replaces must be a plugin name or a tuple of plugin names, got {value!r}")
    return tuple(sorted(set(names)))


def _register(pm: pluggy.PluginManager, plugin: object, info: PluginInfo) -> bool:
    """Register ``plugin``; record what it replaces and the hook specifications it adds."""
    before = hookcheck.spec_names(pm)
    try:
        info.replaces = declared_replaces(plugin)
        _check_attributes(plugin, info, before)
        pm.register(plugin, name=info.name)
    except Exception as err:  # noqa: BLE001 - a broken plugin must not break the others
        if pm.has_plugin(info.name):
            pm.unregister(name=info.name)
        if isinstance(err, pluggy.PluginValidationError):
            err = PluginError(hookcheck.validation_message(pm, err))
        report_failure(info, err, "register")
        return False
    info.hookspecs = sorted(hookcheck.spec_names(pm) - before)
    info.hooks = _hooks(pm, plugin)
    return True


def _check_attributes(plugin: object, info: PluginInfo, hooks: Iterable[str]) -> None:
    """Warn of each attribute of the plugin's class that interp never reads (`unread_attributes`,
    a misspelled ``penaltys``); in strict mode refuse the plugin (a ``PluginError``)."""
    for message in unread_attributes(plugin, hooks):
        if _strict():
            raise PluginError(message)
        warnings.warn(f"interp plugin {info.name!r} ({info.source}): {message}", PluginWarning, stacklevel=4)


def _hooks(pm: pluggy.PluginManager, plugin: object) -> list[str]:
    """The hooks ``plugin`` implements, by name."""
    return sorted(caller.name for caller in pm.get_hookcallers(plugin) or ())


def _check_hooks(pm: pluggy.PluginManager, infos: dict[str, PluginInfo]) -> None:
    """Drop each plugin with a hook no specification knows, once every plugin had its turn to
    add specifications (so a downstream library's plugins may load before the library)."""
    known = hookcheck.spec_names(pm)
    unloaded = [(i.name, i.status, i.entry_point) for i in infos.values() if i.status != "loaded" and i.entry_point]
    for name, hooks in hookcheck.unknown_hooks(pm).items():
        pm.unregister(name=name)
        reasons = "; ".join(hookcheck.unknown_hook_message(hook, known, unloaded) for hook in hooks)
        report_failure(_info(name), PluginError(reasons), "validate its hooks")


def _info(name: str) -> PluginInfo:
    return _State.infos.setdefault(name, PluginInfo(name, "inline", ""))


def _load_entry_points(pm: pluggy.PluginManager, only: Iterable[str] | None = None) -> dict[str, PluginInfo]:
    """Load every entry point of the group (``only``: those of these plugin names); a plugin
    name given by several distributions is the built-in's when one of them is built-in, nobody's
    otherwise."""
    infos: dict[str, PluginInfo] = {}
    disabled = _disabled()
    by_name: dict[str, list] = {}
    wanted = None if only is None else set(only)
    for ep in sorted(entry_points(group=GROUP), key=lambda e: (e.name, e.value)):
        if wanted is None or ep.name in wanted:
            by_name.setdefault(ep.name, []).append(ep)
    for name, eps in by_name.items():
        infos_here = [_entry_point_info(ep) for ep in eps]
        usable = _usable_entry_point(name, infos_here)
        for ep, info in zip(eps, infos_here):
            infos[name if info is usable else f"{name} ({info.source})"] = info
            if info is not usable:
                continue
            if name in disabled:
                info.status = "disabled"
                continue
            try:
                plugin = ep.load()
            except Exception as err:  # noqa: BLE001
                report_failure(info, err, "import")
                continue
            _register(pm, _instantiate(plugin), info)
    return infos


def _entry_point_info(ep: Any) -> PluginInfo:
    dist = getattr(ep, "dist", None)
    dist_name = dist.metadata["Name"] if dist is not None else "unknown"
    source = "built-in" if dist_name == CORE_DISTRIBUTION else dist_name
    return PluginInfo(ep.name, source, dist.version if dist is not None else "", entry_point=ep.value)


def _usable_entry_point(name: str, infos: list[PluginInfo]) -> PluginInfo | None:
    """The one entry point that may use the plugin name ``name``; the others are reported."""
    if len(infos) == 1:
        return infos[0]
    builtin = [i for i in infos if i.builtin]
    usable = builtin[0] if len(builtin) == 1 else None
    sources = listed(CORE_DISTRIBUTION if i.builtin else i.source for i in infos)
    keeper = "the built-in one keeps it" if usable else "none gets it (uninstall all but one)"
    for info in infos:
        if info is not usable:
            fix = f" (uninstall {info.source!r})" if usable else ""
            report_failure(info, PluginError(f"the distributions {sources} {both_or_all(infos)} name a plugin {name!r}; "
                                             f"{keeper}{fix}"), "register")
    return usable


def _instantiate(plugin: object) -> object:
    """An entry point may name a module, a plugin instance or a plugin class (made here)."""
    return plugin() if isinstance(plugin, type) else plugin


def plugin_manager() -> pluggy.PluginManager:
    """The pluggy manager with every installed plugin that loaded (entry points read once)."""
    if _State.pm is None:
        pm = _new_manager()
        _State.infos = _load_entry_points(pm)
        _check_hooks(pm, _State.infos)
        _State.pm = pm
    return _State.pm


@contextlib.contextmanager
def isolated(names: Iterable[str]) -> Iterator[Registry]:
    """Inside the block, the only plugins are the installed ones named ``names`` (loaded from
    their entry points, as if nothing else were installed); afterwards the process's plugins
    are back as they were.  ``interp.testing.plugins_only`` is the form tests use."""
    names = list(dict.fromkeys(names))
    installed = {ep.name for ep in entry_points(group=GROUP)}
    unknown = [name for name in names if name not in installed]
    if unknown:
        raise ValueError(f"no installed plugin is named {unknown[0]!r}; installed: {', '.join(sorted(installed))}")
    saved = (_State.pm, _State.infos, _State.registry, _State.registry_key, _State.gathered)
    reset()
    try:
        pm = _new_manager()
        _State.infos = _load_entry_points(pm, only=names)
        _check_hooks(pm, _State.infos)
        _State.pm = pm
        yield get_registry()
    finally:
        _State.pm, _State.infos, _State.registry, _State.registry_key, _State.gathered = saved


def register_plugin(plugin: object, name: str, source: str = "inline", version: str = "") -> PluginInfo:
    """Register a plugin object directly (tests, notebooks); the registry is rebuilt."""
    pm = plugin_manager()
    info = PluginInfo(name, source, version)
    if pm.has_plugin(name):
        report_failure(info, PluginError(f"another plugin is already named {name!r}"), "register")
    elif _register(pm, plugin, info):
        _State.infos[name] = info
        _check_hooks(pm, _State.infos)
    return info


def unregister_plugin(name: str) -> None:
    """Remove a plugin registered by name (loaded or inline)."""
    pm = plugin_manager()
    if pm.has_plugin(name):
        pm.unregister(name=name)
    _State.infos.pop(name, None)


def reset() -> None:
    """Forget loaded plugins; the next call re-reads the entry points (tests, after installs)."""
    _State.pm, _State.infos, _State.registry, _State.registry_key = None, {}, None, ()
    _State.gathered = {}


def plural(label: str) -> str:
    """"penalty" -> "penalties", "ridge family" -> "ridge families", "method" -> "methods"."""
    return label[:-1] + "ies" if label.endswith("y") else label + "s"


def _singular(key: str) -> str:
    """"tree_readers" -> "tree reader", "closed_forms" -> "closed form", "families" -> "family"."""
    words = key.replace("_", " ")
    return words[:-3] + "y" if words.endswith("ies") else words[:-1] if words.endswith("s") else words


def catalogue_key(hook_name: str) -> str:
    """The catalogue a ``register_*`` hook fills: ``register_tree_readers`` -> ``tree_readers``."""
    return hook_name.removeprefix("register_")


def collect_from(pm: pluggy.PluginManager, hook_name: str, kind: type, label: str, plugin: str) -> list:
    """What plugin ``plugin`` registers through the ``register`` hook ``hook_name``, each
    component checked to be a ``kind`` and labelled with the plugin (raises what the hook
    raises, or a ``PluginError`` for a name it registers twice)."""
    items: list = []

    def register(component: Any) -> None:
        if not isinstance(component, kind):
            raise PluginError(f"register() for {plural(label)} takes an {kind.__module__.split('.')[0]}."
                              f"{kind.__name__}, got {type(component).__name__}")
        items.append(component.labelled(plugin))

    for impl in getattr(pm.hook, hook_name).get_hookimpls():
        if impl.plugin_name == plugin:
            impl.function(register)
    _unique(items, label, lambda item: item.name)
    return items


def _unique(items: list, label: str, key: Callable[[Any], str]) -> None:
    seen: set[str] = set()
    for item in items:
        if key(item) in seen:
            raise PluginError(f"{label} {key(item)!r} registered twice by plugin {item.plugin!r}")
        seen.add(key(item))


def _record(catalogue: str, table: Mapping[str, Any], conflicts: list[Conflict]) -> None:
    """Write the outcome for one catalogue on the plugins (replacing an earlier outcome)."""
    for info in _State.infos.values():
        info.registered.pop(catalogue, None)
        info.conflicts = [c for c in info.conflicts if c.catalogue != catalogue]
    for name, item in table.items():
        _info(item.plugin).registered.setdefault(catalogue, []).append(name)
    for conflict in conflicts:
        for plugin in conflict.claimants:
            _info(plugin).conflicts.append(conflict)


def _refused(conflicts: Iterable[Conflict]) -> dict[str, str]:
    return {c.name: c.message() for c in conflicts if c.winner is None}


def _gather(catalogue: str, label: str, items_of: Callable[[pluggy.PluginManager, str], list],
            reserved: Iterable[str] = ()) -> Catalogue:
    """One catalogue from every loaded plugin: ``items_of(pm, plugin)`` gives what a plugin
    registers (all or nothing: a plugin whose call raises is reported and left out), then the
    name rules decide, and the outcome is recorded on the plugins."""
    pm = plugin_manager()
    claims: dict[str, list[tuple[str, Any]]] = {}
    for name, plugin in pm.list_name_plugin():
        if plugin is None:
            continue
        try:
            items = items_of(pm, name)
        except Exception as err:  # noqa: BLE001 - the plugin's, not ours
            report_failure(_info(name), err, f"register its {plural(label)}")
            continue
        for item in items:
            claims.setdefault(item.name, []).append((name, item))
    table, conflicts = settle(catalogue, label, claims, _info, reserved)
    _record(catalogue, table, conflicts)
    _report_conflicts(conflicts)
    return Catalogue(label, table, _refused(conflicts))


def _cached(catalogue: str, variant: Any, build: Callable[[], Catalogue]) -> Catalogue:
    """A gathered catalogue, built again only when the plugins, ``variant`` or strict mode changed
    (so each problem is reported once, and again when strict mode would make it fatal)."""
    get_registry()
    key = (_State.registry_key, variant, _strict())
    found = _State.gathered.get(catalogue)
    if found is None or found[0] != key:
        _State.gathered[catalogue] = (key, build())
    return _State.gathered[catalogue][1]


def collect(hook_name: str, kind: type, label: str | None = None) -> Catalogue:
    """A catalogue built from a ``register``-style hook, for libraries that add their own hook
    specifications (``add_hookspecs``): every loaded plugin's components of type ``kind``, by
    name, under interp's name rules.  A plugin whose hook raises or registers the wrong type
    is reported (``PluginWarning``) and left out; a name two plugins register goes as in
    interp's own catalogues.  The outcome is recorded on the plugins (``interp plugins``
    lists it under ``hook_name`` without its ``register_``).
    """
    pm = plugin_manager()
    caller = getattr(pm.hook, hook_name, None)
    if caller is None or not caller.has_spec():
        raise PluginError(f"no hook specification {hook_name!r}: add it with add_hookspecs before collecting")
    label = label or getattr(kind, "kind", None) or kind.__name__
    if kind is not Component:
        _LIBRARY_KINDS[hook_name] = (kind, label)
    return _cached(catalogue_key(hook_name), kind,
                   lambda: _gather(catalogue_key(hook_name), label,
                                   lambda pm, name: collect_from(pm, hook_name, kind, label, name)))


def library_catalogues() -> dict[str, Catalogue]:
    """Every catalogue a library added (a ``register_*(register)`` hook that is not interp's),
    gathered with the component type the library collects it with (``interp.Component`` when
    it has not collected it yet in this process), by catalogue key."""
    pm = plugin_manager()
    found = {}
    for hook in sorted(hookcheck.spec_names(pm) - INTERP_HOOKS):
        spec = getattr(pm.hook, hook).spec
        if hook.startswith("register_") and tuple(spec.argnames) == ("register",):
            kind, label = _LIBRARY_KINDS.get(hook, (Component, _singular(catalogue_key(hook))))
            found[catalogue_key(hook)] = collect(hook, kind, label)
    return found


def commands(reserved: Iterable[str] = ()) -> Catalogue:
    """The commands plugins add with ``register_commands``, by name, under the name rules;
    ``reserved`` are interp's own command names, which no plugin takes."""
    reserved = frozenset(reserved)

    def items_of(pm: pluggy.PluginManager, plugin: str) -> list[PluginCommand]:
        import click

        group = click.Group(plugin)
        for impl in pm.hook.register_commands.get_hookimpls():
            if impl.plugin_name == plugin:
                impl.function(group)
        return [PluginCommand(name, command, plugin) for name, command in group.commands.items()]

    return _cached("commands", reserved, lambda: _gather("commands", "command", items_of, reserved))


def _collect(pm: pluggy.PluginManager, name: str, info: PluginInfo) -> dict[str, list] | None:
    """Call one plugin's register_* hooks; all its components, or None if any step failed."""
    found: dict[str, list] = {}
    for attr, (hook_name, kind, label) in CATALOGUES.items():
        try:
            found[attr] = collect_from(pm, hook_name, kind, label, name)
            if kind is KernelOperator:
                _unique([op for op in found[attr] if op.symbol], "kernel operator symbol", lambda op: op.symbol)
        except Exception as err:  # noqa: BLE001
            report_failure(info, err, f"register its {plural(label)}")
            return None
    return found


def _without_symbol(op: KernelOperator) -> KernelOperator:
    clone = copy.copy(op)
    clone._set("symbol", "")
    return clone


def _settle_symbols(operators: dict[str, KernelOperator]) -> list[Conflict]:
    """Give each kernel-operator symbol to one operator by the name rules (operators that won
    their names claim their symbols); an operator whose symbol is refused stays, callable by
    name, without it."""
    claims: dict[str, list[tuple[str, Any]]] = {}
    for op in operators.values():
        if op.symbol:
            claims.setdefault(op.symbol, []).append((op.plugin, op))
    table, conflicts = settle(SYMBOLS, "kernel operator symbol", claims, _info)
    for entries in claims.values():
        for _, op in entries:
            if table.get(op.symbol) is not op:
                operators[op.name] = _without_symbol(op)
    return conflicts


def _build(pm: pluggy.PluginManager) -> Registry:
    claims: dict[str, dict[str, list[tuple[str, Any]]]] = {attr: {} for attr in CATALOGUES}
    infos = []
    for name, plugin in pm.list_name_plugin():
        if plugin is None:
            continue
        info = _info(name)
        info.status, info.error, info.traceback, info.registered, info.conflicts = "loaded", "", "", {}, []
        info.hooks = _hooks(pm, plugin)
        infos.append(info)
        found = _collect(pm, name, info)
        for attr, items in (found or {}).items():
            for item in items:
                claims[attr].setdefault(item.name, []).append((name, item))
    tables, conflicts = {}, []
    for attr, (_, _, label) in CATALOGUES.items():
        tables[attr], found_conflicts = settle(attr, label, claims[attr], _info)
        conflicts += found_conflicts
    conflicts += _settle_symbols(tables["kernel_operators"])
    for attr in CATALOGUES:
        _record(attr, tables[attr], [c for c in conflicts if c.catalogue == attr])
    _record(SYMBOLS, {}, [c for c in conflicts if c.catalogue == SYMBOLS])
    _report_conflicts(conflicts)
    infos += [i for i in _State.infos.values() if i not in infos]
    catalogues = {attr: Catalogue(CATALOGUES[attr][2], table, _refused(c for c in conflicts if c.catalogue == attr))
                  for attr, table in tables.items()}
    return Registry(**catalogues, plugins=tuple(sorted(infos, key=lambda i: (i.name, i.source))),
                    conflicts=tuple(conflicts))


def get_registry() -> Registry:
    """Read-only catalogues of everything the loaded plugins registered (rebuilt on change)."""
    pm = plugin_manager()
    key = tuple((name, id(plugin)) for name, plugin in pm.list_name_plugin())
    if _State.registry is None or key != _State.registry_key:
        _State.registry = _build(pm)
        _State.registry_key = key
    return _State.registry


def resolve(catalogue: str, name: str) -> Any:
    """One component by catalogue and name, with an error listing the known names."""
    try:
        return getattr(get_registry(), catalogue)[name]
    except KeyError as err:
        raise PluginError(err.args[0]) from None
