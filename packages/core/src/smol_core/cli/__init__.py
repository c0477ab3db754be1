"""Command-line entry points: `smolagent` (run an agent) and `smol` (plugins, doctor, plugin commands)."""
