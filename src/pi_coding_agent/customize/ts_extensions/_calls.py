"""Answers to what a TypeScript extension asks of us: ``pi.*`` actions, ``ctx.*`` and ``ctx.ui``.

Each goes through the Python extension API (``ExtensionAPI``, the request's context), so a
TypeScript ``pi.sendMessage`` delivers exactly as a Python ``pi.send_message`` does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pi_coding_agent.customize.extensions import Extension, ExtensionAPI, ExtensionRunner, to_tool_result

Answer = Callable[[ExtensionAPI, Any, dict[str, Any]], Awaitable[Any]]


def _content(value: Any) -> Any:
    return value if isinstance(value, str) else to_tool_result({"content": value}).content


async def _send_message(api: ExtensionAPI, ctx: Any, args: dict[str, Any]) -> None:
    message = args.get("message") or {}
    options = args.get("options") or {}
    await api.send_message(
        str(message.get("customType") or ""),
        _content(message.get("content")),
        display=bool(message.get("display", True)),
        details=message.get("details"),
        deliver_as=options.get("deliverAs"),
        trigger_turn=options.get("triggerTurn"),
    )


async def _send_user_message(api: ExtensionAPI, ctx: Any, args: dict[str, Any]) -> None:
    options = args.get("options") or {}
    await api.send_user_message(_content(args.get("content")), deliver_as=options.get("deliverAs"))


async def _set_model(api: ExtensionAPI, ctx: Any, args: dict[str, Any]) -> bool:
    host = api.runner_host()
    model = host.catalog.find(str(args.get("provider")), str(args.get("id")))
    return False if model is None else api.set_model(model)


async def _ui(api: ExtensionAPI, ctx: Any, args: dict[str, Any]) -> Any:
    ui = ctx.ui
    method = str(args.get("method"))
    given = args.get("args") or {}
    timeout = given.get("timeout")
    if method == "select":
        return await ui.select(
            str(given.get("title") or ""), list(given.get("options") or []), timeout_ms=timeout
        )
    if method == "confirm":
        return await ui.confirm(
            str(given.get("title") or ""), str(given.get("message") or ""), timeout_ms=timeout
        )
    if method == "input":
        return await ui.input(str(given.get("title") or ""), given.get("placeholder"), timeout_ms=timeout)
    if method == "editor":
        return await ui.editor(str(given.get("title") or ""), given.get("prefill"))
    if method == "notify":
        ui.notify(str(given.get("message") or ""), given.get("type"))
    elif method == "setStatus":
        ui.set_status(str(given.get("key")), given.get("text"))
    elif method == "setWidget":
        ui.set_widget(str(given.get("key")), given.get("lines"), given.get("placement"))
    elif method == "setTitle":
        ui.set_title(str(given.get("title") or ""))
    elif method == "setEditorText":
        ui.set_editor_text(str(given.get("text") or ""))
    else:
        _optional_ui_call(ui, method, given)
    return None


_OPTIONAL: dict[str, tuple[str, Callable[[dict[str, Any]], list[Any]]]] = {
    "setWorkingMessage": ("set_working_message", lambda given: [given.get("message")]),
    "setWorkingVisible": ("set_working_visible", lambda given: [bool(given.get("visible"))]),
    "setToolsExpanded": ("set_tools_expanded", lambda given: [bool(given.get("expanded"))]),
}
"""UI calls only some modes have (the interactive one): elsewhere they do nothing, as in Pi."""


def _set_theme(ui: Any, given: dict[str, Any]) -> None:
    """Node answered ``setTheme`` already (it knows our themes); here the switch happens. By
    name the theme becomes the setting; a theme object only changes what is drawn."""
    setter, getter = getattr(ui, "set_theme", None), getattr(ui, "get_theme", None)
    if not callable(setter) or not callable(getter):
        return
    if isinstance(given.get("theme"), dict):
        setter(_theme_of(given["theme"]))  # a Theme instance of Node's: drawn with, unsaved
        return
    name = str(given.get("name"))
    theme = None if given.get("save") else getter(name)
    setter(name if theme is None else theme)


def _theme_of(data: dict[str, Any]) -> Any:
    """Our ``Theme`` from the JSON Node made of a Pi ``Theme`` instance (``colorsOf``)."""
    from pi_coding_agent.customize.themes import THEME_TOKENS, Theme

    colors = {token: value for token, value in (data.get("colors") or {}).items() if token in THEME_TOKENS}
    appearance = data.get("appearance")
    return Theme(
        str(data.get("name") or "<in-memory>"),
        colors,
        bool(data.get("truecolor")),
        appearance=appearance if appearance in ("dark", "light") else None,
        dim=frozenset(str(token) for token in data.get("dim") or [] if token in THEME_TOKENS),
    )


def _optional_ui_call(ui: Any, method: str, given: dict[str, Any]) -> None:
    if method == "setTheme":
        _set_theme(ui, given)
        return
    if method not in _OPTIONAL:
        return
    name, arguments = _OPTIONAL[method]
    action = getattr(ui, name, None)
    if callable(action):
        action(*arguments(given))


async def _replaced(result: Any) -> dict[str, bool]:
    return {"cancelled": bool(getattr(result, "cancelled", False))}


async def _compact(api: ExtensionAPI, ctx: Any, args: dict[str, Any]) -> Any:
    from pi_ai import to_builtins

    result = await api.runner_host().compact(args.get("customInstructions"))
    return to_builtins(result)


def _sync(action: Callable[[ExtensionAPI, Any, dict[str, Any]], Any]) -> Answer:
    async def run(api: ExtensionAPI, ctx: Any, args: dict[str, Any]) -> Any:
        return action(api, ctx, args)

    return run


ANSWERS: dict[str, Answer] = {
    "sendMessage": _send_message,
    "sendUserMessage": _send_user_message,
    "appendEntry": _sync(lambda api, ctx, a: api.append_entry(str(a.get("customType")), a.get("data"))),
    "setSessionName": _sync(lambda api, ctx, a: api.set_session_name(str(a.get("name")))),
    "setLabel": _sync(lambda api, ctx, a: api.set_label(str(a.get("entryId")), a.get("label"))),
    "setActiveTools": _sync(lambda api, ctx, a: api.set_active_tools([str(n) for n in a.get("names") or []])),
    "setThinkingLevel": _sync(lambda api, ctx, a: api.set_thinking_level(str(a.get("level")))),
    "registerProvider": _sync(
        lambda api, ctx, a: api.register_provider(str(a.get("name")), a.get("config") or {})
    ),
    "setModel": _set_model,
    "getApiKey": _sync(lambda api, ctx, a: None),
    "ui": _ui,
    "abort": lambda api, ctx, a: ctx.abort(),
    "shutdown": _sync(lambda api, ctx, a: ctx.shutdown()),
    "compact": _compact,
    "waitForIdle": lambda api, ctx, a: ctx.wait_for_idle(),
    "newSession": lambda api, ctx, a: _after(ctx.new_session(a.get("parentSession"))),
    "fork": lambda api, ctx, a: _after(ctx.fork(str(a.get("entryId")), a.get("position") or "before")),
    "switchSession": lambda api, ctx, a: _after(ctx.switch_session(str(a.get("sessionPath")))),
    "navigateTree": lambda api, ctx, a: _after(
        ctx.navigate_tree(str(a.get("targetId")), summarize=bool(a.get("summarize")))
    ),
    "reload": lambda api, ctx, a: ctx.reload(),
}


async def _after(pending: Awaitable[Any]) -> dict[str, bool]:
    return await _replaced(await pending)


async def answer_call(runner: ExtensionRunner, ctx: Any, method: str, args: dict[str, Any]) -> Any:
    answer = ANSWERS.get(method)
    if answer is None:
        raise ValueError(f"unknown call {method!r} from the TypeScript extension host")
    result = await answer(ExtensionAPI(Extension("<typescript>"), runner), ctx, args)
    return result if isinstance(result, bool | int | float | str | dict | list) else None
