"""Network rules shared by every plugin that fetches: the address policy (`address_policy`) and an
httpx client that enforces it where connections open (`guarded_http`). Plugins reach both through
`smol_core.plugin_api`."""
