"""`import_decklists`: a file that is not a list is refused without touching the list of its
name; every file is checked before one is written; an embedder down is one line."""

import pytest
from django.core.management import CommandError, call_command

from games.models import Decklist
from runtime import components
from tests.card_fixtures import DECKLISTS
from tests.factories import GameFactory
from tests.games.test_card_commands_reindex import FakeEmbedder

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def magic(monkeypatch):
    monkeypatch.setattr(components, "embedder", lambda: FakeEmbedder("fake"))
    return GameFactory(name="Magic", slug="magic", card_game="mtg")


def test_a_file_without_any_card_line_is_refused_and_the_list_of_its_name_kept(tmp_path, capsys):
    good = tmp_path / "challenge.txt"
    good.write_text("// Modern Challenge, 2026-08-20\n4 Ragavan, Nimble Pilferer\n56 Mountain\n")
    call_command("import_decklists", "magic", str(good), "--no-index")
    good.write_text('[{"name": "Ragavan", "count": 4},\n {"name": "Mountain", "count": 56}]')  # JSON renamed .txt

    with pytest.raises(CommandError) as error:
        call_command("import_decklists", "magic", str(good), "--format", "modern", "--no-index")

    assert str(error.value) == 'challenge.txt: no card line such as "4 Lightning Bolt", not a decklist'
    deck = Decklist.objects.get()
    assert deck.sections == {"main": [[4, "Ragavan, Nimble Pilferer"], [56, "Mountain"]]}
    assert deck.dense is not None and deck.format == "modern"
    assert "line not read" not in capsys.readouterr().err  # one line, not one per JSON line


@pytest.mark.parametrize(
    "bad, message",
    [("missing.txt", "missing.txt: No such file or directory"), ("nofmt.txt", "nofmt.txt: no format given")],
)
def test_a_bad_file_among_several_stops_the_command_before_any_is_written(tmp_path, bad, message):
    (tmp_path / "nofmt.txt").write_text("4 Opt\n")

    with pytest.raises(CommandError, match=message):
        call_command("import_decklists", "magic", str(DECKLISTS[0]), str(tmp_path / bad), "--no-index")

    assert not Decklist.objects.exists()  # not a first list written and left unembedded


def test_a_file_that_is_not_utf8_text_is_named(tmp_path):
    path = tmp_path / "deck.txt"
    path.write_bytes("// Modern\n4 Épée de feu\n".encode("latin-1"))

    with pytest.raises(CommandError, match=r"^deck.txt: not UTF-8 text$"):
        call_command("import_decklists", "magic", str(path), "--no-index")


def test_with_the_embedder_down_the_lists_are_kept_and_the_next_run_embeds_them(monkeypatch, capsys):
    monkeypatch.setattr(components, "embedder", lambda: FakeEmbedder("fake", fails_after=0))

    with pytest.raises(CommandError) as error:
        call_command("import_decklists", "magic", *map(str, DECKLISTS[:2]), "--no-index")

    assert "\n" not in str(error.value) and "run again" in str(error.value)
    assert Decklist.objects.filter(dense__isnull=True).count() == 2
    monkeypatch.setattr(components, "embedder", lambda: FakeEmbedder("fake"))
    call_command("import_decklists", "magic", *map(str, DECKLISTS[:2]), "--no-index")
    assert "2 decklists embedded." in capsys.readouterr().out
    assert not Decklist.objects.filter(dense__isnull=True).exists()
