"""Search results as the model reads them: one markdown list, the same for every engine."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SearchResult:
    title: str
    url: str
    snippet: str = ""
    date: str = ""


def format_results(results: list[SearchResult], numbered: bool = True) -> str:
    lines = []
    for index, result in enumerate(results, start=1):
        head = f"{index}. [{result.title}]({result.url})" if numbered else f"[{result.title}]({result.url})"
        if result.date:
            head += f" ({result.date})"
        lines.append(f"{head}\n{result.snippet}".rstrip())
    return "## Search Results\n\n" + "\n\n".join(lines)
