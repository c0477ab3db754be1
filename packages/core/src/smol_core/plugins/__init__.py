"""The plugin system: hook specifications, typed records, and the registry that loads plugins."""
