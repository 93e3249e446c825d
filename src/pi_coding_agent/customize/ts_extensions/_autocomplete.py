"""``ctx.ui.addAutocompleteProvider`` of TypeScript extensions: the editor's completions from Node.

Pi stacks each provider on the one before (the first on the built-in slash-command and file
completions): it may answer itself or delegate to ``current``. Our editor asks its completer
synchronously on every key, and Node answers later. So while any provider is added, the
completer asks this relay first: an answer Node already gave for the same text and cursor is
used; otherwise the question goes to Node (op ``autocomplete``), whose answer, once there,
makes the editor ask again. Meanwhile the list Node gave last stays (as Pi keeps its list
while a provider is asked), or, when it gave none, the built-in completions show. The built-in provider
Node's ``current`` delegates to is ours, asked back (``builtinCompletions``).

Choosing an item puts it in at once the built-in way (it replaces the prefix). When the top
provider applies items itself (its own ``applyCompletion``), Node is asked too (op
``applyCompletion``) and its lines and cursor replace ours, unless the text changed meanwhile.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import replace
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
        self._editor: Any = None
        self._render: Callable[[], None] | None = None

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
        self._editor = getattr(getattr(ui, "host", None), "default_editor", None)
        self._render = getattr(getattr(ui, "tui", None), "request_render", None)

    def builtin(self, given: dict[str, Any], ui: Any = None) -> dict[str, Any] | None:
        """Our built-in completions in Pi's shape (``current.getSuggestions`` in Node; also
        asked by an editor component of ``setEditorComponent`` while no provider is added)."""
        if self._builtin is None:
            completer = getattr(getattr(getattr(ui, "host", None), "default_editor", None), "completer", None)
            self._builtin = getattr(completer, "builtin", None)
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
        found = _from_pi(answer, col)
        if found is not None and isinstance(answer, dict) and isinstance(answer.get("id"), int):
            found = replace(found, on_accept=self._applier(answer["id"], str(answer.get("prefix") or "")))
        self._answers[key] = found
        while len(self._answers) > _KEPT:
            self._answers.popitem(last=False)
        if self._refresh is not None:
            self._refresh()

    def _applier(self, answer_id: int, prefix: str) -> Callable[[Suggestion, list[str], int, int], None]:
        def accepted(item: Suggestion, lines: list[str], line: int, col: int) -> None:
            editor = self._editor
            expected = getattr(editor, "text", None)
            fields = {"answer": answer_id, "value": item.value, "lines": lines, "line": line, "col": col, "prefix": prefix}
            task = asyncio.get_running_loop().create_task(self._apply(fields, expected))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        return accepted

    async def _apply(self, fields: dict[str, Any], expected: Any) -> None:
        """The provider's own ``applyCompletion``, put in while the text is still ours."""
        try:
            applied = await self._request("applyCompletion", fields)
        except Exception:
            return  # a failing provider: the item stays as the built-in way put it in
        editor = self._editor
        if not isinstance(applied, dict) or editor is None or getattr(editor, "text", None) != expected:
            return
        editor.replace_lines([str(x) for x in applied.get("lines") or [""]], int(applied.get("line") or 0),
                             int(applied.get("col") or 0))  # fmt: skip
        if self._render is not None:
            self._render()


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
