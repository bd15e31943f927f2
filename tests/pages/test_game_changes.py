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


def test_without_an_llm_a_change_names_its_rule_and_is_attached_to_it_not_to_the_summary_page(client, bob):
    game = GameFactory(name="Les Aéronautes", slug="les-aeronautes")
    storm = ExtensionFactory(game=game, name="Storm Front", slug="storm-front", language="en")
    base = game.base_booklet.collection

    def base_chunk(text, page, path):
        return Chunk.objects.create(game=game, collection=base, text=text, page_start=page, page_end=page, hierarchy_path=path)

    photo = base_chunk("5.6 Photographier\nUn ballon en couche basse ou moyenne photographie…", 6, "5. Les actions > 5.6 Photographier")
    summary = base_chunk("10.3 Résumé d'une manche\nPhase 1. Vent…", 11, "10. Variantes et résumé > 10.3 Résumé d'une manche")
    # Similarity ranks the round summary first, as it did in the demo.
    candidates = [{"base_chunk_id": str(c.pk), "similarity": 0.9, "base_page": c.page_start} for c in (summary, photo)]

    def storm_chunk(text, page, path):
        Chunk.objects.create(game=game, extension=storm, collection=storm.booklet.collection, page_start=page, page_end=page,
                             text=text, hierarchy_path=path,
                             payload={"conflict_candidates": candidates, "conflict_base_chunk_id": str(summary.pk)})

    storm_chunk("Rule 5.6 of the base game is modified: you may now photograph a Wonder from the high layer.", 3,
                "5. Photographing (modifies rule 5.6 of the base game)")
    storm_chunk("Thanks also to our playtesters, who now know every storm by name.", 4, "Credits")
    client.force_login(bob)

    page = client.get(reverse("oracle-game-changes", args=[game.slug]), HTTP_ACCEPT_LANGUAGE="en").content.decode()

    section = page.split('id="changes-storm-front"')[1].split("</section>")[0]
    assert "Rule 5.6 of the base game is modified" in section
    assert "5.6 Photographier" in section and "p.6" in section
    assert "p.11" not in section and "Résumé" not in section
    # « also » and « now » alone say nothing about the base rules.
    assert "playtesters" not in section


def test_the_page_of_an_unknown_game_is_404(client, bob):
    client.force_login(bob)
    assert client.get(reverse("oracle-game-changes", args=["nope"])).status_code == 404
