"""Whether a change breaks a file: the in-process model's write guard refuses such an edit or write.

A Python, JSON or TOML file that parsed before and would not, a Python file that would get a
second top-level definition (or method) of a name it defined once, or code after a
``return``/``raise`` where there was none. Told "test_discount.py fails. Fix discount.py so the
test passes.", the 1.5B added a copy of the wrong ``return`` above the docstring (the second
newcomer trial, 2026-12-07); on the tuned bench task ``fix-slug-test`` it left a function's old
body under a new one.
"""

from __future__ import annotations

import ast
import json
import os
import tomllib
from collections import Counter


def _parse_error(path: str, text: str) -> str | None:
    """Why ``text`` does not parse as the language ``path``'s suffix names (``line N: message``), or
    None: it parses, or the suffix is none of Python, JSON, TOML."""
    suffix = os.path.splitext(path)[1].lower()
    try:
        if suffix in (".py", ".pyi"):
            compile(text, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
        elif suffix == ".json":
            json.loads(text)
        elif suffix == ".toml":
            tomllib.loads(text)
    except SyntaxError as error:
        return f"line {error.lineno}: {error.msg}"
    except json.JSONDecodeError as error:
        return f"line {error.lineno}: {error.msg}"
    except tomllib.TOMLDecodeError as error:
        return str(error)
    return None


_DEFINITION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def _definitions(tree: ast.Module) -> Counter[str]:
    """How often each top-level name, and each ``Class.method``, is defined (undecorated ones only:
    ``@overload`` and a property's setter repeat a name on purpose)."""
    names: Counter[str] = Counter()
    for node in tree.body:
        if isinstance(node, _DEFINITION) and not node.decorator_list:
            names[node.name] += 1
        if isinstance(node, ast.ClassDef):
            names.update(
                f"{node.name}.{item.name}"
                for item in node.body
                if isinstance(item, _DEFINITION) and not item.decorator_list
            )
    return names


def _unreachable(tree: ast.Module) -> Counter[str]:
    """Per function, how many statements follow a ``return``/``raise``/``continue``/``break`` in
    the same block (and so never run)."""
    found: Counter[str] = Counter()
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if not isinstance(block, list) or (node is not function and isinstance(node, _DEFINITION)):
                    continue
                exits = [index for index, statement in enumerate(block) if isinstance(statement, _EXITS)]
                if exits:
                    found[function.name] += len(block) - exits[0] - 1
    return found


def damage_refusal(path: str, old: str, new: str, verb: str = "Not changed") -> str | None:
    """Why changing ``path`` from ``old`` to ``new`` is refused when it breaks the file (see the
    module), or None. ``verb`` opens the reason (``Not changed`` for an edit, ``Not written``)."""
    if _parse_error(path, old) is not None:
        return None  # broken before: nothing to keep
    advice = "The file is unchanged; change it so that it stays whole."
    error = _parse_error(path, new)
    if error is not None:
        return f"{verb}: this would leave {path} unparsable ({error}). {advice}"
    if not path.lower().endswith((".py", ".pyi")):
        return None
    before, after = ast.parse(old), ast.parse(new)
    old_names, new_names = _definitions(before), _definitions(after)
    doubled = [name for name, count in new_names.items() if count > 1 and count > old_names[name]]
    if doubled:
        return (
            f"{verb}: this would define {doubled[0]} twice in {path}. To change {doubled[0]}, replace its "
            f"whole old definition (the def line and its body) in one edit. {advice}"
        )
    old_dead, new_dead = _unreachable(before), _unreachable(after)
    dead = [name for name, count in new_dead.items() if count > old_dead[name]]
    if dead:
        return (
            f"{verb}: this would leave code after a return in {dead[0]} in {path}, which never runs (an old "
            f"body left below a new one?). Replace the whole old part in one edit. {advice}"
        )
    return None
