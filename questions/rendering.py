"""Turn an answer's markdown into safe HTML: citations become PDF links, card tags chips.

Model output and rulebook quotes are untrusted: markdown is rendered, then nh3 keeps only
a small allow-list of tags. Citations and card chips are swapped for opaque placeholders
before rendering and rebuilt afterwards with escaped values, so neither markdown nor the
sanitiser ever sees (or can be tricked by) their contents.
"""

import re
from dataclasses import dataclass
from urllib.parse import urlencode

import markdown
import nh3
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

# [Booklet, p.N : "quote"]  — also « quote », “quote”, a page range p.3-4, or no quote.
CITATION_RE = re.compile(
    r"\[(?P<booklet>[^\[\]\n]+?),\s*p(?:age|\.)?\s*(?P<page>\d+)(?:\s*[-–]\s*\d+)?"
    r"(?:\s*:\s*(?P<quote>\"[^\"\n]*\"|«[^»\n]*»|“[^”\n]*”))?\s*\]"
)
CARD_RE = re.compile(r"\[\[card:(?P<name>[^\[\]\n]+?)\]\]")
PLACEHOLDER_RE = re.compile(r"ORACLEPH(\d+)X")

ALLOWED_TAGS = {
    "p", "br", "strong", "em", "b", "i", "code", "pre", "blockquote", "ul", "ol", "li",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "table", "thead", "tbody", "tr", "th", "td",
}


@dataclass(frozen=True)
class BookletRef:
    """What a citation link needs to know about one booklet of the game."""

    id: str
    name: str


def booklet_refs(game) -> list[BookletRef]:
    refs = [BookletRef(id=str(game.pk), name=game.booklet_name or game.name)]
    refs += [BookletRef(id=str(ext.pk), name=ext.name) for ext in game.extensions.all()]
    return refs


def find_booklet(name: str, booklets: list[BookletRef]) -> BookletRef | None:
    """Exact name first (case-insensitive), then the longest name the citation contains."""
    wanted = name.strip().casefold()
    for ref in booklets:
        if ref.name.casefold() == wanted:
            return ref
    containing = [ref for ref in booklets if ref.name.casefold() in wanted or wanted in ref.name.casefold()]
    return max(containing, key=lambda ref: len(ref.name), default=None)


def strip_quote_marks(quote: str | None) -> str:
    return (quote or "")[1:-1].strip()


def citation_html(match: re.Match, booklets: list[BookletRef]) -> SafeString:
    name, page = match["booklet"].strip(), int(match["page"])
    quote = strip_quote_marks(match["quote"])
    label = f"{name}, p.{page}"
    ref = find_booklet(name, booklets)
    if ref is None:
        return format_html('<span class="citation citation-unknown" title="{}">{}</span>', quote, label)
    pdf_url = reverse("oracle-booklet-pdf", args=[ref.id]) + f"#page={page}"
    viewer_url = reverse("oracle-booklet-viewer", args=[ref.id]) + "?" + urlencode({"page": page, "q": quote})
    quote_html = format_html(' <q class="citation-quote">{}</q>', quote) if quote else ""
    return format_html(
        '<a class="citation" href="{}" data-viewer-url="{}" data-page="{}" data-booklet-id="{}"'
        ' title="{}">{}</a>{}',
        pdf_url, viewer_url, page, ref.id, _("Ouvrir le livret à cette page"), label, quote_html,
    )


def card_html(match: re.Match) -> SafeString:
    name = match["name"].strip()
    # A button: focusable, Enter opens the card preview (static/oracle/cards.js).
    return format_html(
        '<button type="button" class="card-chip" data-card="{}" aria-haspopup="dialog"'
        ' aria-controls="card-popover" aria-expanded="false">{}</button>',
        name, name,
    )


def render_answer(text: str, booklets: list[BookletRef]) -> SafeString:
    """Markdown answer → sanitised HTML with citation links and card chips."""
    fragments: list[str] = []

    def stash(html: str) -> str:
        fragments.append(html)
        return f"ORACLEPH{len(fragments) - 1}X"

    text = PLACEHOLDER_RE.sub("", text)  # nobody gets to forge a placeholder
    text = CITATION_RE.sub(lambda m: stash(citation_html(m, booklets)), text)
    text = CARD_RE.sub(lambda m: stash(card_html(m)), text)
    html = markdown.markdown(text, extensions=["sane_lists", "tables"])
    html = nh3.clean(html, tags=ALLOWED_TAGS, attributes={}, link_rel=None)
    return mark_safe(PLACEHOLDER_RE.sub(lambda m: fragments[int(m[1])], html))
