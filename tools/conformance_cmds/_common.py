"""Helpers shared by the subcommand modules."""

from __future__ import annotations


class Rejected(Exception):
    """The implementation refused the input; ``name`` mirrors the JavaScript error class."""

    def __init__(self, message: str, name: str = "Error") -> None:
        super().__init__(message)
        self.name = name
