from django.db import migrations, models
from django.db.models import Count


def chain_repeated_regenerations(apps, schema_editor):
    """A question regenerated more than once (two clicks made two replacements): its
    replacements become a chain, each replacing the one before it, so the latest stands for
    the turn and the constraint below (a question is replaced once) holds."""
    Question = apps.get_model("questions", "Question")
    repeated = (Question.objects.order_by().filter(replaces__isnull=False).values("replaces")
                .annotate(n=Count("id")).filter(n__gt=1).values_list("replaces", flat=True))  # fmt: skip
    for replaced in list(repeated):
        replacements = list(Question.objects.filter(replaces_id=replaced).order_by("created_at", "id").values_list("pk", flat=True))
        for earlier, later in zip(replacements, replacements[1:]):
            Question.objects.filter(pk=later).update(replaces_id=earlier)


class Migration(migrations.Migration):
    # Not one transaction: on PostgreSQL a table whose foreign keys were just updated cannot be
    # altered in the same transaction (pending trigger events); the data step commits on its own
    # (RunPython is atomic) and can run again.
    atomic = False

    dependencies = [
        ('questions', '0007_question_position'),
    ]

    operations = [
        migrations.RunPython(chain_repeated_regenerations, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='question',
            constraint=models.UniqueConstraint(fields=('replaces',), name='question_replaced_once'),
        ),
    ]
