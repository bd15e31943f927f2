"""Factories for every model, in one place."""

from functools import cache

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.utils.text import slugify
from factory.django import DjangoModelFactory

from games.models import Chunk, Extension, Game
from ingest.models import IngestJob
from questions.models import Question


PASSWORD = "correct horse battery staple"


@cache
def hashed_password() -> str:
    """The password hashed once per test process with the production hasher (PBKDF2, about half a
    second of CPU a hash): every user shares it, so creating a user costs no hashing, while
    signing in by password still checks a real hash (and the live servers can verify it)."""
    return make_password(PASSWORD)


class UserFactory(DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    password = factory.LazyFunction(hashed_password)


class StaffFactory(UserFactory):
    is_staff = True
    is_superuser = True


class GameFactory(DjangoModelFactory):
    class Meta:
        model = Game
        skip_postgeneration_save = True  # `rules` writes chunks, not the game

    name = factory.Sequence(lambda n: f"Jeu {n}")
    slug = factory.LazyAttribute(lambda g: slugify(g.name))
    language = "fr"

    @factory.post_generation
    def rules(self, create, extracted, **kwargs):
        """`GameFactory(rules=True)`: a game players can ask about, with a chunk of base rules
        (the home page and the chat offer only games and booklets with rules)."""
        if create and extracted:
            ChunkFactory(game=self)


class ExtensionFactory(DjangoModelFactory):
    class Meta:
        model = Extension
        skip_postgeneration_save = True  # `rules` writes chunks, not the extension

    game = factory.SubFactory(GameFactory)
    name = factory.Sequence(lambda n: f"Extension {n}")
    slug = factory.LazyAttribute(lambda e: slugify(e.name))
    kind = Extension.Kind.EXTENSION
    language = "en"

    @factory.post_generation
    def rules(self, create, extracted, **kwargs):
        """`ExtensionFactory(rules=True)`: a booklet the chat offers, with a chunk of its own."""
        if create and extracted:
            ChunkFactory(game=self.game, extension=self)


class ChunkFactory(DjangoModelFactory):
    class Meta:
        model = Chunk

    game = factory.SubFactory(GameFactory)
    extension = None
    collection = factory.LazyAttribute(lambda c: f"rules_{(c.extension or c.game).slug}")
    ordinal = factory.Sequence(lambda n: n)
    text = "Le joueur actif pioche deux cartes au début de son tour."
    page_start = 1
    page_end = 1


class IngestJobFactory(DjangoModelFactory):
    class Meta:
        model = IngestJob

    game = factory.SubFactory(GameFactory)
    extension = None
    booklet_kind = "base"


class QuestionFactory(DjangoModelFactory):
    class Meta:
        model = Question

    game = factory.SubFactory(GameFactory)
    text = "Combien de cartes pioche-t-on ?"
