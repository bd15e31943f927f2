"""The booklets of a question, as the ask flow and the answer renderer see them (no ORM)."""

from games.models import Game
from rag.retrieve import BookletRef


def booklet_ref(booklet) -> BookletRef:
    return BookletRef(
        collection=booklet.collection,
        slug=booklet.slug,
        name=booklet.name,
        kind=booklet.kind,
        images_dir=booklet.images_dir,
        language=booklet.language,
        id=str(booklet.owner.pk),
    )


def booklets_of(game: Game, extensions) -> list[BookletRef]:
    """The base booklet and the given extensions', in that order."""
    return [booklet_ref(game.base_booklet)] + [booklet_ref(ext.booklet) for ext in extensions]
