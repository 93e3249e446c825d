"""Our side of test_pi16_lifecycle.py (Pi's: ``ui_calls.ts``): every ``ctx.ui`` method at
``session_start``, each followed by a notify naming it and what it returned; ``session_shutdown``
recorded to ``PI_TEST_RECORD``; ``/bye`` calls ``ctx.shutdown()``."""

import json
import os


def setup(pi):
    def record(line):
        with open(os.environ["PI_TEST_RECORD"], "a", encoding="utf-8") as file:
            file.write(line + "\n")

    async def started(event, ctx):
        ui = ctx.ui
        calls = [
            ("on_terminal_input", lambda: callable(ui.on_terminal_input(lambda data: False)) and "function"),
            ("set_working_message", lambda: ui.set_working_message("busy")),
            ("set_working_visible", lambda: ui.set_working_visible(False)),
            ("set_working_indicator", lambda: ui.set_working_indicator({"frames": ["."]})),
            ("set_hidden_thinking_label", lambda: ui.set_hidden_thinking_label("hidden")),
            ("set_widget_lines", lambda: ui.set_widget("w", ["one", "two"], "belowEditor")),
            ("set_widget_factory", lambda: ui.set_widget("f", lambda tui, theme: None)),
            ("set_widget_none", lambda: ui.set_widget("w", None)),
            ("set_footer", lambda: ui.set_footer(None)),
            ("set_header", lambda: ui.set_header(None)),
            ("set_title", lambda: ui.set_title("a title")),
            ("paste_to_editor", lambda: ui.paste_to_editor("pasted")),
            ("set_editor_text", lambda: ui.set_editor_text("typed")),
            ("get_editor_text", ui.get_editor_text),
            ("add_autocomplete_provider", lambda: ui.add_autocomplete_provider(lambda provider: provider)),
            ("set_editor_component", lambda: ui.set_editor_component(None)),
            ("get_editor_component", ui.get_editor_component),
            ("get_all_themes", ui.get_all_themes),
            ("get_theme", lambda: ui.get_theme("dark")),
            ("set_theme", lambda: ui.set_theme("light")),
            ("get_tools_expanded", ui.get_tools_expanded),
            ("set_tools_expanded", lambda: ui.set_tools_expanded(True)),
            ("set_status", lambda: ui.set_status("k", "v")),
        ]
        for name, call in calls:
            ui.notify(json.dumps([name, call()], separators=(",", ":")), "info")
        ui.notify(json.dumps(["custom", await ui.custom(lambda *args: None)], separators=(",", ":")), "info")

    def stopped(event, ctx):
        record(f"session_shutdown {event.reason}")

    async def bye(args, ctx):
        ctx.shutdown()

    pi.on("session_start", started)
    pi.on("session_shutdown", stopped)
    pi.register_command("bye", bye)
