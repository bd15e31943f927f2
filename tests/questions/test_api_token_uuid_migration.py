"""API token ids became UUIDs (questions 0005): the tokens issued before keep working, with
their name, dates and revocation, and the migration goes back as well as forward."""

from datetime import datetime, timezone

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader

from tests.factories import UserFactory

BEFORE = [("questions", "0004_verbose_names")]
AFTER = MigrationLoader(None).graph.leaf_nodes("questions")  # the latest: the test then uses today's model
ISSUED = datetime(2026, 11, 2, 8, 30, tzinfo=timezone.utc)


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_tokens_issued_before_the_uuid_ids_keep_working(client):
    from questions.models import ApiToken

    bob = UserFactory(username="bob")
    old_apps = migrate(BEFORE)
    try:
        OldToken = old_apps.get_model("questions", "ApiToken")
        live = OldToken.objects.create(user_id=bob.pk, name="bot", prefix="orc_live", key_hash=ApiToken.hash_key("orc_live-key"))
        OldToken.objects.create(user_id=bob.pk, name="old", prefix="orc_gone", key_hash=ApiToken.hash_key("orc_gone-key"), revoked=True)
        OldToken.objects.filter(pk=live.pk).update(created_at=ISSUED)
        assert isinstance(live.pk, int)
    finally:
        migrate(AFTER)

    tokens = {t.name: t for t in ApiToken.objects.all()}
    assert set(tokens) == {"bot", "old"} and tokens["old"].revoked and tokens["bot"].created_at == ISSUED
    listed = client.get("/api/tokens", headers={"Authorization": "Bearer orc_live-key"})
    assert listed.status_code == 200
    assert sorted(t["id"] for t in listed.json()["items"]) == sorted(str(t.pk) for t in tokens.values())
    assert client.get("/api/tokens", headers={"Authorization": "Bearer orc_gone-key"}).status_code == 401


@pytest.mark.django_db(transaction=True)
def test_the_uuid_migration_goes_back_with_the_tokens():
    from questions.models import ApiToken

    bob = UserFactory(username="bob")
    ApiToken.issue(bob, "bot")
    try:
        OldToken = migrate(BEFORE).get_model("questions", "ApiToken")
        assert [(t.name, isinstance(t.pk, int)) for t in OldToken.objects.all()] == [("bot", True)]
    finally:
        migrate(AFTER)


@pytest.mark.django_db(transaction=True)
def test_going_back_keeps_the_tokens_permissions():
    """`migrate` renames a renamed model's content type too: going back must not leave the
    tokens' permissions (given to groups and users) on a content type of no model."""
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.models import ContentType
    from django.core.management import call_command

    from questions.models import ApiToken

    tokens_type = ContentType.objects.get_for_model(ApiToken)
    permissions = set(Permission.objects.filter(content_type=tokens_type).values_list("pk", flat=True))
    assert permissions
    try:
        call_command("migrate", "questions", "0004_verbose_names", verbosity=0)
        back = ContentType.objects.get(pk=tokens_type.pk)
        assert (back.app_label, back.model) == ("questions", "apitoken")
    finally:
        call_command("migrate", "questions", verbosity=0)
    ContentType.objects.clear_cache()
    assert ContentType.objects.get_for_model(ApiToken).pk == tokens_type.pk
    assert set(Permission.objects.filter(content_type=tokens_type).values_list("pk", flat=True)) == permissions
