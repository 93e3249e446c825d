"""A custom message role: a notification shown to the user and never sent to the model.

After each turn a ``notification`` message says what the turn did. It is stored in the
session (a ``custom_message`` entry, which Pi reads too), its renderer draws it in the UI,
and its converter returns ``None``, so no request carries it, also after the session is
resumed. (Without the converter it would reach the model as user text, as in Pi.)
"""


def setup(pi):
    async def after_turn(event, ctx):
        count = len(event.tool_results)
        # trigger_turn=False: stored after this turn, without asking the model for another one
        await pi.send_message(
            "notification",
            f"Turn {event.turn_index + 1} finished ({count} tool results)",
            details={"tools": count},
            trigger_turn=False,
        )

    pi.on("turn_end", after_turn)
    pi.register_message_converter("notification", lambda message: None)
    pi.register_message_renderer("notification", lambda message, options: [f"🔔 {message.content}"])
