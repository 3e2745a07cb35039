"""Text that is safe to print: control characters shown as visible escapes.

Column names, cell values and messages come from the user's files and from plugins; printed
raw, an escape sequence in them would drive the terminal (set the window title, plant a
hyperlink, clear the screen, hide the rest of a line).  ``visible`` is the one function that
turns text into what may reach a terminal: every control character (C0, DEL, C1) and every
bidirectional-override character becomes a backslash escape (``\\x1b``, ``\\u202e``), so that
it can be read but never acts.  Newlines and tabs are kept for the layout of a block, unless
the text must stay on one line (an error message).
"""

from __future__ import annotations

import re

#: the Unicode characters that reorder or break what follows them on a line: bidirectional
#: marks, embeddings, overrides and isolates, and the line and paragraph separators
_REORDERING = r"\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
#: C0 controls but tab and newline, DEL, C1 controls
_UNSAFE_IN_BLOCK = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f" + _REORDERING + "]")
#: the same, tab and newline too
_UNSAFE_IN_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f" + _REORDERING + "]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, one_line: bool = False) -> str:
    """``text`` with every control character as a visible escape (``\\x1b``, ``\\u202e``).

    Newlines and tabs are kept unless ``one_line`` (then they are escaped too, so that a
    message quoting user text is one line).  The result holds no character that a terminal
    acts on, and ``visible`` of it is itself.
    """
    pattern = _UNSAFE_IN_LINE if one_line else _UNSAFE_IN_BLOCK
    return pattern.sub(_escape, str(text))
