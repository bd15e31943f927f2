"""The admin of games and their booklets, and the read-only views of what ingestion and the
card import wrote.

A booklet's slug names its vector collection (`rules_<slug>`), which its chunks carry: the
slugs of a game and of a booklet, and a booklet's game, are fixed once created. Booklets are
created by ingestion and deleted through games.services, which refuses while one of them is
being read."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import quote
from django.shortcuts import redirect
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
    """The game's booklets, to rename them or correct their kind or language. Not to add one
    (ingestion creates it with its chunks) nor to delete one: its own page deletes it through
    games.services, with its PDF, unless it is being read."""

    model = Extension
    extra = 0
    can_delete = False
    fields = ("name", "slug", "kind", "language", served_pdf)
    readonly_fields = ("slug", served_pdf)

    def has_add_permission(self, request, obj=None):
        return False


def refuse_shared_collection(slug: str, taken_by, message) -> str:
    """The slug, unless a row of `taken_by` has it: a game's base booklet and an extension
    would share the collection `rules_<slug>` (games.services.unique_slug keeps them apart too)."""
    if taken_by.objects.filter(slug=slug).exists():
        raise forms.ValidationError(message, params={"slug": slug})
    return slug


class GameForm(forms.ModelForm):
    def clean_slug(self):
        return refuse_shared_collection(self.cleaned_data["slug"], Extension, _(
            "Un livret a déjà l'identifiant « %(slug)s » : leurs passages seraient dans le même index. Choisissez-en un autre."
        ))


class ExtensionForm(forms.ModelForm):
    def clean_slug(self):
        return refuse_shared_collection(self.cleaned_data["slug"], Game, _(
            "Un jeu a déjà l'identifiant « %(slug)s » : leurs passages seraient dans le même index. Choisissez-en un autre."
        ))


class FixedOnceCreated:
    """`fixed_once_created` fields are typed on the add page only, then read-only: the slug
    names the collection the booklet's chunks carry, and a booklet's chunks belong to its game."""

    fixed_once_created: tuple[str, ...] = ()

    def get_readonly_fields(self, request, obj=None):
        fixed = self.fixed_once_created if obj is not None else ()
        return (*super().get_readonly_fields(request, obj), *fixed)

    def get_prepopulated_fields(self, request, obj=None):
        return super().get_prepopulated_fields(request, obj) if obj is None else {}


# Set on the request by a deletion games.services refused (a booklet being read).
DELETION_REFUSED = "oracle_deletion_refused"


class DeletesThroughServices:
    """Deletion goes through games.services, which may refuse. A refused row is still there:
    only the refusal is shown, not Django's success message (sent whatever delete_model did),
    and the delete page leads back to the row rather than to a list without it."""

    def delete_through_services(self, request, rows, delete) -> None:
        for row in rows:
            try:
                delete(row)
            except services.BookletBusy as exc:
                setattr(request, DELETION_REFUSED, True)
                self.message_user(request, str(exc), messages.ERROR)

    def booklets_of(self, row) -> list:
        """The booklets deleting `row` deletes (a game: all of its own; a booklet: itself)."""
        return row.booklets() if isinstance(row, Game) else [row.booklet]

    def log_deletions(self, request, queryset):
        """« Actions récentes » records only the rows the services will delete: Django logs
        before `delete_model`, and a row whose booklet is being read stays."""
        deleted = []
        for row in queryset:
            try:
                services.refuse_if_busy(self.booklets_of(row))
            except services.BookletBusy:
                continue
            deleted.append(row)
        return super().log_deletions(request, deleted) if deleted else []

    def message_user(self, request, message, level=messages.INFO, *args, **kwargs):
        if level == messages.SUCCESS and getattr(request, DELETION_REFUSED, False):
            return
        super().message_user(request, message, level, *args, **kwargs)

    def get_deleted_objects(self, objs, request):
        """Chunks and cards go with their game or booklet, though none is deleted alone
        (ReadOnlyAdmin): Django would otherwise refuse for want of that permission."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        dependent = {str(model._meta.verbose_name) for model in (Chunk, Card)}
        return deleted, counts, {name for name in perms_needed if str(name) not in dependent}, protected

    def response_delete(self, request, obj_display, obj_id):
        if not getattr(request, DELETION_REFUSED, False):
            return super().response_delete(request, obj_display, obj_id)
        opts = self.opts
        return redirect(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[quote(obj_id)],
                                current_app=self.admin_site.name))


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
class GameAdmin(FixedOnceCreated, DeletesThroughServices, admin.ModelAdmin):
    form = GameForm
    list_display = ("name", "slug", language_name, "card_game", "bgg_id", "pdf_pages", "updated_at")
    list_filter = (LanguageFilter, "card_game")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    fields = ("name", "slug", "language", "description", "bgg_id", "bgg_metadata", "card_game", "booklet_name",
              served_pdf, "pdf_pages", "bgg_synced_at", "created_at", "updated_at")
    readonly_fields = (served_pdf, "pdf_pages", "bgg_synced_at", "created_at", "updated_at")
    fixed_once_created = ("slug",)
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
            sync_extension(extension, fields)

    def delete_model(self, request, game):
        """Everything the game left behind goes too (games.services), as with the API."""
        self.delete_through_services(request, [game], services.delete_game)

    def delete_queryset(self, request, queryset):
        self.delete_through_services(request, list(queryset), services.delete_game)


@admin.register(Extension)
class ExtensionAdmin(FixedOnceCreated, DeletesThroughServices, admin.ModelAdmin):
    form = ExtensionForm
    list_display = ("name", "game", "kind", language_name, "pdf_pages", "updated_at")
    list_filter = ("kind", LanguageFilter, "game")
    search_fields = ("name", "slug", "game__name")
    prepopulated_fields = {"slug": ("name",)}
    fields = ("game", "name", "slug", "kind", "language", served_pdf, "pdf_pages", "created_at", "updated_at")
    readonly_fields = (served_pdf, "pdf_pages", "created_at", "updated_at")
    fixed_once_created = ("game", "slug")

    def save_model(self, request, extension, form, change):
        super().save_model(request, extension, form, change)
        if change:
            sync_extension(extension, form.changed_data)

    def delete_model(self, request, extension):
        self.delete_through_services(request, [extension.booklet], services.delete_booklet)

    def delete_queryset(self, request, queryset):
        self.delete_through_services(request, [e.booklet for e in queryset.select_related("game")], services.delete_booklet)


def sync_extension(extension: Extension, changed_fields) -> None:
    """What its chunks carry to answers follows the admin's edit: the language (re-indexed)
    and the name answers cite."""
    if "language" in changed_fields:
        services.set_booklet_language(extension.booklet, extension.language)
    if "name" in changed_fields:
        services.rename_booklet(extension.booklet, extension.name)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows another process writes, shown for reading only (see each subclass for why)."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Chunk)
class ChunkAdmin(ReadOnlyAdmin):
    """Read-only: chunks are what an ingestion read from the booklet, and the index is rebuilt
    from them. To correct them, ingest the booklet again (or delete the booklet)."""

    list_display = ("collection", "ordinal", "page_start", "page_end", "hierarchy_path", "is_forum", "indexed")
    list_filter = ("collection", "is_forum", "indexed")
    search_fields = ("text", "hierarchy_path")
    exclude = ("dense", "sparse")  # vectors: bytes and numbers nobody reads
    readonly_fields = [f.name for f in Chunk._meta.fields if f.name not in ("id", "dense", "sparse")]


@admin.register(IndexState)
class IndexStateAdmin(ReadOnlyAdmin):
    """Read-only: writers bump a collection's version and the index owner syncs it when it
    moves (games.index_state); a version changed by hand would skip or repeat a sync."""

    list_display = ("collection", "version", "updated_at")
    search_fields = ("collection",)


@admin.register(Card)
class CardAdmin(ReadOnlyAdmin):
    """Read-only: cards come from `manage.py import_cards` (docs/cards.md), which would undo an
    edit and bring a deleted card back. To correct them, import the cards again."""

    list_display = ("name", "name_fr", "game", "type_line", "set_code", "indexed")
    list_filter = ("game", "set_code", "indexed")
    search_fields = ("name", "name_fr", "search_name_fr", "type_line")  # folded French: « drakon »
    exclude = ("dense", "sparse")
    readonly_fields = [f.name for f in Card._meta.fields if f.name not in ("id", "dense", "sparse")]


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

    def get_changeform_initial_data(self, request):
        """A term added here is « saisi à la main »: a « textes des cartes » one is deleted by
        the next card import (games.terms.learn_card_terms)."""
        return {"source": GameTerm.Source.MANUAL, **super().get_changeform_initial_data(request)}
