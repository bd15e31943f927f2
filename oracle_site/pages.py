"""URL patterns of the server-rendered pages."""

from django.urls import include, path

urlpatterns = [
    path("", include("questions.urls")),
    path("", include("games.urls")),
    path("", include("ingest.urls")),
]
