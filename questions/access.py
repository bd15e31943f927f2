"""Who sees a question: its asker (staff: every question); a question asked anonymously is
visible to whoever has its id. Everything else is a 404, never a hint that it exists."""

from uuid import UUID

from django.http import Http404

from .models import Question


def visible_question(user, question_id: UUID, **filters) -> Question:
    """The question `user` (None when anonymous) may see, or Http404."""
    question = Question.objects.select_related("game").filter(pk=question_id, **filters).first()
    if question is None or not may_see(user, question):
        raise Http404
    return question


def may_see(user, question: Question) -> bool:
    """Whether `user` (None when anonymous) may see `question`, stored or not yet."""
    return not question.user_id or bool(user and (user.pk == question.user_id or user.is_staff))
