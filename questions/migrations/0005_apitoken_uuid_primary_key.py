"""API tokens get a UUID primary key, as every other resource of the API; existing tokens keep
their key, name, dates and revocation.

The key type cannot be changed in place on both databases: PostgreSQL has no cast from bigint
to uuid, and SQLite's table rebuild would copy `1` into a uuid column. Nor is there a safe
way through a table without a primary key (Django adds an automatic `id` to such a model's
state). So: a new table with a uuid key, the rows copied (each gets a fresh uuid), the old
table dropped, the new one renamed. No foreign key points at tokens, so nothing else moves."""

import uuid

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

COPIED = ("user_id", "name", "prefix", "key_hash", "created_at", "last_used_at", "revoked")


def copy_to_uuid_table(apps, schema_editor):
    old, new = apps.get_model("questions", "ApiToken"), apps.get_model("questions", "ApiTokenWithUuid")
    rows = [new(id=uuid.uuid4(), **row) for row in old.objects.values(*COPIED)]
    new.objects.bulk_create(rows, batch_size=500)
    # auto_now_add overwrote created_at on insert: put the tokens' own dates back
    for row in old.objects.values("key_hash", "created_at"):
        new.objects.filter(key_hash=row["key_hash"]).update(created_at=row["created_at"])


def give_the_content_type_back(apps, schema_editor):
    """Backwards, `migrate` follows the RenameModel below with a rename of the tokens' content
    type (and so of its permissions and admin history) to the temporary model's name; the
    integer table is the model that keeps them."""
    content_types = apps.get_model("contenttypes", "ContentType").objects.using(schema_editor.connection.alias)
    if not content_types.filter(app_label="questions", model="apitoken").exists():
        content_types.filter(app_label="questions", model="apitokenwithuuid").update(model="apitoken")


def copy_back_to_integer_table(apps, schema_editor):
    old, new = apps.get_model("questions", "ApiTokenWithUuid"), apps.get_model("questions", "ApiToken")
    for row in old.objects.values(*COPIED):
        new.objects.create(**row)
        new.objects.filter(key_hash=row["key_hash"]).update(created_at=row["created_at"])


class Migration(migrations.Migration):

    dependencies = [
        ("questions", "0004_verbose_names"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ApiTokenWithUuid",
            fields=[
                ("id", models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ("name", models.CharField(blank=True, max_length=100, verbose_name="nom")),
                ("prefix", models.CharField(editable=False, max_length=12, verbose_name="début de la clé")),
                ("key_hash", models.CharField(editable=False, max_length=64, unique=True, verbose_name="empreinte de la clé")),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="créé le")),
                ("last_used_at", models.DateTimeField(blank=True, editable=False, null=True, verbose_name="dernière utilisation le")),
                ("revoked", models.BooleanField(default=False, verbose_name="révoqué")),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",  # until the old table is gone: one `api_tokens` at a time
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="utilisateur",
                    ),
                ),
            ],
            options={
                "verbose_name": "jeton d'API",
                "verbose_name_plural": "jetons d'API",
                "ordering": ["-created_at"],
            },
        ),
        migrations.RunPython(copy_to_uuid_table, copy_back_to_integer_table),
        migrations.DeleteModel(name="ApiToken"),
        migrations.RunPython(migrations.RunPython.noop, give_the_content_type_back),
        migrations.RenameModel(old_name="ApiTokenWithUuid", new_name="ApiToken"),
        migrations.AlterField(
            model_name="apitoken",
            name="user",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="api_tokens",
                to=settings.AUTH_USER_MODEL,
                verbose_name="utilisateur",
            ),
        ),
    ]
