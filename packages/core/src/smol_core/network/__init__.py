"""Network rules shared by every plugin that fetches: the address policy (`address_policy`) and an
httpx client that enforces it where connections open (`guarded_http`, whose errors are in `errors`,
importable without httpx). Plugins reach them through `smol_core.plugin_api`."""
