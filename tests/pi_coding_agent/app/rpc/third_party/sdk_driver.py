"""A user's script for pi-agent-python-sdk (PyPI; imported as ``pi_agent``), run in the SDK's own
virtual environment: ``python sdk_driver.py MODEL`` in the working directory, ``pi`` on PATH.

The SDK checks ``pi --version`` (at least 0.85.1, a bare version) before it starts ``pi --mode
rpc``; it reads the prompt's ``disposition`` and waits for ``agent_settled``. Prints what the
user saw as JSON: the version the SDK accepted, each run's text and stop reason, the streamed
text and the events' types of the second run, the session state after it, and what a few more
typed calls give (``bash``, session stats, the tree, ``clone``, ``new_session``).
"""

import json
import sys

from pi_agent import PiClient  # the SDK's package, not ours: this runs in the SDK's venv

provider, model = sys.argv[1].split("/", 1)
with PiClient(provider=provider, model=model) as pi:
    first = pi.run("Say hello")
    streamed = ""
    kinds = []
    with pi.stream("Read notes.txt") as stream:
        for event in stream:
            kinds.append(event.type)
            if event.text_delta is not None:
                streamed += event.text_delta
        second = stream.result()
    state = pi.get_state()
    # More of the SDK's typed calls, as a script would use them after a run.
    bash = pi.bash("echo hi")
    stats = pi.get_session_stats()
    tree = pi.get_tree()
    pi.set_session_name("demo")
    clone = pi.clone()
    fresh = pi.new_session()
    after = pi.get_state()
    print(
        json.dumps(
            {
                "version": pi.pi_version,
                "compatibility": pi.compatibility,
                "runs": [[first.text, first.stop_reason], [second.text, second.stop_reason]],
                "streamed": streamed,
                "kinds": sorted(set(kinds)),
                "tools": [m["toolName"] for m in second.messages if m.get("role") == "toolResult"],
                "messageCount": state["messageCount"],
                "bash": [bash["exitCode"], bash["output"]],
                "stats": [stats["userMessages"], stats["assistantMessages"], stats["toolCalls"], sorted(stats["tokens"])],
                "tree": sorted(tree),
                "clone": clone,
                "new": fresh,
                "afterNew": [after["messageCount"], after["sessionId"] != state["sessionId"]],
            }
        )
    )
