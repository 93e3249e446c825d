"""Names of a package loaded on first access (PEP 562), shared by our package ``__init__``\\ s.

A package lists ``name -> module`` and gets a module ``__getattr__`` and ``__dir__``: importing
the package costs nothing until a name is used, and type checkers still see ordinary imports
in the package's ``if TYPE_CHECKING:`` block.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(
    namespace: dict[str, Any], exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for the package whose ``globals()`` is ``namespace``.

    ``exports`` maps each lazily loaded name to its module, absolute (``pi_ai._codec``) or
    relative to the package (``._read``); ``module:attribute`` exports an attribute under
    another name (a root that offers Pi's names for things named otherwise below). A loaded
    name is cached in the namespace, so the hook runs once per name.
    """
    package = namespace["__name__"]

    def get(name: str) -> Any:
        target = exports.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = target.partition(":")
        value = getattr(importlib.import_module(module, package), attribute or name)
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return get, names
