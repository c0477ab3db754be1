"""`VisitWebpageTool`: read a page as markdown.

The methods import what they use themselves, so the tool's source can be saved and loaded on its own
(`validate_tool_attributes`).
"""

from __future__ import annotations

from smol_core.plugin_api import Tool
from smol_tool_web.address_policy import AllowSetting

TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript")


class VisitWebpageTool(Tool):
    name = "visit_webpage"
    description = "Visits a webpage at the given url and reads its content as a markdown string. Use this to browse webpages."
    inputs = {"url": {"type": "string", "description": "The url of the webpage to visit."}}
    output_type = "string"
    idempotent = True  # it reads: a search or a page fetched again after a crash changes nothing

    def __init__(
        self,
        max_output_length: int = 40000,
        timeout: float = 20.0,
        headers: dict[str, str] | None = None,
        allow_private_addresses: AllowSetting = False,
    ) -> None:
        """`allow_private_addresses`: `True`, or entries like `"127.0.0.1:8080"`, `"intranet.local"`,
        `"10.0.0.0/8"` that the model may fetch besides public addresses (see `address_policy`)."""
        from smol_tool_web.address_policy import AddressPolicy

        super().__init__()
        self.policy = AddressPolicy.parse(allow_private_addresses)
        self.max_output_length = max_output_length
        self.timeout = timeout
        self.headers = dict(headers or {})

    def forward(self, url: str) -> str:
        from smol_tool_web._http import WebToolError, request
        from smol_tool_web.page import html_to_markdown, truncate
        from smol_tool_web.visit import TEXT_TYPES

        url = url.strip()
        if "://" not in url:
            url = "https://" + url  # models often write "example.com/page"
        elif not url.startswith(("http://", "https://")):
            raise WebToolError(f"Only http(s) pages can be visited, not {url!r}.")
        response = request(
            "the page", "GET", url, timeout=self.timeout, headers=self.headers, policy=self.policy
        )
        content_type = response.headers.get("Content-Type", "").lower()
        body = response.text
        if "html" in content_type or (not content_type and "<html" in body[:2000].lower()):
            text = html_to_markdown(body, base_url=str(response.url))
        elif content_type.startswith(TEXT_TYPES) or not content_type:
            text = body.strip()
        else:
            kind = content_type.split(";")[0]
            raise WebToolError(f"{url} is {kind}, not a page that can be read as text.")
        if not text:
            return f"The page {url} has no readable text."
        return truncate(text, self.max_output_length)
