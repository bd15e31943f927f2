from django.conf import settings
from django.contrib import admin
from django.http import FileResponse
from django.urls import include, path
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from .api import api

FAVICON = settings.BASE_DIR / "static" / "oracle" / "favicon.ico"


@require_safe
@cache_control(max_age=86400, public=True)
def favicon(request):
    """Browsers (and feed readers, bookmarks) ask for /favicon.ico whatever the page links:
    the icon itself, 16/32/48 px, drawn like base.html's favicon.svg."""
    return FileResponse(FAVICON.open("rb"), content_type="image/x-icon")


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
