"""The ``pi`` command line."""

from pi_coding_agent.app.cli._args import Args, parse_args
from pi_coding_agent.app.cli._main import main

__all__ = ["Args", "main", "parse_args"]
