#!/usr/bin/env python3
"""Write the ``parse-stream`` cases for JavaScript's reading of odd provider events, and record
Pi's answers with the live oracle.

    .venv/bin/python tools/gen_stream_quirk_cases.py [NAME_FILTER]

One case per rule in docs/providers/streams.md ("Fields are read as JavaScript reads them"):
empty objects and arrays are present, wrong-typed fields are no-ops or text, reading through
null fails with V8's words. Each is the well-formed response of ``tests/support/stream_shapes``
with one event changed. Inputs go to ``tests/conformance/cases/parse-stream/quirk_*.json``, the
oracle's answers beside them (never edited by hand).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.support.cases import record_all
from tests.support.stream_shapes import REMOVE, base, request, spoiled


def _changed(api: str, index: int, path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    events = base(api)
    events[index] = spoiled(events[index], path, value)
    return request(api, events)


def _inserted(api: str, index: int, *new: Any) -> dict[str, Any]:
    events: list[Any] = base(api)
    events[index:index] = list(new)
    return request(api, events)


ANTHROPIC = "anthropic-messages"
COMPLETIONS = "openai-completions"
RESPONSES = "openai-responses"
GOOGLE = "google-generative-ai"


def _thread_event_request() -> dict[str, Any]:
    """A ``thread.*`` event carrying an error, which the OpenAI SDK wraps instead of throwing."""
    case = request(COMPLETIONS, base(COMPLETIONS))
    case["sse"] = 'event: thread.run.failed\ndata: {"error": {"message": "boom"}}\n\n' + case["sse"]
    return case


def _google_error_chunk_request() -> dict[str, Any]:
    """A whole-chunk error document whose ``code`` is a string: JavaScript compares it as 503."""
    case = request(GOOGLE, base(GOOGLE))
    case["sse"] = json.dumps({"error": {"code": "503", "message": "busy", "status": "UNAVAILABLE"}})
    return case


CASES: dict[str, dict[str, Any]] = {
    # Anthropic: blocks found by ``index ===``; ``event.delta.type`` and friends read as in JS.
    "quirk_anthropic_delta_true_is_ignored": _changed(ANTHROPIC, 6, ("delta",), True),
    "quirk_anthropic_delta_null_is_a_type_error": _changed(ANTHROPIC, 6, ("delta",), None),
    "quirk_anthropic_event_data_null": _changed(ANTHROPIC, 6, (), None),
    "quirk_anthropic_text_delta_without_text_appends_undefined": _changed(ANTHROPIC, 6, ("delta", "text"), REMOVE),
    "quirk_anthropic_text_delta_number_appends_text": _changed(ANTHROPIC, 6, ("delta", "text"), 5),
    "quirk_anthropic_delta_without_index_reaches_first_stopped_block": _inserted(
        ANTHROPIC, 7, {"type": "content_block_delta", "delta": {"type": "thinking_delta", "thinking": " More."}}
    ),
    "quirk_anthropic_message_start_without_usage": _changed(ANTHROPIC, 0, ("message", "usage"), REMOVE),
    "quirk_anthropic_usage_text_is_ignored": _changed(ANTHROPIC, 12, ("usage",), "x"),
    "quirk_anthropic_usage_empty_object_keeps_counts": _changed(ANTHROPIC, 12, ("usage",), {}),
    "quirk_anthropic_partial_json_number_is_text": _changed(ANTHROPIC, 9, ("delta", "partial_json"), 5),
    "quirk_anthropic_content_block_null": _changed(ANTHROPIC, 5, ("content_block",), None),
    # Chat Completions (and the OpenAI SDK's Stream under Pi)
    "quirk_completions_error_empty_object_fails": _inserted(COMPLETIONS, 2, {"error": {}}),
    "quirk_completions_tool_calls_number_is_not_iterable": _changed(COMPLETIONS, 4, ("choices", 0, "delta", "tool_calls"), 5),
    "quirk_completions_tool_calls_text_iterates_characters": _changed(
        COMPLETIONS, 4, ("choices", 0, "delta", "tool_calls"), "ab"
    ),
    "quirk_completions_content_array_is_joined": _changed(COMPLETIONS, 2, ("choices", 0, "delta", "content"), [1, 2]),
    "quirk_completions_usage_empty_object_resets_counts": _changed(COMPLETIONS, 6, ("usage",), {}),
    "quirk_completions_finish_reason_true_is_an_error": _changed(COMPLETIONS, 5, ("choices", 0, "finish_reason"), True),
    "quirk_completions_thread_event_is_not_an_error": _thread_event_request(),
    "quirk_completions_tool_call_null_is_a_type_error": _changed(COMPLETIONS, 4, ("choices", 0, "delta", "tool_calls", 0), None),
    # Responses
    "quirk_responses_event_null_is_a_type_error": _changed(RESPONSES, 6, (), None),
    "quirk_responses_failed_with_empty_error_object": _inserted(
        RESPONSES, 13, {"type": "response.failed", "response": {"status": "failed", "error": {}}}
    ),
    "quirk_responses_text_signature_keeps_null_id": _changed(RESPONSES, 7, ("item", "id"), None),
    "quirk_responses_arguments_done_without_arguments": _changed(RESPONSES, 11, ("arguments",), REMOVE),
    "quirk_responses_arguments_done_number": _changed(RESPONSES, 11, ("arguments",), 7),
    "quirk_responses_summary_text_is_not_mappable": _changed(RESPONSES, 4, ("item", "summary"), "x"),
    "quirk_responses_text_delta_missing_appends_undefined": _changed(RESPONSES, 6, ("delta",), REMOVE),
    "quirk_responses_completed_output_not_iterable": _changed(RESPONSES, 13, ("response", "output"), 5),
    # Gemini (through @google/genai)
    "quirk_google_function_call_empty_object_is_a_call": _changed(GOOGLE, 2, ("candidates", 0, "content", "parts", 0, "functionCall"), {}),
    "quirk_google_usage_metadata_empty_object_resets": _changed(GOOGLE, 3, ("usageMetadata",), {}),
    "quirk_google_parts_number_is_not_iterable": _changed(GOOGLE, 1, ("candidates", 0, "content", "parts"), 5),
    "quirk_google_text_null_appends_null": _changed(GOOGLE, 1, ("candidates", 0, "content", "parts", 0, "text"), None),
    "quirk_google_part_null_is_a_type_error": _changed(GOOGLE, 1, ("candidates", 0, "content", "parts", 0), None),
    "quirk_google_candidates_object_reads_key_zero": _changed(GOOGLE, 1, ("candidates",), {"0": base(GOOGLE)[1]["candidates"][0]}),
    "quirk_google_error_chunk_code_text_compares_as_number": _google_error_chunk_request(),
}


def main(argv: list[str]) -> int:
    return record_all([("parse-stream", name, case) for name, case in CASES.items()], argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
