"""The stored answer of a question, rendered on the server (GET /jeux/<slug>/questions/<id>/answer):
what comes back is inserted as HTML by the chat. Only whoever may see the question sees it, and
no text an LLM could write makes the renderer fail or run away."""

from html.parser import HTMLParser
from urllib.parse import parse_qs, urlparse

import pytest
from django.contrib.auth import get_user
from django.urls import reverse

from questions.models import Question
from questions.rendering import MAX_MARKDOWN_CHARS
from tests.factories import ExtensionFactory, GameFactory, QuestionFactory


class ElementCollector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.elements = []  # (tag, {attr: value})

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))


def elements(html: str):
    collector = ElementCollector()
    collector.feed(html)
    return collector.elements


@pytest.fixture
def game(db):
    game = GameFactory(name="Heat", booklet_name="Heat — Règles")
    ExtensionFactory(game=game, name="Tempête")
    return game


def answered(game, text, best_score=None, user=None) -> Question:
    question = QuestionFactory(game=game, user=user)
    question.mark_done(answer=text, intent="rules", best_score=best_score, diagnostics={})
    return question


def fragment_url(question, slug=None) -> str:
    return reverse("oracle-answer-fragment", args=[slug or question.game.slug, question.pk])


def render(client, game, text, best_score=None) -> str:
    """The HTML the chat gets for an answer of `text`, asked by the signed-in player."""
    user = get_user(client)
    response = client.get(fragment_url(answered(game, text, best_score, user)))
    assert response.status_code == 200
    return response.content.decode()


def test_citation_becomes_a_link_to_the_cited_page_of_the_right_booklet(client, bob, game):
    client.force_login(bob)
    storm = game.extensions.get()
    html = render(client, game, 'Oui. [Tempête, p.4 : "La tempête souffle à la fin du tour."]')

    assert f'href="/booklets/{storm.pk}/pdf#page=4"' in html
    viewer_url = html.split('data-viewer-url="')[1].split('"')[0].replace("&amp;", "&")
    parsed = urlparse(viewer_url)
    assert parsed.path == f"/booklets/{storm.pk}/view"
    assert parse_qs(parsed.query) == {"page": ["4"], "q": ["La tempête souffle à la fin du tour."]}
    assert "Tempête, p.4" in html


def test_base_booklet_citation_with_french_quotes_links_to_the_game_pdf(client, bob, game):
    client.force_login(bob)
    html = render(client, game, "Voir [Heat — Règles, p.12 : « Le joueur actif pioche. »].")
    assert f'href="/booklets/{game.pk}/pdf#page=12"' in html


def test_unknown_booklet_citation_is_shown_but_not_linked(client, bob, game):
    client.force_login(bob)
    html = render(client, game, '[Un autre jeu, p.3 : "x"]')
    assert "citation-unknown" in html and "/booklets/" not in html


def test_model_output_cannot_inject_html(client, bob, game):
    client.force_login(bob)
    html = render(
        client, game,
        '<script>alert(1)</script><img src=x onerror="alert(2)"> **gras** '
        '[Tempête, p.1 : "<b onclick=alert(3)>quote</b>"] ORACLEPH0X [[card:<i>Bolt</i>]]',
    )
    found = elements(html)
    assert not [tag for tag, _ in found if tag in ("script", "img", "b", "i")]
    assert not [attr for _, attrs in found for attr in attrs if attr.startswith("on")]
    assert "<strong>gras</strong>" in html
    assert "&lt;b onclick=alert(3)&gt;quote&lt;/b&gt;" in html  # the quote is shown as text
    assert "&lt;i&gt;Bolt&lt;/i&gt;" in html


def test_card_tag_becomes_a_card_chip(client, bob, game):
    client.force_login(bob)
    html = render(client, game, "Jouez 4x [[card:Lightning Bolt]].")
    assert (
        '<button type="button" class="card-chip" data-card="Lightning Bolt" aria-haspopup="dialog"'
        ' aria-controls="card-popover" aria-expanded="false">Lightning Bolt</button>'
    ) in html


def test_a_citation_written_inside_a_card_tag_follows_the_chip(client, bob, game):
    client.force_login(bob)
    html = render(client, game, 'Jouez [[card:Lightning Bolt [Heat — Règles, p.3 : "Infligez 3."]]] en réponse.')
    assert "ORACLEPH" not in html
    assert [(tag, attrs.get("data-card") or attrs.get("data-page")) for tag, attrs in elements(html) if tag in ("button", "a")] == [
        ("button", "Lightning Bolt"), ("a", "3")]
    assert '<q class="citation-quote">Infligez 3.</q>' in html

@pytest.mark.parametrize(
    ("score", "level", "label"),
    [(1.6, "high", "Les livrets répondent clairement"),
     (0.7, "medium", "Réponse probable"),
     (0.1, "low", "Les livrets ne tranchent pas clairement cette question")],
)
def test_confidence_indicator_follows_best_score(client, bob, game, settings, score, level, label):
    settings.UI_CONFIDENCE_HIGH, settings.UI_CONFIDENCE_LOW = 1.0, 0.5
    client.force_login(bob)
    html = render(client, game, "Réponse.", best_score=score)
    assert f'data-level="{level}"' in html and label in html


def test_no_confidence_indicator_without_a_score(client, bob, game):
    client.force_login(bob)
    assert "confidence" not in render(client, game, "Réponse.")


def test_no_confidence_indicator_on_a_decklist_it_has_its_verdict(client, bob, game):
    deck = QuestionFactory(game=game, user=bob)
    deck.mark_done(answer="4× [[card:Shock]]", intent="deckbuilding", best_score=0.9, diagnostics={"deck": {}})
    client.force_login(bob)
    html = client.get(fragment_url(deck)).content.decode()
    assert 'data-card="Shock"' in html and "confidence" not in html


# --- who sees an answer ---------------------------------------------------------------------


def test_a_player_sees_the_answers_of_their_own_questions_staff_sees_all(client, bob, alice, game):
    mine = answered(game, "**Oui**", user=bob)
    client.force_login(bob)
    assert b"<strong>Oui</strong>" in client.get(fragment_url(mine)).content
    client.force_login(alice)
    assert client.get(fragment_url(mine)).status_code == 200


def test_another_players_answer_is_not_found(client, bob, game, django_user_model):
    other = django_user_model.objects.create_user("carol", password="x")
    theirs = answered(game, "Secret", user=other)
    client.force_login(bob)
    assert client.get(fragment_url(theirs)).status_code == 404


def test_an_answer_is_found_only_under_its_own_game(client, bob, game):
    question = answered(game, "Oui", user=bob)
    GameFactory(slug="autre-jeu")
    client.force_login(bob)
    assert client.get(fragment_url(question, slug="autre-jeu")).status_code == 404


def test_a_visitor_is_sent_to_log_in_unless_asking_is_open(client, game, settings):
    question = answered(game, "**Oui**")  # asked anonymously
    assert client.get(fragment_url(question)).status_code == 302
    settings.ASK_ALLOW_ANONYMOUS = True
    assert b"<strong>Oui</strong>" in client.get(fragment_url(question)).content


def test_a_question_still_being_answered_says_so(client, bob, game):
    pending = QuestionFactory(game=game, user=bob)
    client.force_login(bob)
    assert client.get(fragment_url(pending)).status_code == 202


def test_a_failed_question_shows_its_error(client, bob, game):
    failed = QuestionFactory(game=game, user=bob)
    failed.mark_failed("L'Oracle n'a pas pu répondre : délai dépassé")
    client.force_login(bob)
    assert "délai dépassé" in client.get(fragment_url(failed)).content.decode()


def test_the_page_no_longer_renders_markdown_it_is_sent(client, bob, game):
    """The chat used to post the streamed markdown back to be rendered; nothing renders it now."""
    client.force_login(bob)
    assert client.post(f"/jeux/{game.slug}/answer", {"text": "**Oui**"}).status_code == 404


# --- hostile or unlucky answers (issue 19, defect 4) ------------------------------------------


def test_two_hundred_thousand_brackets_are_shown_as_they_are(client, bob, game):
    client.force_login(bob)
    html = render(client, game, "[" * 200_000)
    assert html.count("[") == 200_000


def test_many_unclosed_citations_and_links_are_shown_as_text(client, bob, game):
    client.force_login(bob)
    html = render(client, game, "[Heat, p" * 20_000 + "\n" + "[a](" * 20_000)
    assert html.count("[Heat, p") == 20_000 and html.count("[a](") == 20_000


def test_a_placeholder_split_by_markup_cannot_be_forged(client, bob, game):
    client.force_login(bob)
    html = render(client, game, "ORACLEPH<span></span>0X et ORACLEPH0X [[card:Bolt]]")
    assert "ORACLEPH&lt;span&gt;&lt;/span&gt;0X et ORACLEPH0X" in html
    assert 'data-card="Bolt"' in html


@pytest.mark.parametrize("indent", ["  ", "    "])
def test_a_list_nested_five_hundred_deep_keeps_every_line(client, bob, game, indent):
    client.force_login(bob)
    html = render(client, game, "".join(f"{indent * depth}- niveau {depth}\n" for depth in range(500)))
    assert all(f"niveau {depth}" in html for depth in (0, 250, 499))


def test_quotes_and_list_markers_nested_thousands_deep_keep_their_text(client, bob, game):
    client.force_login(bob)
    assert "fin" in render(client, game, ">" * 5000 + " fin")
    assert "fin" in render(client, game, "- " * 5000 + "fin")


def test_an_answer_longer_than_the_markdown_limit_is_shown_whole(client, bob, game):
    client.force_login(bob)
    lines = [f"**Ligne {n}**" for n in range(MAX_MARKDOWN_CHARS // 10)]
    html = render(client, game, "\n\n".join(lines))
    assert "<strong>Ligne 0</strong>" in html  # the head as markdown
    assert f"**Ligne {len(lines) - 1}**" in html  # the tail as plain text, nothing lost


def test_ordinary_markdown_still_renders(client, bob, game):
    client.force_login(bob)
    html = render(client, game, "Oui :\n\n- une carte\n  - puis une autre\n\n| A | B |\n|---|---|\n| 1 | 2 |")
    tags = [tag for tag, _ in elements(html)]
    assert tags.count("ul") == 2 and "table" in tags and "td" in tags


def answered_from(game, text, booklets, user) -> Question:
    """An answer stored with the booklets of the passages it was given (name then → slug)."""
    question = QuestionFactory(game=game, user=user)
    chunks = [{"booklet": name, "booklet_slug": slug, "page_start": 7} for name, slug in booklets]
    question.mark_done(answer=text, intent="rules", best_score=None, diagnostics={"chunks": chunks})
    return question


def test_a_citation_of_a_booklet_deleted_since_is_not_linked_to_another(client, bob):
    client.force_login(bob)
    heat = GameFactory(name="Heat", slug="heat")
    rain = ExtensionFactory(game=heat, name="Heat — Heavy Rain", slug="heat-heavy-rain")
    question = answered_from(heat, '[Heat — Heavy Rain, p.7 : "Rain tyres."]', [(rain.name, rain.slug), ("Heat", "heat")], bob)
    assert f"/booklets/{rain.pk}/pdf#page=7" in client.get(fragment_url(question)).content.decode()

    rain.delete()
    html = client.get(fragment_url(question)).content.decode()

    assert "citation-unknown" in html and "/booklets/" not in html  # not the base rules' p.7


def test_a_citation_of_a_booklet_renamed_since_stays_linked(client, bob):
    client.force_login(bob)
    heat = GameFactory(name="Heat", slug="heat")
    rain = ExtensionFactory(game=heat, name="Heavy Rain", slug="heat-heavy-rain")
    question = answered_from(heat, '[Heavy Rain, p.7 : "Rain tyres."] [Heat, p.2]', [(rain.name, rain.slug), ("Heat", "heat")], bob)

    rain.name = "Pluie battante"
    rain.save()
    heat.name = "Heat : Pedal to the Metal"
    heat.save()
    html = client.get(fragment_url(question)).content.decode()

    assert f'href="/booklets/{rain.pk}/pdf#page=7"' in html and f'href="/booklets/{heat.pk}/pdf#page=2"' in html
