"""Questions asked to the Oracle and their (persisted) answers."""

import datetime
import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy as _

from rag.cards import deck_in_discussion, update_sticky


class QuestionQuerySet(models.QuerySet):
    def mark_failed(self, message: str, now=None) -> int:
        """Fail these questions with a readable `message`; returns how many. An update, not a
        save: nothing else a concurrent writer stored is overwritten."""
        return self.update(status=Question.Status.ERROR, error=message, answered_at=now or timezone.now())


class Question(models.Model):
    """A question and, once answered, its answer. Its status changes only through
    `mark_done` and `mark_failed` (pending → done | error)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("En cours")
        DONE = "done", _("Répondue")
        ERROR = "error", _("Échec")

    class Rating(models.IntegerChoices):
        UP = 1, _("👍 utile")
        DOWN = -1, _("👎 pas utile")

    class Intent(models.TextChoices):
        RULES = "rules", _("Règles")
        SYNERGY = "synergy", _("Synergie")
        META = "meta", _("Méta")
        DECKBUILDING = "deckbuilding", _("Construction de deck")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="questions", verbose_name=_("jeu"))
    extensions = models.ManyToManyField("games.Extension", blank=True, related_name="questions", verbose_name=_("livrets consultés"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="questions", verbose_name=_("joueur")
    )
    conversation = models.ForeignKey(
        "questions.Conversation", on_delete=models.CASCADE, null=True, blank=True, related_name="questions", verbose_name=_("conversation")
    )
    # A regenerated answer is a new Question that replaces the one it was asked again for and
    # takes its place; a question is replaced once at most (the constraint below: two clicks
    # at once make one regeneration).
    replaces = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="regenerations", verbose_name=_("remplace")
    )
    # Its place in the conversation (1, 2, …), the order of its turns: a regenerated answer has
    # the place of the one it replaces, however late it was asked. None outside a conversation.
    position = models.PositiveIntegerField(_("place dans la conversation"), null=True, blank=True)
    text = models.TextField(_("question"))
    history = models.JSONField(_("historique"), default=list, blank=True)
    card_mentions = models.JSONField(_("cartes citées"), default=list, blank=True)
    sticky_card_mentions = models.JSONField(_("cartes évoquées"), default=list, blank=True)
    intent = models.CharField(_("intention"), max_length=16, choices=Intent.choices, blank=True)
    answer = models.TextField(_("réponse"), blank=True)
    best_score = models.FloatField(_("meilleur score"), null=True, blank=True)
    diagnostics = models.JSONField(_("diagnostics"), default=dict, blank=True)
    status = models.CharField(_("état"), max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    error = models.TextField(_("erreur"), blank=True)
    # The player stopped the generation: `answer` holds the partial text streamed until then.
    stopped = models.BooleanField(_("arrêtée par le joueur"), default=False)
    # Feedback on the answer (👍 +1, 👎 -1) and, for 👎, where the right passage is according to
    # the staff who reviewed it (exported as an evaluation case: `manage.py export_feedback`).
    rating = models.SmallIntegerField(_("avis"), choices=Rating.choices, null=True, blank=True)
    feedback_comment = models.TextField(_("commentaire"), blank=True)
    feedback_at = models.DateTimeField(_("avis donné le"), null=True, blank=True)
    expected_booklet = models.SlugField(_("livret attendu"), max_length=80, blank=True)
    expected_page = models.PositiveIntegerField(_("page attendue"), null=True, blank=True)
    created_at = models.DateTimeField(_("posée le"), auto_now_add=True)
    answered_at = models.DateTimeField(_("répondue le"), null=True, blank=True)

    objects = QuestionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["replaces"], name="question_replaced_once")]
        verbose_name = _("question")
        verbose_name_plural = _("questions")

    def __str__(self) -> str:
        return self.text[:80]

    def sticky_cards_after(self) -> list[str]:
        """The cards the conversation keeps after this turn (the chat sends them back next turn):
        the earlier ones, then this turn's @-mentions, FIFO of 20 (80 while a deck is discussed).
        A deckbuilding answer adds its deck's cards: its `done` event says so, and the list it
        sent is kept in `diagnostics` (steps/persist.py), which wins."""
        said = (self.diagnostics or {}).get("stickyCardMentions")
        if said is not None:
            return list(said)
        discussed = deck_in_discussion(self.text, self.history)
        return update_sticky(self.sticky_card_mentions, self.card_mentions, deck_discussed=discussed)

    def mark_done(self, *, answer: str, intent: str, best_score: float | None, diagnostics: dict) -> None:
        """Store the answer and mark the question answered."""
        fields = dict(
            answer=answer, intent=intent, best_score=best_score, diagnostics=diagnostics,
            status=self.Status.DONE, error="", answered_at=timezone.now(),
        )  # fmt: skip
        type(self).objects.filter(pk=self.pk).update(**fields)
        for name, value in fields.items():
            setattr(self, name, value)

    def mark_failed(self, message: str) -> None:
        """Mark the question failed, with a message a player can read."""
        now = timezone.now()
        type(self).objects.filter(pk=self.pk).mark_failed(message, now)
        self.status, self.error, self.answered_at = self.Status.ERROR, message, now

    @property
    def error_message(self) -> str:
        """`error` in the reader's language: the server stores its own messages as their French
        msgids (a sweep's or an answering thread's language is not the reader's)."""
        return gettext(self.error) if self.error else ""

    @property
    def is_answered(self) -> bool:
        return self.status != self.Status.PENDING


class ApiToken(models.Model):
    """A per-user key for REST clients (`Authorization: Bearer <key>`). Only a hash is kept:
    the key is shown once, when it is issued."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens", verbose_name=_("utilisateur"))
    name = models.CharField(_("nom"), max_length=100, blank=True)
    prefix = models.CharField(_("début de la clé"), max_length=12, editable=False)
    key_hash = models.CharField(_("empreinte de la clé"), max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(_("créé le"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("dernière utilisation le"), null=True, blank=True, editable=False)
    revoked = models.BooleanField(_("révoqué"), default=False)
    # None: never (API_TOKEN_LIFETIME_DAYS sets a default for new tokens).
    expires_at = models.DateTimeField(_("expire le"), null=True, blank=True)
    # Who issued it (the user in a password-signed session, or the admin who made it in the admin).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("créé par")
    )

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("jeton d'API")
        verbose_name_plural = _("jetons d'API")

    def __str__(self) -> str:
        return f"{self.user} — {self.name or self.prefix}…"

    @staticmethod
    def hash_key(key: str) -> str:
        import hashlib

        return hashlib.sha256(key.encode("utf-8")).hexdigest()

    def assign_new_key(self) -> str:
        """Give this token a fresh key; returns the clear key (never stored)."""
        import secrets

        key = "orc_" + secrets.token_urlsafe(32)
        self.prefix, self.key_hash = key[:12], self.hash_key(key)
        return key

    @property
    def expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    @staticmethod
    def default_expiry():
        """When a token issued now expires: API_TOKEN_LIFETIME_DAYS from now, None when 0."""
        days = settings.API_TOKEN_LIFETIME_DAYS
        return timezone.now() + datetime.timedelta(days=days) if days > 0 else None

    @classmethod
    def issue(cls, user, name: str = "", *, created_by=None, expires_at=None) -> tuple["ApiToken", str]:
        token = cls(user=user, name=name, created_by=created_by or user, expires_at=expires_at or cls.default_expiry())
        key = token.assign_new_key()
        token.save()
        return token, key

    @classmethod
    def revoke_all_of(cls, user) -> int:
        return cls.objects.filter(user=user, revoked=False).update(revoked=True)


class Conversation(models.Model):
    """A player's conversation with the Oracle about one game: the booklets they chose and
    their turns (the Questions, oldest first). The history sent to the model is built from its
    last turns (`history_for`), never taken from the client."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="conversations", verbose_name=_("joueur")
    )
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="conversations", verbose_name=_("jeu"))
    # every_booklet: the player asked about every booklet of the game, present and future;
    # otherwise `extensions` lists the chosen ones (empty: the base rules alone).
    every_booklet = models.BooleanField(_("tous les livrets"), default=True)
    extensions = models.ManyToManyField("games.Extension", blank=True, related_name="conversations", verbose_name=_("livrets choisis"))
    title = models.CharField(_("titre"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("créée le"), auto_now_add=True)
    updated_at = models.DateTimeField(_("mise à jour le"), auto_now=True, db_index=True)

    class Meta:
        ordering = ["-updated_at"]
        verbose_name = _("conversation")
        verbose_name_plural = _("conversations")

    def __str__(self) -> str:
        return self.title or str(self.pk)

    def turns(self):
        """Its questions in their places, oldest first (a regenerated answer in the place of
        the one it replaced)."""
        return self.questions.order_by("position", "created_at")
