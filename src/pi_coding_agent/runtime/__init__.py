"""Floor 3 of 4: one running session of the agent.

``agent_session`` holds ``AgentSession`` (prompting, queues, compaction, branching, model
and thinking control, user bash, persistence, extension binding) and the
``AgentSessionRuntime`` that replaces the session on ``/new``, ``/resume`` and ``/fork``;
it is assembled from settings, trust, resources and options in one place for every entry
point.

May import: ``customize``, ``core``, ``pi_agent``, ``pi_ai``. Never ``app`` or a terminal.
"""
