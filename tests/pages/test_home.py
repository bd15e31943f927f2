from django.urls import reverse

from games.models import Extension
from tests.factories import ExtensionFactory, GameFactory


def test_home_lists_games_with_their_booklets_to_tick(client, bob):
    heat = GameFactory(rules=True, name="Heat", bgg_metadata={"image": "https://cf.geekdo-images.com/heat.jpg", "yearpublished": 2022,
                                                   "minplayers": 1, "maxplayers": 6})
    ExtensionFactory(rules=True, game=heat, name="Tempête", kind=Extension.Kind.EXTENSION)
    ExtensionFactory(rules=True, game=heat, name="Règles expertes", kind=Extension.Kind.ADVANCED_RULES)
    ExtensionFactory(rules=True, game=heat, name="FAQ officielle", kind=Extension.Kind.FAQ)
    client.force_login(bob)

    page = client.get(reverse("oracle-home")).content.decode()

    assert "Heat" in page
    assert "https://cf.geekdo-images.com/heat.jpg" in page
    assert "2022" in page and "1–6 joueurs" in page
    for ext in heat.extensions.all():
        assert f'name="ext" value="{ext.pk}"' in page
    assert "Règles avancées" in page and "FAQ" in page
    assert f'action="{reverse("oracle-chat", args=[heat.slug])}"' in page


def test_home_without_games_offers_the_admin_a_first_upload(client, alice):
    client.force_login(alice)
    page = client.get(reverse("oracle-home")).content.decode()
    assert "Aucun jeu pour l'instant." in page
    assert reverse("oracle-ingest-new") in page


def test_a_game_whose_only_ingestion_failed_is_offered_to_no_player_but_staff_still_see_it(client, bob, alice):
    from ingest.models import IngestJob
    from tests.factories import IngestJobFactory

    GameFactory(rules=True, name="Heat")
    broken = GameFactory(name="Broken Game", pdf="pdfs/broken-game.pdf", pdf_pages=3)  # pointed at its PDF on upload
    IngestJobFactory(game=broken, status=IngestJob.Status.ERROR, error="L'étape « Lecture » a échoué")
    cancelled = GameFactory(name="Cancelled Game")
    IngestJobFactory(game=cancelled, status=IngestJob.Status.CANCELLED)
    client.force_login(bob)

    home = client.get(reverse("oracle-home")).content.decode()

    assert "Heat" in home and "Broken Game" not in home and "Cancelled Game" not in home
    assert client.get(reverse("oracle-chat", args=[broken.slug])).status_code == 404  # no « Ouvrir le PDF » either
    assert client.get(reverse("oracle-chat", args=[cancelled.slug])).status_code == 404
    client.force_login(alice)
    assert "Broken Game" in client.get(reverse("oracle-ingest-jobs")).content.decode()
    assert "Broken Game" in client.get(reverse("admin:games_game_changelist")).content.decode()


def test_a_first_ingestion_under_way_is_not_askable_yet_while_a_re_ingested_game_stays(client, bob):
    from ingest.models import IngestJob
    from tests.factories import IngestJobFactory

    first = GameFactory(name="Heat")
    IngestJobFactory(game=first, status=IngestJob.Status.RUNNING)
    again = GameFactory(rules=True, name="Arcmage")  # its old rules answer until the new ones are swapped in
    IngestJobFactory(game=again, status=IngestJob.Status.RUNNING)
    client.force_login(bob)

    home = client.get(reverse("oracle-home")).content.decode()

    assert "Heat" not in home and "Arcmage" in home
    assert client.get(reverse("oracle-chat", args=[first.slug])).status_code == 404
    assert client.get(reverse("oracle-chat", args=[again.slug])).status_code == 200


def test_only_the_booklets_with_rules_are_offered_on_the_home_page_and_in_the_chat(client, bob):
    heat = GameFactory(rules=True, name="Heat")
    storm = ExtensionFactory(rules=True, game=heat, name="Tempête")
    failed = ExtensionFactory(game=heat, name="Règles expertes", kind=Extension.Kind.ADVANCED_RULES)
    client.force_login(bob)

    home = client.get(reverse("oracle-home")).content.decode()
    chat = client.get(reverse("oracle-chat", args=[heat.slug])).content.decode()

    for page in (home, chat):
        assert str(storm.pk) in page and "Règles expertes" not in page and str(failed.pk) not in page
    assert "Règles de base" in home and '<span class="booklet-tag">Règles de base</span>' in chat


def test_a_game_whose_base_booklet_has_no_rules_offers_only_its_other_booklets(client, bob):
    aero = GameFactory(name="Les Aéronautes")  # its base booklet's ingestion failed, its FAQ's did not
    ExtensionFactory(rules=True, game=aero, name="FAQ officielle", kind=Extension.Kind.FAQ)
    client.force_login(bob)

    home = client.get(reverse("oracle-home")).content.decode()
    chat = client.get(reverse("oracle-chat", args=[aero.slug])).content.decode()

    assert "FAQ officielle" in home and "Règles de base" not in home
    assert "FAQ officielle" in chat and "Règles de base" not in chat


def test_every_offered_booklet_ticked_is_every_booklet_present_and_future(client, bob, monkeypatch):
    from questions.models import Conversation

    monkeypatch.setattr("questions.views.start_answering", lambda *args, **kwargs: None)
    heat = GameFactory(rules=True, name="Heat")
    storm = ExtensionFactory(rules=True, game=heat, name="Tempête")
    ExtensionFactory(game=heat, name="Règles expertes")  # its first ingestion still running: not offered
    client.force_login(bob)

    client.post(reverse("oracle-chat-ask", args=[heat.slug]), {"question": "Combien de cartes ?", "booklet": [storm.pk]},
                HTTP_HX_REQUEST="true")

    assert Conversation.objects.get(game=heat).every_booklet  # the expert rules join once they are read


def test_a_card_game_with_a_catalogue_is_askable_before_any_rulebook_is_read(client, bob):
    from games.models import Card, Game

    magic = GameFactory(name="Magic", card_game=Game.CardGame.MTG)  # decks and cards need no rulebook
    Card.objects.create(game=magic, key="lightning bolt", name="Lightning Bolt", search_name="lightning bolt")
    GameFactory(name="Flesh and Blood", card_game=Game.CardGame.FAB)  # no catalogue, no rules: nothing to ask
    client.force_login(bob)

    home = client.get(reverse("oracle-home")).content.decode()

    assert "Magic" in home and "Flesh and Blood" not in home
    assert "Livrets consultés" not in home and "Règles de base" not in home  # no booklet read yet
    assert client.get(reverse("oracle-chat", args=[magic.slug])).status_code == 200


def test_unticking_every_expansion_on_the_home_page_opens_the_chat_on_the_base_booklet_alone(client, bob):
    from html.parser import HTMLParser

    class UntickedForm(HTMLParser):
        """What a browser sends for the game's GET form once every box is unticked."""

        def __init__(self, form_id):
            super().__init__()
            self.form_id, self.inside, self.fields = form_id, False, []

        def handle_starttag(self, tag, attrs):
            attrs = dict(attrs)
            if tag == "li" and attrs.get("id") == self.form_id:
                self.inside = True
            elif self.inside and tag == "input" and attrs.get("name") and attrs.get("type") != "checkbox":
                self.fields.append((attrs["name"], attrs.get("value") or ""))

        def handle_endtag(self, tag):
            if tag == "li":
                self.inside = False

    heat = GameFactory(rules=True, name="Heat")
    rain = ExtensionFactory(rules=True, game=heat, name="Heavy Rain")
    tunnel = ExtensionFactory(rules=True, game=heat, name="Tunnel Vision")
    client.force_login(bob)
    form = UntickedForm(f"game-{heat.slug}")
    form.feed(client.get(reverse("oracle-home")).content.decode())
    query = {}
    for name, value in form.fields:
        query.setdefault(name, []).append(value)

    chat = client.get(reverse("oracle-chat", args=[heat.slug]), query).content.decode()

    choice = chat.split('id="booklet-choice"')[1].split("</fieldset>")[0]
    assert "Heavy Rain" in choice and "Tunnel Vision" in choice
    assert f'value="{rain.pk}" checked' not in choice and f'value="{tunnel.pk}" checked' not in choice
