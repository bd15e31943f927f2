"""The chat posts the final markdown answer here; what comes back is inserted as HTML."""

from html.parser import HTMLParser
from urllib.parse import parse_qs, urlparse

import pytest
from django.urls import reverse

from tests.factories import ExtensionFactory, GameFactory


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


def render(client, game, text, best_score=None) -> str:
    data = {"text": text}
    if best_score is not None:
        data["best_score"] = best_score
    response = client.post(reverse("oracle-answer-fragment", args=[game.slug]), data)
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
