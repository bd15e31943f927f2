"""The one way a question enters — the chat page, its « Régénérer », the REST API and
`manage.py ask` — and the actions on an answer that only its asker takes.

`ask_question` and `regenerate_answer` check who may ask, the input, the rate limits (a
regeneration is an ask, counted per user and per IP) and whose conversation it is, then SAVE
the question; its caller then starts answering it (`ask_flow.background.start_answering`).
The ask stream calls `prepare_question` (the same checks, nothing written) and has the
question saved after its `meta` event, in the save pool, before it is answered: `meta` waits
for no database write (issue 29).

Only the asker rates, regenerates, stops or continues: staff read every question and
conversation but moderate in the admin, never as the player. (A question asked anonymously
belongs to an anonymous visitor with its id, never to a signed-in player; an anonymous
conversation is continued anonymously, or by the player who signs in in the browser that
started it: `conversations.continuable`.) Refusals are runtime/refusals.py's; the views and the API
map them to HTTP (runtime/api_errors.py)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError
from django.http import Http404
from django.utils.translation import gettext as _

from games.models import Extension, Game
from rag.limits import MAX_QUESTION_CHARS
from runtime.ratelimit import count_ask
from runtime.refusals import Invalid, NotFound, NotReady, NotYours, SignInRequired, TooManyRequests, nul_refused

from .access import visible_question
from .ask_flow.intake import new_question, save_question
from .ask_flow.stop import request_stop
from .conversations import (
    chosen_extensions, current_turns, current_version, history_for, new_conversation, record_feedback, title_from,
    visible_conversation,
)  # fmt: skip
from .models import Conversation, Question


@dataclass(frozen=True)
class Asker:
    """Who asks: `user` (None when anonymous) and the request the rate limits count (None for
    the terminal's `manage.py ask`, which an operator runs: no access check, no limit)."""

    user: object | None
    request: object | None = None

    @classmethod
    def of(cls, request) -> Asker:
        """The asker of a page (its session) or of an API call (its token: `request.auth`)."""
        user = getattr(request, "auth", None)
        if not getattr(user, "is_authenticated", False):
            user = getattr(request, "user", None)
        return cls(user if getattr(user, "is_authenticated", False) else None, request)

    @property
    def session(self):
        """The browser's session (None for the terminal): it may have started an anonymous
        conversation its signed-in player continues (`conversations.continuable`)."""
        return getattr(self.request, "session", None)


@dataclass(frozen=True)
class Asked:
    """A saved question and its conversation."""

    question: Question
    conversation: Conversation
    booklets: list | None = None  # the booklets asked about; None: every one, read if needed
    fresh: bool = True  # False: a regeneration already asked (and answered or being answered), nothing to start

    @property
    def extensions(self) -> list:
        return list(self.question.extensions.all()) if self.booklets is None else self.booklets


def may_ask(user) -> bool:
    """« Who may ask », written once: a signed-in user, anyone when ASK_ALLOW_ANONYMOUS is on."""
    return bool(getattr(user, "is_authenticated", False)) or settings.ASK_ALLOW_ANONYMOUS


def check_may_ask(asker: Asker) -> None:
    if asker.request is not None and not may_ask(asker.user):
        raise SignInRequired()


def check_rate(asker: Asker) -> None:
    """The ask rate limits (runtime/ratelimit.py)."""
    if asker.request is not None:
        count_ask(asker.request, TooManyRequests)


def is_owner(user, question: Question) -> bool:
    """Whether `user` (None when anonymous) asked it. An anonymous question is an anonymous
    asker's, never a signed-in player's: a regeneration by them would add their turn to a
    conversation nobody owns (the turns of a conversation they adopted are theirs)."""
    return question.user_id == (user.pk if user is not None else None)


def own_question(asker: Asker, question_id: UUID, not_yours: str = "", **filters) -> Question:
    """The asker's own question: NotFound when they may not see it, NotYours (`not_yours`
    says why) when they see it but did not ask it (staff)."""
    check_may_ask(asker)
    try:
        question = visible_question(asker.user, question_id, **filters)
    except Http404:
        raise NotFound() from None
    if not is_owner(asker.user, question):
        raise NotYours(not_yours or _("Seul l'auteur de la question peut agir sur sa réponse."))
    return question


def own_conversation(asker: Asker, conversation_id: UUID) -> Conversation:
    """A conversation the asker may continue (`conversations.continuable`: their own; an
    anonymous one anonymously, or adopted by a player signed in in the browser that started
    it); staff included: their turn would land in another player's conversation."""
    try:
        return visible_conversation(asker.user, conversation_id, own=True, session=asker.session)
    except Http404:
        raise NotFound() from None


def refuse_nul(field: str, text: str) -> str:
    """`text`, unless it holds the NUL character: PostgreSQL's text columns refuse it (a 500).
    The API refuses it as it reads its input (runtime/api_input.py); the chat's forms here."""
    if "\x00" in text:
        raise Invalid(field, nul_refused())
    return text


def question_text(text: str) -> str:
    text = refuse_nul("question", (text or "").strip())
    if not text:
        raise Invalid("question", _("Écrivez d'abord votre question."))
    if len(text) > MAX_QUESTION_CHARS:
        raise Invalid("question", _("La question dépasse %(max)s caractères.") % {"max": MAX_QUESTION_CHARS})
    return text


def game_booklets(game: Game, wanted: Collection | None) -> list | None:
    """The game's booklets with these ids (None: every booklet, present and future)."""
    if wanted is None:
        return None
    wanted = {str(pk) for pk in wanted}
    extensions = list(Extension.objects.filter(game=game, pk__in=wanted)) if wanted else []
    if len(extensions) != len(wanted):
        raise Invalid("extensions", _("livret inconnu ou d'un autre jeu"))
    return extensions


def last_sticky(conversation: Conversation) -> list[str]:
    """The cards the conversation keeps from its earlier turns (its last turn's list)."""
    last = current_turns(conversation).last()
    return last.sticky_cards_after() if last is not None else []


def set_booklets(conversation: Conversation, extensions: list | None) -> None:
    """The booklet choice belongs to the conversation (None: every booklet)."""
    conversation.every_booklet = extensions is None
    conversation.save(update_fields=["every_booklet", "updated_at"])
    conversation.extensions.set(extensions or [])


def ask_question(asker: Asker, **request) -> Asked:
    """`prepare_question` then `save_asked`: the question is stored when this returns (the chat
    page, `manage.py ask`). The ask stream saves it after its `meta` event instead."""
    return save_asked(prepare_question(asker, **request))


def prepare_question(
    asker: Asker, *, game: Game | None, text: str, conversation_id: UUID | None = None, extensions: Collection | None = None,
    history=(), card_mentions=(), sticky_card_mentions=(), rebook: bool = False,
) -> Asked:
    """Check that the asker may ask `text` about `game` (None: an unknown id, refused) and build
    the question, unsaved, its id set: in the asker's conversation `conversation_id` (its
    booklets and last turns; `rebook`: the page's ticked `extensions` become the
    conversation's), else in a new one, unsaved too (`extensions`: booklet ids, None for every
    one; `history`: the client's). `sticky_card_mentions` left empty are the conversation's.

    It reads the database only for a follow-up (`conversation_id`) or a list of `extensions`,
    and the rate limits' store (the process's memory by default): a new question about every
    booklet needs neither, so the ask stream's `meta` leaves before any database work."""
    check_may_ask(asker)
    text = question_text(text)
    check_rate(asker)
    if game is None:  # the id named no game: refused after the rate limits, as any bad input
        raise Invalid("gameId", _("jeu inconnu"))
    if not game.has_something_to_ask():  # the chat offers no such game; the API is told why
        raise NotReady(_("Aucun livret de ce jeu n'a encore été lu : il n'y a pas de règles où chercher la réponse."))
    if conversation_id is not None:
        conversation = own_conversation(asker, conversation_id)
        if conversation.game_id != game.pk:
            raise Invalid("conversationId", _("conversation sur un autre jeu"))
        if rebook:
            set_booklets(conversation, game_booklets(game, extensions))
        booklets, history = chosen_extensions(conversation), history_for(conversation)
        sticky_card_mentions = list(sticky_card_mentions) or last_sticky(conversation)
    else:
        booklets = game_booklets(game, extensions)
        conversation = new_conversation(user=asker.user, game=game, every_booklet=booklets is None,
                                        title=title_from(text))  # fmt: skip
    question, booklets = new_question(
        game=game, text=text, extensions=booklets, history=history, card_mentions=card_mentions,
        sticky_card_mentions=sticky_card_mentions, user=asker.user, conversation=conversation,
    )  # fmt: skip
    return Asked(question, conversation, booklets)


def prepares_in_memory(conversation_id: UUID | None, extensions: Collection | None) -> bool:
    """Whether `prepare_question` reads nothing but the process's memory: a new conversation
    about every booklet (or the base booklet alone), with the rate limits kept in memory
    (RATE_LIMIT_STORE=memory, the embedded default). The ask stream then prepares in the event
    loop, without a hop to the setup pool (the asker is known by then: ninja's authentication
    read the session, or the token, already)."""
    return conversation_id is None and not extensions and settings.RATE_LIMIT_STORE == "memory"


def save_asked(asked: Asked) -> Asked:
    """Store a prepared question (and the conversation it starts, if new)."""
    save_question(asked.question, asked.booklets)
    return asked


def regenerate_answer(asker: Asker, question_id: UUID, **filters) -> Asked:
    """Ask one of the asker's turns again: a new question replacing its current answer, in its
    place, with the history before it; counted by the rate limits as any question. One at a
    time: while the turn's answer is being written (a double click, a second tab), the turn
    comes back as it is, `fresh` False, nothing asked nor counted; two requests at the same
    moment make one question (a question is replaced once, `question_replaced_once`), the
    other gets it. Once that answer is written, the turn may be regenerated again."""
    old = current_version(own_question(asker, question_id, **filters))
    if old.conversation_id is None:
        raise Invalid("questionId", _("Cette réponse n'appartient à aucune conversation."))
    if not old.is_answered:
        return Asked(old, old.conversation, fresh=False)
    check_rate(asker)
    conversation = old.conversation
    question, booklets = new_question(
        game=old.game, text=old.text, extensions=chosen_extensions(conversation),
        history=history_for(conversation, before=old), card_mentions=old.card_mentions,
        sticky_card_mentions=old.sticky_card_mentions, user=asker.user, conversation=conversation, replaces=old,
    )  # fmt: skip
    try:
        save_question(question, booklets)
    except IntegrityError:
        if not Question.objects.filter(replaces=old).exists():
            raise
        return Asked(current_version(old), conversation, fresh=False)  # another request regenerated it first
    return Asked(question, conversation, booklets)


UNCHANGED = object()  # rate_answer: keep the rating or the comment as it is


def rate_answer(asker: Asker, question_id: UUID, *, rating=UNCHANGED, comment=UNCHANGED, **filters) -> Question:
    """👍 (1) / 👎 (-1) / none and a comment on the asker's own answer (they reach the feedback
    export as theirs)."""
    question = own_question(asker, question_id, _("Seul l'auteur de la question peut donner son avis."), **filters)
    if not question.is_answered:
        raise NotReady(_("La question n'a pas encore de réponse."))
    rating = question.rating if rating is UNCHANGED else rating
    comment = question.feedback_comment if comment is UNCHANGED else refuse_nul("comment", comment)
    try:
        return record_feedback(question, rating=rating, comment=comment)
    except ValueError:
        raise Invalid("rating", _("La note est 1, -1 ou vide.")) from None


def stop_answer(asker: Asker, question_id: UUID, **filters) -> None:
    """« Arrêter » on the asker's own answer: it stops at its next token."""
    question = own_question(asker, question_id, **filters)
    if not question.is_answered:
        request_stop(question.pk)
