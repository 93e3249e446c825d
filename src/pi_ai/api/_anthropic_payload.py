"""Request side of ``anthropic-messages``: headers, betas and the JSON body, exactly as Pi 0.85
(through the Anthropic SDK) builds them. Keys are inserted in Pi's order so the encoded body
is byte-identical."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pi_ai._context import Context, Tool
from pi_ai._messages import (
    AssistantMessage,
    ContextMessage,
    ImageContent,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_ai._model import Model
from pi_ai._text import content_text
from pi_ai._transcript import (
    conversation,
    leading_system_message,
    render_system_message_update,
    request_tools,
    system_message_text,
    tool_from_declaration,
)
from pi_ai._transform_messages import transform_messages
from pi_ai.api._common import (
    copilot_dynamic_headers,
    pi_user_agent,
    resolve_cache_retention,
    sanitize_id,
    sanitize_surrogates,
)
from pi_ai.api._constrained import resolve_strict, tool_parameters
from pi_ai.api._http import has_header, merge_headers
from pi_ai.js_json import js_trim

CLAUDE_CODE_VERSION = "2.1.251"
CLAUDE_CODE_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude."
_CLAUDE_CODE_TOOLS = (
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "KillShell",
    "NotebookEdit",
    "Skill",
    "Task",
    "TaskOutput",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
)
_CLAUDE_CODE_LOOKUP = {name.lower(): name for name in _CLAUDE_CODE_TOOLS}

FINE_GRAINED_TOOL_STREAMING_BETA = "fine-grained-tool-streaming-2025-05-14"
INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"
SERVER_SIDE_FALLBACK_BETA = "server-side-fallback-2026-07-01"
MID_CONVERSATION_OUTPUT_CONFIG_BETA = "mid-conversation-output-config-2026-07-01"
THINKING_BINDING_CONTROLS_BETA = "thinking-binding-controls-2026-08-01"
MESSAGE_THREADS_BETA = "message-threads-2026-08-12"
INLINE_TOOLS_BETA = "inline-tools-2026-09-15"
DEFERRED_TOOL_PLACEHOLDER: dict[str, Any] = {
    "name": "__pi_deferred_placeholder__",
    "description": "Reserved placeholder. Never available. Never call this.",
    "input_schema": {"type": "object", "properties": {}, "required": []},
    "defer_loading": True,
}
"""The deferred tool Pi 1.6 lists after the first tools whenever tools change in place (a wire
fact: it keeps Anthropic's scaffolding for tool changes in the cached prefix; never loaded)."""

_EFFORTS = ("low", "medium", "high", "xhigh", "max")


def to_claude_code_name(name: str) -> str:
    return _CLAUDE_CODE_LOOKUP.get(name.lower(), name)


def from_claude_code_name(name: str, tools: Sequence[Tool] | None) -> str:
    wanted = name.lower()
    for tool in tools or ():
        if tool.name.lower() == wanted:
            return tool.name
    return name


def is_oauth_token(api_key: str) -> bool:
    return "sk-ant-oat" in api_key


# --------------------------------------------------------------------------- compat


_TOOL_REFERENCE_VERSION = re.compile(r"^claude-(?:opus|sonnet|fable)-(\d+)(?:-(\d+))?(?:-|$)")


def _supports_tool_references(model: Model) -> bool:
    if model.provider != "anthropic" or "haiku" in model.id:
        return False
    match = _TOOL_REFERENCE_VERSION.match(model.id)
    if match is None:
        return False
    major = int(match.group(1))
    minor = int(match.group(2)) if match.group(2) and len(match.group(2)) < 8 else 0
    return major > 4 or (major == 4 and minor >= 5)


@dataclass(frozen=True, slots=True)
class AnthropicCompat:
    supports_eager_tool_input_streaming: bool
    supports_long_cache_retention: bool
    send_session_affinity_headers: bool
    supports_cache_control_on_tools: bool
    supports_temperature: bool
    allow_empty_signature: bool
    supports_strict_tools: bool
    supports_tool_references: bool
    force_adaptive_thinking: bool
    supports_mid_convo_effort: bool
    allowed_fallback_models: list[dict[str, Any]]
    supports_message_threads: bool
    supports_mid_convo_system_messages: bool = False
    supports_mid_convo_tool_changes: bool = False


def anthropic_compat(model: Model) -> AnthropicCompat:
    compat = model.compat or {}

    def flag(name: str, default: bool) -> bool:
        value = compat.get(name)
        return default if value is None else bool(value)

    fallbacks = compat.get("allowedFallbackModels")
    return AnthropicCompat(
        supports_eager_tool_input_streaming=flag("supportsEagerToolInputStreaming", True),
        supports_long_cache_retention=flag("supportsLongCacheRetention", True),
        send_session_affinity_headers=flag("sendSessionAffinityHeaders", False),
        supports_cache_control_on_tools=flag("supportsCacheControlOnTools", True),
        supports_temperature=flag("supportsTemperature", True),
        allow_empty_signature=flag("allowEmptySignature", False),
        supports_strict_tools=flag("supportsStrictTools", False),
        supports_tool_references=flag("supportsToolReferences", _supports_tool_references(model)),
        force_adaptive_thinking=compat.get("forceAdaptiveThinking") is True,
        supports_mid_convo_effort=compat.get("supportsMidConvoEffort") is True,
        allowed_fallback_models=list(fallbacks) if isinstance(fallbacks, list) else [],
        # Gateways that drop unknown fields would turn a ``continue`` into a request without the
        # conversation, so only Anthropic's own endpoint threads by default (as Pi 1.6).
        supports_message_threads=flag("supportsMessageThreads", "api.anthropic.com" in model.base_url),
        supports_mid_convo_system_messages=compat.get("supportsMidConvoSystemMessages") is True,
        supports_mid_convo_tool_changes=compat.get("supportsMidConvoToolChanges") is True,
    )


def cache_control(
    model: Model, retention: str | None, env: Mapping[str, str] | None
) -> dict[str, str] | None:
    resolved = resolve_cache_retention(retention, env)  # type: ignore[arg-type]
    if resolved == "none":
        return None
    if resolved == "long" and anthropic_compat(model).supports_long_cache_retention:
        return {"type": "ephemeral", "ttl": "1h"}
    return {"type": "ephemeral"}


# --------------------------------------------------------------------------- headers


def assert_request_auth(provider: str, api_key: str | None, headers: Mapping[str, str | None] | None) -> None:
    """Pi refuses to send a request without an API key or an auth header."""
    if api_key:
        return
    if any(has_header(headers, name) for name in ("authorization", "x-api-key", "cf-aig-authorization")):
        return
    raise ValueError(f"No API key for provider: {provider}")


_AUTH_UNRESOLVED = (
    "Could not resolve authentication method. Expected one of apiKey, authToken, credentials, config, or "
    'profile to be set. Or for one of the "X-Api-Key" or "Authorization" headers to be explicitly omitted'
)


def request_headers(
    model: Model,
    context: Context,
    *,
    api_key: str | None,
    options_headers: Mapping[str, str | None] | None,
    cache_session_id: str | None,
    betas: list[str] | None,
) -> tuple[dict[str, str], bool]:
    """All request headers in the SDK's merge order, and whether OAuth (Claude Code) mode is on."""
    sdk_defaults = {
        "Accept": "application/json",
        "anthropic-dangerous-direct-browser-access": "true",
        "anthropic-version": "2023-06-01",
    }
    client_defaults: dict[str, str | None] = {
        "User-Agent": pi_user_agent(),
        "accept": "application/json",
        "anthropic-dangerous-direct-browser-access": "true",
    }
    oauth = False
    dynamic: dict[str, str] | None = None
    if model.provider == "github-copilot":
        auth = {"Authorization": f"Bearer {api_key}"} if api_key is not None else {}
        dynamic = copilot_dynamic_headers(conversation(context))
    elif api_key and is_oauth_token(api_key):
        oauth = True
        auth = {"Authorization": f"Bearer {api_key}"}
        client_defaults.update({"user-agent": f"claude-cli/{CLAUDE_CODE_VERSION}", "x-app": "cli"})
    else:
        # The SDK sends a key that is set, even empty (an empty one beside a bearer header).
        auth = {"X-Api-Key": api_key} if api_key is not None else {}
        if cache_session_id and anthropic_compat(model).send_session_affinity_headers:
            client_defaults["x-session-affinity"] = cache_session_id
    merged = merge_headers(
        sdk_defaults,
        auth,
        client_defaults,
        model.headers,
        dynamic,
        options_headers,
        {"content-type": "application/json"},
        {"anthropic-beta": ",".join(betas)} if betas is not None else None,
    )
    lowered = {name.lower() for name in merged}
    explicitly_omitted = any(
        value is None and key.lower() in ("x-api-key", "authorization")
        for source in (model.headers or {}, options_headers or {})
        for key, value in source.items()
    )
    if "x-api-key" not in lowered and "authorization" not in lowered and not explicitly_omitted:
        raise ValueError(_AUTH_UNRESOLVED)
    return merged, oauth


def beta_features(
    model: Model,
    context: Context,
    oauth: bool,
    options: Any,
    *,
    message_threads: bool = False,
    native_tool_changes: bool = False,
) -> list[str]:
    configured: str | bool | None = False
    for headers in (model.headers, options.headers):
        for name, value in (headers or {}).items():
            if name.lower() == "anthropic-beta":
                configured = value
    if configured is None:
        return []
    if isinstance(configured, str):
        return list(dict.fromkeys(js_trim(part) for part in configured.split(",") if js_trim(part)))
    compat = anthropic_compat(model)
    features: list[str] = []
    if oauth:
        features += ["claude-code-20250219", "oauth-2025-04-20"]
    if request_tools(context) and not compat.supports_eager_tool_input_streaming:
        features.append(FINE_GRAINED_TOOL_STREAMING_BETA)
    if (
        model.reasoning
        and options.thinking_enabled is True
        and (options.interleaved_thinking if options.interleaved_thinking is not None else True)
        and not compat.force_adaptive_thinking
    ):
        features.append(INTERLEAVED_THINKING_BETA)
    if compat.allowed_fallback_models:
        features.append(SERVER_SIDE_FALLBACK_BETA)
    if compat.supports_mid_convo_effort:
        features += [MID_CONVERSATION_OUTPUT_CONFIG_BETA, THINKING_BINDING_CONTROLS_BETA]
    if native_tool_changes:
        features.append(INLINE_TOOLS_BETA)
    if message_threads:
        features.append(MESSAGE_THREADS_BETA)
    return list(dict.fromkeys(features))


# --------------------------------------------------------------------------- body


def normalize_tool_call_id(tool_call_id: str, _model: Model, _source: AssistantMessage) -> str:
    """Anthropic ids match ``^[a-zA-Z0-9_-]+$`` and hold at most 64 characters."""
    return sanitize_id(tool_call_id)[:64]


def _content_blocks(content: Sequence[TextContent | ImageContent]) -> str | list[dict[str, Any]]:
    """Tool-result content: joined text when there are no images, else text/image blocks."""
    if not any(isinstance(block, ImageContent) for block in content):
        return sanitize_surrogates(content_text(content))
    blocks: list[dict[str, Any]] = [
        {"type": "text", "text": sanitize_surrogates(block.text)}
        if isinstance(block, TextContent)
        else {
            "type": "image",
            "source": {"type": "base64", "media_type": block.mime_type, "data": block.data},
        }
        for block in content
    ]
    if not any(block["type"] == "text" for block in blocks):
        blocks.insert(0, {"type": "text", "text": "(see attached image)"})
    return blocks


def _split_deferred_tools(
    tools: Sequence[Tool] | None, messages: Sequence[ContextMessage], enabled: bool, normalize: Any
) -> tuple[list[Tool], dict[str, Tool]]:
    unique: dict[str, Tool] = {}
    for tool in tools or ():
        unique[normalize(tool.name)] = tool
    if not enabled:
        return list(unique.values()), {}
    deferred_names: set[str] = set()
    used: set[str] = set()
    for message in messages:
        if isinstance(message, AssistantMessage):
            used.update(normalize(block.name) for block in message.content if isinstance(block, ToolCall))
        elif isinstance(message, ToolResultMessage):
            for name in message.added_tool_names or ():
                if normalize(name) not in used:
                    deferred_names.add(normalize(name))
    immediate = [tool for name, tool in unique.items() if name not in deferred_names]
    deferred = {name: tool for name, tool in unique.items() if name in deferred_names}
    return immediate, deferred


def _tool_result(
    message: ToolResultMessage, oauth: bool, deferred_names: set[str], loaded: set[str], normalize: Any
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    references: list[dict[str, Any]] = []
    for name in message.added_tool_names or ():
        normalized = normalize(name)
        if normalized not in deferred_names or normalized in loaded:
            continue
        loaded.add(normalized)
        references.append(
            {"type": "tool_reference", "tool_name": to_claude_code_name(name) if oauth else name}
        )
    converted = _content_blocks(message.content)
    block = {
        "type": "tool_result",
        "tool_use_id": message.tool_call_id,
        "content": references if references else converted,
        "is_error": message.is_error,
    }
    siblings: list[dict[str, Any]] = []
    if references:
        siblings = [{"type": "text", "text": converted}] if isinstance(converted, str) else converted
    return block, siblings


def _system_update(
    message: SystemMessage, oauth: bool, define_tools: Callable[[list[Tool]], list[dict[str, Any]]] | None
) -> dict[str, Any] | None:
    """A later system message as Anthropic takes it in place: its update text, then (with tool
    changes in place) a ``tool_removal`` per removed tool that is not redefined and a
    ``tool_addition`` per added one; ``None`` when that leaves nothing."""
    blocks: list[dict[str, Any]] = []
    if text := render_system_message_update(message):
        blocks.append({"type": "text", "text": sanitize_surrogates(text)})
    if define_tools is not None:
        added = [tool_from_declaration(tool) for tool in message.tools_added or ()]
        redefined = {tool.name for tool in added}
        for removed in message.tools_removed or ():
            name = str(removed.get("name", ""))
            if name not in redefined:
                reference = {"type": "tool_reference", "name": to_claude_code_name(name) if oauth else name}
                blocks.append({"type": "tool_removal", "tool": reference})
        for definition in define_tools(added):
            blocks.append({"type": "tool_addition", "tool": {"type": "tool_definition", "definition": definition}})
    return {"role": "system", "content": blocks} if blocks else None


def convert_messages(
    messages: Sequence[ContextMessage],
    *,
    oauth: bool,
    cache: dict[str, str] | None,
    allow_empty_signature: bool,
    deferred_names: set[str],
    normalize: Any,
    managed_provider: str | None,
    define_tools: Callable[[list[Tool]], list[dict[str, Any]]] | None = None,
) -> tuple[list[dict[str, Any]], dict[int, str]]:
    """The messages as Anthropic takes them. Later system messages wait for the next assistant
    message that is sent (or the end), as Pi 1.6 places them: a ``tool_result`` must follow its
    ``tool_use`` directly. ``define_tools`` converts the tools a system message adds when tool
    changes go in place."""
    params: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    assistant_levels: dict[int, str] = {}
    loaded: set[str] = set()
    index = 0
    while index < len(messages):
        message = messages[index]
        if isinstance(message, SystemMessage):
            if (update := _system_update(message, oauth, define_tools)) is not None:
                pending.append(update)
        elif isinstance(message, UserMessage):
            if isinstance(message.content, str):
                if js_trim(message.content):
                    params.append({"role": "user", "content": sanitize_surrogates(message.content)})
            else:
                blocks: list[dict[str, Any]] = []
                for item in message.content:
                    if isinstance(item, TextContent):
                        if js_trim(item.text):
                            blocks.append({"type": "text", "text": sanitize_surrogates(item.text)})
                    else:
                        blocks.append(
                            {
                                "type": "image",
                                "source": {"type": "base64", "media_type": item.mime_type, "data": item.data},
                            }
                        )
                if blocks:
                    params.append({"role": "user", "content": blocks})
        elif isinstance(message, AssistantMessage):
            content: list[dict[str, Any]] = []
            for block in message.content:
                if isinstance(block, TextContent):
                    if js_trim(block.text):
                        content.append({"type": "text", "text": sanitize_surrogates(block.text)})
                elif isinstance(block, ThinkingContent):
                    if block.redacted:
                        content.append({"type": "redacted_thinking", "data": block.thinking_signature})
                        continue
                    signature = block.thinking_signature
                    signed = bool(signature and js_trim(signature))
                    if not js_trim(block.thinking) and not signed:
                        continue
                    if signed:
                        content.append(
                            {
                                "type": "thinking",
                                "thinking": sanitize_surrogates(block.thinking),
                                "signature": signature,
                            }
                        )
                    elif allow_empty_signature:
                        content.append(
                            {
                                "type": "thinking",
                                "thinking": sanitize_surrogates(block.thinking),
                                "signature": "",
                            }
                        )
                    else:
                        content.append({"type": "text", "text": sanitize_surrogates(block.thinking)})
                else:
                    content.append(
                        {
                            "type": "tool_use",
                            "id": block.id,
                            "name": to_claude_code_name(block.name) if oauth else block.name,
                            "input": block.arguments if block.arguments is not None else {},
                        }
                    )
            if content:
                params += pending
                pending.clear()
                position = len(params)
                params.append({"role": "assistant", "content": content})
                level = message.provider_thinking_level
                if (
                    managed_provider is not None
                    and message.api == "anthropic-messages"
                    and message.provider == managed_provider
                    and level is not None
                    and level in _EFFORTS
                ):
                    assistant_levels[position] = level
        elif isinstance(message, ToolResultMessage):
            results: list[dict[str, Any]] = []
            siblings: list[dict[str, Any]] = []
            while index < len(messages) and isinstance(messages[index], ToolResultMessage):
                result, extra = _tool_result(messages[index], oauth, deferred_names, loaded, normalize)  # type: ignore[arg-type]
                results.append(result)
                siblings += extra
                index += 1
            params.append({"role": "user", "content": results + siblings})
            continue
        index += 1
    params += pending
    if cache and params and params[-1]["role"] in ("user", "system"):
        last = params[-1]
        if isinstance(last["content"], list):
            if last["content"] and last["content"][-1].get("type") in _CACHED_LAST_BLOCKS:
                last["content"][-1]["cache_control"] = cache
        elif isinstance(last["content"], str):
            last["content"] = [{"type": "text", "text": last["content"], "cache_control": cache}]
    return params, assistant_levels


_CACHED_LAST_BLOCKS = ("text", "image", "tool_result", "tool_addition", "tool_removal")


def _convert_tools(
    tools: Sequence[Tool],
    *,
    oauth: bool,
    eager: bool,
    strict_supported: bool,
    cache: dict[str, str] | None,
    defer_loading: bool = False,
) -> list[dict[str, Any]]:
    converted: list[dict[str, Any]] = []
    for position, tool in enumerate(tools):
        strict = resolve_strict(tool, strict_supported)
        parameters = tool_parameters(tool, strict)
        legacy: dict[str, Any] = {
            "type": "object",
            "properties": parameters.get("properties") if parameters.get("properties") is not None else {},
            "required": parameters.get("required") if parameters.get("required") is not None else [],
        }
        entry: dict[str, Any] = {
            "name": to_claude_code_name(tool.name) if oauth else tool.name,
            "description": tool.description,
        }
        if eager:
            entry["eager_input_streaming"] = True
        if strict:
            entry["strict"] = True
        entry["input_schema"] = {**parameters, **legacy} if strict else legacy
        if defer_loading:
            entry["defer_loading"] = True
        if cache and position == len(tools) - 1:
            entry["cache_control"] = cache
        converted.append(entry)
    return converted


def build_params(
    model: Model, context: Context, oauth: bool, options: Any, *, message_threads: bool = False
) -> dict[str, Any]:
    """The request body (``betas`` included; the transport moves it into the header);
    ``message_threads``: the session's requests may use threads (the beta is announced)."""
    cache = cache_control(model, options.cache_retention, options.env)
    compat = anthropic_compat(model)
    transformed = transform_messages(context.messages, model, normalize_tool_call_id)
    head = leading_system_message(transformed)
    if head is not None:
        transformed = transformed[1:]
    prompt = system_message_text(head) if head is not None else context.system_prompt
    # The first tools: the leading system message's, else the context's own, which Pi 1.6 folds
    # into such a message before the adapter runs.
    first_tools = (
        [tool_from_declaration(tool) for tool in head.tools_added or ()] if head is not None else context.tools or []
    )
    native = _native_tool_changes(compat, first_tools)
    tools = first_tools if native else None
    normalize_name = to_claude_code_name if oauth else (lambda name: name)
    immediate, deferred_map = _split_deferred_tools(
        tools if native else request_tools(context), transformed, compat.supports_tool_references, normalize_name
    )
    deferred = list(deferred_map.values())
    if not immediate and deferred:
        immediate, deferred = deferred, []
    deferred_names = {normalize_name(tool.name) for tool in deferred}
    thinking_off = thinking_disabled(model, options)
    # Pi 1.6: a model whose effort it manages gets effort markers, but not with thinking off
    # (the effort cannot change between messages then).
    managed = compat.supports_mid_convo_effort and not thinking_off
    eager = compat.supports_eager_tool_input_streaming
    strict = compat.supports_strict_tools

    def define_tools(added: list[Tool]) -> list[dict[str, Any]]:
        return _convert_tools(added, oauth=oauth, eager=eager, strict_supported=strict, cache=None)

    messages, levels = convert_messages(
        transformed,
        oauth=oauth,
        cache=cache,
        allow_empty_signature=compat.allow_empty_signature,
        deferred_names=deferred_names,
        normalize=normalize_name,
        managed_provider=model.provider if managed else None,
        define_tools=define_tools if native else None,
    )
    betas = beta_features(
        model, context, oauth, options, message_threads=message_threads, native_tool_changes=native
    )
    params: dict[str, Any] = {
        "model": model.id,
        "messages": _with_effort_messages(messages, levels, options.effort or "high")
        if managed
        else messages,
        "max_tokens": options.max_tokens if options.max_tokens is not None else model.max_tokens,
        "stream": True,
    }
    if betas:
        params["betas"] = betas
    if oauth:
        system = [
            {"type": "text", "text": CLAUDE_CODE_IDENTITY, **({"cache_control": cache} if cache else {})}
        ]
        if prompt:
            system.append(
                {
                    "type": "text",
                    "text": sanitize_surrogates(prompt),
                    **({"cache_control": cache} if cache else {}),
                }
            )
        params["system"] = system
    elif prompt:
        params["system"] = [
            {
                "type": "text",
                "text": sanitize_surrogates(prompt),
                **({"cache_control": cache} if cache else {}),
            }
        ]
    if (
        options.temperature is not None
        and not options.thinking_enabled
        and not compat.supports_mid_convo_effort
        and compat.supports_temperature
    ):
        params["temperature"] = options.temperature
    if immediate or deferred:
        tool_cache = cache if compat.supports_cache_control_on_tools else None
        params["tools"] = _convert_tools(
            immediate, oauth=oauth, eager=eager, strict_supported=strict, cache=tool_cache
        ) + _convert_tools(
            deferred, oauth=oauth, eager=eager, strict_supported=strict, cache=None, defer_loading=True
        )
        if native:
            params["tools"].append(dict(DEFERRED_TOOL_PLACEHOLDER))
    display = options.thinking_display or "summarized"
    if thinking_off:
        # No effort is sent: the model's default applies (Anthropic refuses ``block_binding``
        # with thinking disabled).
        params["thinking"] = {"type": "disabled"}
    elif managed:
        params["thinking"] = {
            "type": "adaptive",
            "display": display,
            "block_binding": {"prefix_mismatch_behavior": "drop_block"},
        }
        # The markers carry the level of each reply; the top-level effort belongs to the cached
        # prefix, so it never changes. Pi 1.6 keeps it at the lowest level, which no
        # organization's effort cap refuses.
        params["output_config"] = {"effort": "low"}
    elif model.reasoning and options.thinking_enabled:
        if compat.force_adaptive_thinking:
            params["thinking"] = {"type": "adaptive", "display": display}
            if options.effort:
                params["output_config"] = {"effort": options.effort}
        else:
            params["thinking"] = {
                "type": "enabled",
                "budget_tokens": options.thinking_budget_tokens or 1024,
                "display": display,
            }
    metadata = options.metadata
    if metadata and isinstance(metadata.get("user_id"), str):
        params["metadata"] = {"user_id": metadata["user_id"]}
    if options.tool_choice:
        params["tool_choice"] = (
            {"type": options.tool_choice} if isinstance(options.tool_choice, str) else options.tool_choice
        )
    if compat.allowed_fallback_models:
        params["fallbacks"] = [
            {"model": fallback.get("model")} for fallback in compat.allowed_fallback_models
        ]
    return params


def thinking_disabled(model: Model, options: Any) -> bool:
    """Whether the request turns thinking off (``thinking: disabled``): a reasoning model asked
    for no thinking, unless its level map says thinking cannot be off (``off: null``)."""
    level_map = model.thinking_level_map or {}
    return (
        model.reasoning
        and options.thinking_enabled is False
        and not ("off" in level_map and level_map["off"] is None)
    )


def managed_effort(model: Model, options: Any) -> str | None:
    """The effort a model whose effort Pi 1.6 manages (``compat.supportsMidConvoEffort``) answers
    with, recorded on the reply as ``providerThinkingLevel``; None for other models and with
    thinking off."""
    if not anthropic_compat(model).supports_mid_convo_effort or thinking_disabled(model, options):
        return None
    return options.effort or "high"


def _native_tool_changes(compat: AnthropicCompat, first_tools: list[Tool]) -> bool:
    """Whether tool changes go in place (``tool_addition`` / ``tool_removal`` blocks, Pi 1.6): the
    model takes system messages and tool changes mid-conversation, and the transcript starts with
    at least one tool to anchor the request's fixed list (Anthropic refuses a list of deferred
    tools only)."""
    return compat.supports_mid_convo_system_messages and compat.supports_mid_convo_tool_changes and bool(first_tools)


def _with_effort_messages(
    messages: list[dict[str, Any]], levels: dict[int, str], active: str
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for position, message in enumerate(messages):
        if position in levels:
            out.append({"role": "system", "content": [], "output_config": {"effort": levels[position]}})
        out.append(message)
    out.append({"role": "system", "content": [], "output_config": {"effort": active}})
    return out


def reply_as_sent(model: Model, reply: AssistantMessage, oauth: bool) -> list[dict[str, Any]]:
    """``reply`` as the next request will send it (the assistant message only: converting a
    reply that ends in tool calls adds placeholder results)."""
    transformed = transform_messages([reply], model, normalize_tool_call_id)
    messages, _ = convert_messages(
        transformed,
        oauth=oauth,
        cache=None,
        allow_empty_signature=anthropic_compat(model).allow_empty_signature,
        deferred_names=set(),
        normalize=to_claude_code_name if oauth else (lambda name: name),
        managed_provider=None,
    )
    return [message for message in messages if message.get("role") == "assistant"]
