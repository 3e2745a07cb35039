"""What a method may take of the machine, checked before the work starts.

Every method estimates the peak memory of what it is asked (from the data's shape and its
options) and compares it with one budget, the same for all methods:

- ``INTERP_MEMORY_LIMIT`` when it is set: a size in bytes, or with a unit (``8G``, ``512M``,
  ``1.5GiB``); a zero size in any unit (``0``, ``0G``), ``none`` or ``off`` switches the check
  off, and a size under one byte (``0.5``) or over 4 EiB (``1e400``) is refused;
- otherwise :data:`MEMORY_SHARE` (half) of the memory available when the check runs (Linux:
  ``MemAvailable``; elsewhere half the physical memory), so that a run leaves room for the rest
  of the machine and for the estimate's error.

A request over the budget is refused with one line (a :class:`ResourceError`, which is an
``InputError``: exit 2 on the command line) that names what is too big and what would fit.
The estimates are upper bounds of the large arrays a fit holds at once, not of every byte of
the process; the interpreter and libraries add a few hundred MB that no option changes.
"""

from __future__ import annotations

import os
import re
from typing import Callable, Mapping

from .errors import InputError

__all__ = ["MEMORY_SHARE", "MEMORY_ENV", "ResourceError", "memory_budget", "check_memory", "check_sizes",
           "largest_fitting", "format_bytes", "parse_size"]

#: the share of the available memory one run may plan to use, when ``INTERP_MEMORY_LIMIT`` is unset
MEMORY_SHARE = 0.5
#: the environment variable that sets the budget
MEMORY_ENV = "INTERP_MEMORY_LIMIT"
_UNITS = {"": 1, "b": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([kmgt]?)(?:i?b)?\s*$", re.IGNORECASE)


class ResourceError(InputError):
    """A request that would need more memory or work than the run may take (bad input: the
    options or the data are too big for the machine, not a bug)."""


#: the largest budget that can be given: more memory than any machine has (2**62 bytes, 4 EiB)
_LARGEST_SIZE = 2**62


def parse_size(text: str) -> int:
    """``"8G"``, ``"512 MiB"``, ``"1e9"`` as a number of bytes (units are powers of 1024); a
    zero size in any unit (``0``, ``0G``) is 0.  A size above zero but below one byte (``0.5``:
    probably ``0.5G`` was meant) or above ``_LARGEST_SIZE`` is an InputError."""
    match = _SIZE.match(str(text))
    if not match:
        raise InputError(f"{MEMORY_ENV} must be a size such as 8G or 512M, got {text!r}")
    size = float(match.group(1)) * _UNITS[match.group(2).lower()]
    if 0 < size < 1:
        raise InputError(f"{MEMORY_ENV}={text!r} is less than one byte: give a unit (such as 0.5G), "
                         "or 0 to switch the check off")
    if size > _LARGEST_SIZE:
        raise InputError(f"{MEMORY_ENV}={text!r} is more than any machine has (at most 4 EiB): give a size "
                         "such as 8G, or 0 to switch the check off")
    return int(size)


def _available() -> int | None:
    """The memory the system could give now (bytes), or None where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def memory_budget() -> int | None:
    """The bytes a run may plan to use (see the module notes); None: no check."""
    given = os.environ.get(MEMORY_ENV, "").strip()
    if given:
        if given.lower() in ("none", "off"):
            return None
        return parse_size(given) or None  # a zero size, in any unit, switches the check off
    available = _available()
    return None if available is None else int(MEMORY_SHARE * available)


def _budget_source() -> str:
    if os.environ.get(MEMORY_ENV, "").strip():
        return MEMORY_ENV
    return f"{MEMORY_SHARE:.0%} of the available memory; set {MEMORY_ENV} to change it"


def format_bytes(n: float) -> str:
    """A size for a person: ``"7.2 GiB"``, ``"512 MiB"``."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{int(n)} B"


def check_memory(need: float, what: str, fits: str | Callable[[int], str] = "") -> None:
    """A one-line :class:`ResourceError` when ``need`` bytes exceed :func:`memory_budget`.

    ``what`` names the request ("facets on 30,000 card features"); ``fits`` says what would
    fit, as text or as a function of the budget in bytes (so that it is computed only when the
    request is refused, and with the budget that refused it).
    """
    budget = memory_budget()
    if budget is None or need <= budget:
        return
    advice = fits(budget) if callable(fits) else fits
    raise ResourceError(f"{what} needs about {format_bytes(need)} of memory, more than the budget of "
                        f"{format_bytes(budget)} ({_budget_source()})" + (f": {advice}" if advice else ""))


def largest_fitting(need: Callable[[int], float], limit: float, upper: int) -> int:
    """The largest k in [0, upper] with ``need(k) <= limit``, for a ``need`` that grows with k
    (0 when even k = 0 does not fit).  Used to say what would fit: the most rows, features or
    grid points within a budget."""
    if need(0) > limit:
        return 0
    lo, hi = 0, int(upper)
    if need(hi) <= limit:
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if need(mid) <= limit else (lo, mid)
    return lo


def check_sizes(memory: Callable[..., float], sizes: Mapping[str, int], what: str, labels: Mapping[str, str],
                advice: Mapping[str, str] | None = None) -> None:
    """:func:`check_memory` of ``memory(**sizes)`` bytes, for an estimate that grows with each
    size (rows, features, grid points, ...).  Over the budget, the line says how many of one
    size would fit, the others kept: the size whose reduction to 0 saves the most memory (the
    one that makes the request too big), as ``labels[size]`` ("features"), followed by
    ``advice[size]`` in brackets when given (how to lower it)."""
    sizes = dict(sizes)

    def fits(budget: int) -> str:
        need = memory(**sizes)
        size = max(sizes, key=lambda s: need - memory(**{**sizes, s: 0}))
        most = largest_fitting(lambda k: memory(**{**sizes, size: k}), budget, sizes[size])
        hint = (advice or {}).get(size)
        return f"at most {most:,} {labels[size]} fit" + (f" ({hint})" if hint else "")

    check_memory(memory(**sizes), what, fits)
