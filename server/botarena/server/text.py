"""Text from outside (bot and seat names, replay files, bots' output) made safe to show.

A name is text a terminal draws, never text it obeys: a seat name holding an escape
sequence would otherwise retitle a viewer's terminal, hide a line or forge a hyperlink,
and one holding ``[link=...]`` would do the same through ``rich`` markup. Every terminal
writer (``botarena replay``, ``match``, ``ladder``, the console logs) shows such text
through :func:`printable` (:func:`printable_markup` where it becomes ``rich`` markup,
:func:`printable_text` for a table cell), and names that hold such characters are
refused where they enter (:func:`name_problem`: RegisterBot, CreateMatch
``seat_names``, the runner's ``--bot``).

One rule for both: a character is shown as itself when :meth:`str.isprintable` says so,
else as its Python escape. That refuses the C0 and C1 controls and DEL, the bidi
overrides and isolates, zero-width characters (joiners included, so an emoji sequence
joined by U+200D is not a name), line and paragraph separators, spaces other than the
ASCII one, and unassigned or private-use code points (docs/decisions.md).

>>> printable("bot\\x1b]0;pwned\\x07")
'bot\\\\x1b]0;pwned\\\\x07'
>>> printable("naïve ♔ bot")
'naïve ♔ bot'
>>> name_problem("evil\\u202eexe.txt")
'holds U+202E, a control or invisible character, as character 5'
>>> name_problem("Zoë") is None
True
"""

from __future__ import annotations

import logging
import types

from rich.markup import escape
from rich.text import Text

__all__ = [
    "PrintableFormatter",
    "name_problem",
    "printable",
    "printable_markup",
    "printable_text",
]


def _escaped(character: str) -> str:
    """``\\x1b``, ``\\u202e``, ``\\n``: the character as Python writes it in a literal."""
    return ascii(character)[1:-1]


def printable(text: str, *, newlines: bool = False) -> str:
    """Return ``text`` with every character that is not printable written as its escape.

    Args:
        text: Any text.
        newlines: Keep ``\\n`` as a line break (a traceback); escaped otherwise, so a
            name cannot start a forged line.
    """
    if text.isprintable():
        return text
    return "".join(
        character
        if character.isprintable() or (newlines and character == "\n")
        else _escaped(character)
        for character in text
    )


def printable_markup(text: str) -> str:
    """Return ``text`` as ``rich`` markup that shows it literally, escapes included."""
    return escape(printable(text))


def printable_text(text: str) -> Text:
    """Return ``text`` as a ``rich`` :class:`~rich.text.Text` (never markup), escapes
    included: for table cells, headers and titles."""
    return Text(printable(text))


class PrintableFormatter(logging.Formatter):
    """A :mod:`logging` formatter for a terminal: the message with its control
    characters escaped, line breaks too (a name cannot start a forged line); a
    traceback keeps its line breaks."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return printable(super().formatMessage(record))

    def formatException(
        self,
        ei: tuple[type[BaseException], BaseException, types.TracebackType | None]
        | tuple[None, None, None],
    ) -> str:
        return printable(super().formatException(ei), newlines=True)

    def formatStack(self, stack_info: str) -> str:
        return printable(super().formatStack(stack_info), newlines=True)


def name_problem(name: str) -> str | None:
    """Return why ``name`` cannot be a name (bot, seat), or ``None`` when it can.

    A name must be printable text: the reason names the first character that is not,
    and which character of the name it is (from 1).
    """
    for position, character in enumerate(name, start=1):
        if not character.isprintable():
            return (
                f"holds U+{ord(character):04X}, a control or invisible character, "
                f"as character {position}"
            )
    return None
