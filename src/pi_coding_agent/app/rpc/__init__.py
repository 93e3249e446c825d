"""RPC: driving pi from another program over JSON lines (Pi 0.85's ``--mode rpc`` protocol).

``run_rpc_mode`` / ``RpcServer`` serve an ``AgentSessionRuntime`` on stdin/stdout;
``RpcClient`` starts ``pi --mode rpc`` (ours or Pi's) and drives it from Python. See
``docs/rpc.md`` for the protocol, our additions and an example for editor integrations.
The client is light to import: the server side loads only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_ai import lazy_attributes

if TYPE_CHECKING:
    from pi_coding_agent.app.rpc._client import RpcClient as RpcClient
    from pi_coding_agent.app.rpc._client import RpcError as RpcError
    from pi_coding_agent.app.rpc._jsonl import LineSplitter as LineSplitter
    from pi_coding_agent.app.rpc._jsonl import serialize_line as serialize_line
    from pi_coding_agent.app.rpc._server import RpcServer as RpcServer
    from pi_coding_agent.app.rpc._server import run_rpc_mode as run_rpc_mode
    from pi_coding_agent.app.rpc._ui import RpcExtensionUI as RpcExtensionUI


__getattr__, __dir__ = lazy_attributes(globals())
