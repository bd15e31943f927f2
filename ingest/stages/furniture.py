"""Running headers and footers leave the passage text; they stay on the chunk as metadata.

A booklet repeats its title, chapter name or « — 7 — » at the same place on every page. Left
in the text they open or close passages, get quoted as if they were rules, and tie a chunk to
a page it does not belong to. A line is furniture when it sits in the top or bottom margin
band of its page and the same line (digits aside) sits in that band on at least
MIN_PAGES pages and MIN_SHARE of the booklet's pages. The lines removed are kept on their
page (`Page.furniture`) and on each chunk of that page (payload `page_furniture`).
"""

from __future__ import annotations

import re
from collections import defaultdict

from .read import Page

MARGIN_BAND = 0.12  # the top and bottom 12% of a page
MAX_CHARS = 120  # a running line is short
MIN_PAGES = 3
MIN_SHARE = 0.3
_DIGITS_RE = re.compile(r"\d+")
# « 3. Setup », « 4.2 Drift »: a numbered section opening its page repeats « #. … » from page
# to page, digits aside, but it is a heading, never furniture (a footer's page number has no
# dot: « 12 Les Aéronautes », « — 7 — »).
_NUMBERED_HEADING_RE = re.compile(r"^\d+(?:\.\d+)*\.\s|^\d+(?:\.\d+)+\s")


def _may_run(text: str) -> bool:
    return len(text) <= MAX_CHARS and not _NUMBERED_HEADING_RE.match(text.strip())


def _key(text: str, band: str) -> str:
    return band + ":" + " ".join(_DIGITS_RE.sub("#", text).casefold().split())


def _band(top: float, bottom: float) -> str:
    if top < 0:
        return ""
    if bottom <= MARGIN_BAND:
        return "top"
    if top >= 1 - MARGIN_BAND:
        return "bottom"
    return ""


def drop_running_lines(pages: list[Page]) -> int:
    """Take the running headers and footers out of the pages' paragraphs; how many were taken."""
    seen: dict[str, set[int]] = defaultdict(set)
    for page in pages:
        for paragraph in page.paragraphs:
            band = _band(paragraph.top, paragraph.bottom)
            if band and _may_run(paragraph.text):
                seen[_key(paragraph.text, band)].add(page.number)
    needed = max(MIN_PAGES, MIN_SHARE * sum(1 for page in pages if page.paragraphs))
    running = {key for key, numbers in seen.items() if len(numbers) >= needed}
    removed = 0
    for page in pages:
        kept = []
        for paragraph in page.paragraphs:
            band = _band(paragraph.top, paragraph.bottom)
            if band and _may_run(paragraph.text) and _key(paragraph.text, band) in running:
                page.furniture.append(paragraph.text)
                removed += 1
            else:
                kept.append(paragraph)
        page.paragraphs = kept
    return removed


def attach(pages: list[Page], drafts) -> None:
    """Each chunk keeps the running lines of the pages it spans (payload `page_furniture`)."""
    by_page = {page.number: page.furniture for page in pages if page.furniture}
    for draft in drafts:
        lines = [line for number in range(draft.page_start, draft.page_end + 1) for line in by_page.get(number, [])]
        draft.page_furniture = list(dict.fromkeys(lines))
