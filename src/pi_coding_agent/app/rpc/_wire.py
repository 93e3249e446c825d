"""JSON shapes RPC answers carry: Pi 0.85's (``rpc-types.ts``), built from our objects.

``JSON.stringify`` leaves out ``undefined`` values; where Pi's object has an optional field
that is not set, the key is left out here too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from pi_ai import Model, encode, to_builtins

if TYPE_CHECKING:
    from pi_coding_agent.core.bash import BashResult
    from pi_coding_agent.core.session import SessionManager, SessionTreeNode


def model_json(model: Model) -> dict[str, Any]:
    """A model as Pi's registry holds it: every field with its default filled in."""
    data: dict[str, Any] = {
        "id": model.id,
        "name": model.name,
        "api": model.api,
        "provider": model.provider,
        "baseUrl": model.base_url,
        "reasoning": model.reasoning,
    }
    if model.thinking_level_map is not None:
        data["thinkingLevelMap"] = dict(model.thinking_level_map)
    data["input"] = list(model.input)
    cost = model.cost
    data["cost"] = {
        "input": cost.input,
        "output": cost.output,
        "cacheRead": cost.cache_read,
        "cacheWrite": cost.cache_write,
    }
    if cost.tiers is not None:
        data["cost"]["tiers"] = to_builtins(cost.tiers)
    data["contextWindow"] = model.context_window
    data["maxTokens"] = model.max_tokens
    for key, value in (
        ("samplingParams", model.sampling_params),
        ("headers", model.headers),
        ("compat", model.compat),
    ):
        if value is not None:
            data[key] = value
    return data


def bash_result_json(result: BashResult) -> dict[str, Any]:
    data: dict[str, Any] = {"output": result.output}
    if result.exit_code is not None:
        data["exitCode"] = result.exit_code
    data["cancelled"] = result.cancelled
    data["truncated"] = result.truncated
    if result.full_output_path is not None:
        data["fullOutputPath"] = result.full_output_path
    return data


def tree_json(manager: SessionManager) -> msgspec.Raw:
    """``getTree()`` as JSON: ``{entry, children, label?, labelTimestamp?}`` nodes, entries as stored.

    Encoded here without recursion (a long linear session is a tree thousands of levels
    deep, more than a recursive encoder can nest) and embedded as raw JSON.
    """
    stored = {data.get("id"): data for data in manager.get_entries_data()}
    out = bytearray(b"[")
    roots = manager.get_tree()
    pending: list[tuple[SessionTreeNode, bool] | SessionTreeNode] = [
        (root, position == 0) for position, root in reversed(list(enumerate(roots)))
    ]
    while pending:
        item = pending.pop()
        if not isinstance(item, tuple):
            out += b"]"
            if item.label is not None:
                out += b',"label":' + encode(item.label)
            if item.label_timestamp is not None:
                out += b',"labelTimestamp":' + encode(item.label_timestamp)
            out += b"}"
            continue
        node, first = item
        if not first:
            out += b","
        out += b'{"entry":' + encode(stored.get(node.entry.id)) + b',"children":['
        pending.append(node)
        children = node.children
        pending.extend((child, position == 0) for position, child in reversed(list(enumerate(children))))
    out += b"]"
    return msgspec.Raw(bytes(out))
