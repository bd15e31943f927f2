"""Every answer under /api/ is JSON in the API's error shape (runtime.api_errors), including
the refusals Django and its add-ons make before or around ninja: the CSRF check (a 403
page), a multipart body Django cannot parse (a 400 page, raised while the CSRF check reads
the form), django-axes' login lockout (its 429 page, on HTTP Basic to /api/tokens), a URL no
route matches (404) and an unexpected 500. Django's pages stay as they are elsewhere.

`ApiJsonErrorsMiddleware` sits outside them all (settings.MIDDLEWARE): a non-JSON 4xx or 5xx
whose path starts with /api/ is replaced by `{"detail": …, "errors": []}` with the same
status and headers. `csrf_failure` (CSRF_FAILURE_VIEW) keeps the reason of a CSRF refusal."""

from __future__ import annotations

from django.http import HttpResponseForbidden, JsonResponse
from django.utils.translation import gettext as _
from django.views.csrf import csrf_failure as django_csrf_failure

from .response_middleware import ResponseMiddleware

API_PREFIX = "/api/"
KEPT_TYPES = ("application/json", "text/event-stream", "application/pdf", "image/")


def is_api(request) -> bool:
    return request.path.startswith(API_PREFIX)


def message_for(status: int) -> str:
    messages = {
        400: _("Requête invalide : son corps n'a pas pu être lu (formulaire multipart mal formé ou trop long ?)."),
        401: _("Identifiez-vous : session ou jeton d'API."),
        403: _("Accès refusé."),
        404: _("Introuvable."),
        405: _("Méthode non permise."),
        413: _("Requête trop volumineuse."),
        429: _("Trop de tentatives de connexion échouées : ce compte ou cette adresse est bloqué pour un moment. Réessayez plus tard."),
    }
    if status in messages:
        return messages[status]
    return _("Erreur interne du serveur.") if status >= 500 else _("Requête refusée.")


def json_error(status: int, detail: str, original=None) -> JsonResponse:
    response = JsonResponse({"detail": str(detail), "errors": []}, status=status, json_dumps_params={"ensure_ascii": False})
    if original is not None:
        for name, value in original.headers.items():
            if name.lower() not in ("content-type", "content-length"):
                response.headers.setdefault(name, value)
        response.cookies = original.cookies
    return response


def as_json(request, response):
    if not is_api(request) or response.status_code < 400 or getattr(response, "streaming", False):
        return response
    if response.get("Content-Type", "").startswith(KEPT_TYPES):
        return response
    return json_error(response.status_code, message_for(response.status_code), response)


def csrf_failure(request, reason: str = ""):
    """CSRF_FAILURE_VIEW: JSON under /api/ (with why), one plain sentence to an htmx request
    (the chat shows a plain-text refusal as it is; a page it could not read would say the
    network failed), Django's page elsewhere."""
    if is_api(request):
        return json_error(403, _("Vérification CSRF échouée : %(reason)s") % {"reason": reason})
    if request.headers.get("HX-Request") == "true":  # e.g. signed in again in another tab: the token rotated
        return HttpResponseForbidden(_("Formulaire expiré : rechargez la page."), content_type="text/plain; charset=utf-8")
    return django_csrf_failure(request, reason=reason)


class ApiJsonErrorsMiddleware(ResponseMiddleware):
    def finish(self, request, response):
        return as_json(request, response)
