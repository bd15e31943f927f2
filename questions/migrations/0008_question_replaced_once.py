from django.db import migrations, models
from django.db.models import Count


def chain_repeated_regenerations(apps, schema_editor):
    """A question regenerated more than once (two clicks made two replacements): each later
    replacement is moved to the end of the earlier one's chain (the earlier one may have been
    regenerated since), until no question is replaced twice, so the latest stands for the turn
    and the constraint below (a question is replaced once) holds. Each move settles one extra
    replacement and keeps the rows a forest, so the loop ends."""
    Question = apps.get_model("questions", "Question")
    while True:
        # Sliced, not `.first()`: ordering by id would group by it and find no repeat.
        repeated = list(Question.objects.order_by().filter(replaces__isnull=False).values("replaces")
                        .annotate(n=Count("id")).filter(n__gt=1).values_list("replaces", flat=True)[:1])  # fmt: skip
        if not repeated:
            return
        replaced = repeated[0]
        first, second = Question.objects.filter(replaces_id=replaced).order_by("created_at", "id").values_list("pk", flat=True)[:2]
        Question.objects.filter(pk=second).update(replaces_id=end_of_chain(Question, first))


def end_of_chain(Question, pk):
    """The last of the answers that replaced `pk` one after the other (the earliest at a fork)."""
    while (later := Question.objects.filter(replaces_id=pk).order_by("created_at", "id").values_list("pk", flat=True).first()):
        pk = later
    return pk


class Migration(migrations.Migration):
    # Not one transaction: on PostgreSQL a table whose foreign keys were just updated cannot be
    # altered in the same transaction (pending trigger events); the data step is one
    # transaction of its own (atomic=True) and can run again.
    atomic = False

    dependencies = [
        ('questions', '0007_question_position'),
    ]

    operations = [
        migrations.RunPython(chain_repeated_regenerations, migrations.RunPython.noop, atomic=True),
        migrations.AddConstraint(
            model_name='question',
            constraint=models.UniqueConstraint(fields=('replaces',), name='question_replaced_once'),
        ),
    ]
