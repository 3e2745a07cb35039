"""Plugin loading and the catalogues of what plugins registered.

Entry points of the group ``interp`` are loaded one by one: a plugin that fails to import, has a
misspelled hook (pluggy's ``check_pending``), raises while registering or registers an invalid or
duplicate component is reported (a warning naming it and the error) and skipped; the others keep
working.  ``INTERP_STRICT_PLUGINS=1`` makes any such failure fatal; ``INTERP_DISABLE_PLUGINS=a,b``
skips plugins by name.
"""

from __future__ import annotations

import os
import traceback
import warnings
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any, Callable, Iterator

import attrs
import pluggy

from . import hookspecs
from .components import Embedding, KernelOperator, Method, Penalty, RidgeFamily
from .errors import PluginError

GROUP = "interp"
CORE_DISTRIBUTION = "interp"

#: catalogue attribute -> (hook name, component type, label used in messages)
CATALOGUES: dict[str, tuple[str, type, str]] = {
    "ridge_families": ("register_ridge_families", RidgeFamily, "ridge family"),
    "penalties": ("register_penalties", Penalty, "penalty"),
    "embeddings": ("register_embeddings", Embedding, "embedding"),
    "kernel_operators": ("register_kernel_operators", KernelOperator, "kernel operator"),
    "methods": ("register_methods", Method, "method"),
}


class PluginWarning(UserWarning):
    """A plugin failed to load or register and was skipped."""


@attrs.define
class PluginInfo:
    """What ``interp plugins`` reports about one plugin."""

    name: str
    source: str  # "built-in", a distribution name, or "inline"
    version: str
    status: str = "loaded"  # loaded | failed | disabled
    error: str = ""
    registered: dict[str, list[str]] = attrs.field(factory=dict)
    traceback: str = attrs.field(default="", repr=False)  # of the failure, for --debug

    def to_dict(self) -> dict[str, Any]:
        return attrs.asdict(self)


class Catalogue(Mapping):
    """A read-only mapping name -> component; each component's ``plugin`` names its origin."""

    def __init__(self, label: str, items: dict[str, Any]) -> None:
        self._label, self._items = label, dict(items)

    def __getitem__(self, name: str) -> Any:
        try:
            return self._items[name]
        except KeyError:
            known = ", ".join(sorted(self._items)) or "none"
            raise KeyError(f"unknown {self._label} {name!r}; registered: {known}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Catalogue({self._label}: {', '.join(self._items)})"


@attrs.frozen
class Registry:
    """Everything the loaded plugins registered, by catalogue."""

    ridge_families: Catalogue
    penalties: Catalogue
    embeddings: Catalogue
    kernel_operators: Catalogue
    methods: Catalogue
    plugins: tuple[PluginInfo, ...]

    def plugin(self, name: str) -> PluginInfo:
        for info in self.plugins:
            if info.name == name:
                return info
        raise KeyError(name)


def _strict() -> bool:
    return os.environ.get("INTERP_STRICT_PLUGINS", "").strip().lower() in {"1", "true", "yes"}


def _disabled() -> set[str]:
    return {p.strip() for p in os.environ.get("INTERP_DISABLE_PLUGINS", "").split(",") if p.strip()}


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}".rstrip(": ")


def report_failure(info: PluginInfo, err: BaseException, stage: str) -> None:
    """Mark a plugin failed, warn, and in strict mode raise a PluginError naming it."""
    info.status, info.error = "failed", f"{stage}: {_first_line(err)}"
    info.traceback = "".join(traceback.format_exception(err))
    message = f"interp plugin {info.name!r} ({info.source}) failed to {stage}: {_first_line(err)}"
    if _strict():
        raise PluginError(message) from err
    warnings.warn(message + " (skipped; INTERP_STRICT_PLUGINS=1 makes this fatal)", PluginWarning, stacklevel=3)


class _State:
    """The process-wide plugin manager, the load reports, and the cached registry."""

    pm: pluggy.PluginManager | None = None
    infos: dict[str, PluginInfo] = {}
    registry: Registry | None = None
    registry_key: tuple = ()


def _new_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(GROUP)
    pm.add_hookspecs(hookspecs)
    # historic: a plugin registered later has its add_hookspecs called on registration
    pm.hook.add_hookspecs.call_historic(kwargs={"pluginmanager": pm})
    return pm


def _register(pm: pluggy.PluginManager, plugin: object, info: PluginInfo) -> bool:
    try:
        pm.register(plugin, name=info.name)
    except Exception as err:  # noqa: BLE001 - a broken plugin must not break the others
        if pm.has_plugin(info.name):
            pm.unregister(name=info.name)
        report_failure(info, err, "register")
        return False
    return True


def _check_pending(pm: pluggy.PluginManager, infos: dict[str, PluginInfo]) -> None:
    """Drop each plugin with a hook no specification knows, once every plugin had its turn to
    add specifications (so a downstream library's plugins may load before the library)."""
    while True:
        try:
            pm.check_pending()
            return
        except pluggy.PluginValidationError as err:
            name = pm.get_name(err.plugin)
            pm.unregister(err.plugin)
            report_failure(infos.setdefault(name, PluginInfo(name, "inline", "")), err, "validate its hooks")


def _load_entry_points(pm: pluggy.PluginManager) -> dict[str, PluginInfo]:
    infos: dict[str, PluginInfo] = {}
    disabled = _disabled()
    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        dist = getattr(ep, "dist", None)
        dist_name = dist.metadata["Name"] if dist is not None else "unknown"
        source = "built-in" if dist_name == CORE_DISTRIBUTION else dist_name
        info = PluginInfo(ep.name, source, dist.version if dist is not None else "")
        infos[ep.name] = info
        if ep.name in disabled:
            info.status = "disabled"
            continue
        if pm.has_plugin(ep.name):
            report_failure(info, PluginError(f"another plugin is already named {ep.name!r}"), "register")
            continue
        try:
            plugin = ep.load()
        except Exception as err:  # noqa: BLE001
            report_failure(info, err, "import")
            continue
        _register(pm, _instantiate(plugin), info)
    _check_pending(pm, infos)
    return infos


def _instantiate(plugin: object) -> object:
    """An entry point may name a module, a plugin instance or a plugin class (made here)."""
    return plugin() if isinstance(plugin, type) else plugin


def plugin_manager() -> pluggy.PluginManager:
    """The pluggy manager with every installed plugin that loaded (entry points read once)."""
    if _State.pm is None:
        pm = _new_manager()
        _State.infos = _load_entry_points(pm)
        _State.pm = pm
    return _State.pm


def register_plugin(plugin: object, name: str, source: str = "inline", version: str = "") -> PluginInfo:
    """Register a plugin object directly (tests, notebooks); the registry is rebuilt."""
    pm = plugin_manager()
    info = PluginInfo(name, source, version)
    if pm.has_plugin(name):
        report_failure(info, PluginError(f"another plugin is already named {name!r}"), "register")
    elif _register(pm, plugin, info):
        _State.infos[name] = info
        _check_pending(pm, _State.infos)
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


def _collect(pm: pluggy.PluginManager, name: str, info: PluginInfo) -> dict[str, list] | None:
    """Call one plugin's register_* hooks; all its components, or None if any step failed."""
    found: dict[str, list] = {}
    for attr, (hook_name, kind, label) in CATALOGUES.items():
        try:
            found[attr] = collect_from(pm, hook_name, kind, label, name)
        except Exception as err:  # noqa: BLE001
            report_failure(info, err, f"register its {plural(label)}")
            return None
    return found


def plural(label: str) -> str:
    """"penalty" -> "penalties", "ridge family" -> "ridge families", "method" -> "methods"."""
    return label[:-1] + "ies" if label.endswith("y") else label + "s"


def collect_from(pm: pluggy.PluginManager, hook_name: str, kind: type, label: str, plugin: str) -> list:
    """What plugin ``plugin`` registers through the ``register`` hook ``hook_name``, each
    component checked to be a ``kind`` and labelled with the plugin (raises what the hook
    raises)."""
    items: list = []

    def register(component: Any) -> None:
        if not isinstance(component, kind):
            raise PluginError(f"register() for {plural(label)} takes an {kind.__module__.split('.')[0]}."
                              f"{kind.__name__}, got {type(component).__name__}")
        items.append(component.labelled(plugin))

    for impl in getattr(pm.hook, hook_name).get_hookimpls():
        if impl.plugin_name == plugin:
            impl.function(register)
    return items


def collect(hook_name: str, kind: type, label: str | None = None) -> Catalogue:
    """A catalogue built from a ``register``-style hook, for libraries that add their own hook
    specifications (``add_hookspecs``): every loaded plugin's components of type ``kind``, by
    name.  A plugin whose hook raises, registers the wrong type or a duplicate name is reported
    (``PluginWarning``) and left out, as with interp's own catalogues.
    """
    pm = plugin_manager()
    label = label or kind.__name__
    caller = getattr(pm.hook, hook_name, None)
    if caller is None or not caller.has_spec():
        raise PluginError(f"no hook specification {hook_name!r}: add it with add_hookspecs before collecting")
    table: dict[str, Any] = {}
    for name, plugin in pm.list_name_plugin():
        if plugin is None:
            continue
        info = _State.infos.setdefault(name, PluginInfo(name, "inline", ""))
        try:
            items = collect_from(pm, hook_name, kind, label, name)
            clash = _first_clash({"items": items}, {"items": table}, {"items": label})
            if clash:
                raise PluginError(clash)
        except Exception as err:  # noqa: BLE001
            report_failure(info, err, f"register its {plural(label)}")
            continue
        table.update((item.name, item) for item in items)
    return Catalogue(label, table)


def _build(pm: pluggy.PluginManager) -> Registry:
    tables: dict[str, dict[str, Any]] = {attr: {} for attr in CATALOGUES}
    infos = []
    for name, plugin in pm.list_name_plugin():
        if plugin is None:
            continue
        info = _State.infos.setdefault(name, PluginInfo(name, "inline", ""))
        info.status, info.error, info.registered = "loaded", "", {}
        found = _collect(pm, name, info)
        if found is not None:
            clash = _first_clash(found, tables, {attr: spec[2] for attr, spec in CATALOGUES.items()})
            if clash is not None:
                report_failure(info, PluginError(clash), "register")
            else:
                for attr, items in found.items():
                    for item in items:
                        tables[attr][item.name] = item
                    if items:
                        info.registered[attr] = [item.name for item in items]
        infos.append(info)
    infos += [i for i in _State.infos.values() if i not in infos]
    catalogues = {attr: Catalogue(CATALOGUES[attr][2], table) for attr, table in tables.items()}
    return Registry(**catalogues, plugins=tuple(sorted(infos, key=lambda i: i.name)))


def _first_clash(found: dict[str, list], tables: dict[str, dict[str, Any]], labels: dict[str, str]) -> str | None:
    for attr, items in found.items():
        label = labels[attr]
        seen: set[str] = set()
        for item in items:
            if item.name in seen:
                return f"{label} {item.name!r} registered twice by plugin {item.plugin!r}"
            seen.add(item.name)
            if item.name in tables[attr]:
                other = tables[attr][item.name].plugin
                return f"{label} {item.name!r} registered by both plugin {other!r} and plugin {item.plugin!r}"
    return None


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


def call_command_hooks(cli: Any, add_failure: Callable[[str, BaseException], None]) -> None:
    """Let each plugin add click commands; a plugin that raises is reported, not fatal."""
    pm = plugin_manager()
    for impl in pm.hook.register_commands.get_hookimpls():
        try:
            impl.function(cli)
        except Exception as err:  # noqa: BLE001
            add_failure(impl.plugin_name, err)
