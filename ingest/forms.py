"""The admin's upload form: a booklet PDF for an existing or a new game."""

from pathlib import Path

from django import forms
from django.utils.translation import gettext_lazy as _

from games.models import BOOKLET_KIND_CHOICES, Game

from . import held_uploads, language_choice, services


class BookletUploadForm(forms.Form):
    game = forms.ModelChoiceField(Game.objects.all(), required=False, label=_("Jeu existant"))
    new_game_name = forms.CharField(required=False, max_length=200, label=_("…ou nom du nouveau jeu"))
    kind = forms.ChoiceField(choices=BOOKLET_KIND_CHOICES, initial="base", label=_("Type de livret"))
    name = forms.CharField(required=False, max_length=200, label=_("Nom du livret"))
    language = forms.ChoiceField(
        choices=language_choice.CHOICES, initial=language_choice.DETECT, required=False, label=_("Langue du livret"),
        help_text=_("Celle du texte du PDF (« Détecter » la lit dans le texte) : les questions posées dans l'autre langue y cherchent avec leurs mots traduits."),
    )
    pdf = forms.FileField(label=_("PDF"), required=False)
    # The PDF of a refused attempt, kept by the server (ingest.held_uploads): the form comes
    # back with it instead of an empty file field.
    held = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean(self):
        data = super().clean()
        if not data.get("pdf"):
            kept = held_uploads.held(data.get("held"))
            if kept is None:
                self.add_error("pdf", self.fields["pdf"].error_messages["required"])
            else:
                data["pdf"] = kept[0]
        if not data.get("game") and not data.get("new_game_name"):
            raise forms.ValidationError(_("Choisissez un jeu existant ou donnez le nom du nouveau jeu."))
        if data.get("kind") != "base" and not data.get("name"):
            self.add_error("name", _("Nommez le livret (par exemple « Extension Tempête »)."))
        if data.get("pdf"):
            try:
                data["pdf_info"] = services.validate_pdf(data["pdf"])  # create_ingest takes it, not checking again
            except services.InvalidPdf as exc:
                self.add_error("pdf", str(exc))
        return data

    def keep_pdf(self) -> None:
        """After a refusal that is not the file's fault: hold the PDF (once) and put its token
        in the form, which then says which file it kept."""
        pdf, token = self.cleaned_data.get("pdf"), self.cleaned_data.get("held") or None
        if pdf is not None and not isinstance(pdf, Path):  # a new file: it replaces the one held
            held_uploads.release(token)
            token = held_uploads.hold(pdf)
        if token and held_uploads.held(token):
            self.data = self.data.copy()
            self.data["held"] = token

    @property
    def held_name(self) -> str:
        """The kept PDF's name as uploaded, shown beside the file field."""
        kept = held_uploads.held(self.data.get("held")) if self.is_bound else None  # the token keep_pdf set
        return kept[1] if kept else ""
