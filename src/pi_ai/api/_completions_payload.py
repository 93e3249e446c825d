"""Request side of ``openai-completions``: compat detection for OpenAI-compatible servers,
headers and the JSON body, exactly as Pi 0.85 (through the OpenAI SDK) builds them.

``completions_compat(model)`` starts from what the provider id and base URL reveal (DeepSeek,
z.ai, OpenRouter, Together, Moonshot, NVIDIA, Cloudflare, Cerebras, xAI, ...) and lets each
``model.compat`` key override it. Local servers (Ollama, llama.cpp, vLLM, LM Studio, SGLang)
are not detected: they get OpenAI's defaults unless their model says otherwise (see
docs/providers/openai-compatible.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_ai._context import Context, Tool
from pi_ai._messages import (
    AssistantMessage,
    ContextMessage,
    ImageContent,
    Message,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_ai._model import Model
from pi_ai._simple_options import (
    clamp_thinking_budget_to_answer_room,
    merge_sampling_params,
    thinking_budget_for_level,
)
from pi_ai._text import content_text
from pi_ai._transcript import (
    ToolSupport,
    conversation,
    declared_tools,
    render_system_message_update,
    system_message_text,
    tool_from_declaration,
    transcript_tools,
)
from pi_ai._transform_messages import transform_messages
from pi_ai.api._common import (
    clamp_prompt_cache_key,
    copilot_dynamic_headers,
    openai_sdk_headers,
    pi_user_agent,
    sanitize_id,
    sanitize_surrogates,
    short_hash,
)
from pi_ai.api._constrained import (
    grammar_input_properties,
    grammar_tool_input,
    resolve_grammar,
    resolve_strict,
    tool_parameters,
)
from pi_ai.js_json import js_trim, stringify

REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
"""Where OpenAI-compatible servers stream reasoning (first non-empty wins)."""


@dataclass(frozen=True, slots=True)
class CompletionsCompat:
    supports_store: bool
    supports_developer_role: bool
    supports_reasoning_effort: bool
    supports_usage_in_streaming: bool
    supports_finish_reason: bool
    max_tokens_field: str
    requires_tool_result_name: bool
    requires_assistant_after_tool_result: bool
    requires_thinking_as_text: bool
    requires_reasoning_content_on_assistant_messages: bool
    thinking_format: str
    open_router_routing: dict[str, Any]
    vercel_gateway_routing: dict[str, Any]
    chat_template_kwargs: dict[str, Any]
    chat_template_args: dict[str, Any]
    zai_tool_stream: bool
    supports_thinking_token_budget: bool
    thinking_token_budget_field: str | None
    supports_strict_mode: bool
    supports_openai_grammar_tools: bool
    cache_control_format: str | None
    send_session_affinity_headers: bool
    deferred_tools_mode: str | None
    session_affinity_format: str
    supports_long_cache_retention: bool
    requires_non_null_assistant_content: bool = False
    """Pi 1.6: replayed assistant messages without text send ``""`` instead of ``null``."""
    requires_tools_with_tool_history: bool = False
    """``"tools": []`` for a conversation with tool history and no tools (Pi 0.85 always sent
    it; Pi 1.6 only for proxies that need it, such as older LiteLLM)."""
    prompt_cache_key_mode: str = "auto"
    """Pi 1.6: ``enabled`` sends ``prompt_cache_key`` whenever caching is on, ``disabled`` never."""
    vllm_priority: Any = None
    supports_mid_convo_tool_additions: bool = False
    """Pi 1.6: a later system message's new tools go where it stands, as a
    ``{"role": "system", "tools": [...]}`` message (models that take system messages in place)."""
    extra: dict[str, Any] = field(default_factory=dict)


def _detect(model: Model) -> dict[str, Any]:
    provider = model.provider
    url = model.base_url
    is_zai = provider in ("zai", "zai-coding-cn") or "api.z.ai" in url or "open.bigmodel.cn" in url
    is_together = provider == "together" or "api.together.ai" in url or "api.together.xyz" in url
    is_moonshot = provider in ("moonshotai", "moonshotai-cn") or "api.moonshot." in url
    is_openrouter = provider == "openrouter" or "openrouter.ai" in url
    is_cf_workers = provider == "cloudflare-workers-ai" or "api.cloudflare.com" in url
    is_cf_gateway = provider == "cloudflare-ai-gateway" or "gateway.ai.cloudflare.com" in url
    is_nvidia = provider == "nvidia" or "integrate.api.nvidia.com" in url
    is_ant_ling = provider == "ant-ling" or "api.ant-ling.com" in url
    is_deepseek = provider == "deepseek" or "deepseek.com" in url.lower()
    is_grok = provider == "xai" or "api.x.ai" in url
    non_standard = (
        is_nvidia
        or provider == "cerebras"
        or "cerebras.ai" in url
        or is_grok
        or is_together
        or "chutes.ai" in url
        or is_deepseek
        or is_zai
        or is_moonshot
        or provider == "opencode"
        or "opencode.ai" in url
        or is_cf_workers
        or is_cf_gateway
        or is_ant_ling
    )
    use_max_tokens = (
        "chutes.ai" in url
        or is_deepseek
        or is_moonshot
        or is_cf_gateway
        or is_together
        or is_nvidia
        or is_ant_ling
        or is_zai
    )
    # Pi 1.6: the developer role is OpenAI's own; other hosts get system (0.85 sent developer to
    # every standard host's reasoning models). docs/pi-1.6/models.md, "Request bodies".
    is_openai = provider == "openai" or "api.openai.com" in url
    if is_deepseek:
        thinking_format = "deepseek"
    elif is_zai:
        thinking_format = "zai"
    elif is_together:
        thinking_format = "together"
    elif is_ant_ling:
        thinking_format = "ant-ling"
    elif is_openrouter:
        thinking_format = "openrouter"
    else:
        thinking_format = "openai"
    return {
        "supportsStore": not non_standard,
        "supportsDeveloperRole": is_openai,
        "supportsReasoningEffort": not (
            is_grok or is_zai or is_moonshot or is_together or is_cf_gateway or is_nvidia or is_ant_ling
        ),
        "supportsUsageInStreaming": True,
        "supportsFinishReason": True,
        "maxTokensField": "max_tokens" if use_max_tokens else "max_completion_tokens",
        "requiresToolResultName": False,
        "requiresAssistantAfterToolResult": False,
        "requiresThinkingAsText": False,
        "requiresReasoningContentOnAssistantMessages": is_deepseek,
        "thinkingFormat": thinking_format,
        "openRouterRouting": {},
        "vercelGatewayRouting": {},
        "chatTemplateKwargs": {},
        "chatTemplateArgs": {},
        "zaiToolStream": False,
        "supportsThinkingTokenBudget": False,
        "thinkingTokenBudgetField": None,
        # Pi 1.6: strict tool schemas only where a model's compat says so.
        "supportsStrictMode": False,
        "supportsOpenAIGrammarTools": False,
        "cacheControlFormat": "anthropic"
        if provider == "openrouter" and model.id.startswith("anthropic/")
        else None,
        "sendSessionAffinityHeaders": is_openrouter,
        "deferredToolsMode": None,
        "sessionAffinityFormat": "openrouter" if is_openrouter else "openai",
        "supportsLongCacheRetention": not (
            is_together or is_cf_workers or is_cf_gateway or is_nvidia or is_ant_ling
        ),
    }


_NAMES = {
    "supportsStore": "supports_store",
    "supportsDeveloperRole": "supports_developer_role",
    "supportsReasoningEffort": "supports_reasoning_effort",
    "supportsUsageInStreaming": "supports_usage_in_streaming",
    "supportsFinishReason": "supports_finish_reason",
    "maxTokensField": "max_tokens_field",
    "requiresToolResultName": "requires_tool_result_name",
    "requiresAssistantAfterToolResult": "requires_assistant_after_tool_result",
    "requiresThinkingAsText": "requires_thinking_as_text",
    "requiresReasoningContentOnAssistantMessages": "requires_reasoning_content_on_assistant_messages",
    "thinkingFormat": "thinking_format",
    "openRouterRouting": "open_router_routing",
    "vercelGatewayRouting": "vercel_gateway_routing",
    "chatTemplateKwargs": "chat_template_kwargs",
    "chatTemplateArgs": "chat_template_args",
    "zaiToolStream": "zai_tool_stream",
    "supportsThinkingTokenBudget": "supports_thinking_token_budget",
    "thinkingTokenBudgetField": "thinking_token_budget_field",
    "supportsStrictMode": "supports_strict_mode",
    "supportsOpenAIGrammarTools": "supports_openai_grammar_tools",
    "cacheControlFormat": "cache_control_format",
    "sendSessionAffinityHeaders": "send_session_affinity_headers",
    "deferredToolsMode": "deferred_tools_mode",
    "sessionAffinityFormat": "session_affinity_format",
    "supportsLongCacheRetention": "supports_long_cache_retention",
}


def completions_compat(model: Model) -> CompletionsCompat:
    """Detected flags, each overridden by ``model.compat`` when it sets the key (non-null)."""
    detected = _detect(model)
    explicit = model.compat or {}
    values: dict[str, Any] = {}
    for key, name in _NAMES.items():
        value = explicit.get(key)
        values[name] = detected[key] if value is None else value
    if model.compat is not None:
        # Pi does not fall back to the detected routing when compat exists but omits it.
        values["open_router_routing"] = explicit.get("openRouterRouting") or {}
    values["vllm_priority"] = explicit.get("vllmPriority")
    for key, name in _PI_16_FLAGS.items():
        if isinstance(explicit.get(key), bool):
            values[name] = explicit[key]
    if explicit.get("promptCacheKeyMode") in ("auto", "enabled", "disabled"):
        values["prompt_cache_key_mode"] = explicit["promptCacheKeyMode"]
    return CompletionsCompat(**values)


_PI_16_FLAGS = {
    "requiresNonNullAssistantContent": "requires_non_null_assistant_content",
    "requiresToolsWithToolHistory": "requires_tools_with_tool_history",
    "supportsMidConvoToolAdditions": "supports_mid_convo_tool_additions",
}
"""Compat keys Pi 1.6 added, read only when set (their defaults are the fields')."""


# --------------------------------------------------------------------------- headers


def request_headers(
    model: Model,
    context: Context,
    *,
    api_key: str,
    options_headers: Mapping[str, str | None] | None,
    session_id: str | None,
    compat: CompletionsCompat,
) -> dict[str, str]:
    """Headers in the OpenAI SDK's merge order (SDK defaults, auth, client defaults, body)."""
    client: dict[str, str | None] = {"User-Agent": pi_user_agent(), **(model.headers or {})}
    if model.provider == "github-copilot":
        client.update(copilot_dynamic_headers(conversation(context)))
    if session_id and compat.send_session_affinity_headers:
        if compat.session_affinity_format == "openrouter":
            client["x-session-id"] = session_id
        else:
            if compat.session_affinity_format == "openai":
                client["session_id"] = session_id
            client["x-client-request-id"] = session_id
            client["x-session-affinity"] = session_id
    if options_headers:
        client.update(options_headers)
    return openai_sdk_headers(api_key, client)


# --------------------------------------------------------------------------- messages

_MAX_ID = 40


def normalize_tool_call_id(model: Model) -> Any:
    """Foreign tool-call ids made acceptable: Responses ``call|item`` ids are folded into one
    sanitized id of at most 40 characters; OpenAI itself takes at most 40 characters."""

    def normalize(tool_call_id: str, _target: Model, _source: AssistantMessage) -> str:
        if "|" in tool_call_id:
            call_id, _, item_id = tool_call_id.partition("|")
            call_id = sanitize_id(call_id)
            item_id = sanitize_id(item_id)
            combined = f"{call_id}_{item_id}" if item_id else call_id
            if len(combined) <= _MAX_ID:
                return combined
            digest = short_hash(tool_call_id)[:8]
            return f"{call_id[: max(1, _MAX_ID - len(digest) - 1)]}_{digest}"
        if model.provider == "openai":
            return tool_call_id[:_MAX_ID]
        return tool_call_id

    return normalize


def _is_reasoning_detail(detail: Any) -> bool:
    if not isinstance(detail, dict):
        return False
    if not (
        (detail.get("id") is None or isinstance(detail.get("id"), str))
        and ("format" not in detail or isinstance(detail["format"], str))
        and ("index" not in detail or _is_number(detail["index"]))
    ):
        return False
    kind = detail.get("type")
    if kind == "reasoning.summary":
        return isinstance(detail.get("summary"), str)
    if kind == "reasoning.encrypted":
        return isinstance(detail.get("data"), str)
    if kind == "reasoning.text":
        return isinstance(detail.get("text"), str) and (
            detail.get("signature") is None or isinstance(detail.get("signature"), str)
        )
    return False


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_reasoning_detail(detail: Any) -> bool:
    """An OpenRouter ``reasoning_details`` entry Pi keeps (summary, encrypted or text)."""
    return _is_reasoning_detail(detail)


def _parse_reasoning_details(signature: str | None) -> list[Any] | None:
    if not signature:
        return None
    try:
        parsed = json.loads(signature)
    except ValueError:
        return None
    if isinstance(parsed, list) and parsed and all(_is_reasoning_detail(item) for item in parsed):
        return parsed
    return None


def _parse_legacy_encrypted(signature: str | None) -> Any:
    if not signature:
        return None
    try:
        parsed = json.loads(signature)
    except ValueError:
        return None
    if (
        _is_reasoning_detail(parsed)
        and parsed.get("type") == "reasoning.encrypted"
        and isinstance(parsed.get("id"), str)
        and parsed["id"]
        and parsed["data"]
    ):
        return parsed
    return None


def _image_url(block: ImageContent) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"}}


_BRIDGE = {"role": "assistant", "content": "I have processed the tool results."}


def convert_messages(
    model: Model, context: Context, compat: CompletionsCompat, grammar_inputs: Mapping[str, str]
) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = []
    messages = transform_messages(context.messages, model, normalize_tool_call_id(model))
    role = "developer" if model.reasoning and compat.supports_developer_role else "system"
    if context.system_prompt:
        params.append({"role": role, "content": sanitize_surrogates(context.system_prompt)})
    folded = _request_tools(context, compat)[1]
    last_role: str | None = None
    index = 0
    system_index = 0
    while index < len(messages):
        message = messages[index]
        if isinstance(message, SystemMessage):
            _system_in_place(message, index, system_index >= folded, params=params, role=role, compat=compat)
            system_index += 1
            last_role = "system"
            index += 1
            continue
        if (
            compat.requires_assistant_after_tool_result
            and last_role == "toolResult"
            and isinstance(message, UserMessage)
        ):
            params.append(dict(_BRIDGE))
        if isinstance(message, UserMessage):
            if isinstance(message.content, str):
                params.append({"role": "user", "content": sanitize_surrogates(message.content)})
            else:
                parts = [
                    {"type": "text", "text": sanitize_surrogates(item.text)}
                    if isinstance(item, TextContent)
                    else _image_url(item)
                    for item in message.content
                ]
                if not parts:
                    index += 1
                    continue  # Pi leaves the last role unchanged for a skipped message
                params.append({"role": "user", "content": parts})
        elif isinstance(message, AssistantMessage):
            converted = _assistant(message, model, compat, grammar_inputs)
            if converted is None:
                index += 1
                continue
            params.append(converted)
        else:
            index, last_role = _tool_results(
                messages,
                index,
                params=params,
                model=model,
                context=context,
                compat=compat,
                grammar_inputs=grammar_inputs,
            )
            continue
        last_role = message.role
        index += 1
    return params


def _request_tools(context: Context, compat: CompletionsCompat) -> tuple[list[Tool] | None, int]:
    """The request's tool list and how many leading system messages it stands for: the context's
    tools when it carries no system messages (``prepare_context`` folded them), else the
    transcript's (new tools after the last removal or redefinition go in place when the model's
    compat has ``supportsMidConvoToolAdditions``)."""
    if not any(isinstance(message, SystemMessage) for message in context.messages):
        return context.tools, 0
    support: ToolSupport = "additions" if compat.supports_mid_convo_tool_additions else "none"
    declared, folded = transcript_tools(context.messages, support)
    return [tool_from_declaration(tool) for tool in declared], folded


def _system_in_place(
    message: SystemMessage,
    index: int,
    declares_tools: bool,
    *,
    params: list[dict[str, Any]],
    role: str,
    compat: CompletionsCompat,
) -> None:
    """A system message where it stands: its new tools (when past the folded ones), then its
    text (the whole prompt for a leading one, an update for a later one)."""
    added = (message.tools_added or []) if declares_tools else []
    if added:
        params.append({"role": "system", "tools": convert_tools([tool_from_declaration(t) for t in added], compat)})
    text = system_message_text(message) if index == 0 else render_system_message_update(message)
    if text:
        params.append({"role": role, "content": sanitize_surrogates(text)})


def _assistant(
    message: AssistantMessage, model: Model, compat: CompletionsCompat, grammar_inputs: Mapping[str, str]
) -> dict[str, Any] | None:
    out: dict[str, Any] = {
        "role": "assistant",
        "content": ""
        if compat.requires_assistant_after_tool_result or compat.requires_non_null_assistant_content
        else None,
    }
    text_parts = [
        {"type": "text", "text": sanitize_surrogates(block.text)}
        for block in message.content
        if isinstance(block, TextContent) and js_trim(block.text)
    ]
    text = "".join(part["text"] for part in text_parts)
    thinking = [block for block in message.content if isinstance(block, ThinkingContent)]
    calls = [block for block in message.content if isinstance(block, ToolCall)]
    signed_details = next(
        (
            details
            for details in (_parse_reasoning_details(block.thinking_signature) for block in thinking)
            if details is not None
        ),
        None,
    )
    legacy = [
        detail
        for detail in (_parse_legacy_encrypted(call.thought_signature) for call in calls)
        if detail is not None
    ]
    preserved = signed_details if signed_details is not None else (legacy or None)
    non_empty = [block for block in thinking if js_trim(block.thinking)]
    if non_empty:
        if compat.requires_thinking_as_text:
            joined = "\n\n".join(sanitize_surrogates(block.thinking) for block in non_empty)
            out["content"] = [{"type": "text", "text": joined}, *text_parts]
        else:
            if text:
                out["content"] = text
            if preserved is None:
                signature = non_empty[0].thinking_signature
                if model.provider == "opencode-go" and signature == "reasoning":
                    signature = "reasoning_content"
                if signature and signature in REASONING_FIELDS:
                    out[signature] = "\n".join(block.thinking for block in non_empty)
    elif text:
        out["content"] = text
    if calls:
        tool_calls: list[dict[str, Any]] = []
        for call in calls:
            prop = grammar_inputs.get(call.name)
            if prop is not None:
                tool_calls.append(
                    {
                        "id": call.id,
                        "type": "custom",
                        "custom": {
                            "name": call.name,
                            "input": sanitize_surrogates(grammar_tool_input(call.name, call.arguments, prop)),
                        },
                    }
                )
            else:
                tool_calls.append(
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": stringify(call.arguments)},
                    }
                )
        out["tool_calls"] = tool_calls
    if preserved is not None:
        out["reasoning_details"] = preserved
    if (
        compat.requires_reasoning_content_on_assistant_messages
        and model.reasoning
        and "reasoning_content" not in out
    ):
        out["reasoning_content"] = ""
    content = out["content"]
    if not content and "tool_calls" not in out:
        return None
    return out


def _tool_results(
    messages: Sequence[ContextMessage],
    start: int,
    *,
    params: list[dict[str, Any]],
    model: Model,
    context: Context,
    compat: CompletionsCompat,
    grammar_inputs: Mapping[str, str],
) -> tuple[int, str]:
    images: list[dict[str, Any]] = []
    deferred: list[str] = []
    index = start
    while index < len(messages) and isinstance(messages[index], ToolResultMessage):
        result = messages[index]
        assert isinstance(result, ToolResultMessage)
        text = content_text(result.content)
        has_images = any(isinstance(block, ImageContent) for block in result.content)
        body = text if text else "(see attached image)" if has_images else "(no tool output)"
        entry: dict[str, Any] = {
            "role": "tool",
            "content": sanitize_surrogates(body),
            "tool_call_id": result.tool_call_id,
        }
        if compat.requires_tool_result_name and result.tool_name:
            entry["name"] = result.tool_name
        params.append(entry)
        if compat.deferred_tools_mode == "kimi":
            deferred += [name for name in result.added_tool_names or () if name not in deferred]
        if has_images and "image" in model.input:
            images += [_image_url(block) for block in result.content if isinstance(block, ImageContent)]
        index += 1
    last_role = "toolResult"
    if images:
        if compat.requires_assistant_after_tool_result:
            params.append(dict(_BRIDGE))
        params.append(
            {
                "role": "user",
                "content": [{"type": "text", "text": "Attached image(s) from tool result:"}, *images],
            }
        )
        last_role = "user"
    if deferred:
        by_name = {tool.name: tool for tool in context.tools or ()}
        tools = [by_name[name] for name in deferred if name in by_name]
        if tools:
            params.append({"role": "system", "tools": convert_tools(tools, compat)})
    return index, last_role


def convert_tools(tools: Sequence[Tool], compat: CompletionsCompat) -> list[dict[str, Any]]:
    converted: list[dict[str, Any]] = []
    for tool in tools:
        grammar = resolve_grammar(tool, compat.supports_openai_grammar_tools)
        if grammar is not None:
            converted.append(
                {
                    "type": "custom",
                    "custom": {
                        "name": tool.name,
                        "description": tool.description,
                        "format": {
                            "type": "grammar",
                            "grammar": {"syntax": grammar.format, "definition": grammar.definition},
                        },
                    },
                }
            )
            continue
        strict = resolve_strict(tool, compat.supports_strict_mode)
        function: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool_parameters(tool, strict),
        }
        if compat.supports_strict_mode:
            function["strict"] = strict if strict is not None else False
        converted.append({"type": "function", "function": function})
    return converted


# --------------------------------------------------------------------------- body


def _has_tool_history(messages: Sequence[Message]) -> bool:
    return any(
        isinstance(message, ToolResultMessage)
        or (
            isinstance(message, AssistantMessage)
            and any(isinstance(block, ToolCall) for block in message.content)
        )
        for message in messages
    )


def _add_cache_control(message: dict[str, Any], cache: dict[str, str]) -> bool:
    content = message.get("content")
    if isinstance(content, str):
        if not content:
            return False
        message["content"] = [{"type": "text", "text": content, "cache_control": cache}]
        return True
    if not isinstance(content, list):
        return False
    for part in reversed(content):
        if isinstance(part, dict) and part.get("type") == "text":
            part["cache_control"] = cache
            return True
    return False


def _apply_anthropic_cache_control(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, cache: dict[str, str]
) -> None:
    for message in messages:
        if message["role"] in ("system", "developer"):
            _add_cache_control(message, cache)
            break
    if tools:
        tools[-1]["cache_control"] = cache
    for message in reversed(messages):
        if message["role"] in ("user", "assistant", "tool") and _add_cache_control(message, cache):
            return


def _chat_template_values(
    model: Model, effort: str | None, values: Mapping[str, Any], budget: int | None
) -> dict[str, Any] | None:
    resolved: dict[str, Any] = {}
    level_map = model.thinking_level_map or {}
    for key, value in values.items():
        if not isinstance(value, dict):
            resolved[key] = value
            continue
        if not effort and value.get("omitWhenOff"):
            continue
        variable = value.get("$var")
        if variable == "thinking.enabled":
            resolved[key] = bool(effort)
        elif variable == "thinking.budget":
            if budget is not None:
                resolved[key] = budget
        else:
            lookup = effort if effort else "off"
            if lookup not in level_map:
                if effort is not None:
                    resolved[key] = effort
            elif isinstance(level_map[lookup], str):
                resolved[key] = level_map[lookup]
    return resolved or None


def _js_truthy(value: Any) -> bool:
    """JavaScript truthiness: empty objects and arrays are true, 0 and "" are false."""
    return value is not None and value is not False and value != 0 and value != ""


def _mapped(model: Model, level: str) -> Any:
    """``thinkingLevelMap[level] ?? level`` (a null entry falls back to the level itself)."""
    value = (model.thinking_level_map or {}).get(level)
    return value if value is not None else level


def build_params(
    model: Model, context: Context, options: Any, compat: CompletionsCompat, retention: str
) -> dict[str, Any]:
    request_tools = _request_tools(context, compat)[0]
    declared = [tool_from_declaration(tool) for tool in declared_tools(context.messages)] or context.tools
    inputs = grammar_input_properties(declared, compat.supports_openai_grammar_tools)
    messages = convert_messages(model, context, compat, inputs)
    cache: dict[str, str] | None = None
    if compat.cache_control_format == "anthropic" and retention != "none":
        cache = {"type": "ephemeral"}
        if retention == "long" and compat.supports_long_cache_retention:
            cache["ttl"] = "1h"
    params: dict[str, Any] = {"model": model.id, "messages": messages, "stream": True}
    long_supported = retention == "long" and compat.supports_long_cache_retention
    key_wanted = compat.prompt_cache_key_mode == "enabled" or (
        compat.prompt_cache_key_mode == "auto" and ("api.openai.com" in model.base_url or long_supported)
    )
    if retention != "none" and key_wanted:
        key = clamp_prompt_cache_key(options.session_id)
        if key is not None:
            params["prompt_cache_key"] = key
    if long_supported:
        params["prompt_cache_retention"] = "24h"
    if compat.supports_usage_in_streaming is not False:
        params["stream_options"] = {"include_usage": True}
    if compat.supports_store:
        params["store"] = False
    if options.max_tokens:
        params["max_tokens" if compat.max_tokens_field == "max_tokens" else "max_completion_tokens"] = (
            options.max_tokens
        )
    if options.temperature is not None:
        params["temperature"] = options.temperature
    deferred_names: set[str] = set()
    if compat.deferred_tools_mode == "kimi":
        for message in context.messages:
            if isinstance(message, ToolResultMessage):
                deferred_names.update(message.added_tool_names or ())
    active = (
        [tool for tool in request_tools or () if tool.name not in deferred_names]
        if request_tools is not None
        else None
    )
    if active:
        params["tools"] = convert_tools(active, compat)
        if compat.zai_tool_stream:
            params["tool_stream"] = True
    elif compat.requires_tools_with_tool_history and _has_tool_history(conversation(context)):
        params["tools"] = []
    if cache is not None:
        _apply_anthropic_cache_control(messages, params.get("tools"), cache)
    if options.tool_choice:
        params["tool_choice"] = options.tool_choice
    if compat.vllm_priority is not None:
        params["priority"] = compat.vllm_priority
    _apply_thinking(params, model, options, compat)
    explicit = model.compat or {}
    if _js_truthy(explicit.get("openRouterRouting")):
        params["provider"] = explicit["openRouterRouting"]
    routing = explicit.get("vercelGatewayRouting")
    if isinstance(routing, dict) and (_js_truthy(routing.get("only")) or _js_truthy(routing.get("order"))):
        gateway: dict[str, Any] = {}
        if _js_truthy(routing.get("only")):
            gateway["only"] = routing["only"]
        if _js_truthy(routing.get("order")):
            gateway["order"] = routing["order"]
        params["providerOptions"] = {"gateway": gateway}
    params.update(
        merge_sampling_params(model, options.reasoning_effort or "off", options.sampling_params) or {}
    )
    return params


def _apply_thinking(params: dict[str, Any], model: Model, options: Any, compat: CompletionsCompat) -> None:
    effort: str | None = options.reasoning_effort
    level_map = model.thinking_level_map or {}
    budget_field = compat.thinking_token_budget_field or (
        "thinking_token_budget" if compat.supports_thinking_token_budget else None
    )
    budget: int | None = None
    if effort and model.reasoning:
        ceiling = params.get("max_tokens") or params.get("max_completion_tokens") or model.max_tokens
        try:
            level_budget = thinking_budget_for_level(effort, options.thinking_budgets)
        except KeyError:  # an effort name without a budget: Pi's arithmetic gives NaN, no budget
            level_budget = None
        if level_budget is not None:
            clamped = clamp_thinking_budget_to_answer_room(level_budget, ceiling)
            budget = clamped if clamped > 0 else None
    thinking_format = compat.thinking_format
    if thinking_format == "ant-ling" and not effort:
        thinking_format = ""  # Pi's ant-ling branch only applies with an effort; fall through
    if not model.reasoning:
        pass
    elif thinking_format == "zai":
        params["thinking"] = {"type": "enabled", "clear_thinking": False} if effort else {"type": "disabled"}
        if effort and compat.supports_reasoning_effort:
            value = level_map.get(effort, effort)
            if isinstance(value, str):
                params["reasoning_effort"] = value
    elif thinking_format == "qwen":
        params["enable_thinking"] = bool(effort)
        if effort and compat.supports_reasoning_effort:
            params["reasoning_effort"] = _mapped(model, effort)
    elif thinking_format == "qwen-chat-template":
        params["chat_template_kwargs"] = {"enable_thinking": bool(effort), "preserve_thinking": True}
    elif thinking_format == "chat-template":
        values = _chat_template_values(model, effort, compat.chat_template_kwargs, budget)
        if values:
            params["chat_template_kwargs"] = values
    elif thinking_format == "baseten":
        values = _chat_template_values(model, effort, compat.chat_template_args, budget)
        if values:
            params["chat_template_args"] = values
        if compat.supports_reasoning_effort:
            lookup = effort if effort else "off"
            value = level_map.get(lookup, effort)
            if isinstance(value, str):
                params["reasoning_effort"] = value
    elif thinking_format == "deepseek":
        if effort:
            params["thinking"] = {"type": "enabled"}
        elif "off" not in level_map or level_map["off"] is not None:
            params["thinking"] = {"type": "disabled"}
        if effort and compat.supports_reasoning_effort:
            params["reasoning_effort"] = _mapped(model, effort)
    elif thinking_format == "openrouter":
        if effort:
            params["reasoning"] = {"effort": _mapped(model, effort)}
        elif "off" not in level_map or level_map["off"] is not None:
            off = level_map.get("off")
            params["reasoning"] = {"effort": off if off is not None else "none"}
    elif thinking_format == "ant-ling":
        if effort and isinstance(level_map.get(effort), str):
            params["reasoning"] = {"effort": level_map[effort]}
    elif thinking_format == "together":
        params["reasoning"] = {"enabled": bool(effort)}
        if effort and compat.supports_reasoning_effort:
            params["reasoning_effort"] = _mapped(model, effort)
    elif thinking_format == "string-thinking":
        if effort:
            params["thinking"] = _mapped(model, effort)
        elif "off" not in level_map or level_map["off"] is not None:
            off = level_map.get("off")
            params["thinking"] = off if off is not None else "none"
    elif effort and compat.supports_reasoning_effort:
        params["reasoning_effort"] = _mapped(model, effort)
    elif not effort and compat.supports_reasoning_effort and isinstance(level_map.get("off"), str):
        params["reasoning_effort"] = level_map["off"]
    if budget_field and budget is not None:
        params[budget_field] = budget
