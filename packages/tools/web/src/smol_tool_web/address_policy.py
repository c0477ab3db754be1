"""The address policy web tools fetch under: smol's one policy, `smol_core.plugin_api.AddressPolicy`.

It lives in the core so that the web tools, the webagent's browser, the Hub/Space tools and the MCP
client all refuse the same addresses (see `smol_core.network.address_policy` for the rules). The
names stay importable from here for code written against this module.
"""

from __future__ import annotations

from smol_core.plugin_api import (
    ADDRESS_POLICY_ENV as ENV_VAR,
    AddressPolicy,
    AllowEntry,
    AllowSetting,
    address_class,
    literal_address,
)

__all__ = ["ENV_VAR", "AddressPolicy", "AllowEntry", "AllowSetting", "address_class", "literal_address"]
