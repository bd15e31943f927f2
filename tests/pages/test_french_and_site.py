"""French that reads right around names, the admin in French, the error pages in the site's
layout, the favicon, and the Oracle's own words (phases, answer opening) in the reader's
language (docs/ui.md « Translations »)."""

from datetime import datetime

import pytest
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone, translation
from django.views import defaults

from games.wording import booklet_title, french_de, of_name
from ingest.models import IngestJob
from questions.ask_flow import payloads
from tests.factories import ExtensionFactory, GameFactory, IngestJobFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("name", "expected"), [
    ("Les Aéronautes", "des Aéronautes"),
    ("Le Petit Prince", "du Petit Prince"),
    ("La Tour", "de la Tour"),
    ("L'Île interdite", "de l'Île interdite"),
    ("Arcmage", "d'Arcmage"),
    ("Ark Nova", "d'Ark Nova"),
    ("Heat", "de Heat"),
    ("Lewis & Clark", "de Lewis & Clark"),
    ("Leaving Earth", "de Leaving Earth"),
])
def test_de_before_a_name_is_contracted_as_french_wants(name, expected):
    assert french_de(name) == expected


def test_of_name_follows_the_page_language():
    with translation.override("fr"):
        assert of_name("Les Aéronautes") == "des Aéronautes"
    with translation.override("en"):
        assert of_name("Les Aéronautes") == "of Les Aéronautes"


def test_a_booklet_title_never_repeats_the_game_name():
    assert booklet_title("Les Aéronautes", "Les Aéronautes — Règles du jeu") == "Les Aéronautes — Règles du jeu"
    assert booklet_title("Arcmage", "Arcmage") == "Arcmage"
    assert booklet_title("Les Aéronautes", "Storm Front") == "Les Aéronautes — Storm Front"


def test_chat_invites_to_ask_about_the_rules_des_aeronautes(client, bob):
    client.force_login(bob)
    game = GameFactory(rules=True, name="Les Aéronautes", slug="les-aeronautes")
    page = client.get(reverse("oracle-chat", args=[game.slug])).content.decode()
    assert "les règles des Aéronautes" in page and "de Les" not in page
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    page = client.get(reverse("oracle-chat", args=[game.slug])).content.decode()
    assert "the rules of Les Aéronautes" in page


def test_ingest_pages_name_the_game_once_and_date_in_french(client, alice):
    client.force_login(alice)
    game = GameFactory(name="Les Aéronautes", booklet_name="Les Aéronautes — Règles du jeu")
    job = IngestJobFactory(game=game, status=IngestJob.Status.DONE)
    IngestJob.objects.filter(pk=job.pk).update(created_at=timezone.make_aware(datetime(2026, 12, 1, 10, 30)))
    arcmage = IngestJobFactory(game=GameFactory(name="Arcmage"), status=IngestJob.Status.DONE)

    jobs = client.get(reverse("oracle-ingest-jobs")).content.decode()
    assert "Les Aéronautes — Les Aéronautes" not in jobs and "Les Aéronautes — Règles du jeu" in jobs
    assert "Arcmage — Arcmage" not in jobs
    assert "1 déc. 10:30" in jobs
    page = client.get(reverse("oracle-ingest-job", args=[arcmage.pk])).content.decode()
    assert "<h1>Arcmage</h1>" in page


def test_admin_columns_and_choices_are_french_words_not_codes(client, alice):
    client.force_login(alice)
    job = IngestJobFactory(game=GameFactory(name="Heat"), status=IngestJob.Status.RUNNING, current_act="index")
    page = client.get(reverse("admin:ingest_ingestjob_changelist")).content.decode()
    for header in ("Livret", "Type de livret", "État", "Étape en cours", "Créée le"):
        assert header in page, header
    assert "Règles de base" in page and "Archivage" in page
    assert ">base<" not in page and ">index<" not in page
    games = client.get(reverse("admin:games_game_changelist")).content.decode()
    assert '<td class="field-language_name">Français</td>' in games and ">fr<" not in games
    assert job.get_booklet_kind_display() == "Règles de base"


def test_every_admin_field_has_a_french_name():
    from django.contrib import admin

    for model in admin.site._registry:  # every model the admin shows
        if model._meta.app_label in ("games", "ingest", "questions"):
            for field in model._meta.get_fields():
                if field.auto_created or not (field.concrete or field.many_to_many) or field.name in ("id", "dense"):
                    continue
                assert field._verbose_name is not None, f"{model.__name__}.{field.name}"  # else Django shows the code


def test_missing_page_is_styled_and_translated(client):
    response = client.get("/nulle-part/")
    page = response.content.decode()
    assert response.status_code == 404
    assert 'class="topbar"' in page and "oracle.css" in page and "Page introuvable" in page
    page = client.get("/nulle-part/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Page not found" in page


def test_forbidden_page_is_styled():
    request = RequestFactory().get("/ingestion/")
    from django.contrib.auth.models import AnonymousUser

    request.user = AnonymousUser()
    response = defaults.permission_denied(request, PermissionError())
    assert response.status_code == 403
    assert "Accès refusé" in response.content.decode() and 'class="topbar"' in response.content.decode()


def test_server_error_page_needs_no_database_nor_context_processors(django_assert_num_queries):
    request = RequestFactory().get("/")
    with django_assert_num_queries(0):
        response = defaults.server_error(request)
    page = response.content.decode()
    assert response.status_code == 500
    assert "Erreur du serveur" in page and 'class="topbar"' in page and 'href="/"' in page


def test_every_page_links_the_favicon_and_a_skip_link(client):
    page = client.get(reverse("oracle-login")).content.decode()
    assert 'rel="icon"' in page and "oracle/favicon.svg" in page
    assert 'class="skip-link" href="#main"' in page and '<main id="main"' in page
    response = client.get("/favicon.ico")  # the icon itself: no redirect for a browser to follow
    assert response.status_code == 200 and response["Content-Type"] == "image/x-icon"
    assert b"".join(response.streaming_content)[:4] == b"\x00\x00\x01\x00"  # an ICO file's header
    from django.contrib.staticfiles import finders

    assert finders.find("oracle/favicon.svg")


def test_the_oracle_phases_are_in_the_readers_language():
    with translation.override("en"):
        assert payloads.phase("write")["label"] == "The Oracle writes its answer"
    with translation.override("fr"):
        assert payloads.phase("write")["label"] == "L'Oracle rédige sa réponse"


def test_ingest_acts_are_named_in_the_readers_language(client, alice):
    client.force_login(alice)
    job = IngestJobFactory(game=ExtensionFactory().game)
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    page = client.get(reverse("oracle-ingest-job", args=[job.pk])).content.decode()
    assert '"index": "Indexing"' in page or '"index": "Archiving"' in page


def test_ingest_warnings_and_failures_carry_every_language():
    from ingest.coordinator import IngestFailure, fail
    from ingest.progress import Reporter, Text

    from django.utils.translation import gettext_noop

    job = IngestJobFactory(game=GameFactory(name="Heat"), status=IngestJob.Status.RUNNING)
    reporter = Reporter(job)
    reporter.warning(Text(gettext_noop("Ce livret semble rédigé en %(detected)s alors que sa langue déclarée est « %(declared)s ». "
                                       "Corrigez la langue (bouton « Corriger la langue » de la page de l'ingestion) : les questions posées dans l'autre langue le trouveront mieux."),
                          {"detected": Text(gettext_noop("anglais")), "declared": "fr"}))
    reporter.act = "index"
    fail(job, reporter, RuntimeError("disque plein"))

    warning, error = [event.data for event in job.events.order_by("pk")]
    assert warning["message"].startswith("Ce livret semble rédigé en anglais")
    assert warning["messages"]["en"].startswith("This booklet seems to be written in English")
    assert error["messages"]["fr"] == error["message"] and "« Archivage »" in error["message"]
    assert "Archiving" in error["messages"]["en"] and "disque plein" in error["messages"]["en"]
    job.refresh_from_db()
    assert job.error == error["message"]  # the French text, as before
    failure = IngestFailure(Text(gettext_noop("Ce PDF ne contient aucune page.")))
    assert str(failure) == "Ce PDF ne contient aucune page."


def test_on_an_english_page_the_extractive_answer_speaks_english_around_french_quotes():
    from questions.ask_flow.steps.answer_rules import reader_language
    from rag.extractive import extractive_answer
    from tests.rag.test_answer_shape import PASSAGES

    question = "Combien de jetons Flamme reçoit chaque joueur ?"
    with translation.override("en"):
        words_in = reader_language()
    answer = extractive_answer(question, PASSAGES, best_score=0.9, min_score=0.8, words_in=words_in)
    assert answer.startswith("According to the booklets:") and "Chaque joueur reçoit 4 jetons Flamme" in answer
    assert extractive_answer(question, PASSAGES, best_score=0.5, min_score=0.8, words_in=words_in).startswith("I found nothing")
    with translation.override("fr"):  # a French page: the question's language, as before
        assert reader_language() is None
    assert extractive_answer("How many Flame tokens does each player get?", PASSAGES, best_score=0.9,
                             min_score=0.8, words_in=None).startswith("According to the booklets:")  # fmt: skip


def test_a_base_booklet_named_as_its_game_is_called_the_base_rules(client, bob):
    client.force_login(bob)
    arcmage = GameFactory(rules=True, name="Arcmage", slug="arcmage")
    aero = GameFactory(rules=True, name="Les Aéronautes", slug="aero", booklet_name="Livret de règles 2e édition")
    chat = client.get(reverse("oracle-chat", args=[arcmage.slug])).content.decode()
    assert '<span class="booklet-tag">Règles de base</span>' in chat
    assert '<span class="booklet-tag">Livret de règles 2e édition</span>' in client.get(reverse("oracle-chat", args=[aero.slug])).content.decode()
    home = client.get("/").content.decode()
    assert "Arcmage <small>" not in home and "Livret de règles 2e édition <small>règles de base</small>" in home


def test_a_refused_form_and_a_bad_request_are_styled_pages(client, bob):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(bob)
    response = strict.post(reverse("oracle-logout"))
    assert response.status_code == 403
    assert "Formulaire expiré" in response.content.decode() and 'class="topbar"' in response.content.decode()
    response = defaults.bad_request(RequestFactory().get("/"), Exception())
    assert response.status_code == 400 and "Requête invalide" in response.content.decode()


def test_a_hostile_pdf_is_explained_in_every_language(tmp_path):
    from ingest.progress import Text
    from ingest.pdf_guard import HostilePdf, PdfLimits, check_pdf

    from django.utils.translation import gettext_noop

    encrypted = tmp_path / "locked.pdf"
    encrypted.write_bytes(b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer << /Encrypt 1 0 R /Root 1 0 R >>\n%%EOF")
    with pytest.raises(HostilePdf) as caught:
        check_pdf(encrypted, PdfLimits())
    message = Text(gettext_noop("Ce PDF ne peut pas être lu sans risque : %(error)s. Corrigez ou exportez-le à nouveau, puis relancez."),
                   {"error": caught.value})
    said = message.in_every_language()
    assert str(message) == said["fr"] and "le PDF" in said["fr"]
    assert "the PDF" in said["en"] and "le PDF" not in said["en"], said
