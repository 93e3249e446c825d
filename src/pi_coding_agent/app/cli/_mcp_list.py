"""``pi mcp list``: connect every enabled server, print its state, tools and errors as Pi 1.6
prints them (or as JSON with ``--json``); exit 1 when an entry is invalid or an enabled server did
not connect."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_coding_agent.core.mcp import McpManager, load_mcp_config
from pi_coding_agent.core.mcp.config import (
    DEFAULT_EXPOSURE,
    McpServerEntry,
    is_http,
    project_config_path,
    tool_exposure,
)

_LIST_WAIT_S = 120.0


def _transport(entry: McpServerEntry) -> str:
    config = entry.config
    return (
        str(config["url"]) if is_http(config) else " ".join([config["command"], *(config.get("args") or [])])
    )


def _report(
    entry: McpServerEntry, state: str, tools: list[str], resources: bool, error: str | None
) -> dict[str, Any]:
    exposure = str(entry.config.get("exposure") or DEFAULT_EXPOSURE)
    report: dict[str, Any] = {"name": entry.name, "scope": entry.scope, "source": entry.source}
    if entry.override:
        report["override"] = entry.override
    report.update(enabled=entry.enabled, exposure=exposure, transport=_transport(entry))
    auth = entry.config.get("auth") if is_http(entry.config) else None
    if isinstance(auth, dict) and auth.get("provider"):
        report["authProvider"] = auth["provider"]
    report.update(state=state if entry.enabled else "disabled", tools=tools if entry.enabled else [])
    if not entry.enabled:
        return report
    overrides = {tool: tool_exposure(entry.config, tool) for tool in tools}
    overrides = {tool: value for tool, value in overrides.items() if value != exposure}
    if overrides:
        report["toolExposure"] = overrides
    if resources:
        report["resources"] = True
    if state != "connected" and error:
        report["error"] = error
    return report


def list_servers(agent_dir: Path, cwd: str, as_json: bool, trusted: bool, log: Callable[[str], None]) -> int:
    config = load_mcp_config(agent_dir, cwd, project_trusted=trusted)
    project = project_config_path(cwd)
    note = (
        f"{project} is ignored because the project is not trusted. Start pi in the project to trust it."
        if not trusted and os.path.exists(project)
        else None
    )
    from pi_coding_agent import PI_COMPAT_VERSION

    manager = McpManager(config, cwd, PI_COMPAT_VERSION, str(agent_dir / "mcp.log"), str(agent_dir))
    manager.start()
    try:
        manager.wait_until_settled(_LIST_WAIT_S)
        reports = [_report(r.entry, r.state, r.tools, r.has_resources, r.error) for r in manager.reports()]
    finally:
        manager.close()
    failed = bool(config.errors) or any(r["enabled"] and r["state"] != "connected" for r in reports)
    if as_json:
        log(
            json.dumps(
                {"servers": reports, "errors": config.errors, **({"note": note} if note else {})},
                indent=2,
                ensure_ascii=False,
            )
        )
        return 1 if failed else 0
    if not reports and not config.errors:
        log(f"No MCP servers configured. Add them to {os.path.join(agent_dir, 'mcp.json')} or .pi/mcp.json.")
    for report in reports:
        _print_report(report, log)
    for problem in config.errors:
        log(f"config error: {problem}")
    if note:
        log(note)
    return 1 if failed else 0


def _print_report(report: dict[str, Any], log: Callable[[str], None]) -> None:
    count = len(report["tools"])
    state = report["state"]
    shown = f"connected, {count} tool{'' if count == 1 else 's'}" if state == "connected" else state
    shown = "needs sign-in" if state == "needs-auth" else shown
    log(f"{report['name']}: {shown} ({report['exposure']}, {report['scope']})")
    log(f"  {report['transport']}")
    if report.get("override"):
        log(f"  project override: {report['override']}")
    if state == "needs-auth":
        provider = report.get("authProvider")
        log(f"  sign in with: /login {provider} in pi" if provider else f"  sign in with: pi mcp login {report['name']}")
    if report["tools"]:
        exposures = report.get("toolExposure") or {}
        log(
            "  tools: " + ", ".join(f"{t} [{exposures[t]}]" if t in exposures else t for t in report["tools"])
        )
    if report.get("resources"):
        log("  offers resources")
    if report.get("error"):
        log("  " + "\n  ".join(str(report["error"]).split("\n")))
