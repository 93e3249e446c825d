"""The system prompt: our own wording, in Pi 1.6's named sections.

Pi 1.6 records the prompt in the session as named sections and patches them by name when one
changes (``core.messages.SystemMessage``), so ours has the same sections, in the same order:
``preamble`` (ours, or the user's ``--system-prompt`` / ``SYSTEM.md``, which then is the only
section of the base text), ``tools`` (one line per active tool), ``rules`` (how to work),
``docs`` (where pi's own documentation is), ``addendum`` (``--append-system-prompt`` /
``APPEND_SYSTEM.md``, joined by blank lines), ``project_context`` (the context files),
``skills`` (the skills the model may load, when ``read`` or ``bash`` is active) and ``cwd``.
Every section but the preamble is wrapped in ``<name>`` tags; the prompt text is the sections
joined by blank lines (pi-ai's ``getSystemMessageText``). Like Pi 1.6, there is no date.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pi_coding_agent.customize.skills import Skill, format_skills_for_prompt, skill_read_tool
from pi_coding_agent.customize.system_prompt._context_files import ContextFile

TOOL_SUMMARIES: Mapping[str, str] = {
    "read": "show a file's text (with offset and limit for long files) or an image",
    "bash": "run a shell command in the working directory and see its output",
    "edit": "replace an exact, unique piece of text in a file",
    "write": "create a file or replace its whole content",
    "grep": "search file contents for a pattern (respects .gitignore)",
    "find": "list files whose path matches a glob pattern (respects .gitignore)",
    "ls": "list the entries of a directory",
}
"""One line per built-in tool, shown in the default prompt."""


@dataclass
class SystemPromptOptions:
    cwd: str
    tools: Sequence[str] = ("read", "bash", "edit", "write")
    custom_prompt: str | None = None
    append: Sequence[str] = ()
    context_files: Sequence[ContextFile] = ()
    tool_summaries: Mapping[str, str] = field(default_factory=dict)
    """One-line summaries given by the tools themselves (they win over ``TOOL_SUMMARIES``)."""
    guidelines: Sequence[str] = ()
    """Advice the active tools ask for, in tool order."""
    skills: Sequence[Skill] = ()
    manual: str | None = None
    """The folder holding pi's ``README.md``, ``docs`` and ``examples`` (``core.paths.manual_dir``);
    ``None``: the prompt does not mention them."""


def _guidelines(tools: Sequence[str], extra: Sequence[str]) -> list[str]:
    lines: list[str] = []
    explorers = {"grep", "find", "ls"}
    if "bash" in tools and not explorers.intersection(tools):
        lines.append("Explore the project with bash (ls, rg, find) before changing it.")
    if "read" in tools and "edit" in tools:
        lines.append("Read a file before editing it, and keep edits small and exact.")
    for line in extra:
        text = line.strip()
        if text and text not in lines:
            lines.append(text)
    lines.append("Keep answers short; mention the paths of files you touched.")
    return lines


_TOPICS = (
    "extensions (docs/extensions.md, examples/extensions/)",
    "skills and prompt templates (docs/resources/README.md)",
    "packages and themes (docs/packages.md, examples/packages/)",
    "models.json and custom providers (docs/providers/models.md)",
    "signing in and API keys (docs/auth.md)",
    "command-line options (docs/cli.md)",
    "the terminal UI, its commands and keybindings (docs/tui/README.md)",
    "sessions (docs/sessions/README.md)",
    "driving pi from another program (docs/rpc.md)",
    "the Python SDK (docs/sdk.md)",
)


def _docs_section(manual: str) -> str:
    """Where pi's own documentation is, for questions about pi itself."""

    def real(name: str) -> str:
        return os.path.realpath(os.path.join(manual, name)).replace("\\", "/")

    docs = real("docs")
    base = os.path.dirname(docs)
    return (
        "About pi itself (read this documentation only when the user asks how pi works or how "
        "to extend or configure it: extensions, skills, prompt templates, themes, packages, models, "
        "the terminal UI, RPC or the SDK):\n"
        f"- Overview: {real('README.md')}\n"
        f"- Reference pages: {docs}\n"
        f"- Examples: {real('examples')} (extensions and a package)\n"
        f"- Paths below like docs/... and examples/... are relative to {base}, not to the working directory\n"
        f"- Where to look: {', '.join(_TOPICS)}\n"
        "- Read a page in full and follow its links to related pages before answering or changing anything"
    )


def _project_context(files: Sequence[ContextFile]) -> str:
    blocks = [f'<project_instructions path="{f.path}">\n{f.content}\n</project_instructions>' for f in files]
    return "\n\n".join(["Instructions from the project and the user's agent folder:", *blocks])


def _base_sections(options: SystemPromptOptions) -> dict[str, str]:
    """``preamble``, ``tools``, ``rules`` and ``docs`` of our own prompt."""
    summaries = {**TOOL_SUMMARIES, **options.tool_summaries}
    listed = [f"- {name}: {summaries[name]}" for name in options.tools if summaries.get(name)]
    sections = {
        "preamble": (
            "You are pi, a coding agent running in the user's terminal. You help with software "
            "work by inspecting files, running commands and changing code through your tools."
        ),
        "tools": ("\n".join(listed) if listed else "(no tools are enabled)")
        + "\n\nA project may give you further tools; use them when they fit.",
        "rules": "\n".join(f"- {line}" for line in _guidelines(options.tools, options.guidelines)),
    }
    if options.manual is not None:
        sections["docs"] = _docs_section(options.manual)
    return sections


def build_system_prompt_sections(options: SystemPromptOptions) -> dict[str, str]:
    """The prompt's named sections, in order, as Pi 1.6 records them (every section but the
    preamble wrapped in ``<name>`` tags)."""
    if options.custom_prompt is not None:
        sections = {"preamble": options.custom_prompt}
    else:
        sections = _base_sections(options)
    appended = "\n\n".join(text for text in options.append if text)
    if appended:
        sections["addendum"] = appended
    if options.context_files:
        sections["project_context"] = _project_context(options.context_files)
    read_tool = skill_read_tool(options.tools)
    skills = format_skills_for_prompt(options.skills, read_tool).strip() if read_tool is not None else ""
    if skills:
        sections["skills"] = skills
    sections["cwd"] = options.cwd.replace("\\", "/")
    return {
        name: text if name == "preamble" else f"<{name}>\n{text}\n</{name}>"
        for name, text in sections.items()
    }


def build_system_prompt(options: SystemPromptOptions) -> str:
    """The prompt text: the sections joined by blank lines (how a system message replays)."""
    return "\n\n".join(text for text in build_system_prompt_sections(options).values() if text)
