"""Reading built pages back: tables, chart points and links (html.parser)."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse


class Page(HTMLParser):
    """The tables (id -> rows of cell texts), chart point classes, hrefs and
    element ids (the fragments a link may point to) of a page."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[str]]] = {}
        self.points: list[str] = []
        self.hrefs: list[str] = []
        self.scripts = 0
        self.ids: set[str] = set()
        self._table: str | None = None
        self._in_body = False
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._chart = False  # inside the rating-history chart (not its legend)
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"] or "")
        if tag == "script":
            self.scripts += 1
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"] or "")
        if tag == "table" and a.get("id"):
            self._table = a["id"]
            self.tables[self._table] = []
        elif tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body and self._table:
            self._row = []
        elif tag == "td" and self._row is not None:
            self._cell = []
        elif tag == "svg" and a.get("class") == "history":
            self._chart = True
        elif self._chart and tag in ("circle", "rect") and "pt" in (a.get("class") or "").split():
            self.points.append((a.get("class") or "").split()[1])

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self._chart = False
        if tag == "td" and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def read(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))


def broken_links(root: Path) -> tuple[set[Path], list[str]]:
    """Crawl every href from index.html: the pages reached and the links to
    files that do not exist (a 404 on a web server) or to a fragment (a
    game's ``#g-ID``) that their page does not hold."""
    seen: set[Path] = set()
    ids: dict[Path, set[str]] = {}
    todo = [root / "index.html"]
    broken = []
    while todo:
        page = todo.pop()
        if page in seen:
            continue
        seen.add(page)
        if page.suffix != ".html":
            continue
        for href in read(page).hrefs:
            url = urlparse(href)
            if url.scheme or url.netloc:
                broken.append(f"{page}: external link {href}")
                continue
            target = (page.parent / unquote(url.path)).resolve() if url.path else page
            if not target.is_file() or not target.is_relative_to(root.resolve()):
                broken.append(f"{page.relative_to(root)}: {href}")
                continue
            if target not in ids and target.suffix == ".html":
                ids[target] = read(target).ids
            if url.fragment and unquote(url.fragment) not in ids.get(target, set()):
                broken.append(f"{page.relative_to(root)}: {href} (no such fragment)")
            todo.append(target)
    return seen, broken
