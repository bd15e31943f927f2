"""A small two-booklet game for retrieval and answering tests: a French base game and an
English expansion whose overheating rule replaces the base one. Each page is one chunk.

`memory_store()` indexes it in a throw-away in-memory Qdrant or a given folder (no database);
`create_chunk_rows()` writes it as Chunk rows with real vectors (for the web process to sync).
"""

from __future__ import annotations

from rag.embeddings import EmbedderConfig, get_embedder
from rag.retrieve import BookletRef
from rag.sparse import document_vector
from rag.store import Point, open_store
from tests.support.memo_embedder import MemoEmbedder

BASE = BookletRef(collection="rules_course-folle", slug="course-folle", name="Course Folle", kind="base", language="fr")
EXPANSION = BookletRef(
    collection="rules_heavy-rain", slug="heavy-rain", name="Heavy Rain", kind="extension", language="en"
)

BASE_PAGES = {
    1: "Mise en place\nChaque joueur prend une voiture, un tableau de bord et trois cartes Vitesse. "
       "Placez les voitures sur la grille de départ dans l'ordre inverse de l'âge des joueurs.",
    2: "Tour de jeu\nLe joueur actif pioche deux cartes au début de son tour. "
       "Il peut ensuite jouer une carte Boost s'il n'a pas dépassé la limite de vitesse.",
    3: "Fin de partie\nLa partie s'arrête quand une voiture franchit la ligne d'arrivée. "
       "Le joueur dont la voiture est la plus avancée gagne la partie.",
    4: "Surchauffe\nLorsqu'un joueur dépasse la limite de vitesse dans un virage, "
       "il défausse une carte Chaleur pour chaque case de dépassement.",
    5: "Aspiration\nUne voiture qui termine son mouvement juste derrière une autre voiture "
       "peut avancer de deux cases supplémentaires gratuitement.",
}
EXPANSION_PAGES = {
    1: "Weather tiles\nAt the start of each round, reveal a weather tile. "
       "Rain reduces the speed limit of every corner by one.",
    2: "Tyres\nEach player chooses rain tyres or slick tyres before the race starts. "
       "Rain tyres ignore the first heat penalty in wet corners.",
    3: "Overheating in the rain\nWhen you exceed the speed limit in a wet corner, "
       "discard two Heat cards per space instead of one. This replaces the base game rule.",
}
OVERRIDE = {"conflict_type": "replaces", "conflict_base_page": 4, "conflict_summary": "Deux cartes Chaleur par case sous la pluie."}


def embedder():
    return get_embedder(EmbedderConfig())


_MEMO: list[MemoEmbedder] = []


def passage_vectors(texts: list[str]) -> list:
    """The real model's vectors of these passages, each computed once per test process: the
    corpus is fixed, and ~70 tests build it."""
    if not _MEMO:
        _MEMO.append(MemoEmbedder(embedder()))
    return list(_MEMO[0].embed_passages(texts))


def pages_of(booklet: BookletRef) -> dict[int, str]:
    return BASE_PAGES if booklet is BASE else EXPANSION_PAGES


def payload(booklet: BookletRef, page: int, text: str, **extra) -> dict:
    return {
        "chunk_id": f"{booklet.slug}-{page}",
        "collection": booklet.collection,
        "text": text,
        "contextual_text": "",
        "page_start": page,
        "page_end": page,
        "page_offsets": [[page, 0]],
        "hierarchy_path": text.split("\n", 1)[0],
        "is_forum_chunk": False,
        "is_extension": booklet.kind != "base",
        **extra,
    }


def memory_store(extra_points: dict[str, list[tuple[str, dict]]] | None = None, path=":memory:", engine: str = "local"):
    """Both booklets indexed in an in-memory store (or the `engine` store in the folder `path`);
    `extra_points` adds {collection: [(text, payload)]}."""
    import uuid

    store = open_store(path=path, engine=engine)
    model = embedder()
    for booklet in (BASE, EXPANSION):
        items = [
            (text, payload(booklet, page, text, **(OVERRIDE if booklet is EXPANSION and page == 3 else {})))
            for page, text in pages_of(booklet).items()
        ]
        items += (extra_points or {}).get(booklet.collection, [])
        vectors = passage_vectors([text for text, _ in items])
        store.ensure_collection(booklet.collection, model.dim)
        store.upsert(
            booklet.collection,
            [Point(str(uuid.uuid4()), vec, document_vector(text), meta) for (text, meta), vec in zip(items, vectors)],
        )
    return store


def create_chunk_rows(game, extension) -> None:
    """The same pages as Chunk rows of `game` (base) and `extension`, with vectors, marked changed."""
    from games.index_state import mark_changed
    from games.models import Chunk

    model = embedder()
    for owner, booklet, pages in ((None, BASE, BASE_PAGES), (extension, EXPANSION, EXPANSION_PAGES)):
        collection = (owner.booklet if owner else game.base_booklet).collection
        texts = list(pages.values())
        vectors = passage_vectors(texts)
        for ordinal, ((page, text), vector) in enumerate(zip(pages.items(), vectors)):
            chunk = Chunk(
                game=game,
                extension=owner,
                collection=collection,
                ordinal=ordinal,
                text=text,
                page_start=page,
                page_end=page,
                page_offsets=[[page, 0]],
                hierarchy_path=text.split("\n", 1)[0],
                payload=OVERRIDE if owner is not None and page == 3 else {},
                embedder=model.name,
                sparse=document_vector(text).as_dict(),
            )
            chunk.dense_vector = vector
            chunk.save()
        mark_changed(collection)
