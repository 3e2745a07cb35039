"""Messages for hook implementations that do not fit a specification.

pluggy's own messages name a plugin by its ``repr`` (``<my.Plugin object at 0x7f...>``) and stop
at "unknown hook".  A plugin user needs more: a misspelled hook is most likely one of the hooks
that exist ("did you mean ``register_penalties``?"); a hook that a library adds (featurevec's
``register_tree_readers``) is unknown when that library's plugin is disabled or failed, and the
message says which plugin declares it, found by reading (never importing) the source of the
installed plugins that are not loaded.
"""

from __future__ import annotations

import difflib
import importlib.util
import re
from pathlib import Path
from typing import Iterable

import pluggy

#: an address in a repr, "<pkg.Class object at 0x7f12>" -> "Class"
_ADDRESS = re.compile(r"<(?:[\w.]+\.)?(\w+) object at 0x[0-9a-fA-F]+>")
#: files read per plugin package when looking for a hook specification
_MAX_FILES = 400


def without_addresses(text: str) -> str:
    """``text`` with every ``<module.Class object at 0x...>`` written as ``Class``."""
    return _ADDRESS.sub(r"\1", text)


def spec_names(pm: pluggy.PluginManager) -> set[str]:
    """The hooks that have a specification in ``pm``."""
    return {name for name, caller in vars(pm.hook).items() if not name.startswith("_") and caller.has_spec()}


def unknown_hooks(pm: pluggy.PluginManager) -> dict[str, list[str]]:
    """Plugin name -> the hooks it implements (not marked ``optionalhook``) that no
    specification declares, in name order: what ``pm.check_pending`` would refuse."""
    found: dict[str, list[str]] = {}
    for name, caller in sorted(vars(pm.hook).items()):
        if name.startswith("_") or caller.has_spec():
            continue
        for impl in caller.get_hookimpls():
            if not impl.optionalhook:
                found.setdefault(impl.plugin_name, []).append(name)
    return found


def unknown_hook_message(hook: str, known: Iterable[str], unloaded: Iterable[tuple[str, str, str]]) -> str:
    """Why ``hook`` has no specification, in one clause.

    ``known``: the hooks that have one; ``unloaded``: (plugin name, status, entry-point value) of
    the installed plugins that are not loaded (disabled or failed).  A plugin among them whose
    source declares ``hook`` is named first; else the nearest known hook name, if one is close;
    else the library is missing."""
    for plugin, status, entry_point in unloaded:
        if _declares(entry_point, hook):
            why = "is disabled (INTERP_DISABLE_PLUGINS)" if status == "disabled" else "failed to load"
            return f"the hook {hook!r} is declared by the plugin {plugin!r}, which {why}"
    close = difflib.get_close_matches(hook, sorted(known), n=1, cutoff=0.8)
    if close:
        return f"{hook!r} is not a hook: did you mean {close[0]!r}?"
    return f"no installed plugin declares the hook {hook!r}: is the library that adds it installed?"


def _declares(entry_point: str, hook: str) -> bool:
    """Whether the package of ``entry_point`` (``package.module:attr``) has a ``@hookspec``
    function named ``hook``; its files are read as text, nothing is imported."""
    top = entry_point.split(":")[0].split(".")[0]
    try:
        spec = importlib.util.find_spec(top)  # a top-level name: found, not executed
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    if spec.submodule_search_locations:
        files = [p for root in spec.submodule_search_locations for p in Path(root).rglob("*.py")][:_MAX_FILES]
    else:
        files = [Path(spec.origin)] if spec.origin and spec.origin.endswith(".py") else []
    pattern = re.compile(r"@\s*[\w.]*hookspec\b[^\n]*\n\s*def\s+" + re.escape(hook) + r"\s*\(")
    return any(pattern.search(_read(path)) for path in files)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def validation_message(pm: pluggy.PluginManager, err: pluggy.PluginValidationError) -> str:
    """pluggy's message for an implementation whose arguments do not fit its specification, as
    one line that shows both signatures and names no object address."""
    text = without_addresses(str(err))
    plugin = re.search(r"Plugin '([^']*)'", text)
    hook = re.search(r"for hook '(\w+)'", text)
    definition = re.search(r"hookimpl definition: (.*)", text)
    if plugin is None or hook is None or definition is None:
        return " ".join(text.split())
    caller = getattr(pm.hook, hook.group(1), None)
    spec = caller.spec if caller is not None else None
    expected = f"{hook.group(1)}({', '.join(spec.argnames)})" if spec is not None else hook.group(1)
    reason = text.strip().splitlines()[-1]
    return (f"the hook {definition.group(1).strip()} of plugin {plugin.group(1)!r} does not fit the "
            f"specification {expected}: {reason}")
