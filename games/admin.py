from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from rag.language import ENGLISH, FRENCH, normalise

from . import bgg_sync, services
from .models import Card, Chunk, Decklist, Extension, Game, GameTerm, IndexState


@admin.display(description=_("PDF"))
def served_pdf(owner) -> str:
    """A link to where the booklet's PDF is served (/booklets/<id>/pdf: MEDIA_ROOT is not
    served). Read-only: a new PDF goes through an ingestion, which swaps it with its chunks
    (ingest.booklet_swap), never alone."""
    if not owner.pk or not owner.pdf:
        return "—"
    return format_html('<a href="{}" target="_blank" rel="noopener">{}</a>', reverse("oracle-booklet-pdf", args=[owner.pk]),
                       owner.pdf.name.rsplit("/", 1)[-1])


class ExtensionInline(admin.TabularInline):
    model = Extension
    extra = 0
    fields = ("name", "slug", "kind", "language", served_pdf)
    readonly_fields = (served_pdf,)
    prepopulated_fields = {"slug": ("name",)}


LANGUAGE_NAMES = {FRENCH: _("Français"), ENGLISH: _("Anglais")}


@admin.display(description=_("langue"), ordering="language")
def language_name(booklet) -> str:
    """« Français », not « fr » (an unknown code is shown as typed)."""
    return str(LANGUAGE_NAMES.get(normalise(booklet.language), booklet.language))


class LanguageFilter(admin.SimpleListFilter):
    """The languages in use, by name."""

    title = _("langue")
    parameter_name = "language"

    def lookups(self, request, model_admin):
        codes = model_admin.model.objects.order_by("language").values_list("language", flat=True).distinct()
        return [(code, str(LANGUAGE_NAMES.get(normalise(code), code))) for code in codes]

    def queryset(self, request, queryset):
        return queryset.filter(language=self.value()) if self.value() else queryset


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", language_name, "card_game", "bgg_id", "pdf_pages", "updated_at")
    list_filter = (LanguageFilter, "card_game")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    exclude = ("pdf",)
    readonly_fields = (served_pdf, "pdf_pages", "bgg_synced_at", "created_at", "updated_at")
    inlines = [ExtensionInline]

    def save_model(self, request, game, form, change):
        super().save_model(request, game, form, change)
        if not change:
            return
        if "bgg_id" in form.changed_data:  # the former id's forum is another game's
            bgg_sync.drop_other_forums(game, unrecorded=True)
        if "language" in form.changed_data:
            services.set_booklet_language(game.base_booklet, game.language)
        if {"name", "booklet_name"} & set(form.changed_data):  # every chunk carries the game's name, the base its booklet's
            services.rename_game(game, game.name)

    def save_formset(self, request, form, formset, change):
        """A booklet's language or name changed here is changed as the API and the job page do."""
        changed = [(f.instance, f.changed_data) for f in formset.initial_forms if {"language", "name"} & set(f.changed_data)]
        super().save_formset(request, form, formset, change)
        for extension, fields in changed:
            if Extension.objects.filter(pk=extension.pk).exists():  # not deleted by the same form
                sync_extension(extension, fields)

    def delete_model(self, request, game):
        """Everything the game left behind goes too (games.services), as with the API."""
        delete_through_services(self, request, [game], services.delete_game)

    def delete_queryset(self, request, queryset):
        delete_through_services(self, request, list(queryset), services.delete_game)


@admin.register(Extension)
class ExtensionAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "kind", language_name, "pdf_pages", "updated_at")
    list_filter = ("kind", LanguageFilter, "game")
    search_fields = ("name", "slug", "game__name")
    prepopulated_fields = {"slug": ("name",)}
    exclude = ("pdf",)
    readonly_fields = (served_pdf, "pdf_pages", "created_at", "updated_at")

    def save_model(self, request, extension, form, change):
        super().save_model(request, extension, form, change)
        if change:
            sync_extension(extension, form.changed_data)

    def delete_model(self, request, extension):
        delete_through_services(self, request, [extension.booklet], services.delete_booklet)

    def delete_queryset(self, request, queryset):
        delete_through_services(self, request, [e.booklet for e in queryset.select_related("game")], services.delete_booklet)


def sync_extension(extension: Extension, changed_fields) -> None:
    """What its chunks carry to answers follows the admin's edit: the language (re-indexed)
    and the name answers cite."""
    if "language" in changed_fields:
        services.set_booklet_language(extension.booklet, extension.language)
    if "name" in changed_fields:
        services.rename_booklet(extension.booklet, extension.name)


def delete_through_services(model_admin, request, rows, delete) -> None:
    for row in rows:
        try:
            delete(row)
        except services.BookletBusy as exc:
            model_admin.message_user(request, str(exc), messages.ERROR)


@admin.register(Chunk)
class ChunkAdmin(admin.ModelAdmin):
    list_display = ("collection", "ordinal", "page_start", "page_end", "hierarchy_path", "is_forum", "indexed")
    list_filter = ("collection", "is_forum", "indexed")
    search_fields = ("text", "hierarchy_path")
    readonly_fields = [f.name for f in Chunk._meta.fields if f.name != "id"]

    def has_add_permission(self, request):
        return False


admin.site.register(IndexState)


@admin.register(Card)
class CardAdmin(admin.ModelAdmin):
    """Read-only: cards come from `manage.py import_cards` (docs/cards.md)."""

    list_display = ("name", "name_fr", "game", "type_line", "set_code", "indexed")
    list_filter = ("game", "set_code", "indexed")
    search_fields = ("name", "name_fr", "search_name_fr", "type_line")  # folded French: « drakon »
    exclude = ("dense", "sparse")
    readonly_fields = [f.name for f in Card._meta.fields if f.name not in ("id", "dense", "sparse")]

    def has_add_permission(self, request):
        return False


@admin.register(Decklist)
class DecklistAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "format", "played_on", "indexed")
    list_filter = ("game", "format")
    search_fields = ("name", "source")
    exclude = ("dense", "sparse")
    readonly_fields = ("embedder", "embedded_text_hash", "indexed", "created_at")

    def save_model(self, request, deck, form, change):
        """Every field feeds the list's point (games.card_indexing.decklist_payload): an edit
        is embedded and indexed again (games.services), or the index keeps the old list. A list
        without a vector (its embedding failed) is embedded again by a save without changes;
        a failure is shown, not only logged."""
        super().save_model(request, deck, form, change)
        if not (form.changed_data or deck.dense is None):
            return
        error = services.decklist_edited(deck, former_game_id=form.initial.get("game"))
        if error:
            self.message_user(request, _(
                "« %(name)s » est enregistrée mais n'est pas indexée : les embeddings ont échoué (%(error)s). "
                "Enregistrez-la de nouveau quand le service répond."
            ) % {"name": deck.name, "error": error}, messages.WARNING)

    def delete_model(self, request, deck):
        services.delete_decklists([deck])

    def delete_queryset(self, request, queryset):
        services.delete_decklists(queryset.select_related("game"))


@admin.register(GameTerm)
class GameTermAdmin(admin.ModelAdmin):
    """Terms learnt from the card catalog are rebuilt at each import; add a « manual » one to
    correct a learnt pair (it wins for its English term)."""

    list_display = ("french", "english", "game", "source", "support")
    list_filter = ("source", "game")
    search_fields = ("french", "english")
