from django.conf import settings
from django.contrib import admin
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path

from .api import api


def favicon(request):
    """Browsers ask for /favicon.ico whatever the page links: the SVG icon of base.html."""
    return redirect(static("oracle/favicon.svg"))


urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("favicon.ico", favicon),
    path("", include("oracle_site.pages")),
]

if settings.DEBUG:
    from django.contrib.staticfiles.urls import staticfiles_urlpatterns

    urlpatterns += staticfiles_urlpatterns()
