from django.contrib.auth import views as auth_views
from django.urls import path

from . import login, views

urlpatterns = [
    path("jeux/<slug:slug>/", views.chat, name="oracle-chat"),
    path("jeux/<slug:slug>/questions/<uuid:question_id>/answer", views.answer_fragment, name="oracle-answer-fragment"),
    path("login/", login.LoginView.as_view(), name="oracle-login"),
    path("logout/", auth_views.LogoutView.as_view(), name="oracle-logout"),
]
