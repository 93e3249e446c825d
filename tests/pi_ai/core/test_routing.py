"""OpenCode's routing header (Pi 1.6's ``getOpenCodeSessionHeaders``): which requests get it and
which header wins. The end-to-end comparison with Pi 1.6 is
``tests/pi_coding_agent/app/rpc/test_pi16_summary_routing.py``."""

from __future__ import annotations

from pi_ai import Model, SimpleStreamOptions, StreamOptions
from pi_ai._routing import with_routing_headers


def _model(provider: str, base_url: str) -> Model:
    return Model(id="m", name="m", api="openai-completions", provider=provider, base_url=base_url)


def test_opencode_requests_carry_the_session_id() -> None:
    options = StreamOptions(session_id="s1", headers={"a": "b"})
    for model in (
        _model("opencode", "http://127.0.0.1:9/v1"),
        _model("opencode-go", "http://127.0.0.1:9/v1"),
        _model("mine", "https://opencode.ai/zen/v1"),  # a custom provider pointing at OpenCode
    ):
        assert with_routing_headers(model, options).headers == {"a": "b", "x-opencode-session": "s1"}
    simple = with_routing_headers(_model("opencode", "x"), SimpleStreamOptions(session_id="s2"))
    assert isinstance(simple, SimpleStreamOptions) and simple.headers == {"x-opencode-session": "s2"}


def test_other_requests_and_set_headers_are_left_alone() -> None:
    options = StreamOptions(session_id="s1")
    assert with_routing_headers(_model("openai", "https://opencode.ai.example.com/v1"), options) is options
    assert with_routing_headers(_model("opencode", "x"), StreamOptions()).headers is None
    mine = StreamOptions(session_id="s1", headers={"X-OpenCode-Session": "mine"})
    assert with_routing_headers(_model("opencode", "x"), mine) is mine
