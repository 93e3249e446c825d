"""Two short pickers: ``/fork`` (a user message to start a new session before) and ``/trust``
(the trust decision to save for this folder or its parent)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pi_coding_agent.app.interactive.selectors._base import SelectorContext
from pi_coding_agent.core.settings import TrustChoice, trust_choices
from pi_tui import Container, Spacer, Text, truncate_to_width


class UserMessageList:
    MAX_SHOWN = 10

    def __init__(
        self, ctx: SelectorContext, messages: Sequence[tuple[str, str]], selected_id: str | None
    ) -> None:
        self.ctx = ctx
        self.messages = list(messages)
        ids = [entry_id for entry_id, _ in self.messages]
        self.selected = ids.index(selected_id) if selected_id in ids else max(0, len(ids) - 1)
        self.on_select: Callable[[str], None] | None = None
        self.on_cancel: Callable[[], None] | None = None

    def render(self, width: int) -> list[str]:
        theme = self.ctx.theme
        if not self.messages:
            return [theme.fg("muted", "  No user messages found")]
        count = len(self.messages)
        start = max(0, min(self.selected - self.MAX_SHOWN // 2, count - self.MAX_SHOWN))
        end = min(start + self.MAX_SHOWN, count)
        lines: list[str] = []
        for i in range(start, end):
            text = truncate_to_width(" ".join(self.messages[i][1].split("\n")).strip(), width - 2)
            chosen = i == self.selected
            lines.append((theme.fg("accent", "› ") + theme.bold(text)) if chosen else "  " + text)
            lines.append(theme.fg("muted", f"  Message {i + 1} of {count}"))
            lines.append("")
        if start > 0 or end < count:
            lines.append(theme.fg("muted", f"  ({self.selected + 1}/{count})"))
        return lines

    def handle_input(self, data: str) -> None:
        keys = self.ctx.keys
        count = len(self.messages)
        if keys.matches(data, "tui.select.up") and count:
            self.selected = count - 1 if self.selected == 0 else self.selected - 1
        elif keys.matches(data, "tui.select.down") and count:
            self.selected = 0 if self.selected == count - 1 else self.selected + 1
        elif keys.matches(data, "tui.select.confirm") and count and self.on_select is not None:
            self.on_select(self.messages[self.selected][0])
        elif keys.matches(data, "tui.select.cancel") and self.on_cancel is not None:
            self.on_cancel()

    def invalidate(self) -> None:
        return


class ForkSelector(Container):
    def __init__(
        self,
        ctx: SelectorContext,
        messages: Sequence[tuple[str, str]],
        on_select: Callable[[str], None],
        on_cancel: Callable[[], None],
    ) -> None:
        super().__init__()
        theme = ctx.theme
        self.list = UserMessageList(ctx, messages, messages[-1][0] if messages else None)
        self.list.on_select, self.list.on_cancel = on_select, on_cancel
        explanation = "Select a user message to copy the active path up to that point into a new session"
        for child in (Spacer(1), Text(theme.bold("Fork from Message"), 1, 0), Text(theme.fg("muted", explanation), 1, 0),
                      Spacer(1), ctx.border(), Spacer(1), self.list, Spacer(1), ctx.border()):  # fmt: skip
            self.add_child(child)

    def handle_input(self, data: str) -> None:
        self.list.handle_input(data)


class TrustSelector(Container):
    def __init__(
        self,
        ctx: SelectorContext,
        cwd: str,
        saved: tuple[str, bool] | None,
        trusted_now: bool,
        *,
        on_select: Callable[[TrustChoice], None],
        on_cancel: Callable[[], None],
    ) -> None:
        super().__init__()
        self.ctx = ctx
        self.options = trust_choices(cwd)
        self.saved = saved
        self.selected = next((i for i, option in enumerate(self.options) if self._is_saved(option)), 0)
        self.on_select, self.on_cancel = on_select, on_cancel
        theme = ctx.theme
        self.list = Container()
        hints = "  ".join((ctx.raw_hint("↑↓", "navigate"), ctx.hint("tui.select.confirm", "save"),
                           ctx.hint("tui.select.cancel", "cancel")))  # fmt: skip
        for child in (ctx.border(), Spacer(1), Text(theme.fg("accent", theme.bold("Project trust")), 1, 0),
                      Text(theme.fg("muted", cwd), 1, 0), Spacer(1),
                      Text(theme.fg("muted", f"Saved decision: {self._describe_saved()}"), 1, 0),
                      Text(theme.fg("muted", f"Current session: {'trusted' if trusted_now else 'untrusted'}"), 1, 0),
                      Spacer(1), self.list, Spacer(1), Text(hints, 1, 0), Spacer(1), ctx.border()):  # fmt: skip
            self.add_child(child)
        self._refresh()

    def _is_saved(self, option: TrustChoice) -> bool:
        return self.saved is not None and self.saved == (option.saved_path, option.trusted)

    def _describe_saved(self) -> str:
        if self.saved is None:
            return "none"
        path, decision = self.saved
        label = "trusted" if decision else "untrusted"
        folder = self.options[0].saved_path
        return f"{label} (inherited from {path})" if path != folder else f"{label} ({path})"

    def _refresh(self) -> None:
        theme = self.ctx.theme
        self.list.children = [
            Text((theme.fg("accent", "→ ") if i == self.selected else "  ")
                 + (theme.fg("accent", "✓ ") if self._is_saved(option) else "  ")
                 + theme.fg("accent" if i == self.selected else "text", option.label), 1, 0)
            for i, option in enumerate(self.options)
        ]  # fmt: skip

    def handle_input(self, data: str) -> None:
        keys = self.ctx.keys
        if keys.matches(data, "tui.select.up") or data == "k":
            self.selected = max(0, self.selected - 1)
        elif keys.matches(data, "tui.select.down") or data == "j":
            self.selected = min(len(self.options) - 1, self.selected + 1)
        elif keys.matches(data, "tui.select.confirm") or data == "\n":
            self.on_select(self.options[self.selected])
            return
        elif keys.matches(data, "tui.select.cancel"):
            self.on_cancel()
            return
        self._refresh()
