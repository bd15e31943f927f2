"""The booklets of a question, as the ask flow and the answer renderer see them (no ORM)."""

from games.models import Game
from games.terms import game_terms, rule_keywords_of
from rag.retrieve import BookletRef
from runtime import components


def booklet_ref(booklet, *, rule_keywords=None, terms=None, lexicon=None) -> BookletRef:
    return BookletRef(
        collection=booklet.collection,
        slug=booklet.slug,
        name=booklet.name,
        kind=booklet.kind,
        images_dir=booklet.images_dir,
        language=booklet.language,
        id=str(booklet.owner.pk),
        rule_keywords=rule_keywords or {},
        terms=terms,
        lexicon=lexicon,
    )


def booklets_of(game: Game, extensions, *, for_search: bool = True) -> list[BookletRef]:
    """The base booklet and the given extensions', in that order. `for_search` adds what
    retrieval needs (the rule keywords each booklet defines, the game's French ↔ English
    terms): two queries for all the booklets; the answer renderer, which only links pages,
    goes without."""
    booklets = [game.base_booklet] + [ext.booklet for ext in extensions]
    if not for_search:
        return [booklet_ref(booklet) for booklet in booklets]
    terms = game_terms(game)
    keywords = rule_keywords_of([booklet.collection for booklet in booklets])
    words = components.lexicon()  # BILINGUAL_DICTIONARY_DIR's, for the searches across languages
    return [booklet_ref(b, rule_keywords=keywords[b.collection], terms=terms, lexicon=words) for b in booklets]
