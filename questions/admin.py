from django.contrib import admin, messages
from django.utils.translation import gettext as _

from .models import ApiToken, Conversation, Question


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ("text", "game", "intent", "status", "best_score", "created_at")
    list_filter = ("status", "intent", "game")
    search_fields = ("text", "answer")
    readonly_fields = ("created_at", "answered_at")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked")
    list_filter = ("revoked",)
    search_fields = ("name", "user__username", "prefix")
    fields = ("user", "name", "revoked", "prefix", "created_at", "last_used_at")
    readonly_fields = ("prefix", "created_at", "last_used_at")

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        key = obj.assign_new_key()
        super().save_model(request, obj, form, change)
        messages.warning(
            request, _("Clé du jeton (affichée une seule fois, copiez-la maintenant) : %(key)s") % {"key": key}
        )


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = ("__str__", "game", "user", "updated_at")
    list_filter = ("game",)
    search_fields = ("title", "user__username")
    readonly_fields = ("created_at", "updated_at")
