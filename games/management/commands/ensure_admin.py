"""Create the admin account on first run: password from ORACLE_ADMIN_PASSWORD, or generated
and shown once. Never a fixed default."""

import os
import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Create the admin user if there is none (password shown once when generated)."

    def handle(self, *args, **options):
        User = get_user_model()
        username = os.getenv("ORACLE_ADMIN_USER", "admin")
        if User.objects.filter(is_superuser=True).exists():
            self.stdout.write(f"Admin login: existing superuser (user '{username}' if created by Oracle).")
            return
        if User.objects.filter(**{User.USERNAME_FIELD: username}).exists():
            # A player took the name (no superuser yet): creating it again failed on the unique
            # name, and making that player a superuser would hand them the whole site.
            raise CommandError(
                f"no superuser yet, and '{username}' is an ordinary account: set ORACLE_ADMIN_USER to another name "
                f"(or run `manage.py createsuperuser`), then start again"
            )
        password = os.getenv("ORACLE_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        User.objects.create_superuser(username=username, email="", password=password)
        shown = password if not os.getenv("ORACLE_ADMIN_PASSWORD") else "(from ORACLE_ADMIN_PASSWORD)"
        self.stdout.write(self.style.SUCCESS(f"Admin login: {username} / {shown}  — shown once, note it."))
