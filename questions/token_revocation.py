"""A user who is deactivated loses their API tokens: revoked, not only refused while the
account is off (a reactivated account gets no forgotten token back). Deleting a user deletes
their tokens with them (the foreign key cascades)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models.signals import post_save

from .models import ApiToken


def revoke_tokens_of_inactive_user(sender, instance, **kwargs) -> None:
    if not instance.is_active:
        ApiToken.revoke_all_of(instance)


def connect() -> None:
    post_save.connect(revoke_tokens_of_inactive_user, sender=get_user_model(), dispatch_uid="oracle-revoke-inactive-tokens")
