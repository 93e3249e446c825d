"""pi_coding_agent: the coding agent product (sessions, tools, run modes, the ``pi`` CLI)."""

__version__ = "0.1.0"
PI_COMPAT_VERSION = "0.85.0"
"""The Pi release whose files and wire protocol this implementation follows."""
