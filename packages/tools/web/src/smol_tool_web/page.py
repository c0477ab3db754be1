"""HTML to markdown the way a model wants to read it: the page's content, not its machinery.

Scripts, styles, navigation, footers and inline images are dropped; the main content is preferred
when the page marks it (`<main>`, one `<article>`); links are made absolute so the model can follow
them with another visit; long pages are cut at a paragraph boundary with a note saying how much was
left out.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin

_DROP = (
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "canvas",
    "iframe",
    "nav",
    "footer",
    "aside",
    "form",
)


def html_to_markdown(html: str, base_url: str = "") -> str:
    from bs4 import BeautifulSoup
    from markdownify import markdownify

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for element in soup.find_all(_DROP):
        element.decompose()
    for element in soup.find_all(True, attrs={"role": ["navigation", "banner", "contentinfo"]}):
        element.decompose()
    for image in soup.find_all("img"):
        if str(image.get("src", "")).startswith("data:"):
            image.decompose()
    if base_url:
        for tag, attribute in (("a", "href"), ("img", "src")):
            for element in soup.find_all(tag, attrs={attribute: True}):
                element[attribute] = urljoin(base_url, str(element[attribute]))
    root = _main_content(soup)
    text = markdownify(str(root), heading_style="ATX", bullets="-").strip()
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    if title and not text.startswith("# "):
        text = f"# {title}\n\n{text}"
    return text


def _main_content(soup: Any) -> Any:
    main = soup.find("main")
    if main is not None and len(main.get_text(strip=True)) >= 200:
        return main
    articles = soup.find_all("article")
    if len(articles) == 1 and len(articles[0].get_text(strip=True)) >= 200:
        return articles[0]
    return soup.body or soup


def truncate(text: str, limit: int) -> str:
    """At most about `limit` characters, cut after a paragraph (or line) rather than mid-sentence."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n\n", 0, limit)
    if cut < limit * 0.8:
        cut = text.rfind("\n", 0, limit)
    if cut < limit * 0.8:
        cut = limit
    return (
        text[:cut].rstrip()
        + f"\n\n..._Truncated: showing {cut:,} of {len(text):,} characters. The rest of the page was left "
        "out; search for a more specific page if you need it._"
    )
