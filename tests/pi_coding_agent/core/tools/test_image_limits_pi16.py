"""A model's own image bounds (Pi 1.6's ``inputLimits.images.resize`` in models.json) shrink what
``read`` gives the model, as Pi 1.6 does: the same note, the same size and kind of image, compared
with Pi 1.6's CLI on the same file. Also the profile on its own: bounds left out keep the defaults,
and the smaller of PNG and JPEG is taken."""

from __future__ import annotations

import base64
import io
import json
import random
from pathlib import Path
from typing import Any

from PIL import Image

from pi_ai import ImageResize
from pi_coding_agent.core.tools import ResizeProfile, process_image
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider


def _noise_png(width: int, height: int) -> bytes:
    """A photograph-like image: JPEG is far smaller than PNG for it."""
    rng = random.Random(7)
    image = Image.frombytes("RGB", (width, height), bytes(rng.getrandbits(8) for _ in range(width * height * 3)))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _flat_png(width: int, height: int) -> bytes:
    """A flat drawing: PNG is far smaller than JPEG for it."""
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


def _size(data: str) -> tuple[int, int]:
    size: tuple[int, int] = Image.open(io.BytesIO(base64.b64decode(data))).size
    return size


def test_bounds_left_out_keep_the_defaults() -> None:
    profile = ResizeProfile.of(ImageResize(max_width=300))
    assert (profile.max_width, profile.max_height, profile.max_bytes, profile.jpeg_quality) == (
        300,
        2000,
        int(4.5 * 1024 * 1024),
        80,
    )
    assert ResizeProfile.of(None) == ResizeProfile()


def test_the_smaller_encoding_wins() -> None:
    profile = ResizeProfile.of(ImageResize(max_width=300, max_height=200))
    noisy = process_image(_noise_png(1200, 900), "image/png", profile=profile)
    flat = process_image(_flat_png(1200, 900), "image/png", profile=profile)
    assert (noisy.mime_type, _size(noisy.data)) == ("image/jpeg", (267, 200))
    assert (flat.mime_type, _size(flat.data)) == ("image/png", (267, 200))
    assert noisy.hints == [
        "[Image: original 1200x900, displayed at 267x200. Multiply coordinates by 4.49 to map to original image.]"
    ]


def _image_view(request: dict[str, Any]) -> dict[str, Any]:
    """The read result as the provider got it: the tool message's text and each image's kind and size."""
    messages = request["body"]["messages"]
    texts = [m["content"] for m in messages if m["role"] == "tool"]
    images = [
        part["image_url"]["url"]
        for m in messages
        if isinstance(m.get("content"), list)
        for part in m["content"]
        if part.get("type") == "image_url"
    ]
    shown = []
    for url in images:
        head, data = url.split(",", 1)
        shown.append({"kind": head, "size": _size(data)})
    return {"tool": texts, "images": shown}


def test_read_shrinks_to_the_models_bounds_as_pi_16(tmp_path: Path) -> None:
    oracle.require_live_oracle(current=True)
    turns = [{"tool_calls": [{"id": "c1", "name": "read", "arguments": {"path": "photo.png"}}]}, {"text": "seen"}]
    seen = {}
    for who in ("ours", "pi"):
        with ScriptedProvider(turns) as provider:
            box = Sandbox.create(tmp_path / who, provider.base_url)
            models = json.loads((box.agent_dir / "models.json").read_text(encoding="utf-8"))
            model = models["providers"]["scripted-openai"]["models"][0]
            model["input"] = ["text", "image"]
            model["inputLimits"] = {"images": {"resize": {"maxWidth": 300, "maxHeight": 200}}}
            (box.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
            (box.work / "photo.png").write_bytes(_noise_png(1200, 900))
            args = ("--model", OPENAI_MODEL, "-p", "look at photo.png")
            done = run_ours(box, *args) if who == "ours" else run_pi(box, *args, current=True)
            assert done.returncode == 0, (who, done.stderr)
            seen[who] = _image_view(provider.requests[1])
    assert seen["ours"] == seen["pi"]
    assert seen["ours"]["images"] == [{"kind": "data:image/jpeg;base64", "size": (267, 200)}]
