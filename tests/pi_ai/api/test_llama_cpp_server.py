"""Our ``openai-completions`` adapter against a real llama-cpp-python server on 127.0.0.1 (SmolLM2):
with the local-server defaults a conversation with tool history works; without them it fails as
docs/providers/local-servers.md describes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

import pytest

from pi_ai import (
    AssistantMessage,
    Context,
    Model,
    StreamOptions,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    stream,
)
from tests.support.local_model import SMOKE_MODEL, model_file, require_source_runtime


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    runtime = require_source_runtime()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    launcher = (
        "import runpy, sys; "
        f"sys.path.insert(0, {str(runtime / 'first')!r}); sys.path.append({str(runtime / 'deps')!r}); "
        "sys.argv[0] = 'llama_cpp.server'; runpy.run_module('llama_cpp.server', run_name='__main__')"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", launcher, "--model", str(model_file(SMOKE_MODEL)), "--model_alias", "smol",
         "--n_ctx", "2048", "--n_threads", "1", "--host", "127.0.0.1", "--port", str(port)],
        env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, "llama_cpp.server exited"
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=5):
                    break
            except OSError:
                assert time.monotonic() < deadline, "llama_cpp.server did not start"
                time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


TOOLS = [Tool(name="read", description="Read a file", parameters={"type": "object", "properties": {"path": {"type": "string"}}})]


def _history() -> Context:
    call = ToolCall(id="call_1", name="read", arguments={"path": "notes.txt"})
    return Context(
        system_prompt="You are a helpful assistant.",
        messages=[
            UserMessage(content=[TextContent(text="What is in notes.txt?")], timestamp=0),
            AssistantMessage(content=[call], api="openai-completions", provider="llama-cpp-python", model="smol",
                             stop_reason="toolUse", timestamp=0),
            ToolResultMessage(tool_call_id="call_1", tool_name="read", content=[TextContent(text="buy milk")],
                              is_error=False, timestamp=0),
        ],
        tools=TOOLS,
    )


def _model(url: str, compat: dict[str, object] | None) -> Model:
    return Model(id="smol", name="smol", api="openai-completions", provider="llama-cpp-python", base_url=url,
                 input=["text"], context_window=2048, max_tokens=16, compat=compat)


async def test_a_tool_conversation_works_with_the_local_defaults(server_url: str) -> None:
    message = await stream(_model(server_url, {"supportsUsageInStreaming": False}), _history(),
                           StreamOptions(api_key="none", max_tokens=16)).result()
    assert message.stop_reason in ("stop", "length", "toolUse"), message.error_message
    assert message.content


async def test_without_them_the_server_refuses_pi_s_request_shape(server_url: str) -> None:
    off = {"sendTextContentAsString": False, "nullContentAsEmpty": False, "supportsUsageInStreaming": False,
           "maxTokensField": "max_completion_tokens"}
    message = await stream(_model(server_url, off), _history(), StreamOptions(api_key="none", max_tokens=16)).result()
    assert message.stop_reason == "error", message.error_message
    # content: null on the assistant tool-call message fails the server's request validation.
    assert (message.error_message or "").startswith("500:") and "'input': None" in (message.error_message or "")
