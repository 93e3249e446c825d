"""The ``pi`` command line."""

from pi_coding_agent.app.cli._args import ParsedArgs, parse_args
from pi_coding_agent.app.cli._main import main

__all__ = ["ParsedArgs", "main", "parse_args"]
