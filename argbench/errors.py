"""What an error says about whose fault it is, for the command line's exit status.

The command line maps exceptions to exit statuses by class (``argbench.cli.exit_status``):
``ValueError`` and its kin are bad input (2), ``RuntimeError`` and ``OSError`` a run that
failed (1). An error whose base class says the other thing mixes in :class:`BadInput`, low
in the house so any module can raise one without importing the command line: a token the
Hub refuses is raised where the Hub is asked (a failed step, ``RuntimeError``), but it is
the user's input that is wrong.
"""

from __future__ import annotations

__all__ = ["BadInput"]


class BadInput(Exception):
    """Mixin: the user's input (a file, a value, a credential) is wrong; exit status 2."""
