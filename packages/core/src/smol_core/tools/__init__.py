"""Tools: the `Tool` base class, the `@tool` decorator, the base tools and tool collections."""
