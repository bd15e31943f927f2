from django.contrib import admin

from .models import IngestEvent, IngestJob


class IngestEventInline(admin.TabularInline):
    model = IngestEvent
    extra = 0
    can_delete = False
    fields = ("id", "event", "data", "created_at")
    readonly_fields = fields


@admin.register(IngestJob)
class IngestJobAdmin(admin.ModelAdmin):
    list_display = ("booklet_name", "game", "booklet_kind", "status", "pause_reason", "current_act", "created_at")
    list_filter = ("status", "booklet_kind", "pause_reason")
    search_fields = ("game__name", "extension__name", "error")
    readonly_fields = [f.name for f in IngestJob._meta.fields]
    inlines = [IngestEventInline]
