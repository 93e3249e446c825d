"""What the transcript is made of: messages, tool runs, user commands, summaries, footer."""
