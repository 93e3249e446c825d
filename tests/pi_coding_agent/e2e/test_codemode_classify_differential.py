"""``models.classify()`` and ``models.generateImages()`` run, ours against Pi 1.6's CLI on the
same codemode script, with the classifier and image services scripted on 127.0.0.1
(``tests/support/model_services.py``) and reached through ``models.json`` entries of the
built-in ``typesafe`` and ``openrouter`` providers (their ``baseUrl`` replaces the catalog's,
as Pi does).

Also OpenAI's Decisions API (``openai`` provider) and Cloudflare Workers AI's ``/run``
(``cloudflare-workers-ai``, its ``{CLOUDFLARE_ACCOUNT_ID}`` placeholder filled from the
environment). One run each checks: the requests the services get (path, body, bearer key,
TypeSafe's image opt-in header; ``bool`` questions as ``noul`` or ``predicate``, images as
``assets``, ``image_url`` parts of the state, ``images`` data URLs or ``input_image`` parts, the
image prompt as one user message), the results the script sees (answers, usage priced from the
catalog, the error texts of refused requests and answers, generated text and image blocks), the catalog sizes and the classifier
models available with these two keys, which bad calls reject (the texts are ours), the
codemode result's nested call rows and summed usage in the session, and the note a script gets
when it shows no generated image (present in both; worded our own way)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours, run_pi
from tests.support.model_services import PNG, ModelServices
from tests.support.scripted_provider import ScriptedProvider, models_json

pytestmark = pytest.mark.timeout(300)

CODE = """// @options: {"max_output_tokens": 100000}
const png = { type: "image", data: "%PNG%", mimeType: "image/png" };
const questions = {
  sentiment: { type: "choice", instructions: "How does the writer feel?", criteria: { positive: "Pleased", negative: "Unhappy", neutral: "Neither" } },
  urgency: { type: "score", instructions: "How soon is a reply needed?", criteria: ["never", "this week", "today"] },
  spam: { type: "bool", instructions: "Is it spam?", criteria: { true: "Unsolicited", false: "Genuine" } },
};
const jev = await models.getModelOfType("classifier", "typesafe", "jev-latest");
const [plain, withImage, routed, refused] = await Promise.all([
  models.classify(jev, { state: { message: "Works great" }, questions }),
  models.classify({ provider: "typesafe", id: "jev-latest" }, { state: { page: "settings" }, images: [png], questions: { broken: questions.spam } }),
  models.classify({ provider: "openrouter", id: "~liquid/d1-latest" }, { state: { page: "home" }, images: [png], questions: { mood: questions.sentiment } }),
  models.classify(jev, { state: { fail: true }, questions: { spam: questions.spam } }),
]);
const luna = { provider: "openai", id: "gpt-6-luna" };
const [decided, decidedImage, decisionRefused, decisionFailed] = await Promise.all([
  models.classify(luna, { state: { message: "Works great", n: 1.5 }, questions }),
  models.classify(luna, { state: { page: "settings" }, images: [png], questions: { broken: questions.spam } }),
  models.classify(luna, { state: { note: "refuse" }, questions }),
  models.classify(luna, { state: { note: "fail" }, questions: { spam: questions.spam } }),
]);
const [clef, jevOnCloudflare, cloudflareFailed] = await Promise.all([
  models.classify({ provider: "cloudflare-workers-ai", id: "@cf/cloudflare/clef" }, { state: { m: 1 }, images: [png], questions }),
  models.classify({ provider: "cloudflare-workers-ai", id: "typesafe/jev" }, { state: { m: 2 }, images: [png], questions: { spam: questions.spam } }),
  models.classify({ provider: "cloudflare-workers-ai", id: "typesafe/jev" }, { state: { fail: 1 }, questions: { spam: questions.spam } }),
]);
const drawn = await models.generateImages({ provider: "openrouter", id: "google/gemini-2.5-flash-image" }, { input: [{ type: "text", text: "A red fox" }, png] });
const imageOnly = await models.generateImages({ provider: "openrouter", id: "black-forest-labs/flux.2-pro" }, { input: [{ type: "text", text: "A blue fox" }] });
const failedImage = await models.generateImages({ provider: "openrouter", id: "black-forest-labs/flux.2-pro" }, { input: [{ type: "text", text: "fail please" }] });
const rejects = [];
for (const call of [
  () => models.classify(jev, { state: {}, questions: {} }),
  () => models.classify(jev, { state: [], questions }),
  () => models.classify(jev, { state: {}, questions: { q: { type: "maybe", instructions: "x", criteria: {} } } }),
  () => models.classify(jev, { state: {}, images: [{ data: "x" }], questions }),
  () => models.classify(undefined, { state: {}, questions }),
  () => models.generateImages({ provider: "openrouter", id: "google/gemini-2.5-flash-image" }, { prompt: "fox" }),
  () => models.generateImages({ provider: "openrouter", id: "google/gemini-2.5-flash-image" }, { input: [{ type: "audio" }] }),
  () => models.generateImages(jev, { input: [{ type: "text", text: "x" }] }),
]) {
  try { await call(); rejects.push(false); } catch (error) { rejects.push(error instanceof Error); }
}
const clip = (result) => ({ ...result, timestamp: 0, output: result.output?.map((b) => b.type === "image" ? { ...b, data: b.data.length } : b) });
return {
  plain: clip(plain), withImage: clip(withImage), routed: clip(routed), refused: clip(refused),
  decided: clip(decided), decidedImage: clip(decidedImage), decisionRefused: clip(decisionRefused),
  decisionFailed: clip(decisionFailed), clef: clip(clef), jevOnCloudflare: clip(jevOnCloudflare),
  cloudflareFailed: clip(cloudflareFailed),
  drawn: clip(drawn), imageOnly: clip(imageOnly), failedImage: clip(failedImage), rejects,
  images: (await models.getModelsOfType("image")).length,
  classifiers: (await models.getModelsOfType("classifier")).length,
  available: (await models.getAvailableOfType("classifier")).map((m) => `${m.provider}/${m.id}`),
  jev,
};""".replace("%PNG%", PNG)


def _codemode_result(sandbox: Sandbox) -> dict[str, Any]:
    """The codemode tool result message of the run's session."""
    (session,) = sandbox.session_files()
    for line in session.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        message = entry.get("message") or {}
        if entry.get("type") == "message" and message.get("role") == "toolResult":
            return dict(message)
    raise AssertionError("no tool result in the session")


def _run(tmp_path: Path, program: str) -> dict[str, Any]:
    script = [
        {"tool_calls": [{"id": "call_1", "name": "codemode", "arguments": {"code": CODE}}]},
        {"text": "done"},
    ]
    with ScriptedProvider(script) as provider, ModelServices() as services:
        sandbox = Sandbox.create(tmp_path / program, provider.base_url)
        config = models_json(provider.base_url)
        config["providers"]["typesafe"] = {"baseUrl": f"{services.base_url}/ts/v1/", "apiKey": "ts-key"}
        config["providers"]["openrouter"] = {"baseUrl": f"{services.base_url}/or/api/v1", "apiKey": "or-key"}
        config["providers"]["openai"] = {"baseUrl": f"{services.base_url}/oa/v1", "apiKey": "oa-key"}
        cloudflare = f"{services.base_url}/cf/accounts/{{CLOUDFLARE_ACCOUNT_ID}}/ai"
        config["providers"]["cloudflare-workers-ai"] = {"baseUrl": cloudflare, "apiKey": "cf-key"}
        (sandbox.agent_dir / "models.json").write_text(json.dumps(config), encoding="utf-8")
        args = ("--model", OPENAI_MODEL, "--tools", "+codemode", "-p", "go")
        env = {"CLOUDFLARE_ACCOUNT_ID": "acct-1"}
        done = (
            run_pi(sandbox, *args, current=True, **env)
            if program == "pi"
            else run_ours(sandbox, *args, **env)
        )
        assert done.returncode == 0, done.stderr
        assert len(provider.requests) == 2, done.stderr
        text = provider.requests[1]["body"]["messages"][-1]["content"].replace(
            services.base_url, "<services>"
        )
        found = re.search(r"\n(\{.*\})", text, re.S)
        assert found is not None, text
        requests = sorted(
            (
                {
                    "path": request["path"],
                    "body": request["body"],
                    "authorization": request["headers"].get("authorization"),
                    "optIn": request["headers"].get("typesafe-danger-zone-images"),
                }
                for request in services.requests
            ),
            key=lambda request: json.dumps(request, sort_keys=True),
        )
        return {
            "value": json.loads(found.group(1)),
            "requests": requests,
            "result": _codemode_result(sandbox),
        }


def _rows(result: dict[str, Any]) -> list[tuple[str, str, str, Any]]:
    calls = result["details"]["calls"]
    return sorted(
        (call["id"].split("/", 1)[1], call["args"], call["status"], call.get("cost")) for call in calls
    )


def test_classify_and_generate_images_match_pi_1_6(tmp_path: Path) -> None:
    pi = _run(tmp_path, "pi")
    ours = _run(tmp_path, "ours")
    assert ours["requests"] == pi["requests"]
    assert ours["value"] == pi["value"]
    assert _rows(ours["result"]) == _rows(pi["result"])
    assert ours["result"]["usage"] == pi["result"]["usage"]

    value = ours["value"]
    assert value["plain"]["answers"] == {
        "sentiment": {"type": "choice", "choice": "positive", "probabilities": dict.fromkeys(["positive", "negative", "neutral"], 0.3333), "confidence": 0.75},
        "urgency": {"type": "score", "score": 1, "confidence": 0.5},
        "spam": {"type": "bool", "probability": 0.25},
    }  # fmt: skip
    assert value["refused"]["stopReason"] == "error"
    assert value["refused"]["errorMessage"].startswith("System One API error (400): ")
    assert value["failedImage"]["stopReason"] == "error"
    assert [block["type"] for block in value["drawn"]["output"]] == ["text", "image"]
    assert [block["type"] for block in value["imageOnly"]["output"]] == ["image"]
    assert value["rejects"] == [True] * 8
    assert (value["images"], value["classifiers"]) == (74, 81)
    assert value["available"][-1] == "typesafe/jev-latest" and len(value["available"]) == 51
    assert value["decided"]["answers"]["spam"] == {"type": "bool", "probability": 0.25}
    assert value["decisionRefused"]["errorMessage"] == "OpenAI Decisions refused to answer sentiment"
    assert value["decisionRefused"]["usage"]["input"] == 200  # billed all the same
    assert value["cloudflareFailed"]["errorMessage"] == "Cloudflare Workers AI error: the input was refused"
    assert value["clef"]["stopReason"] == value["jevOnCloudflare"]["stopReason"] == "stop"
    paths = [request["path"] for request in ours["requests"]]
    assert paths.count("/ts/v1/systemone") == 3 and paths.count("/or/api/v1/systemone") == 1
    assert paths.count("/oa/v1/decisions") == 4 and paths.count("/cf/accounts/acct-1/ai/run") == 3
    typesafe_image = next(r for r in ours["requests"] if r["optIn"] == "true")
    assert typesafe_image["body"]["state"][0] == "<image-1>" and "assets" in typesafe_image["body"]
    # refused requests have no usage, refused answers do
    assert ours["result"]["usage"]["input"] == 3 * 120 + 3 * 200 + 2 * 120 + 2 * 12
    texts = ["\n".join(block.get("text", "") for block in run["result"]["content"]) for run in (pi, ours)]
    assert all("generateImages()" in text for text in texts)  # the note: no image was shown
