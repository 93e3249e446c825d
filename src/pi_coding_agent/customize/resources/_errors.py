"""Errors of resource files."""

from __future__ import annotations


class FrontmatterError(Exception):
    """The frontmatter block is not valid YAML; the message says where and why."""
