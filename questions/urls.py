from django.contrib.auth import views as auth_views
from django.urls import path

from . import chat_stream, login, views

urlpatterns = [
    path("jeux/<slug:slug>/", views.chat, name="oracle-chat"),
    path("jeux/<slug:slug>/c/<uuid:conversation_id>/", views.chat, name="oracle-chat-conversation"),
    path("jeux/<slug:slug>/conversations/", views.conversation_list, name="oracle-chat-conversations"),
    path("jeux/<slug:slug>/c/<uuid:conversation_id>/booklets", views.booklets, name="oracle-chat-booklets"),
    path("jeux/<slug:slug>/ask", views.ask, name="oracle-chat-ask"),
    path("jeux/<slug:slug>/questions/<uuid:question_id>/events", chat_stream.answer_events, name="oracle-chat-events"),
    path("jeux/<slug:slug>/questions/<uuid:question_id>/turn", views.turn, name="oracle-chat-turn"),
    path("jeux/<slug:slug>/questions/<uuid:question_id>/stop", views.stop, name="oracle-chat-stop"),
    path("jeux/<slug:slug>/questions/<uuid:question_id>/regenerate", views.regenerate, name="oracle-chat-regenerate"),
    path("jeux/<slug:slug>/questions/<uuid:question_id>/feedback", views.feedback, name="oracle-chat-feedback"),
    path("jeux/<slug:slug>/questions/<uuid:question_id>/answer", views.answer_fragment, name="oracle-answer-fragment"),
    path("login/", login.LoginView.as_view(), name="oracle-login"),
    path("logout/", auth_views.LogoutView.as_view(), name="oracle-logout"),
]
