"""The footer: working directory, git branch and session name, then tokens, cache, cost,
context and model.

Totals are summed over every assistant message in the session file (and tool results
and summaries that report usage), as Pi's footer does; they are recomputed on
``refresh()`` (after each message), not on every frame.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from pi_coding_agent.app.interactive.components._git_branch import GitBranch
from pi_tui import terminal_safe, truncate_to_width, visible_width

if TYPE_CHECKING:
    from pi_coding_agent.customize.themes import Theme
    from pi_coding_agent.runtime.agent_session import AgentSession


def format_tokens(count: int) -> str:
    if count < 1000:
        return str(count)
    if count < 10000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    if count < 10_000_000:
        return f"{count / 1_000_000:.1f}M"
    return f"{round(count / 1_000_000)}M"


def format_cwd(cwd: str, home: str | None) -> str:
    if not home:
        return cwd
    relative = os.path.relpath(os.path.abspath(cwd), os.path.abspath(home))
    if relative == ".":
        return "~"
    if relative == ".." or relative.startswith(".." + os.sep) or os.path.isabs(relative):
        return cwd
    return f"~{os.sep}{relative}"


class Footer:
    def __init__(self, session: AgentSession, theme: Theme) -> None:
        self.session = session
        self.theme = theme
        self.auto_compact = True
        self.statuses: dict[str, str] = {}
        self.provider_count = 1
        self._totals = (0, 0, 0, 0, 0.0)
        self._cache_hit: float | None = None
        self._context_percent: float | None = 0.0
        self._cache: tuple[int, list[str]] | None = None
        self.git = GitBranch(session.session_manager.get_cwd())
        self.refresh()

    def refresh(self) -> None:
        from pi_ai import AssistantMessage

        input_tokens = output = cache_read = cache_write = 0
        cost = 0.0
        hit: float | None = None
        for entry in self.session.session_manager.get_entries():
            message = getattr(entry, "message", None)
            usage = getattr(message, "usage", None) if message is not None else getattr(entry, "usage", None)
            if usage is None or not hasattr(usage, "input"):
                continue
            input_tokens += usage.input
            output += usage.output
            cache_read += usage.cache_read
            cache_write += usage.cache_write
            cost += float(usage.cost.total)
            if isinstance(message, AssistantMessage):
                prompt = usage.input + usage.cache_read + usage.cache_write
                hit = usage.cache_read / prompt * 100 if prompt else None
        self._totals = (input_tokens, output, cache_read, cache_write, cost)
        self._cache_hit = hit
        # Pi's context figure: unknown ("?") after a compaction until the next answer.
        usage = self.session.get_context_usage()
        self._context_percent = 0.0 if usage is None else usage.percent
        self._cache = None

    def invalidate(self) -> None:
        self._cache = None

    @property
    def git_branch(self) -> str | None:
        """The branch shown after the working directory (``detached``, or ``None`` outside git)."""
        return self.git.name

    def poll_git_branch(self) -> bool:
        """Whether the branch changed (checked out elsewhere, or the session moved to another folder)."""
        if not self.git.poll(self.session.session_manager.get_cwd()):
            return False
        self._cache = None
        return True

    def render(self, width: int) -> list[str]:
        if self._cache is not None and self._cache[0] == width:
            return self._cache[1]
        lines = self._render(width)
        self._cache = (width, lines)
        return lines

    def _render(self, width: int) -> list[str]:
        theme = self.theme
        session = self.session
        manager = session.session_manager
        pwd = format_cwd(manager.get_cwd(), os.environ.get("HOME"))
        if self.git.name:
            pwd = f"{pwd} ({self.git.name})"
        name = manager.get_session_name()
        if name:
            pwd = f"{pwd} • {terminal_safe(name, keep_sgr=False)}"
        input_tokens, output, cache_read, cache_write, cost = self._totals
        parts = []
        if input_tokens:
            parts.append(f"↑{format_tokens(input_tokens)}")
        if output:
            parts.append(f"↓{format_tokens(output)}")
        if cache_read:
            parts.append(f"R{format_tokens(cache_read)}")
        if cache_write:
            parts.append(f"W{format_tokens(cache_write)}")
        if (cache_read or cache_write) and self._cache_hit is not None:
            parts.append(f"CH{self._cache_hit:.1f}%")
        if cost:
            parts.append(f"${cost:.3f}")
        model = session.model
        window = model.context_window if model is not None else 0
        auto = " (auto)" if self.auto_compact else ""
        if self._context_percent is None:
            context, percent = f"?/{format_tokens(window)}{auto}", 0.0
        else:
            percent = self._context_percent
            context = f"{percent:.1f}%/{format_tokens(window)}{auto}"
        parts.append(
            theme.fg("error", context)
            if percent > 90
            else theme.fg("warning", context)
            if percent > 70
            else context
        )
        left = " ".join(parts)
        if visible_width(left) > width:
            left = truncate_to_width(left, width, "...")
        right_plain = model.id if model is not None else "no-model"
        if model is not None and model.reasoning:
            level = session.thinking_level
            right_plain += " • thinking off" if level == "off" else f" • {level}"
        right = right_plain
        if self.provider_count > 1 and model is not None:
            with_provider = f"({model.provider}) {right_plain}"
            if visible_width(left) + 2 + visible_width(with_provider) <= width:
                right = with_provider
        left_width = visible_width(left)
        room = width - left_width
        if room >= visible_width(right) + 2:
            stats = left + " " * (room - visible_width(right)) + right
        elif room > 2:
            cut = truncate_to_width(right, room - 2, "")
            stats = left + " " * (room - visible_width(cut)) + cut
        else:
            stats = left
        lines = [
            truncate_to_width(theme.fg("dim", pwd), width, theme.fg("dim", "...")),
            theme.fg("dim", stats),
        ]
        if self.statuses:
            line = " ".join(" ".join(text.split()) for _, text in sorted(self.statuses.items()))
            lines.append(truncate_to_width(line, width, theme.fg("dim", "...")))
        return lines
