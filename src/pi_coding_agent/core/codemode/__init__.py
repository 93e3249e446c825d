"""The ``codemode`` tool (Pi 1.6): the model writes a JavaScript program that calls the other
tools in a QuickJS sandbox, and only the program's output reaches the model (docs/codemode.md).

Parts: the source format (``parse_source``), the sandbox (``run_script``: the VM on its own
thread, host calls, limits), the result layout, the description and loadout (``on`` / ``only``),
and ``CodemodeTool`` with its seam ``CodemodeHost`` (which tools scripts may call, their
exposure and namespaces, the ``store()`` entries).

Names are loaded on first access; the QuickJS binding only when a script runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_ai import lazy_attributes

if TYPE_CHECKING:
    from pi_coding_agent.core.codemode._catalog import CODEMODE_TOOL_NAME as CODEMODE_TOOL_NAME
    from pi_coding_agent.core.codemode._catalog import DEFAULT_INLINE_BUDGET as DEFAULT_INLINE_BUDGET
    from pi_coding_agent.core.codemode._catalog import Exposure as Exposure
    from pi_coding_agent.core.codemode._catalog import Loadout as Loadout
    from pi_coding_agent.core.codemode._catalog import Mode as Mode
    from pi_coding_agent.core.codemode._catalog import Namespace as Namespace
    from pi_coding_agent.core.codemode._catalog import ToolFacts as ToolFacts
    from pi_coding_agent.core.codemode._catalog import describe_codemode as describe_codemode
    from pi_coding_agent.core.codemode._catalog import prepare_loadout as prepare_loadout
    from pi_coding_agent.core.codemode._identifier import to_identifier as to_identifier
    from pi_coding_agent.core.codemode._models import ModelsAccess as ModelsAccess
    from pi_coding_agent.core.codemode._models import model_info as model_info
    from pi_coding_agent.core.codemode._sandbox import CallRejected as CallRejected
    from pi_coding_agent.core.codemode._sandbox import HostGlobal as HostGlobal
    from pi_coding_agent.core.codemode._sandbox import HostTool as HostTool
    from pi_coding_agent.core.codemode._sandbox import ScriptResult as ScriptResult
    from pi_coding_agent.core.codemode._sandbox import run_script as run_script
    from pi_coding_agent.core.codemode._source import CodemodeSourceError as CodemodeSourceError
    from pi_coding_agent.core.codemode._source import ScriptOptions as ScriptOptions
    from pi_coding_agent.core.codemode._source import parse_source as parse_source
    from pi_coding_agent.core.codemode._tool import STORE_ENTRY_TYPE as STORE_ENTRY_TYPE
    from pi_coding_agent.core.codemode._tool import CodemodeHost as CodemodeHost
    from pi_coding_agent.core.codemode._tool import CodemodeTool as CodemodeTool
    from pi_coding_agent.core.codemode._tool import read_store as read_store


__getattr__, __dir__ = lazy_attributes(globals())
