"""Floor 4 of 4, the top: how people and programs run the agent.

The ``pi`` command line (``cli``) and its run modes: ``print_mode`` (text and ``--mode json``),
``rpc`` (``--mode rpc`` and its Python client), ``interactive`` (the terminal UI), and
``batch`` (``pi batch``: many headless sessions). Each mode drives one ``AgentSession`` built
by the runtime floor and only talks to the user or the calling program.

May import: every lower floor (``runtime``, ``customize``, ``core``), ``pi_tui``, ``pi_agent``,
``pi_ai``. Nothing below imports this floor (the ``floors`` import contract).
"""
