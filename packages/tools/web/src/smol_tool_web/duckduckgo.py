"""Read DuckDuckGo's two script-free result pages: `html.duckduckgo.com/html/` and `lite.duckduckgo.com/lite/`.

Both are plain HTML, stable for years, and need no API key, which is why smolagents used them.
Links on them go through a redirect (`//duckduckgo.com/l/?uddg=<target>`): the target is decoded so the
model sees (and can visit) the real address. Ads (`result--ad`, `result-sponsored`, `y.js` links) are
dropped.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

from smol_tool_web.results import SearchResult

# DuckDuckGo answers a suspected bot with HTTP 202 and this page, instead of results.
ANOMALY_MARKERS = ("anomaly-modal", "anomaly.js", "challenge-form")


def real_url(href: str) -> str:
    if href.startswith("//"):
        href = "https:" + href
    parts = urlsplit(href)
    if parts.netloc.endswith("duckduckgo.com") and parts.path == "/l/":
        target = parse_qs(parts.query).get("uddg")
        if target:
            return target[0]
    return href


def _is_ad(href: str) -> bool:
    return "duckduckgo.com/y.js" in href or "ad_domain=" in href


def _classes(attrs: list[tuple[str, str | None]]) -> set[str]:
    return set((dict(attrs).get("class") or "").split())


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


class _Parser(HTMLParser):
    """Collects (title, href, snippet, ad) records; subclasses say which tags open which field."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.records: list[dict[str, str | bool]] = []
        self.field: str | None = None
        self.field_tag: str | None = None
        self.depth = 0
        self.pending_ad = False

    def start_record(self, href: str) -> None:
        self.records.append(
            {"href": href, "title": "", "snippet": "", "link": "", "ad": self.pending_ad or _is_ad(href)}
        )
        self.pending_ad = False

    def open_field(self, tag: str, name: str) -> None:
        if self.records:
            self.field, self.field_tag, self.depth = name, tag, 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.field is not None and tag == self.field_tag:
            self.depth += 1
        self.on_start(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if self.field is not None and tag == self.field_tag:
            self.depth -= 1
            if self.depth == 0:
                self.field = None

    def handle_data(self, data: str) -> None:
        if self.field is not None and self.records:
            record = self.records[-1]
            record[self.field] = str(record[self.field]) + data

    def on_start(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        raise NotImplementedError

    def results(self) -> list[SearchResult]:
        found = []
        for record in self.records:
            title, href = _clean(str(record["title"])), str(record["href"])
            if record["ad"] or not title or not href:
                continue
            url = real_url(href)
            if not url.startswith("http"):
                url = "https://" + _clean(str(record["link"])) if record["link"] else url
            found.append(SearchResult(title, url, _clean(str(record["snippet"]))))
        return found


class HtmlResultsParser(_Parser):
    """`html.duckduckgo.com/html/`: `div.result` blocks with `a.result__a` and `.result__snippet`."""

    def on_start(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = _classes(attrs)
        if tag == "div" and "result" in classes:
            self.pending_ad = "result--ad" in classes
        elif tag == "a" and "result__a" in classes:
            self.start_record(dict(attrs).get("href") or "")
            self.open_field("a", "title")
        elif "result__snippet" in classes:
            self.open_field(tag, "snippet")
        elif tag == "a" and "result__url" in classes:
            self.open_field("a", "link")


class LiteResultsParser(_Parser):
    """`lite.duckduckgo.com/lite/`: table rows with `a.result-link`, `td.result-snippet`, `span.link-text`."""

    def on_start(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = _classes(attrs)
        if tag == "tr":
            self.pending_ad = "result-sponsored" in classes
        elif tag == "a" and "result-link" in classes:
            self.start_record(dict(attrs).get("href") or "")
            self.open_field("a", "title")
        elif tag == "td" and "result-snippet" in classes:
            self.open_field("td", "snippet")
        elif tag == "span" and "link-text" in classes:
            self.open_field("span", "link")


def parse_html_page(page: str) -> list[SearchResult]:
    parser = HtmlResultsParser()
    parser.feed(page)
    return parser.results()


def parse_lite_page(page: str) -> list[SearchResult]:
    parser = LiteResultsParser()
    parser.feed(page)
    return parser.results()


def is_anomaly_page(page: str) -> bool:
    return any(marker in page for marker in ANOMALY_MARKERS)
