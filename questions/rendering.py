"""Turn a stored answer's markdown into safe HTML: citations become PDF links, card tags chips.

Model output and rulebook quotes are untrusted: markdown is rendered (CommonMark, raw HTML
shown as text), then nh3 keeps only a small allow-list of tags. Citations and card chips are
swapped for placeholders carrying a fresh random key before rendering, and rebuilt afterwards
with escaped values, so neither markdown nor the sanitiser ever sees (or can be tricked by)
their contents, and no text can forge one.

Bounded work whatever the text: markdown-it-py parses in about linear time with nesting capped
(MAX_NESTING: no recursion blow-up on a list nested 500 deep; such a text is shown as plain
text), only the first MAX_MARKDOWN_CHARS are parsed as markdown (the rest is shown as plain
text), and the regexes below have no nested repetition.
"""

import re
import secrets
from urllib.parse import urlencode

import nh3
from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from markdown_it import MarkdownIt

from rag.retrieve import BookletRef

# [Booklet, p.N : "quote"]  — also « quote », “quote”, a page range p.3-4, or no quote.
CITATION_RE = re.compile(
    r"\[(?P<booklet>[^\[\]\n]+?),\s*p(?:age|\.)?\s*(?P<page>\d{1,6})(?:\s*[-–]\s*\d+)?"
    r"(?:\s*:\s*(?P<quote>\"[^\"\n]*\"|«[^»\n]*»|“[^”\n]*”))?\s*\]"
)
CARD_RE = re.compile(r"\[\[card:(?P<name>[^\[\]\n]+?)\]\]")
MAX_MARKDOWN_CHARS = 20_000  # ~0.7 s for the worst text on a busy 2-core machine
MAX_NESTING = 20
_MARKDOWN = MarkdownIt("commonmark", {"html": False, "maxNesting": MAX_NESTING}).enable("table")

ALLOWED_TAGS = {
    "p", "br", "strong", "em", "b", "i", "code", "pre", "blockquote", "ul", "ol", "li",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "table", "thead", "tbody", "tr", "th", "td",
}


def find_booklet(name: str, booklets: list[BookletRef], cited: dict[str, str] | None = None) -> BookletRef | None:
    """The booklet a citation names: the exact name of a booklet today (case-insensitive);
    else, when the answer stored the booklets it was given (`cited`: their names then →
    slugs), the one of those it names — found by its slug if renamed since, not found at all
    if deleted since (never another booklet whose name the citation contains: the base
    game's, for « Heat — Heavy Rain »); else the longest name today the citation contains or
    is contained in (an answer stored without them)."""
    wanted = name.strip().casefold()
    for ref in booklets:
        if ref.name.casefold() == wanted:
            return ref
    then = {cited_name.casefold(): slug for cited_name, slug in (cited or {}).items() if cited_name and slug}
    named_then = [n for n in then if n == wanted] or [n for n in then if n in wanted or wanted in n]
    if named_then:
        slug = then[max(named_then, key=len)]
        return next((ref for ref in booklets if ref.slug == slug), None)
    containing = [ref for ref in booklets if ref.name.casefold() in wanted or wanted in ref.name.casefold()]
    return max(containing, key=lambda ref: len(ref.name), default=None)


def strip_quote_marks(quote: str | None) -> str:
    return (quote or "")[1:-1].strip()


def citation_html(match: re.Match, booklets: list[BookletRef], cited: dict[str, str] | None = None) -> SafeString:
    name, page = match["booklet"].strip(), int(match["page"])
    quote = strip_quote_marks(match["quote"])
    label = f"{name}, p.{page}"
    ref = find_booklet(name, booklets, cited)
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


def card_html(name: str) -> SafeString:
    # A button: focusable, Enter opens the card preview (static/oracle/cards.js).
    return format_html(
        '<button type="button" class="card-chip" data-card="{}" aria-haspopup="dialog"'
        ' aria-controls="card-popover" aria-expanded="false">{}</button>',
        name, name,
    )


def render_answer(text: str, booklets: list[BookletRef], cited: dict[str, str] | None = None) -> SafeString:
    """Markdown answer → sanitised HTML with citation links and card chips (`cited`:
    `find_booklet`)."""
    fragments: list[str] = []
    key = secrets.token_hex(8)  # unguessable: a placeholder in the text cannot be forged

    def stash(html: str) -> str:
        fragments.append(html)
        return f"ORACLEPH{key}N{len(fragments) - 1}X"

    placeholder = re.compile(rf"ORACLEPH{key}N(\d+)X")

    def card(match: re.Match) -> str:
        # A citation the model wrote inside a card tag (« [[card:Foudre [Règles, p.3]]] ») is
        # already a placeholder here: it leaves the chip's name and follows the chip.
        citations = [found[0] for found in placeholder.finditer(match["name"])]
        name = placeholder.sub("", match["name"]).strip()
        return (stash(card_html(name)) if name else "") + "".join(citations)

    text = CITATION_RE.sub(lambda m: stash(citation_html(m, booklets, cited)), text)
    text = CARD_RE.sub(card, text)
    html = nh3.clean(_markdown(text), tags=ALLOWED_TAGS, attributes={}, link_rel=None)
    return mark_safe(placeholder.sub(lambda m: fragments[int(m[1])], html))


def _markdown(text: str) -> str:
    """The first MAX_MARKDOWN_CHARS (up to a line end) as markdown, the rest as plain text.
    Markdown nested deeper than MAX_NESTING would lose its deepest lines: the whole text is
    then shown as plain text instead."""
    cut = len(text)
    if cut > MAX_MARKDOWN_CHARS:
        cut = text.rfind("\n", 0, MAX_MARKDOWN_CHARS)
        cut = cut if cut > 0 else MAX_MARKDOWN_CHARS
    tokens = _MARKDOWN.parse(text[:cut])
    if max((token.level for token in tokens), default=0) >= MAX_NESTING - 1:
        return _plain(text)
    html = _MARKDOWN.renderer.render(tokens, _MARKDOWN.options, {})
    return html + (_plain(text[cut:].strip("\n")) if cut < len(text) else "")


def _plain(text: str) -> str:
    return "<p>" + escape(text).replace("\n", "<br>") + "</p>"
