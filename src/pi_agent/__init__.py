"""pi_agent: the agent loop over an open AgentMessage union."""
