"""``lazy_attributes``: a package declares each name once, as an explicit re-export, and the
name -> module map and ``__all__`` are read from those declarations on first use."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.support.imports import new_modules

INIT = '''\
"""A package whose names load on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_ai import lazy_attributes
from lazypkg._eager import Eager as Eager

if TYPE_CHECKING:
    from typing import Any

    from lazypkg._heavy import HEAVY_LIMIT as HEAVY_LIMIT
    from lazypkg._heavy import (
        a_name_long_enough_to_be_wrapped_by_the_formatter as a_name_long_enough_to_be_wrapped_by_the_formatter,
    )
    from lazypkg._heavy import heavy as heavy
    from ._relative import relative as relative

VERSION = "1"


def own_function() -> Any:
    return None


__getattr__, __dir__ = lazy_attributes(globals())
'''


def _package(tmp_path: Path) -> Path:
    folder = tmp_path / "lazypkg"
    folder.mkdir()
    (folder / "__init__.py").write_text(INIT)
    (folder / "_eager.py").write_text("class Eager: ...\n")
    (folder / "_heavy.py").write_text(
        textwrap.dedent(
            """\
            HEAVY_LIMIT = 3
            def heavy(): return "heavy"
            def a_name_long_enough_to_be_wrapped_by_the_formatter(): return "long"
            def not_declared(): return None
            """
        )
    )
    (folder / "_relative.py").write_text("def relative(): return 'relative'\n")
    return tmp_path


def _run(tmp_path: Path, code: str) -> list[str]:
    return new_modules(f"import sys; sys.path.insert(0, {str(_package(tmp_path))!r})\n{code}")


def test_importing_the_package_loads_no_declared_module(tmp_path: Path) -> None:
    loaded = _run(tmp_path, "import lazypkg")
    assert "lazypkg._eager" in loaded and "lazypkg._heavy" not in loaded and "lazypkg._relative" not in loaded


def test_a_declared_name_loads_its_module_on_first_use(tmp_path: Path) -> None:
    code = (
        "import lazypkg\n"
        "assert lazypkg.heavy() == 'heavy' and lazypkg.HEAVY_LIMIT == 3 and lazypkg.relative() == 'relative'\n"
        "assert lazypkg.a_name_long_enough_to_be_wrapped_by_the_formatter() == 'long'\n"
        "assert 'heavy' in vars(lazypkg)  # cached: the hook runs once per name\n"
        "try:\n    lazypkg.not_declared\nexcept AttributeError as error:\n    assert 'not_declared' in str(error)\n"
        "else:\n    raise AssertionError('an undeclared name resolved')\n"
    )
    assert "lazypkg._heavy" in _run(tmp_path, code)


def test_all_is_every_reexport_and_the_packages_own_public_names(tmp_path: Path) -> None:
    code = (
        "import lazypkg\n"
        "assert lazypkg.__all__ == ['Eager', 'HEAVY_LIMIT', 'VERSION', "
        "'a_name_long_enough_to_be_wrapped_by_the_formatter', 'heavy', 'own_function', 'relative'], lazypkg.__all__\n"
        "assert {'heavy', 'relative', 'Eager'} <= set(dir(lazypkg))\n"
        "namespace = {}\n"
        "exec('from lazypkg import *', namespace)\n"
        "assert namespace['heavy']() == 'heavy' and 'Any' not in namespace and 'TYPE_CHECKING' not in namespace\n"
    )
    _run(tmp_path, code)
