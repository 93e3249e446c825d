"""Every ``models.json`` in docs/providers/local-servers.md loads, gives its model a context window
and an output cap, and makes requests of the shape local servers accept (sent to a server on
127.0.0.1 that stands in for each one at its documented path)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgspec
import pytest

from pi_ai import Context, SimpleStreamOptions, TextContent, UserMessage, stream_simple
from pi_coding_agent.core.model_registry import load_models_json
from tests.support.scripted_provider import ScriptedProvider

DOC = Path(__file__).resolve().parents[4] / "docs" / "providers" / "local-servers.md"
SERVERS = ("llama.cpp", "llama-cpp-python", "Ollama", "vLLM", "LM Studio")


def _documented() -> dict[str, dict[str, Any]]:
    """The ``models.json`` of each ``###`` section of the doc's per-server part."""
    text = DOC.read_text(encoding="utf-8").split("## A `models.json` per server", 1)[1]
    configs: dict[str, dict[str, Any]] = {}
    for section in re.split(r"^### ", text, flags=re.MULTILINE)[1:]:
        title = section.splitlines()[0]
        blocks = re.findall(r"```json\n(.*?)```", section, flags=re.DOTALL)
        assert len(blocks) == 1, title
        configs[title] = json.loads(blocks[0])
    return configs


def test_the_doc_has_a_config_for_each_server() -> None:
    titles = list(_documented())
    assert len(titles) == len(SERVERS)
    for server, title in zip(SERVERS, titles, strict=True):
        assert server in title


@pytest.mark.parametrize("title", list(_documented()))
async def test_a_documented_config_works_against_a_local_server(title: str, tmp_path: Path) -> None:
    config = _documented()[title]
    path = tmp_path / "models.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    registry = load_models_json(path)
    assert registry.error is None, registry.error
    ((provider, settings),) = config["providers"].items()
    ((entry,),) = [settings["models"]]
    model = registry.model(provider, entry["id"])
    assert model is not None
    assert model.context_window == entry["contextWindow"] > 0 and model.max_tokens == entry["maxTokens"] > 0
    documented = urlsplit(model.base_url)
    assert documented.hostname in ("127.0.0.1", "localhost")
    with ScriptedProvider([{"text": "ok"}]) as server:
        # The same URL path on a port of ours; a loopback host keeps the local-server defaults on.
        local = msgspec.structs.replace(model, base_url=f"{server.base_url}{documented.path}")
        context = Context(system_prompt="Be brief.", messages=[UserMessage(content=[TextContent(text="hi")], timestamp=0)])
        message = await stream_simple(local, context, SimpleStreamOptions(api_key=settings["apiKey"])).result()
        (request,) = server.requests
    assert message.stop_reason == "stop", message.error_message
    body = request["body"]
    assert body["model"] == entry["id"]
    assert body["max_tokens"] == entry["maxTokens"] and "max_completion_tokens" not in body
    assert body["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    assert request["headers"].get("authorization") == f"Bearer {settings['apiKey']}"
    usage_in_stream = config["providers"][provider].get("compat", {}).get("supportsUsageInStreaming", True)
    assert ("stream_options" in body) is usage_in_stream
