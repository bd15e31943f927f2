"""The admin is French: passages, index states and ingestion events are named in French,
not by their class names (« Chunks », « Index states », « Ingest events »)."""

import pytest

from games.models import Chunk
from tests.factories import IngestJobFactory

pytestmark = pytest.mark.django_db


def test_the_admin_index_names_passages_and_index_states_in_french(client, alice):
    client.force_login(alice)

    page = client.get("/admin/").content.decode()

    assert ">Passages<" in page and ">États d&#x27;index<" in page
    assert "Chunks" not in page and "Index states" not in page


def test_an_ingestion_page_names_its_events_in_french(client, alice):
    job = IngestJobFactory()
    job.emit("act", {"act": "read"})
    client.force_login(alice)

    page = client.get(f"/admin/ingest/ingestjob/{job.pk}/change/").content.decode()

    assert "Événements d&#x27;ingestion" in page and "Ingest events" not in page


def test_a_passage_names_its_vector_in_french():
    assert Chunk._meta.get_field("dense").verbose_name == "vecteur sémantique"
