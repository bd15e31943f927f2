from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="oracle-home"),
    path("jeux/<slug:slug>/changements/", views.game_changes, name="oracle-game-changes"),
    path("booklets/<uuid:booklet_id>/pdf", views.booklet_pdf, name="oracle-booklet-pdf"),
    path("booklets/<uuid:booklet_id>/view", views.booklet_viewer, name="oracle-booklet-viewer"),
    path("booklets/<uuid:booklet_id>/pages/<int:page>/words", views.booklet_page_words, name="oracle-booklet-page-words"),
]
