"""The rules for names: who gets a name that several plugins register.

Every name (of a component in a catalogue, a command, a kernel-operator symbol) is settled on its
own, from all the claims at once, so that the order in which plugins load cannot matter:

- a name claimed by one plugin is that plugin's;
- a plugin that declares ``replaces = "other"`` takes the names it shares with ``other``;
- otherwise a built-in plugin keeps its names against third parties;
- a name that no claimant wins this way (two third parties, or two plugins that both declare
  they replace the same one) goes to nobody;
- a collision refuses only the colliding name: every other name of every claimant stays.

Each collision is a `Conflict` record: the registry keeps it on the plugins involved
(``interp plugins`` lists it) and reports it as one warning naming every claimant, unless every
loser was replaced by declaration.  This module only decides; ``interp.registry`` applies it.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Protocol

import attrs


class Claimant(Protocol):
    """What the rules need to know of a plugin."""

    name: str
    replaces: tuple[str, ...]

    @property
    def builtin(self) -> bool: ...


@attrs.frozen
class Conflict:
    """One name claimed by several plugins, and who got it.

    ``rule`` says why: ``replaces`` (the winner declares it replaces the others, or beat them
    as the built-in they lost to), ``built-in`` (a built-in plugin keeps its name against third
    parties), ``contested`` (nobody: no claimant wins) or ``core`` (a command name of interp
    itself, which no plugin takes).
    """

    catalogue: str
    label: str
    name: str
    claimants: tuple[str, ...]
    winner: str | None
    rule: str
    replaced: tuple[str, ...] = ()  # the claimants the winner declared it replaces

    def losers(self) -> tuple[str, ...]:
        return tuple(p for p in self.claimants if p != self.winner)

    def silent(self) -> bool:
        """True when every loser was replaced by the winner's declaration (nothing to warn of)."""
        return self.rule == "replaces" and set(self.losers()) <= set(self.replaced)

    def message(self) -> str:
        """The one-line warning: every claimant, who gets the name, how to choose."""
        what = f"the {self.label} {self.name!r}"
        if self.rule == "core":
            return f"interp plugin {listed(self.claimants)} registers {what}, which is interp's own: left out"
        head = f"interp plugins {listed(self.claimants)} {both_or_all(self.claimants)} register {what}"
        if self.winner is None:
            return f"{head}: {'neither' if len(self.claimants) == 2 else 'none'} gets it; {_choose(self.claimants)}"
        losers = self.losers()
        without = f"{listed(losers)} {'goes' if len(losers) == 1 else 'go'} without"
        if self.rule == "replaces":
            return f"{head}: {self.winner!r} gets it (it declares replaces = {listed(self.replaced)}), {without}"
        return (f"{head}: the built-in {self.winner!r} keeps it, {without} (a plugin takes a built-in's name only "
                f"when it declares replaces = {self.winner!r})")

    def seen_by(self, plugin: str) -> str:
        """The conflict as one line about ``plugin`` (for ``interp plugins``)."""
        what = f"{self.label} {self.name!r}"
        others = listed(p for p in self.claimants if p != plugin)
        if self.rule == "core":
            return f"{what}: left out, it is interp's own"
        if self.winner is None:
            return f"{what}: none gets it, {others} also {_registers(self.claimants)} it ({_choose(self.claimants)})"
        if self.winner == plugin:
            why = "built-in" if self.rule == "built-in" else f"it declares replaces = {listed(self.replaced)}"
            return f"{what}: kept, {others} also {_registers(self.claimants)} it ({why})"
        how = ("it declares it replaces this plugin" if plugin in self.replaced else
               "it is built-in" if self.rule == "built-in" else f"it replaces {listed(self.replaced)}")
        return f"{what}: left out, {self.winner!r} has it ({how})"

    def to_dict(self) -> dict[str, Any]:
        return attrs.asdict(self)


def listed(plugins: Iterable[str]) -> str:
    """'a', 'a' and 'b', 'a', 'b' and 'c'."""
    quoted = [repr(p) for p in plugins]
    if not quoted:
        return "no other plugin"
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _registers(claimants: tuple[str, ...]) -> str:
    return "registers" if len(claimants) == 2 else "register"


def both_or_all(items: Iterable[Any]) -> str:
    return "both" if len(list(items)) == 2 else "all"


def _choose(claimants: tuple[str, ...]) -> str:
    if len(claimants) == 2:
        a, b = claimants
        return f"disable one: INTERP_DISABLE_PLUGINS={a} or INTERP_DISABLE_PLUGINS={b}"
    return f"keep one by disabling the others, e.g. INTERP_DISABLE_PLUGINS={','.join(claimants[1:])}"


def _winner(claimants: list[str], plugin: Callable[[str], Claimant]) -> tuple[str | None, str, tuple[str, ...]]:
    """(winner or None, rule, the claimants it declared it replaces) among ``claimants``.

    ``q`` beats ``p`` when q declares it replaces p (and p does not declare the same of q), or
    when q is built-in, p is not and p does not declare it replaces q.  The winner is the one
    claimant no other beats; when there are several or none, nobody wins."""
    infos = {name: plugin(name) for name in claimants}

    def beats(q: Claimant, p: Claimant) -> bool:
        if p.name in q.replaces:
            return q.name not in p.replaces
        return q.builtin and not p.builtin and q.name not in p.replaces

    unbeaten = [p for p in claimants if not any(beats(infos[q], infos[p]) for q in claimants if q != p)]
    if len(unbeaten) != 1:
        return None, "contested", ()
    winner = infos[unbeaten[0]]
    replaced = tuple(p for p in claimants if p in winner.replaces)
    return winner.name, "replaces" if replaced else "built-in", replaced


def settle(catalogue: str, label: str, claims: Mapping[str, list[tuple[str, Any]]],
           plugin: Callable[[str], Claimant], reserved: Iterable[str] = ()) -> tuple[dict[str, Any], list[Conflict]]:
    """Apply the name rules to ``claims`` (name -> [(plugin name, item), ...] in load order):
    (name -> the winner's item, the conflicts).  ``plugin(name)`` tells whether a plugin is
    built-in and what it declares it replaces; ``reserved`` names belong to interp itself."""
    reserved = set(reserved)
    table: dict[str, Any] = {}
    conflicts: list[Conflict] = []
    for name, entries in claims.items():
        owners = dict(entries)
        claimants = tuple(sorted(owners))
        if name in reserved:
            conflicts.append(Conflict(catalogue, label, name, claimants, None, "core"))
        elif len(owners) == 1:
            table[name] = owners[claimants[0]]
        else:
            winner, rule, replaced = _winner(list(claimants), plugin)
            if winner is not None:
                table[name] = owners[winner]
            conflicts.append(Conflict(catalogue, label, name, claimants, winner, rule, replaced))
    return table, conflicts
