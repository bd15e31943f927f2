"""`manage.py ensure_admin` (run by `make run` before the server starts)."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def default_admin_name(monkeypatch):
    monkeypatch.delenv("ORACLE_ADMIN_USER", raising=False)
    monkeypatch.delenv("ORACLE_ADMIN_PASSWORD", raising=False)


def test_a_player_named_admin_is_not_made_superuser_and_the_admin_is_told_what_to_do():
    player = UserFactory(username="admin")
    password = player.password

    with pytest.raises(CommandError) as refused:
        call_command("ensure_admin", stdout=StringIO())

    assert str(refused.value) == (
        "no superuser yet, and 'admin' is an ordinary account: set ORACLE_ADMIN_USER to another name "
        "(or run `manage.py createsuperuser`), then start again"
    )
    player.refresh_from_db()
    assert not player.is_superuser and not player.is_staff and player.password == password
    assert not get_user_model().objects.filter(is_superuser=True).exists()


def test_another_name_creates_the_admin_beside_the_player(monkeypatch):
    UserFactory(username="admin")
    monkeypatch.setenv("ORACLE_ADMIN_USER", "club-admin")
    out = StringIO()

    call_command("ensure_admin", stdout=out)

    assert out.getvalue().startswith("Admin login: club-admin / ")
    assert get_user_model().objects.get(username="club-admin").is_superuser
    assert not get_user_model().objects.get(username="admin").is_superuser
