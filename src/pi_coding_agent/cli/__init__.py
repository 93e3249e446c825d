"""The ``pi`` command line."""

from pi_coding_agent.cli._main import main

__all__ = ["main"]
