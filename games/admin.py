from django.contrib import admin

from .models import Chunk, Extension, Game, IndexState


class ExtensionInline(admin.TabularInline):
    model = Extension
    extra = 0
    fields = ("name", "slug", "kind", "language", "pdf")
    prepopulated_fields = {"slug": ("name",)}


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "language", "card_game", "bgg_id", "pdf_pages", "updated_at")
    list_filter = ("language", "card_game")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("pdf_pages", "bgg_synced_at", "created_at", "updated_at")
    inlines = [ExtensionInline]


@admin.register(Extension)
class ExtensionAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "kind", "language", "pdf_pages", "updated_at")
    list_filter = ("kind", "language", "game")
    search_fields = ("name", "slug", "game__name")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("pdf_pages", "created_at", "updated_at")


@admin.register(Chunk)
class ChunkAdmin(admin.ModelAdmin):
    list_display = ("collection", "ordinal", "page_start", "page_end", "hierarchy_path", "is_forum", "indexed")
    list_filter = ("collection", "is_forum", "indexed")
    search_fields = ("text", "hierarchy_path")
    readonly_fields = [f.name for f in Chunk._meta.fields if f.name != "id"]

    def has_add_permission(self, request):
        return False


admin.site.register(IndexState)
