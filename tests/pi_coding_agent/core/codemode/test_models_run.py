"""``models.classify()`` and ``models.generateImages()`` in the QuickJS sandbox, through the
codemode tool: contexts checked before anything runs (one line naming the problem), at most
four calls at once, each a nested call row with its model, status and cost, their usage summed
on the tool result, and the note for generated images the script never showed."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from pi_agent import AgentToolResult, ToolFailure
from pi_ai import AbortSignal, TextContent
from pi_coding_agent.core.codemode import CodemodeHost, CodemodeTool, ModelsAccess

JEV = {"type": "classifier", "id": "jev", "provider": "acme", "api": "typesafe-system-one", "input": ["text"]}
PAINTER = {
    "type": "image",
    "id": "painter",
    "provider": "acme",
    "api": "openrouter-images",
    "output": ["image"],
}
PNG = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
QUESTIONS = "{ q: { type: 'bool', instructions: 'spam?', criteria: { true: 'yes', false: 'no' } } }"


def _usage(tokens: int, cost: float) -> dict[str, Any]:
    return {
        "input": tokens, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": tokens + 1,
        "cost": {"input": cost, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost, "totalFromProvider": False},
    }  # fmt: skip


class Services:
    """The catalog of two models and a runner that answers from the context (no network)."""

    def __init__(self, gate: int = 0) -> None:
        self.ran: list[tuple[str, dict[str, Any], Any]] = []
        self.active = 0
        self.most = 0
        self.gate = gate
        self.opened = asyncio.Event()

    def access(self) -> ModelsAccess:
        catalog = {"classifier": [JEV], "image": [PAINTER], "chat": []}

        def of_type(kind: str, provider: str | None) -> list[dict[str, Any]]:
            return [entry for entry in catalog[kind] if provider in (None, entry["provider"])]

        async def available(kind: str, provider: str | None) -> list[dict[str, Any]]:
            return of_type(kind, provider)

        return ModelsAccess(models_of_type=of_type, available_of_type=available, run=self.run)

    async def run(self, method: str, model: dict[str, Any], context: Any, _signal: AbortSignal) -> Any:
        self.ran.append((method, model, context))
        self.active += 1
        self.most = max(self.most, self.active)
        if self.active >= self.gate:
            self.opened.set()
        await self.opened.wait()
        self.active -= 1
        if method == "generateImages":
            failed = "fail" in json.dumps(context)
            output = [] if failed else [{"type": "image", "data": PNG["data"], "mimeType": "image/png"}]
            stop = "error" if failed else "stop"
            return {
                "provider": "acme",
                "model": model["id"],
                "output": output,
                "stopReason": stop,
                "usage": _usage(10, 0.5),
            }
        if context["state"].get("fail"):
            return {
                "provider": "acme",
                "model": model["id"],
                "answers": {},
                "stopReason": "error",
                "errorMessage": "refused",
            }
        return {"provider": "acme", "model": model["id"], "answers": {"q": {"type": "bool", "probability": 0.5}},
                "stopReason": "stop", "usage": _usage(100, 0.25)}  # fmt: skip


async def _execute(services: Services, code: str) -> AgentToolResult[Any]:
    tool = CodemodeTool(CodemodeHost(models=services.access()))
    try:
        return await tool.execute("call_7", {"code": code}, None, None)
    except ToolFailure as failure:
        raise AssertionError(str(failure)) from None


def _value(result: AgentToolResult[Any]) -> Any:
    """The returned value: the last text of the result (a string as it is, else JSON)."""
    last = (
        [block.text for block in result.content if isinstance(block, TextContent)][-1]
        .strip()
        .splitlines()[-1]
    )
    return json.loads(last) if last[:1] in "[{" else last


async def test_calls_run_as_rows_with_summed_usage() -> None:
    services = Services()
    code = (
        "const jev = await models.getModelOfType('classifier', 'acme', 'jev');\n"
        f"const a = await models.classify(jev, {{ state: {{ m: 1 }}, questions: {QUESTIONS} }});\n"
        f"const b = await models.classify({{ provider: 'acme', id: 'jev', baseUrl: 'http://evil' }}, {{ state: {{ fail: 1 }}, questions: {QUESTIONS} }});\n"
        "const c = await models.generateImages({ provider: 'acme', id: 'painter' }, { input: [{ type: 'text', text: 'fox' }] });\n"
        "for (const block of c.output) image(block);\n"
        "return [a.answers.q.probability, b.stopReason, b.errorMessage, c.output.length];"
    )
    result = await _execute(services, code)
    assert _value(result) == [0.5, "error", "refused", 1]
    assert [model for _, model, _ in services.ran] == [
        JEV,
        JEV,
        PAINTER,
    ]  # the catalog's entry, never the script's
    rows = [{k: v for k, v in row.items() if k != "durationMs"} for row in result.details["calls"]]
    assert rows == [
        {
            "id": "call_7/models.classify/1",
            "name": "models.classify",
            "args": "acme/jev",
            "status": "ok",
            "cost": 0.25,
        },
        {
            "id": "call_7/models.classify/2",
            "name": "models.classify",
            "args": "acme/jev",
            "status": "error",
            "error": "refused",
        },
        {
            "id": "call_7/models.generateImages/3",
            "name": "models.generateImages",
            "args": "acme/painter",
            "status": "ok",
            "cost": 0.5,
        },
    ]
    assert result.usage is not None
    assert (result.usage.input, result.usage.total_tokens, result.usage.cost.total) == (110, 112, 0.75)
    assert result.usage.cost.total_from_provider is False
    assert not any(
        "generateImages()" in block.text for block in result.content if isinstance(block, TextContent)
    )


async def test_unshown_images_get_a_note() -> None:
    result = await _execute(
        Services(),
        "await models.generateImages({ provider: 'acme', id: 'painter' }, { input: [{ type: 'text', text: 'fox' }] }); return 'ok';",
    )
    last = result.content[-1]
    assert isinstance(last, TextContent)
    assert "1 generated image from models.generateImages()" in last.text and "image()" in last.text


async def test_at_most_four_calls_at_once() -> None:
    services = Services(gate=4)
    code = (
        "const jobs = [];\n"
        f"for (let i = 0; i < 7; i++) jobs.push(models.classify({{ provider: 'acme', id: 'jev' }}, {{ state: {{ i }}, questions: {QUESTIONS} }}));\n"
        "return (await Promise.all(jobs)).map((r) => r.stopReason);"
    )
    result = await _execute(services, code)
    assert _value(result) == ["stop"] * 7
    assert services.most == 4
    assert [row["status"] for row in result.details["calls"]] == ["ok"] * 7


@pytest.mark.parametrize(
    ("call", "problem"),
    [
        ("models.classify(jev, 'text')", "models.classify() takes a context object second, not a string."),
        (
            "models.classify(jev, { state: [], questions: Q })",
            "models.classify() needs context.state as an object, not an empty array.",
        ),
        (
            "models.classify(jev, { state: {}, images: {}, questions: Q })",
            "models.classify() needs context.images as an array, not {}.",
        ),
        (
            "models.classify(jev, { state: {}, images: [{ data: 'x' }], questions: Q })",
            "models.classify() needs context.images[0] as an image block, not { data }.",
        ),
        (
            "models.classify(jev, { state: {}, questions: {} })",
            "models.classify() needs context.questions mapping question ids to questions, not {}.",
        ),
        (
            "models.classify(jev, { state: {}, questions: { q: 3 } })",
            "models.classify() context.questions.q has to be a question object, not a number.",
        ),
        (
            "models.classify(jev, { state: {}, questions: { q: { type: 'bool', criteria: {} } } })",
            "models.classify() context.questions.q.instructions has to be a string.",
        ),
        (
            "models.classify(jev, { state: {}, questions: { q: { type: 'choice', instructions: 'x', criteria: { a: 1 } } } })",
            "models.classify() context.questions.q is a choice, so its criteria map each label to what it means (strings).",
        ),
        (
            "models.classify(jev, { state: {}, questions: { q: { type: 'score', instructions: 'x', criteria: [] } } })",
            "models.classify() context.questions.q is a score, so its criteria list the levels as strings, lowest first.",
        ),
        (
            "models.classify(jev, { state: {}, questions: { q: { type: 'bool', instructions: 'x', criteria: { true: 'y' } } } })",
            "models.classify() context.questions.q is a bool, so its criteria are { true: string, false: string }.",
        ),
        (
            "models.classify(jev, { state: {}, questions: { q: { type: 'maybe', instructions: 'x' } } })",
            'models.classify() context.questions.q.type is "maybe"; a question is "choice", "score" or "bool".',
        ),
        (
            "models.generateImages(painter, { prompt: 'fox' })",
            "models.generateImages() needs context.input as a non-empty array of blocks, not undefined.",
        ),
        (
            "models.generateImages(painter, { input: [{ type: 'audio' }] })",
            "models.generateImages() needs context.input[0] as a text or image block, not { type }.",
        ),
        (
            "models.classify(undefined, { state: {}, questions: Q })",
            "models.classify() takes a classifier model first, not undefined (models.getModelOfType() gives undefined for a model it does not know).",
        ),
    ],
)
async def test_bad_contexts_reject_before_running(call: str, problem: str) -> None:
    services = Services()
    code = (
        f"const jev = {{ provider: 'acme', id: 'jev' }}; const painter = {{ provider: 'acme', id: 'painter' }}; const Q = {QUESTIONS};\n"
        f"try {{ await {call}; return 'ran'; }} catch (error) {{ return error.message; }}"
    )
    message = _value(await _execute(services, code))
    assert message.startswith(problem), message
    assert "\n" not in message
    assert services.ran == []


async def test_failed_script_still_reports_its_model_usage() -> None:
    """Pi 1.6 returns a failed script's result with ``isError`` and the usage of the model calls
    it made before throwing; ours raises ``ToolFailure`` carrying that usage."""
    code = (
        f"await models.classify({{ provider: 'acme', id: 'jev' }}, {{ state: {{ m: 1 }}, questions: {QUESTIONS} }});\n"
        "throw new Error('stop here');"
    )
    tool = CodemodeTool(CodemodeHost(models=Services().access()))
    with pytest.raises(ToolFailure) as failed:
        await tool.execute("call_8", {"code": code}, None, None)
    assert "stop here" in str(failed.value)
    usage = failed.value.usage
    assert usage is not None
    assert (usage.input, usage.total_tokens, usage.cost.total) == (100, 101, 0.25)
    without = CodemodeTool(CodemodeHost(models=Services().access()))
    with pytest.raises(ToolFailure) as plain:
        await without.execute("call_9", {"code": "throw new Error('no calls');"}, None, None)
    assert plain.value.usage is None
