"""The login page, which says why a visitor is asked to sign in (asking needs an account) and
whom to ask for one (`ORACLE_ACCOUNT_CONTACT`, else the club's administrator)."""

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.core.validators import EmailValidator, ValidationError
from django.urls import Resolver404, resolve
from django.utils.html import format_html
from django.utils.translation import gettext as _

# The pages a visitor reaches by asking: the chat and its answers.
ASKING_PAGES = {"oracle-chat", "oracle-chat-conversation", "oracle-chat-turn", "oracle-answer-fragment"}


def wants_to_ask(next_url: str) -> bool:
    """Whether the page the visitor was going to is one where they ask a question."""
    if not next_url:
        return False
    try:
        return resolve(urlsplit(next_url).path).url_name in ASKING_PAGES
    except Resolver404:
        return False


def account_contact():
    """Whom to ask for an account, as HTML: the setting (a mailto link for an address)."""
    contact = settings.ORACLE_ACCOUNT_CONTACT.strip()
    if not contact:
        return _("l'administrateur du club")
    try:
        EmailValidator()(contact)
    except ValidationError:
        return contact  # a name, a phone number…: escaped by the template
    return format_html('<a href="mailto:{0}">{0}</a>', contact)


class LoginView(auth_views.LoginView):
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["wants_to_ask"] = wants_to_ask(context.get(self.redirect_field_name) or "")
        context["account_contact"] = account_contact()
        return context
