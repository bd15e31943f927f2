"""The page « Ce que changent les extensions et la FAQ » of a game lists, per booklet, the
passages that change a base rule, from the ingestion's annotations; French first, English too."""

from django.urls import reverse

from games.models import Chunk
from tests.factories import ExtensionFactory, GameFactory
from tests.rag.corpus import create_chunk_rows


def test_each_extension_lists_the_base_rules_it_changes(client, bob):
    game = GameFactory(name="Course Folle", slug="course-folle")
    rain = ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain", language="en")
    quiet = ExtensionFactory(game=game, name="Quiet Roads", slug="quiet-roads")
    create_chunk_rows(game, rain)
    client.force_login(bob)

    page = client.get(reverse("oracle-game-changes", args=[game.slug])).content.decode()

    rain_section = page.split('id="changes-heavy-rain"')[1].split("</section>")[0]
    assert "p.3" in rain_section and "remplace" in rain_section
    assert "la règle du livret de base p.4" in rain_section
    assert "This replaces the base game rule." in rain_section
    assert "p.2" not in rain_section  # the tyre rule adds to the game, it changes nothing
    quiet_section = page.split('id="changes-quiet-roads"')[1].split("</section>")[0]
    assert "Aucun passage de ce livret ne change une règle du livret de base." in quiet_section


def test_without_an_llm_the_passage_s_own_words_say_it_changes_a_rule(client, bob):
    game = GameFactory(name="Les Aéronautes", slug="les-aeronautes")
    storm = ExtensionFactory(game=game, name="Storm Front", slug="storm-front", language="en")
    base = Chunk.objects.create(game=game, collection=game.base_booklet.collection, text="5.6 Photographier…",
                                page_start=6, page_end=6, hierarchy_path="5. Les actions > 5.6 Photographier")
    candidates = [{"base_chunk_id": str(base.pk), "similarity": 0.9, "base_page": 6}]
    Chunk.objects.create(game=game, extension=storm, collection=storm.booklet.collection, page_start=3, page_end=3,
                         text="Photographs. You may now photograph a Wonder from the high layer on its own hex.",
                         payload={"conflict_candidates": candidates, "conflict_base_chunk_id": str(base.pk)})
    client.force_login(bob)

    page = client.get(reverse("oracle-game-changes", args=[game.slug]), HTTP_ACCEPT_LANGUAGE="en").content.decode()

    section = page.split('id="changes-storm-front"')[1].split("</section>")[0]
    assert "You may now photograph a Wonder from the high layer on its own hex." in section
    assert "5.6 Photographier" in section and "p.6" in section


def test_the_page_of_an_unknown_game_is_404(client, bob):
    client.force_login(bob)
    assert client.get(reverse("oracle-game-changes", args=["nope"])).status_code == 404
