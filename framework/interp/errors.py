"""Exceptions the core and plugins raise; the CLI turns them into one-line messages."""


class InterpError(Exception):
    """Base class for every error interp raises on purpose.

    ``excerpt`` (empty, or the last lines of the message) is a block the command line shows as
    lines under its one-line message, such as a formula's text with a caret under the error;
    whoever raises it makes it printable (no line of user text is shown raw)."""

    excerpt: str = ""


class InputError(InterpError, ValueError):
    """Bad user input (data, options, formula).  A ValueError, so scikit-learn checks accept it."""


class PluginError(InterpError):
    """A plugin failed to load, registered something invalid or duplicated, or one of its
    components broke its contract while a method ran; ``plugin`` names it when known."""

    def __init__(self, message: str = "", plugin: str = "") -> None:
        super().__init__(message)
        self.plugin = plugin
