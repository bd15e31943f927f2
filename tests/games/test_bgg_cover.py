"""The home page shows a game's BGG cover once `sync_bgg` has read it from the thing."""

from io import StringIO

import pytest
from django.core.management import call_command

from tests.factories import GameFactory
from tests.games.bgg_replay import XML_DIR, fake_bgg, private_cache  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db

RECORDED = (XML_DIR / "thing-169786.xml").read_text(encoding="utf-8")
COVER = "https://cf.geekdo-images.com/7k_nOxpO9OGIjhLq2BUZdA__original/img/pic3163924.jpg"


def test_after_a_sync_the_home_page_shows_the_bgg_cover(fake_bgg, client, bob):
    scythe = GameFactory(rules=True, name="Scythe", bgg_id=169786)

    call_command("sync_bgg", stdout=StringIO(), stderr=StringIO())

    client.force_login(bob)
    response = client.get("/")
    assert f'<img src="{COVER}" alt="" loading="lazy" referrerpolicy="no-referrer">' in response.content.decode()
    img_src = next(d for d in response["Content-Security-Policy"].split("; ") if d.startswith("img-src "))
    assert "https://cf.geekdo-images.com" in img_src.split()  # else the browser refuses to load it
    scythe.refresh_from_db()
    assert scythe.bgg_metadata["thumbnail"].startswith("https://cf.geekdo-images.com/")


def test_a_cover_that_is_not_a_web_address_is_not_shown(fake_bgg, client, bob):
    fake_bgg.overrides["thing-169786.xml"] = (
        RECORDED.replace(COVER, "javascript:alert(1)").replace("<thumbnail>https:", "<thumbnail>")
    )
    scythe = GameFactory(rules=True, name="Scythe", bgg_id=169786)

    call_command("sync_bgg", stdout=StringIO(), stderr=StringIO())

    client.force_login(bob)
    home = client.get("/").content.decode()
    assert '<span class="cover-initial" aria-hidden="true">S</span>' in home
    assert "javascript:" not in home and "geekdo-images" not in home
    scythe.refresh_from_db()
    assert scythe.bgg_metadata["name"] == "Scythe"
    assert scythe.bgg_metadata["image"] == scythe.bgg_metadata["thumbnail"] == ""
