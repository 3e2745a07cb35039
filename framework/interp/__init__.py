"""interp: a plugin-based framework for interpreting machine-learning models.

The public face: ``get_registry()`` (what the installed plugins registered), ``plugin_manager()``
(the loaded pluggy manager), the component contracts a plugin fills in, data loading and the
``Explanation`` result type.
"""

from .version import __version__

from .components import (BoundPenalty, Component, EmbeddedFeatures, Embedding, KernelOperator, Method, Option,
                         Penalty, RidgeFamily)
from .data import Dataset, load_dataset
from .errors import InputError, InterpError, PluginError
from .explaining import ModelExplanation, explain
from .hookspecs import hookimpl, hookspec
from .plugin import Plugin
from .registry import get_registry, plugin_manager
from .results import Explanation
from .runner import RunContext
from .sections import Figure, Formula, Table, Text

__all__ = [
    "__version__",
    "Component",
    "Dataset",
    "EmbeddedFeatures",
    "Embedding",
    "Explanation",
    "ModelExplanation",
    "explain",
    "Figure",
    "Formula",
    "InputError",
    "InterpError",
    "KernelOperator",
    "Method",
    "Option",
    "Penalty",
    "BoundPenalty",
    "Plugin",
    "PluginError",
    "RidgeFamily",
    "RunContext",
    "Table",
    "Text",
    "get_registry",
    "hookimpl",
    "hookspec",
    "load_dataset",
    "plugin_manager",
]
