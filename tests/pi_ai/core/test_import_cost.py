"""Importing pi_ai stays cheap: it loads two of its own modules and some of the standard
library, nothing else. Counted in modules, never timed (the time is ``bench/startup.py``'s)."""

from __future__ import annotations

from tests.support.imports import new_modules, outside_stdlib

HEAVY = ("httpx", "httpcore", "anyio", "openai", "anthropic", "google", "jiter", "pydantic", "h11", "ssl")


def test_import_loads_only_the_package_root_and_the_standard_library() -> None:
    modules = new_modules("import pi_ai")
    assert outside_stdlib(modules) == ["pi_ai", "pi_ai._lazy"]
    assert "asyncio" not in modules and "json" not in modules and "pathlib" not in modules


def test_using_every_export_still_loads_no_transport() -> None:
    """Touching every public name (the whole message model) loads no HTTP library either."""
    modules = new_modules("import pi_ai; [getattr(pi_ai, name) for name in pi_ai.__all__]")
    loaded_heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert loaded_heavy == [], f"pi_ai's public names pulled in {loaded_heavy}"
    assert "pi_ai._messages" in modules and "msgspec" in modules
