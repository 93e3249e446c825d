"""``ctx.ui.addAutocompleteProvider`` of TypeScript extensions: the editor's completions from Node.

Pi stacks each provider on the one before (the first on the built-in slash-command and file
completions): it may answer itself or delegate to ``current``. Our editor asks its completer
synchronously on every key, and Node answers later. So while any provider is added, the
completer asks this relay first: an answer Node already gave for the same text and cursor is
used; otherwise the question goes to Node (op ``autocomplete``), whose answer, once there,
makes the editor ask again. Meanwhile the list Node gave last stays (as Pi keeps its list
while a provider is asked), or, when it gave none, the built-in completions show. The built-in provider
Node's ``current`` delegates to is ours, asked back (``builtinCompletions``).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from pi_tui import Completion, Suggestion

Key = tuple[tuple[str, ...], int, int, bool]
_KEPT = 16


class CompletionRelay:
    def __init__(self, request: Callable[[str, dict[str, Any]], Awaitable[Any]]) -> None:
        self._request = request
        self._answers: OrderedDict[Key, Completion | None] = OrderedDict()
        self._asked: set[Key] = set()
        self._refresh: Callable[[], None] | None = None
        self._builtin: Callable[[list[str], int, int, bool], Completion | None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._shown: Completion | None = None

    def switch(self, ui: Any, on: bool) -> None:
        """Node has providers (``on``) or none any more."""
        connect = getattr(ui, "set_completion_source", None)
        if not callable(connect):
            return
        self._answers.clear()
        self._shown = None
        self._refresh = connect(self._complete if on else None)
        completer = getattr(getattr(getattr(ui, "host", None), "default_editor", None), "completer", None)
        self._builtin = getattr(completer, "builtin", None)

    def builtin(self, given: dict[str, Any]) -> dict[str, Any] | None:
        """Our built-in completions in Pi's shape (``current.getSuggestions`` in Node)."""
        lines = [str(line) for line in given.get("lines") or [""]]
        line, col = int(given.get("line") or 0), int(given.get("col") or 0)
        found = self._builtin(lines, line, col, bool(given.get("force"))) if self._builtin else None
        return None if found is None else _as_pi(found, lines[line][found.start : col])

    def _complete(self, lines: list[str], line: int, col: int, force: bool) -> tuple[bool, Completion | None]:
        key = (tuple(lines), line, col, force)
        if key in self._answers:
            self._shown = self._answers[key]
            return True, self._shown
        if key not in self._asked:
            self._asked.add(key)
            task = asyncio.get_running_loop().create_task(self._ask(key))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        if self._shown is not None and self._shown.start <= col:
            return True, self._shown  # Node's last list stays until its next answer, as in Pi
        return False, None

    async def _ask(self, key: Key) -> None:
        lines, line, col, force = key
        try:
            answer = await self._request(
                "autocomplete", {"lines": list(lines), "line": line, "col": col, "force": force}
            )
        except Exception:
            answer = None  # a failed provider offers nothing (the built-in completions showed)
        finally:
            self._asked.discard(key)
        self._answers[key] = _from_pi(answer, col)
        while len(self._answers) > _KEPT:
            self._answers.popitem(last=False)
        if self._refresh is not None:
            self._refresh()


def _as_pi(found: Completion, prefix: str) -> dict[str, Any]:
    items = [{"value": s.value, "label": s.label, "description": s.description} for s in found.items]
    return {"items": items, "prefix": prefix}


def _from_pi(answer: Any, col: int) -> Completion | None:
    """Pi's ``{items, prefix}`` as ours: the prefix before the cursor is what an item replaces."""
    if not isinstance(answer, dict) or not isinstance(answer.get("items"), list):
        return None
    items = [
        Suggestion(
            str(item["value"]), str(item.get("label") or item["value"]), str(item.get("description") or "")
        )
        for item in answer["items"]
        if isinstance(item, dict) and isinstance(item.get("value"), str)
    ]
    prefix = str(answer.get("prefix") or "")
    return Completion(items, max(0, col - len(prefix))) if items else None
