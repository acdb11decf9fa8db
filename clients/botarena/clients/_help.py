"""The help layout of the ``botarena`` command: every option's default is shown."""

from __future__ import annotations

import argparse

__all__ = ["DefaultsHelpFormatter"]


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """Ends each option's help with its default, unless the help already gives one or
    there is nothing to say (no default, a flag that is off, an empty list)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if "default" in text or not action.option_strings or action.help == argparse.SUPPRESS:
            return text
        if default is None or default is False or default == [] or default == argparse.SUPPRESS:
            return text
        return f"{text} (default: %(default)s)"
