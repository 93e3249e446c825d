"""Whether a change breaks a file, or drops its docstrings and comments: the in-process model's
write guard refuses such an edit or write.

A Python, JSON or TOML file that parsed before and would not, a Python file that would get a
second top-level definition (or method) of a name it defined once, or code after a
``return``/``raise`` where there was none. Told "test_discount.py fails. Fix discount.py so the
test passes.", the 1.5B added a copy of the wrong ``return`` above the docstring (the second
newcomer trial, 2026-12-07); on the tuned bench task ``fix-slug-test`` it left a function's old
body under a new one.
"""

from __future__ import annotations

import ast
import difflib
import io
import json
import os
import re
import tokenize
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


_HASH_COMMENTS = (".sh", ".bash", ".zsh", ".toml", ".yaml", ".yml", ".ini", ".cfg", ".conf", ".env", ".rb", ".pl", ".r")
_SLASH_COMMENTS = (".js", ".mjs", ".cjs", ".ts", ".jsx", ".tsx", ".c", ".h", ".cc", ".cpp", ".hpp", ".java", ".go", ".rs", ".kt", ".swift", ".cs")
_MARKERS = re.compile(r"\b(?:TODO|FIXME|XXX|HACK|BUG)\b")
"""A comment with one of these marks something to do: a fix may well take it out."""
REWORDED = 0.6
"""A docstring or comment replaced by one at least this similar (``difflib`` ratio) was reworded
along with the code it describes, not dropped."""


def _docstrings(tree: ast.Module) -> dict[str, str]:
    """The docstrings of the module, its classes and functions, by owner (``module``, ``f``, ``C.m``)."""
    found: dict[str, str] = {}

    def visit(node: ast.AST, owner: str) -> None:
        text = ast.get_docstring(node, clean=True) if isinstance(node, (ast.Module, *_DEFINITION)) else None
        if text:
            found[owner] = text
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _DEFINITION):
                visit(child, child.name if owner == "module" else f"{owner}.{child.name}")

    visit(tree, "module")
    return found


def _comment_lines(path: str, text: str) -> list[str]:
    """The text of ``text``'s whole-line comments (a line that is only a comment), for the file
    kinds whose comments are known (``#`` in Python, shell, TOML, YAML...; ``//`` in C-like ones)."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix in (".py", ".pyi"):
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
        except (tokenize.TokenError, SyntaxError):
            return []
        return [
            token.string.lstrip("#").strip()
            for token in tokens
            if token.type == tokenize.COMMENT and not token.line[: token.start[1]].strip()
        ]
    marker = "#" if suffix in _HASH_COMMENTS else "//" if suffix in _SLASH_COMMENTS else None
    if marker is None:
        return []
    return [line.strip()[len(marker) :].strip() for line in text.splitlines() if line.strip().startswith(marker)]


def _reworded(text: str, candidates: list[str]) -> bool:
    return any(difflib.SequenceMatcher(None, text, other).ratio() >= REWORDED for other in candidates)


def dropped_text_refusal(path: str, old: str, new: str, verb: str = "Not changed") -> str | None:
    """Why changing ``path`` from ``old`` to ``new`` is refused when it keeps the file whole but drops
    a docstring or a comment line it had (neither kept, nor moved, nor reworded), or None. Told
    "test_discount.py fails. Fix discount.py so the test passes.", the 1.5B replaced
    ``apply_discount`` with its ``def`` line and the same wrong ``return``, the docstring gone (the
    second newcomer trial's rerun, 2026-12-07). The caller asks first whether the user wanted
    such text removed or rewritten (``_user_request.may_drop_text``)."""
    if _parse_error(path, old) is not None or _parse_error(path, new) is not None:
        return None
    dropped: list[str] = []
    if path.lower().endswith((".py", ".pyi")):
        before, after = _docstrings(ast.parse(old)), _docstrings(ast.parse(new))
        kept = set(after.values())
        for owner, text in before.items():
            if text not in kept and not _reworded(text, [after[owner]] if owner in after else []):
                dropped.append(f"the docstring of {'the module' if owner == 'module' else owner} ({_cut(text)!r})")
    old_comments, new_comments = _comment_lines(path, old), _comment_lines(path, new)
    added = list((Counter(new_comments) - Counter(old_comments)).elements())
    for text in (Counter(old_comments) - Counter(new_comments)).elements():
        if not text or _MARKERS.search(text) or text in new or _reworded(text, added):
            continue  # empty, a to-do, still in the file (as code: uncommented), or reworded
        dropped.append(f"the comment {_cut(text)!r}")
    if not dropped:
        return None
    more = f" and {len(dropped) - 1} more" if len(dropped) > 1 else ""
    return (
        f"{verb}: this would drop {dropped[0]}{more} from {path}, and the user did not ask to remove it. "
        "The file is unchanged; keep the docstrings and comments as they are and change only the code."
    )


def _cut(text: str, limit: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."
