"""One RPC scenario that uses every command of Pi 0.85's rpc.md, run by two drivers.

The scenario is data, so Pi's own ``RpcClient`` (``pi_driver.mjs``, Node) and ours
(``python_driver.py``) run exactly the same steps. Step kinds:

* ``{"call": method, "args": [...], "as": name?, "async": bool?}``: call the client's method
  (Pi's camelCase name; the Python driver uses the snake_case one). ``async`` starts it and
  moves on; ``{"await": name}`` records its result later. Arguments may be references
  ``{"$ref": [name, key, ...]}`` into an earlier result (entry ids, session paths).
* ``{"send": command}``: send a raw command through the client, record the raw response.
* ``{"raw": text}``: write a line to the agent's stdin as it is; its answer arrives as an event.
* ``{"waitFor": event type}``: wait for that event (counted from the last ``call``/``send``).

Every result and every event goes into one log, in arrival order; the test compares the
normalized logs. The provider answers in request order (``sequential``), one answer each.
"""

from __future__ import annotations

from typing import Any

IMAGE = {
    "type": "image",
    "data": "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==",
    "mimeType": "image/png",
}

STORY = "Once upon a time a small program learned to speak JSON, one line at a time, and never stopped."

SCRIPT: list[dict[str, Any]] = [
    {"text": "Hello! That is a tiny red image."},
    {"text": STORY, "chunk_delay": 0.04},
    {"text": "A shorter story: it spoke JSON."},
    {"text": "Summary: a program that speaks JSON."},
    {"text": STORY + " " + STORY, "chunk_delay": 0.04},
    {"thinking": "The user wants notes.txt; I will read it.",
     "tool_calls": [{"id": "call_read", "name": "read", "arguments": {"path": "notes.txt"}},
                    {"id": "call_bash", "name": "bash", "arguments": {"command": "echo a; sleep 0.3; echo b"}}]},
    {"text": "It says hi."},
    {"text": STORY, "chunk_delay": 0.04},
    {"text": "Shorter: it spoke JSON. I see the image."},
    {"text": "Stopped."},
    {"fail": [{"status": 503, "body": {"error": {"type": "overloaded_error", "message": "Overloaded"}}}],
     "text": "never served: the retry is aborted"},
]
SUMMARY = "## Goal\nTell stories over RPC."

SETTINGS = {"retry": {"enabled": False, "baseDelayMs": 30000}, "compaction": {"keepRecentTokens": 40}}


def ref(*path: Any) -> dict[str, Any]:
    return {"$ref": list(path)}


STEPS: list[dict[str, Any]] = [
    # State, models, thinking levels.
    {"call": "getState", "as": "initial"},
    {"call": "getAvailableModels"},
    {"call": "getAvailableThinkingLevels"},
    {"call": "setThinkingLevel", "args": ["high"]},
    {"call": "cycleThinkingLevel"},
    {"call": "setModel", "args": ["scripted-openai", "thinker"]},
    {"call": "getAvailableThinkingLevels"},
    {"call": "setThinkingLevel", "args": ["low"]},
    {"call": "cycleThinkingLevel"},
    {"call": "cycleModel"},
    {"call": "setModel", "args": ["scripted-openai", "scripted-model"]},
    {"call": "setModel", "args": ["nobody", "nothing"]},
    # Queue modes and switches.
    {"call": "setSteeringMode", "args": ["all"]},
    {"call": "setFollowUpMode", "args": ["one-at-a-time"]},
    {"call": "setAutoCompaction", "args": [False]},
    {"call": "setAutoRetry", "args": [False]},
    # A prompt with an image.
    {"call": "prompt", "args": ["What is in this image?", [IMAGE]]},
    {"waitFor": "agent_settled"},
    {"call": "getMessages"},
    {"call": "getLastAssistantText"},
    {"call": "getSessionStats"},
    {"call": "setSessionName", "args": ["RPC scenario"]},
    {"call": "bash", "args": ["echo one; echo two"]},
    # Steering and a follow-up while the answer streams; a prompt without behaviour is refused.
    {"call": "prompt", "args": ["Tell me a story"]},
    {"waitFor": "message_update"},
    {"call": "steer", "args": ["Make it shorter"]},
    {"call": "followUp", "args": ["Then summarize it"]},
    {"send": {"type": "prompt", "message": "Interrupting without a behaviour"}},
    {"waitFor": "agent_settled"},
    # A queued follow-up taken back, then the run aborted.
    {"call": "prompt", "args": ["Tell it twice"]},
    {"waitFor": "message_update"},
    {"call": "followUp", "args": ["never delivered"]},
    {"call": "clearQueue"},
    {"call": "abort"},
    # Manual compaction with instructions.
    {"call": "compact", "args": ["Keep the stories"]},
    {"call": "getState"},
    # Reading the session.
    {"call": "getEntries", "as": "entries"},
    {"call": "getEntries", "args": [ref("entries", "entries", 3, "id")]},
    {"call": "getEntries", "args": ["no-such-entry"]},
    {"call": "getTree"},
    {"call": "getForkMessages", "as": "forks"},
    {"call": "getSessionStats"},
    {"call": "exportHtml"},
    # Forking, cloning, a new session with a parent, switching back.
    {"call": "fork", "args": [ref("forks", 1, "entryId")]},
    {"call": "getState"},
    {"call": "getMessages"},
    {"call": "clone"},
    {"call": "getEntries"},
    {"call": "newSession", "args": [ref("initial", "sessionFile")]},
    {"call": "getState"},
    {"call": "switchSession", "args": [ref("initial", "sessionFile")]},
    {"call": "getState"},
    {"call": "getMessages"},
    # A user command whose output is truncated (its full output goes to a file).
    {"call": "bash", "args": ["printf 'hi\\n' > notes.txt; seq 1 3000"]},
    # Thinking and a tool call, on a reasoning model (xhigh is clamped to what it supports).
    {"call": "setModel", "args": ["scripted-openai", "thinker"]},
    {"call": "setThinkingLevel", "args": ["xhigh"]},
    {"call": "prompt", "args": ["Read notes.txt"]},
    {"waitFor": "agent_settled"},
    # prompt with a streaming behaviour while an answer streams; a steer with an image.
    {"call": "prompt", "args": ["Tell the story again"]},
    {"waitFor": "message_update"},
    {"send": {"type": "prompt", "message": "Shorter please", "streamingBehavior": "steer"}},
    {"call": "steer", "args": ["And look at this", [IMAGE]]},
    {"send": {"type": "prompt", "message": "Then stop", "streamingBehavior": "followUp"}},
    {"waitFor": "agent_settled"},
    {"call": "getSessionStats"},
    {"call": "getLastAssistantText"},
    {"call": "exportHtml", "args": ["exported.html"]},
    # A new session without a parent, and back.
    {"call": "newSession"},
    {"call": "getState"},
    {"call": "getMessages"},
    {"call": "switchSession", "args": [ref("initial", "sessionFile")]},
    # An automatic retry, cancelled during its backoff.
    {"call": "setAutoRetry", "args": [True]},
    {"call": "prompt", "args": ["This will fail"]},
    {"waitFor": "auto_retry_start"},
    {"call": "abortRetry"},
    {"waitFor": "agent_settled"},
    {"call": "abort"},
    # A long user command, cancelled.
    {"call": "bash", "args": ["echo started; sleep 20"], "async": True, "as": "long"},
    {"waitFor": "bash_execution_update"},
    {"call": "abortBash"},
    {"await": "long"},
    # Bad input and the rest.
    {"raw": "this is not json"},
    {"raw": '{"type": "set_session_name", "name": "odd \\ud800 name"}'},  # a lone surrogate, escaped
    {"raw": '{"type": "get_sta'},
    {"send": {"type": "no_such_command"}},
    {"send": {"type": "set_session_name", "name": "   "}},
    {"call": "getCommands"},
    {"call": "getState"},
]


def scenario() -> dict[str, Any]:
    return {"steps": STEPS}
