from django.contrib import admin

from .models import Question


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ("text", "game", "intent", "status", "best_score", "created_at")
    list_filter = ("status", "intent", "game")
    search_fields = ("text", "answer")
    readonly_fields = ("created_at", "answered_at")
