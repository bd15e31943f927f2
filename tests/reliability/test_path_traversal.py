"""No path built from a request can leave the media folder: booklets are served by id only,
a tampered stored path is refused, uploaded names never reach the file system."""

import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile

from ingest.models import IngestJob
from tests.factories import ExtensionFactory, GameFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db

SECRET = b"SECRET-OUTSIDE-MEDIA"
TRAVERSALS = [
    "../../../../etc/passwd",
    "..%2F..%2F..%2Fetc%2Fpasswd",
    "%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "%252e%252e%252f%252e%252e%252fetc%252fpasswd",
    "..%252f..%252fetc%252fpasswd",
    "%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd",
    "....//....//etc/passwd",
    "/etc/passwd",
    "%2Fetc%2Fpasswd",
    "..\\..\\..\\windows\\win.ini",
]
FILE_ROUTES = ["/booklets/{}/pdf", "/booklets/{}/view", "/static/{}", "/media/{}", "/api/ingest/{}/events", "/api/ask/{}",
               "/api/booklets/{}/pdf", "/api/booklets/{}/pages/1"]


@pytest.fixture
def secret_outside_media(settings, tmp_path):
    path = tmp_path / "secret.txt"
    path.write_bytes(SECRET)
    return path


def test_traversal_in_any_file_url_never_serves_a_file(client, bob, secret_outside_media):
    client.force_login(bob)
    for route in FILE_ROUTES:
        for attempt in TRAVERSALS + [str(secret_outside_media), "../" * 6 + str(secret_outside_media).lstrip("/")]:
            response = client.get(route.format(attempt))
            assert response.status_code in (400, 401, 403, 404, 422), (route, attempt, response.status_code)
            body = b"".join(response.streaming_content) if response.streaming else response.content
            assert SECRET not in body and b"root:" not in body


@pytest.mark.parametrize("stored", ["../secret.txt", "../../secret.txt", "ABSOLUTE", "pdfs/../../secret.txt"])
def test_tampered_stored_pdf_path_is_refused_not_followed(client, bob, settings, secret_outside_media, stored):
    """Even if a row's path were edited to point outside MEDIA_ROOT, the view refuses it."""
    game = GameFactory(name="Heat", rules=True)  # read: only the stored path keeps it from being served
    ext = ExtensionFactory(game=game, name="Tempête", rules=True)
    settings.MEDIA_ROOT.mkdir(parents=True, exist_ok=True)
    for owner in (game, ext):
        type(owner).objects.filter(pk=owner.pk).update(
            pdf=str(secret_outside_media) if stored == "ABSOLUTE" else stored
        )
    client.force_login(bob)
    for owner in (game, ext):
        response = client.get(f"/booklets/{owner.pk}/pdf")
        assert response.status_code in (400, 404)
        assert SECRET not in (b"".join(response.streaming_content) if response.streaming else response.content)


def test_uploaded_file_and_game_names_cannot_place_files_outside_the_media_folder(client, alice, settings, tmp_path):
    client.force_login(alice)
    pdf = rulebook_pdf(tmp_path / "ok.pdf", LOREM_RULES).read_bytes()
    response = client.post(
        "/api/games/ingest",
        {
            "pdf": SimpleUploadedFile("../../../../tmp/evil.pdf", pdf, "application/pdf"),
            "new_game_name": "../../../../tmp/evil",
            "kind": "base",
        },
    )
    assert response.status_code == 202, response.content
    job = IngestJob.objects.get()
    stored = (settings.MEDIA_ROOT / job.pdf_path).resolve()
    assert stored.is_relative_to(settings.PDF_DIR.resolve()) and stored.is_file()
    assert job.game.base_booklet.images_dir.resolve().is_relative_to(settings.PAGE_IMAGES_DIR.resolve())
    assert ".." not in job.game.slug and "/" not in job.game.slug
    assert not (tmp_path / "evil.pdf").exists() and not any(p.name == "evil.pdf" for p in tmp_path.parent.glob("*.pdf"))


def test_existing_booklet_is_still_served_by_its_id(client, bob):
    game = GameFactory(name="Heat", rules=True)
    game.pdf.save("heat.pdf", ContentFile(b"%PDF-1.4 ok"))
    client.force_login(bob)
    assert b"".join(client.get(f"/booklets/{game.pk}/pdf").streaming_content) == b"%PDF-1.4 ok"
