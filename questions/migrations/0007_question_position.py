from django.db import migrations, models
from django.db.models import F, Window
from django.db.models.functions import RowNumber


def number_turns(apps, schema_editor):
    """Each conversation's questions get their places in the order they were shown until now
    (asked first, first)."""
    Question = apps.get_model("questions", "Question")
    place = Window(RowNumber(), partition_by=[F("conversation_id")], order_by=[F("created_at").asc(), F("id").asc()])
    numbered = Question.objects.filter(conversation__isnull=False).annotate(place=place).values_list("pk", "place")
    Question.objects.bulk_update([Question(pk=pk, position=n) for pk, n in numbered], ["position"], batch_size=500)


class Migration(migrations.Migration):

    dependencies = [
        ('questions', '0006_apitoken_expiry_creator'),
    ]

    operations = [
        migrations.AddField(
            model_name='question',
            name='position',
            field=models.PositiveIntegerField(blank=True, null=True, verbose_name='place dans la conversation'),
        ),
        migrations.RunPython(number_turns, migrations.RunPython.noop),
    ]
