"""Games, their booklets and the chunks read from them.

A game's *base* booklet is the PDF stored on the Game itself; every other booklet
(expansion, advanced rules, FAQ) is an Extension. Each booklet has its own vector
collection (`rules_<slug>`) and its own page-images folder. Chunks are the source of truth:
the Qdrant collections are rebuilt from them (docs/architecture.md, decision 1).
"""

import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


def booklet_upload_path(instance, filename: str) -> str:
    return f"pdfs/{filename}"


def _has_chunks() -> models.Exists:  # of any of its booklets: one EXISTS, not a join made distinct
    return models.Exists(Chunk.objects.filter(game=models.OuterRef("pk")))


def _askable() -> models.Q:  # it has rules, or it is a card game with a catalogue
    cards = models.Exists(Card.objects.filter(game=models.OuterRef("pk")))
    return models.Q(_has_chunks()) | (~models.Q(card_game="") & models.Q(cards))


class GameQuerySet(models.QuerySet):
    def with_rules(self):
        """The games with chunks, of any of their booklets. A game whose only ingestion failed
        or was cancelled, or whose first one is still running, has none yet (a job's chunks are
        swapped in at its end, ingest.stages.index)."""
        return self.filter(_has_chunks())

    def askable(self):
        """The games players are offered (the home page, the chat): those `with_rules`, and the
        card games with a catalogue, whose cards and decks may be asked about before any of
        their booklets is read."""
        return self.filter(_askable())

    def with_askable_flag(self):
        """Each game with `is_askable`: whether `askable` would keep it (the ask API's lookup)."""
        return self.annotate(is_askable=models.ExpressionWrapper(_askable(), output_field=models.BooleanField()))

    def with_askable_booklets(self):
        """Each game with only its booklets that have chunks, as players see them: `extensions`
        holds the extensions that have, `base_has_rules` says whether its base booklet has."""
        own_chunks = Chunk.objects.filter(extension=models.OuterRef("pk"))
        extensions = Extension.objects.filter(models.Exists(own_chunks))
        base_chunks = Chunk.objects.filter(game=models.OuterRef("pk"), extension__isnull=True)
        return self.annotate(base_has_rules=models.Exists(base_chunks)).prefetch_related(
            models.Prefetch("extensions", queryset=extensions)
        )


class Game(models.Model):
    class CardGame(models.TextChoices):
        NONE = "", _("Pas un jeu de cartes à collectionner")
        MTG = "mtg", "Magic: The Gathering"
        FAB = "fab", "Flesh and Blood"
        RIFTBOUND = "riftbound", "Riftbound"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(_("nom"), max_length=200)
    slug = models.SlugField(_("identifiant"), max_length=80, unique=True)
    language = models.CharField(_("langue"), max_length=8, default="fr")
    description = models.TextField(_("description"), blank=True)
    bgg_id = models.PositiveIntegerField(_("identifiant BGG"), null=True, blank=True)
    bgg_metadata = models.JSONField(_("données BGG"), default=dict, blank=True)
    bgg_synced_at = models.DateTimeField(_("synchronisé avec BGG le"), null=True, blank=True)
    card_game = models.CharField(
        _("jeu de cartes"), max_length=16, choices=CardGame.choices, blank=True, default=""
    )
    booklet_name = models.CharField(
        _("nom du livret de base"),
        max_length=200,
        blank=True,
        help_text=_("Nom cité dans les réponses ; par défaut le nom du jeu."),
    )
    pdf = models.FileField(_("PDF du livret de base"), upload_to=booklet_upload_path, blank=True)
    pdf_pages = models.PositiveIntegerField(_("pages du PDF"), null=True, blank=True)
    created_at = models.DateTimeField(_("créé le"), auto_now_add=True)
    updated_at = models.DateTimeField(_("modifié le"), auto_now=True)

    objects = GameQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        verbose_name = _("jeu")
        verbose_name_plural = _("jeux")

    def __str__(self) -> str:
        return self.name

    @property
    def base_booklet(self) -> "Booklet":
        return Booklet(
            game=self,
            extension=None,
            slug=self.slug,
            name=self.booklet_name or self.name,
            kind="base",
            language=self.language,
        )

    def booklets(self) -> list["Booklet"]:
        return [self.base_booklet] + [ext.booklet for ext in self.extensions.all()]

    def has_something_to_ask(self) -> bool:
        """`GameQuerySet.askable`'s answer: the `is_askable` its lookup set, else the database's."""
        flag = self.__dict__.get("is_askable")
        return Game.objects.askable().filter(pk=self.pk).exists() if flag is None else flag


class Extension(models.Model):
    """A booklet of a game other than its base rules."""

    class Kind(models.TextChoices):
        EXTENSION = "extension", _("Extension")
        ADVANCED_RULES = "advanced_rules", _("Règles avancées")
        FAQ = "faq", _("FAQ")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="extensions", verbose_name=_("jeu"))
    name = models.CharField(_("nom"), max_length=200)
    slug = models.SlugField(_("identifiant"), max_length=80, unique=True)
    kind = models.CharField(_("type"), max_length=20, choices=Kind.choices, default=Kind.EXTENSION)
    language = models.CharField(_("langue"), max_length=8, default="fr")
    pdf = models.FileField(_("PDF"), upload_to=booklet_upload_path, blank=True)
    pdf_pages = models.PositiveIntegerField(_("pages du PDF"), null=True, blank=True)
    created_at = models.DateTimeField(_("créé le"), auto_now_add=True)
    updated_at = models.DateTimeField(_("modifié le"), auto_now=True)

    class Meta:
        ordering = ["game__name", "name"]
        verbose_name = _("livret")
        verbose_name_plural = _("livrets (extensions, règles avancées, FAQ)")

    def __str__(self) -> str:
        return f"{self.game.name} — {self.name}"

    @property
    def booklet(self) -> "Booklet":
        return Booklet(
            game=self.game,
            extension=self,
            slug=self.slug,
            name=self.name,
            kind=self.kind,
            language=self.language,
        )


# Every kind of booklet: the base rules (the Game row itself) and the extensions' kinds.
BOOKLET_KIND_CHOICES = [("base", _("Règles de base")), *Extension.Kind.choices]
BOOKLET_KINDS = tuple(value for value, _label in BOOKLET_KIND_CHOICES)


@dataclass(frozen=True)
class Booklet:
    """One PDF of a game, base or not, seen the same way by ingestion and retrieval."""

    game: Game
    extension: Extension | None
    slug: str
    name: str
    kind: str
    language: str

    @property
    def is_extension(self) -> bool:
        return self.extension is not None

    @property
    def extension_id(self):
        """The Extension's id, None for the base booklet (as `Chunk.extension_id`, `IngestJob.extension_id`)."""
        return self.extension.pk if self.extension is not None else None

    @property
    def collection(self) -> str:
        return f"rules_{self.slug}"

    @property
    def owner(self) -> Game | Extension:
        return self.extension or self.game

    @property
    def pdf(self):
        return self.owner.pdf

    @property
    def images_dir(self) -> Path:
        return Path(settings.PAGE_IMAGES_DIR) / self.slug

    def chunks(self):
        return Chunk.objects.filter(game=self.game, extension=self.extension)


class ChunkQuerySet(models.QuerySet):
    def of_booklet(self, booklet: Booklet):
        return self.filter(game=booklet.game, extension=booklet.extension)

class Chunk(models.Model):
    """A passage of a booklet, with everything needed to rebuild its index entry."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chunks", verbose_name=_("jeu"))
    extension = models.ForeignKey(
        Extension, on_delete=models.CASCADE, related_name="chunks", null=True, blank=True, verbose_name=_("livret (extension)")
    )
    collection = models.CharField(_("collection"), max_length=100, db_index=True)
    ingest_job = models.ForeignKey(
        "ingest.IngestJob", on_delete=models.SET_NULL, null=True, blank=True, related_name="chunks", verbose_name=_("ingestion")
    )
    ordinal = models.PositiveIntegerField(_("rang"), default=0)
    text = models.TextField(_("texte"))
    context = models.TextField(_("contexte"), blank=True)
    page_start = models.PositiveIntegerField(_("première page"), default=0)
    page_end = models.PositiveIntegerField(_("dernière page"), default=0)
    # [[page, offset_in_text], …]: where each page begins inside `text`, to locate quotes.
    page_offsets = models.JSONField(_("débuts de page"), default=list, blank=True)
    hierarchy_path = models.CharField(_("section"), max_length=500, blank=True)
    hierarchy_level = models.PositiveSmallIntegerField(_("niveau de titre"), default=0)
    is_forum = models.BooleanField(_("message de forum"), default=False)
    payload = models.JSONField(_("métadonnées"), default=dict, blank=True)
    dense = models.BinaryField(_("vecteur sémantique"), null=True, blank=True)  # float32 little-endian
    embedder = models.CharField(_("modèle d'embedding"), max_length=100, blank=True)
    sparse = models.JSONField(_("vecteur lexical"), default=dict, blank=True)  # {"indices": [...], "values": [...]}
    indexed = models.BooleanField(_("indexé"), default=False, db_index=True)
    created_at = models.DateTimeField(_("créé le"), auto_now_add=True)

    objects = ChunkQuerySet.as_manager()

    class Meta:
        ordering = ["collection", "ordinal"]
        indexes = [models.Index(fields=["game", "extension", "ordinal"])]
        verbose_name = _("passage")
        verbose_name_plural = _("passages")

    def __str__(self) -> str:
        return f"{self.collection}#{self.ordinal} p.{self.page_start}"

    @property
    def dense_vector(self) -> np.ndarray | None:
        if self.dense is None:
            return None
        return np.frombuffer(bytes(self.dense), dtype="<f4")

    @dense_vector.setter
    def dense_vector(self, vector) -> None:
        self.dense = None if vector is None else np.asarray(vector, dtype="<f4").tobytes()


class IndexState(models.Model):
    """Version of a collection's rows, bumped by writers; the index owner syncs on change."""

    collection = models.CharField(_("collection"), max_length=100, primary_key=True)
    version = models.PositiveBigIntegerField(_("version"), default=1)
    updated_at = models.DateTimeField(_("modifié le"), auto_now=True)

    class Meta:
        verbose_name = _("état d'index")
        verbose_name_plural = _("états d'index")

    def __str__(self) -> str:
        return f"{self.collection} v{self.version}"


class OcrPageWords(models.Model):
    """tesseract's word boxes for one page of a booklet whose text came from OCR, so the
    viewer can highlight a quote on a page without a text layer. Replaced at each ingestion
    of the booklet (ingest.stages.index), deleted with it.

    `words`: [x0, y0, x1, y1, text, line] per word, in PDF points from the top-left corner of
    a page `width` × `height` points large (the viewer only uses the ratios)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="ocr_pages")
    extension = models.ForeignKey(Extension, on_delete=models.CASCADE, related_name="ocr_pages", null=True, blank=True)
    page = models.PositiveIntegerField()
    width = models.FloatField()
    height = models.FloatField()
    words = models.JSONField(default=list)

    objects = ChunkQuerySet.as_manager()  # of_booklet()

    class Meta:
        indexes = [models.Index(fields=["game", "extension", "page"])]

    def __str__(self) -> str:
        return f"{self.extension or self.game} p.{self.page} ({len(self.words)} words)"


# --- Card catalog (card games) -----------------------------------------------------------


class IndexedRow(models.Model):
    """A row that feeds one point of a vector collection (cards, tournament decklists)."""

    dense = models.BinaryField(_("vecteur sémantique"), null=True, blank=True)  # float32 little-endian
    embedder = models.CharField(_("modèle d'embedding"), max_length=100, blank=True)
    sparse = models.JSONField(_("vecteur lexical"), default=dict, blank=True)
    embedded_text_hash = models.CharField(_("empreinte du texte indexé"), max_length=40, blank=True)
    indexed = models.BooleanField(_("indexé"), default=False, db_index=True)

    class Meta:
        abstract = True

    dense_vector = Chunk.dense_vector


class Card(IndexedRow):
    """One card of a card game (one per oracle card, not per printing). Indexed in `cards_<slug>`."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="cards", verbose_name=_("jeu"))
    key = models.CharField(_("clé"), max_length=100)  # Scryfall oracle_id, or the folded name
    name = models.CharField(_("nom"), max_length=200)
    name_fr = models.CharField(_("nom français"), max_length=200, blank=True)
    search_name = models.CharField(_("nom (recherche)"), max_length=200, db_index=True)  # folded, for autocomplete
    search_name_fr = models.CharField(_("nom français (recherche)"), max_length=200, blank=True, db_index=True)
    cost = models.CharField(_("coût"), max_length=60, blank=True)
    type_line = models.CharField(_("type"), max_length=200, blank=True)
    text = models.TextField(_("texte"), blank=True)
    text_fr = models.TextField(_("texte français"), blank=True)
    colors = models.JSONField(_("couleurs"), default=list, blank=True)
    color_identity = models.JSONField(_("identité de couleur"), default=list, blank=True)
    legal_formats = models.JSONField(_("formats autorisés"), default=list, blank=True)
    set_code = models.CharField(_("code de l'édition"), max_length=12, blank=True)
    set_name = models.CharField(_("édition"), max_length=120, blank=True)
    rarity = models.CharField(_("rareté"), max_length=20, blank=True)
    # Game-specific fields: FAB pitch/class/legal_heroes, Riftbound domains, MTG mtgo_id…
    attributes = models.JSONField(_("caractéristiques"), default=dict, blank=True)
    updated_at = models.DateTimeField(_("mise à jour le"), auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["game", "key"], name="card_unique_key_per_game")]
        verbose_name = _("carte")
        verbose_name_plural = _("cartes")

    def __str__(self) -> str:
        return self.name


class Decklist(IndexedRow):
    """A meta document indexed as a `[META]` chunk: a tournament decklist (meta_type
    'tournament_deck'), or another source's text such as 17Lands ratings ('card_ratings')."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="decklists", verbose_name=_("jeu"))
    name = models.CharField(_("nom"), max_length=200)
    format = models.CharField(_("format"), max_length=40)
    played_on = models.DateField(_("date"), null=True, blank=True)
    source = models.CharField(_("source"), max_length=300, blank=True)
    # {"main": [[4, "Lightning Bolt"], …], "sideboard": […], "runes": […], …}
    sections = models.JSONField(_("sections"), default=dict)
    # Meta documents other than a decklist (17Lands card ratings…) carry their text in `body`.
    meta_type = models.CharField(_("type"), max_length=40, default="tournament_deck")
    source_url = models.URLField(_("adresse de la source"), max_length=500, blank=True)
    body = models.TextField(_("texte"), blank=True)
    created_at = models.DateTimeField(_("ajoutée le"), auto_now_add=True)

    class Meta:
        ordering = ["-played_on", "name"]
        constraints = [models.UniqueConstraint(fields=["game", "name"], name="decklist_unique_name_per_game")]
        verbose_name = _("decklist de tournoi")
        verbose_name_plural = _("decklists de tournoi")

    def __str__(self) -> str:
        return f"{self.name} ({self.format})"


class GameTerm(models.Model):
    """A French ↔ English term of one game, learnt from what it ships (rag.terms): parallel
    card texts of its catalog, same-numbered headings of a booklet and its translation. Used
    to search a booklet in the other language."""

    class Source(models.TextChoices):
        CARDS = "cards", _("textes des cartes")
        BOOKLETS = "booklets", _("titres des livrets traduits")
        MANUAL = "manual", _("saisi à la main")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="terms", verbose_name=_("jeu"))
    french = models.CharField(_("terme français"), max_length=120)
    english = models.CharField(_("terme anglais"), max_length=120)
    source = models.CharField(_("source"), max_length=10, choices=Source.choices, default=Source.CARDS)
    support = models.PositiveIntegerField(_("occurrences"), default=1)

    class Meta:
        ordering = ["game", "english"]
        constraints = [models.UniqueConstraint(fields=["game", "french", "english"], name="game_term_unique_pair")]
        verbose_name = _("terme du jeu")
        verbose_name_plural = _("termes du jeu (français ↔ anglais)")

    def __str__(self) -> str:
        return f"{self.french} = {self.english}"
