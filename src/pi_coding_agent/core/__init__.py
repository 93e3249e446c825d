"""Floor 1 of 4, the bottom: what a coding agent is made of, with no run around it.

The session tree on disk (``session``), compaction and branch summaries, the product's
message roles and their projection for the model (``messages``), models and credentials
(``model_registry``, ``auth``), settings, the built-in tools, user bash, paths, the embedded
local model's setup and the HTML export of a session file.

May import: ``pi_agent``, ``pi_ai``. Never a higher floor, never ``pi_tui``.
"""
