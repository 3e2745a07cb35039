"""Package attributes imported on first use, so that loading a plugin stays cheap.

``interp plugins`` and ``interp --help`` import every plugin's entry-point module, and with it the
plugin's package.  A package that imported its estimators up front would pull in scikit-learn,
matplotlib and sympy only to be listed; with `lazy_exports` its public names cost nothing
until they are used.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, Mapping, Sequence


def lazy_exports(package: str, exports: Mapping[str, Sequence[str]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package`` (PEP 562): each name listed under a
    module in ``exports`` (``{".estimator": ["Model"], ...}``, relative or absolute) is imported
    from that module the first time it is asked for, then kept on the package."""
    home = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> Any:
        if name not in home:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home[name], package), name)
        setattr(sys.modules[package], name, value)  # later lookups do not come back here
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(home))

    return __getattr__, __dir__, sorted(home)
