from django import forms
from django.contrib import admin, messages
from django.http import HttpResponse
from django.utils import timezone
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .feedback_export import export_cases, to_jsonl
from .models import ApiToken, Conversation, Question


class RatingFilter(admin.SimpleListFilter):
    title = Question._meta.get_field("rating").verbose_name
    parameter_name = "avis"

    def lookups(self, request, model_admin):
        return [("up", "👍"), ("down", "👎"), ("none", gettext_lazy("sans avis"))]

    def queryset(self, request, queryset):
        if self.value() == "up":
            return queryset.filter(rating=Question.Rating.UP)
        if self.value() == "down":
            return queryset.filter(rating=Question.Rating.DOWN)
        if self.value() == "none":
            return queryset.filter(rating__isnull=True)
        return queryset


class QuestionForm(forms.ModelForm):
    """Where the right passage is, for a 👎: a booklet of the question's game and a page."""

    class Meta:
        model = Question
        fields = "__all__"
        help_texts = {
            "expected_booklet": gettext_lazy(
                "Pour un 👎 : le livret où se trouve le bon passage (vide : le livret de base). "
                "Exporté comme cas d'évaluation (manage.py export_feedback)."
            ),
            "expected_page": gettext_lazy(
                "Pour un 👎 : la page du PDF (1 = première page) où se trouve le bon passage. "
                "Sans elle, la question n'est pas exportée comme cas d'évaluation."
            ),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        game = self.instance.game if self.instance.game_id else None
        if game is not None:
            choices = [("", "—")] + [(b.slug, b.name) for b in game.booklets()]
            self.fields["expected_booklet"] = forms.ChoiceField(
                choices=choices, required=False, label=self.fields["expected_booklet"].label,
                help_text=self.fields["expected_booklet"].help_text,
            )


class BookletsWithTheirGame:
    """The booklets' multi-select names each with its game (Extension.__str__): read them
    together, not one query per booklet."""

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if db_field.name == "extensions":
            kwargs["queryset"] = db_field.remote_field.model.objects.select_related("game")
        return super().formfield_for_manytomany(db_field, request, **kwargs)


@admin.register(Question)
class QuestionAdmin(BookletsWithTheirGame, admin.ModelAdmin):
    form = QuestionForm
    list_display = ("text", "game", "intent", "status", "best_score", "rating", "comment", "feedback_at", "created_at")
    list_filter = (RatingFilter, "status", "intent", "game")
    search_fields = ("text", "answer", "feedback_comment")
    readonly_fields = ("created_at", "answered_at", "feedback_at")
    actions = ["export_feedback"]

    @admin.display(description=Question._meta.get_field("feedback_comment").verbose_name, ordering="feedback_comment")
    def comment(self, question):
        return Truncator(question.feedback_comment).chars(80)

    @admin.action(description=gettext_lazy("Exporter les 👎 en cas d'évaluation (JSONL)"))
    def export_feedback(self, request, queryset):
        export = export_cases(queryset.select_related("game").order_by("created_at"))
        if not export.cases:
            messages.warning(
                request,
                _("Aucun cas à exporter : choisissez des 👎 dont la page attendue est indiquée (%(count)d sans page).")
                % {"count": export.without_page},
            )
            return None
        if export.without_page:
            messages.warning(
                request,
                _("%(count)d 👎 sans page attendue non exporté(s) : indiquez où se trouve le bon passage.")
                % {"count": export.without_page},
            )
        response = HttpResponse(to_jsonl(export.cases), content_type="application/jsonl; charset=utf-8")
        name = f"feedback-{timezone.now():%Y%m%d-%H%M}.jsonl"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "created_at", "expires_at", "created_by", "last_used_at", "revoked")
    list_filter = ("revoked",)
    list_select_related = ("user", "created_by")
    search_fields = ("name", "user__username", "prefix")
    fields = ("user", "name", "expires_at", "revoked", "prefix", "created_by", "created_at", "last_used_at")
    readonly_fields = ("prefix", "created_by", "created_at", "last_used_at")

    def get_changeform_initial_data(self, request):
        return {**super().get_changeform_initial_data(request), "expires_at": ApiToken.default_expiry()}

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        obj.created_by = request.user
        key = obj.assign_new_key()
        super().save_model(request, obj, form, change)
        messages.warning(
            request, _("Clé du jeton (affichée une seule fois, copiez-la maintenant) : %(key)s") % {"key": key}
        )


@admin.register(Conversation)
class ConversationAdmin(BookletsWithTheirGame, admin.ModelAdmin):
    list_display = ("__str__", "game", "user", "updated_at")
    list_select_related = ("game", "user")
    list_filter = ("game",)
    search_fields = ("title", "user__username")
    readonly_fields = ("created_at", "updated_at")
