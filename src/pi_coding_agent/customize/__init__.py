"""Floor 2 of 4: what users add to the agent.

Extensions (and ``extensions.ui``, the interface through which they ask the user
something), packages, skills, prompt templates, themes, the system prompt and the files
that feed it; ``resources`` holds the pieces their loading shares (frontmatter, folder
walks, manifests, filters, diagnostics) and ``loader`` gathers one run's set of them.

May import: ``core``, ``pi_tui`` (themes and extension components), ``pi_agent``, ``pi_ai``.
Never ``runtime`` or ``app``.
"""
