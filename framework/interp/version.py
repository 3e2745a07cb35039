"""interp's version, in a module of its own so that every module can read it without importing
the package's ``__init__`` (which imports most of them)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("interp")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"
