"""Agents: the multi-step loop and its two action styles (code and tool calls)."""
