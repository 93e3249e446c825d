"""Run modes: one-shot print (text) and JSON event streams."""

from pi_coding_agent.app.print_mode._json_event import assistant_event_to_json, to_json_event
from pi_coding_agent.app.print_mode._print import PrintMode, run_print_mode

__all__ = ["PrintMode", "assistant_event_to_json", "run_print_mode", "to_json_event"]
