"""The RPC commands: each one's fields checked, the session called, the answer built.

Commands and answers are Pi 1.6's (rpc-commands.md; 0.85's plus additive fields, see
docs/pi-1.6/rpc.md). A handler returns the response's ``data``
(``NO_DATA`` for a response without one), or an awaitable of it when the command waits
(``async def``), or raises; the server turns an exception into
``success: false`` with its message. Two commands are ours, for what Pi offers only in
its interactive UI: ``navigate_tree`` and ``set_label`` (see docs/rpc.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from pi_ai import THINKING_LEVELS, ImageContent, convert, to_builtins
from pi_coding_agent.app.rpc._wire import bash_result_json, model_json, tree_json

if TYPE_CHECKING:
    from pi_coding_agent.runtime.agent_session import AgentSession, AgentSessionRuntime

NO_DATA: Final = object()
"""A successful response without a ``data`` field."""

QUEUE_MODES = ("all", "one-at-a-time")


class CommandError(Exception):
    """A command the server refuses (bad fields, unknown entry, ...); its text is the error."""


class Command:
    """One parsed command line, with typed access to its fields."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.type = str(data.get("type"))

    @property
    def id(self) -> str | None:
        value = self.data.get("id")
        return value if isinstance(value, str) else None

    def _field(self, name: str, kinds: type | tuple[type, ...], what: str, *, required: bool) -> Any:
        value = self.data.get(name)
        if value is None:
            if required:
                raise CommandError(f"{self.type}: missing required field '{name}' ({what})")
            return None
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in _tuple(kinds)):
            raise CommandError(f"{self.type}: field '{name}' must be {what}")
        return value

    def text(self, name: str) -> str:
        return str(self._field(name, str, "a string", required=True))

    def optional_text(self, name: str) -> str | None:
        value = self._field(name, str, "a string", required=False)
        return None if value is None else str(value)

    def flag(self, name: str, *, required: bool = False) -> bool | None:
        value = self._field(name, bool, "true or false", required=required)
        return None if value is None else bool(value)

    def choice(self, name: str, choices: tuple[str, ...], *, required: bool = True) -> str | None:
        value = self._field(name, str, "one of " + ", ".join(choices), required=required)
        if value is not None and value not in choices:
            raise CommandError(f"{self.type}: field '{name}' must be one of {', '.join(choices)}")
        return None if value is None else str(value)

    def images(self) -> list[ImageContent] | None:
        value = self._field("images", list, "a list of images", required=False)
        if value is None:
            return None
        try:
            return [convert(image, ImageContent) for image in value]
        except ValueError as error:
            raise CommandError(f"{self.type}: field 'images' holds an invalid image ({error})") from None


def _tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


Handler = Callable[["Commands", Command], Any]
"""Returns the answer's data, or an awaitable of it for a command that waits."""


class Commands:
    """The handlers, bound to the runtime (whose session changes on replacements)."""

    def __init__(self, runtime: AgentSessionRuntime, export_dir: str | None = None) -> None:
        self.runtime = runtime
        self.export_dir = export_dir

    @property
    def session(self) -> AgentSession:
        return self.runtime.session

    def handler(self, command_type: str) -> Handler | None:
        return HANDLERS.get(command_type)

    # ---------------------------------------------------------------- prompting

    async def steer(self, command: Command) -> Any:
        return {
            "disposition": await self.session.steer(command.text("message"), command.images(), source="rpc")
        }

    async def follow_up(self, command: Command) -> Any:
        return {
            "disposition": await self.session.follow_up(
                command.text("message"), command.images(), source="rpc"
            )
        }

    async def abort(self, command: Command) -> Any:
        await self.session.abort()
        return NO_DATA

    def clear_queue(self, command: Command) -> Any:
        steering, follow_up = self.session.clear_queue()
        return {"steering": steering, "followUp": follow_up}

    # ---------------------------------------------------------------- session replacement

    async def new_session(self, command: Command) -> Any:
        result = await self.runtime.new_session(command.optional_text("parentSession"))
        return {"cancelled": result.cancelled}

    async def switch_session(self, command: Command) -> Any:
        result = await self.runtime.switch_session(command.text("sessionPath"))
        return {"cancelled": result.cancelled}

    async def fork(self, command: Command) -> Any:
        result = await self.runtime.fork(command.text("entryId"))
        data: dict[str, Any] = {} if result.selected_text is None else {"text": result.selected_text}
        data["cancelled"] = result.cancelled
        return data

    async def clone(self, command: Command) -> Any:
        return {"cancelled": (await self.runtime.clone()).cancelled}

    # ---------------------------------------------------------------- state

    def get_state(self, command: Command) -> Any:
        session = self.session
        data: dict[str, Any] = {}
        if session.model is not None:
            data["model"] = model_json(session.model)
        data.update(
            thinkingLevel=session.thinking_level,
            isStreaming=session.is_streaming,
            isCompacting=session.is_compacting,
            steeringMode=session.steering_mode,
            followUpMode=session.follow_up_mode,
        )
        if session.session_file is not None:
            data["sessionFile"] = session.session_file
        data["sessionId"] = session.session_id
        if session.session_name is not None:
            data["sessionName"] = session.session_name
        data.update(
            autoCompactionEnabled=session.auto_compaction_enabled,
            messageCount=len(session.messages),
            pendingMessageCount=session.pending_message_count,
        )
        return data

    def get_messages(self, command: Command) -> Any:
        return {"messages": to_builtins(self.session.messages)}

    # ---------------------------------------------------------------- model and thinking

    async def set_model(self, command: Command) -> Any:
        provider, model_id = command.text("provider"), command.text("modelId")
        model = next(
            (m for m in self.session.available_models() if m.provider == provider and m.id == model_id), None
        )
        if model is None:
            raise CommandError(f"Model not found: {provider}/{model_id}")
        await self.session.set_model(model)
        return model_json(model)

    async def cycle_model(self, command: Command) -> Any:
        result = await self.session.cycle_model()
        if result is None:
            return None
        return {
            "model": model_json(result.model),
            "thinkingLevel": result.thinking_level,
            "isScoped": result.is_scoped,
        }

    def get_available_models(self, command: Command) -> Any:
        return {"models": [model_json(m) for m in self.session.available_models()]}

    def set_thinking_level(self, command: Command) -> Any:
        level = command.choice("level", THINKING_LEVELS)
        assert level is not None
        self.session.set_thinking_level(level)
        return NO_DATA

    def cycle_thinking_level(self, command: Command) -> Any:
        level = self.session.cycle_thinking_level()
        return None if level is None else {"level": level}

    def get_available_thinking_levels(self, command: Command) -> Any:
        return {"levels": self.session.available_thinking_levels()}

    def set_steering_mode(self, command: Command) -> Any:
        self.session.set_steering_mode(_queue_mode(command))
        return NO_DATA

    def set_follow_up_mode(self, command: Command) -> Any:
        self.session.set_follow_up_mode(_queue_mode(command))
        return NO_DATA

    # ---------------------------------------------------------------- compaction and retry

    async def compact(self, command: Command) -> Any:
        return await self.session.compact(command.optional_text("customInstructions"))

    def set_auto_compaction(self, command: Command) -> Any:
        self.session.set_auto_compaction_enabled(bool(command.flag("enabled", required=True)))
        return NO_DATA

    def set_auto_retry(self, command: Command) -> Any:
        self.session.set_auto_retry_enabled(bool(command.flag("enabled", required=True)))
        return NO_DATA

    def abort_retry(self, command: Command) -> Any:
        self.session.abort_retry()
        return NO_DATA

    # ---------------------------------------------------------------- bash

    async def bash(self, command: Command) -> Any:
        result = await self.session.execute_bash(
            command.text("command"), exclude_from_context=command.flag("excludeFromContext"), id=command.id
        )
        return bash_result_json(result)

    def abort_bash(self, command: Command) -> Any:
        self.session.abort_bash()
        return NO_DATA

    # ---------------------------------------------------------------- session data

    def get_session_stats(self, command: Command) -> Any:
        return self.session.get_session_stats().to_json()

    async def export_html(self, command: Command) -> Any:
        return {"path": await self.session.export_to_html(command.optional_text("outputPath"))}

    def get_fork_messages(self, command: Command) -> Any:
        points = self.session.get_user_messages_for_forking()
        return {"messages": [{"entryId": point.entry_id, "text": point.text} for point in points]}

    def get_entries(self, command: Command) -> Any:
        manager = self.session.session_manager
        entries = manager.get_entries_data()
        since = command.optional_text("since")
        if since is not None:
            position = next((i for i, entry in enumerate(entries) if entry.get("id") == since), None)
            if position is None:
                raise CommandError(f"Entry not found: {since}")
            entries = entries[position + 1 :]
        return {"entries": entries, "leafId": manager.get_leaf_id()}

    def get_tree(self, command: Command) -> Any:
        manager = self.session.session_manager
        return {"tree": tree_json(manager), "leafId": manager.get_leaf_id()}

    def get_last_assistant_text(self, command: Command) -> Any:
        text = self.session.get_last_assistant_text()
        return {} if text is None else {"text": text}

    def set_session_name(self, command: Command) -> Any:
        name = command.text("name").strip()
        if not name:
            raise CommandError("Session name cannot be empty")
        self.session.set_session_name(name)
        return NO_DATA

    def get_commands(self, command: Command) -> Any:
        """Pi's built-in ``/llama`` and, while MCP is on, ``/mcp`` (extension commands of Pi's
        own) first, then the session's."""
        from pi_coding_agent.core.local_model import LLAMA_COMMAND, LLAMA_SOURCE

        found = self.session.available_commands()
        name, description = LLAMA_COMMAND
        llama = [] if any(c.name == name for c in found) else [
            {"name": name, "description": description, "source": "extension", "sourceInfo": dict(LLAMA_SOURCE)}
        ]  # fmt: skip
        if self.session.builtin_mcp and not any(c.name == "mcp" for c in found):
            from pi_coding_agent.core.mcp.texts import MCP_COMMAND, MCP_SOURCE

            name, description = MCP_COMMAND
            llama.append({"name": name, "description": description, "source": "extension", "sourceInfo": dict(MCP_SOURCE)})
        commands = [
            {"name": c.name, "description": c.description, "source": c.source, "sourceInfo": {"path": c.path}}
            for c in found
        ]
        return {"commands": [*llama, *commands]}

    # ---------------------------------------------------------------- ours: the tree in place

    async def navigate_tree(self, command: Command) -> Any:
        result = await self.session.navigate_tree(
            command.text("targetId"),
            summarize=bool(command.flag("summarize")),
            custom_instructions=command.optional_text("customInstructions"),
            replace_instructions=bool(command.flag("replaceInstructions")),
            label=command.optional_text("label"),
        )
        data: dict[str, Any] = {"cancelled": result.cancelled}
        if result.editor_text is not None:
            data["editorText"] = result.editor_text
        if result.aborted:
            data["aborted"] = True
        if result.summary_entry is not None:
            data["summaryEntryId"] = result.summary_entry.id
        return data

    def set_label(self, command: Command) -> Any:
        self.session.set_label(command.text("entryId"), command.optional_text("label"))
        return NO_DATA


def _queue_mode(command: Command) -> Any:
    return command.choice("mode", QUEUE_MODES)


HANDLERS: dict[str, Handler] = {
    name: getattr(Commands, name)
    for name in (
        "steer",
        "follow_up",
        "abort",
        "clear_queue",
        "new_session",
        "switch_session",
        "fork",
        "clone",
        "get_state",
        "get_messages",
        "set_model",
        "cycle_model",
        "get_available_models",
        "set_thinking_level",
        "cycle_thinking_level",
        "get_available_thinking_levels",
        "set_steering_mode",
        "set_follow_up_mode",
        "compact",
        "set_auto_compaction",
        "set_auto_retry",
        "abort_retry",
        "bash",
        "abort_bash",
        "get_session_stats",
        "export_html",
        "get_fork_messages",
        "get_entries",
        "get_tree",
        "get_last_assistant_text",
        "set_session_name",
        "get_commands",
        "navigate_tree",
        "set_label",
    )
}
"""Every command but ``prompt``, whose response comes from the server once the prompt is accepted."""
