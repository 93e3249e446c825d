"""Names of a package loaded on first access (PEP 562), each declared once, shared by our
package ``__init__``\\ s.

A package ``__init__`` states each name it offers once, as an explicit re-export
(``from pi_ai._codec import encode as encode``, the form type checkers read as "offered
here"): under ``if TYPE_CHECKING:`` for a name loaded on first access, at module level for
one loaded with the package. ``lazy_attributes`` reads those same lines from the package's
source, on the first attribute it is asked for, so the name -> module map and ``__all__``
are derived, never written out a second time. Importing the package costs nothing more (the
source is read once, with a regular expression, when a name is first used: about 0.1 ms),
and a name loads its module only when used.

``__all__`` (asked for by ``from package import *``, or to list the API) is every re-export
plus the package's own top-level functions and upper-case constants.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

_REEXPORT = r"^[ \t]*from[ \t]+([.\w]+)[ \t]+import[ \t]+\(?\s*(\w+)[ \t]+as[ \t]+\2[ \t]*(?:,\s*\))?[ \t]*$"
"""``from module import name as name``, on one line or wrapped in parentheses as a formatter wraps a long one."""
_OWN_NAME = r"^(?:def[ \t]+([A-Za-z]\w*)|([A-Z][A-Z0-9_]*)[ \t]*(?::[^=\n]*)?=(?!=))"
_NOT_EXPORTED = frozenset({"TYPE_CHECKING"})  # the switch of the declaration block itself


def lazy_attributes(namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for the package whose ``globals()`` is ``namespace``.

    A loaded name is cached in the namespace, so the hook runs once per name; an undeclared
    name raises ``AttributeError`` as for any module. Relative module paths (``from ._read
    import ...``) are resolved against the package.
    """
    package = namespace["__name__"]
    declared: dict[str, str] = {}  # name -> module, read on first use
    own: list[str] = []

    def exports() -> dict[str, str]:
        if not declared:
            import re  # here, not at import: ``import pi_ai`` stays free of it

            with open(namespace["__file__"], encoding="utf-8") as file:
                source = file.read()
            declared.update((name, module) for module, name in re.findall(_REEXPORT, source, re.MULTILINE))
            own.extend(name for pair in re.findall(_OWN_NAME, source, re.MULTILINE) for name in pair if name)
        return declared

    def get(name: str) -> Any:
        module = exports().get(name)
        if module is not None:
            value = getattr(importlib.import_module(module, package), name)
        elif name == "__all__":
            value = sorted((set(declared) | set(own)) - _NOT_EXPORTED)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted(set(namespace) | set(exports()))

    return get, names
