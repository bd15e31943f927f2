"""Django's middleware, run inline in the event loop when a request is served async.

Under daphne, Django calls each `MiddlewareMixin` hook of an async request through
`sync_to_async(thread_sensitive=True)`: two hops to a thread and back per middleware and per
request — sixteen for one request with our stack. With fifty requests at once and answer
threads holding the GIL, those hops were most of the time before an SSE stream's first event
(docs/reliability.md, « Load »). The hooks below do no I/O, so they run in the loop; when
one may touch the database (saving a modified session, storing messages into it) it still
goes through Django's thread (`runtime.executors.on_request_thread`), as Django does. A hook
that reached the database in the loop would fail loudly (Django's SynchronousOnlyOperation), never block silently.

SecurityMiddleware, CsrfViewMiddleware and XFrameOptionsMiddleware stay Django's own classes:
`check --deploy` finds them by their dotted path (and its HTTPS checks need SecurityMiddleware).
Under daphne (oracle_site/asgi.py) `run_djangos_hooks_inline()` gives them the same inline
path, and `InlineHooksASGIHandler` calls CSRF's `process_view` inline when it reads no body (a
safe method, or a view exempt from it: the API's, which checks CSRF itself): their hooks read
headers and cookies and write headers. Each hop cost an event stream a few milliseconds
before its first event under load, seven hops per stream (issue 29).

Sync requests (the test client, WSGI) are unchanged: these classes only add the async path.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core import signals
from django.core.handlers.asgi import ASGIHandler
from django.db import close_old_connections, reset_queries
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoAuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware as DjangoMessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware as DjangoSessionMiddleware
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.common import CommonMiddleware as DjangoCommonMiddleware
from django.middleware.csrf import CsrfViewMiddleware
from django.middleware.locale import LocaleMiddleware as DjangoLocaleMiddleware
from django.middleware.security import SecurityMiddleware as DjangoSecurityMiddleware

from runtime.executors import on_request_thread


class InlineAsyncMixin:
    """`process_request` and `process_response` called directly on async requests, unless
    `needs_thread` says a hook may do I/O this time. (`process_view` is called by Django's
    handler, through a thread, as before.)"""

    def __call__(self, request):
        if self.async_mode:
            return self._inline_acall(request)
        return super().__call__(request)

    async def _inline_acall(self, request):
        response = None
        if hasattr(self, "process_request"):
            if self.needs_thread(request):
                response = await on_request_thread(self.process_request)(request)
            else:
                response = self.process_request(request)
        response = response or await self.get_response(request)
        if hasattr(self, "process_response"):
            if self.needs_thread(request):
                response = await on_request_thread(self.process_response)(request, response)
            else:
                response = self.process_response(request, response)
        return response

    def needs_thread(self, request) -> bool:
        return False


class SessionMiddleware(InlineAsyncMixin, DjangoSessionMiddleware):
    # process_request only builds a lazy store; process_response saves a modified session.
    def needs_thread(self, request) -> bool:
        session = getattr(request, "session", None)
        return session is not None and (session.modified or settings.SESSION_SAVE_EVERY_REQUEST)


class LocaleMiddleware(InlineAsyncMixin, DjangoLocaleMiddleware):
    pass


class CommonMiddleware(InlineAsyncMixin, DjangoCommonMiddleware):
    pass


class AuthenticationMiddleware(InlineAsyncMixin, DjangoAuthenticationMiddleware):
    pass  # request.user stays lazy: it is read from the session in a thread when needed


class MessageMiddleware(InlineAsyncMixin, DjangoMessageMiddleware):
    # Storing messages that were read or added may load and write the session.
    def needs_thread(self, request) -> bool:
        storage = getattr(request, "_messages", None)
        return storage is not None and (storage.used or storage.added_new)


SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "TRACE")


def run_djangos_hooks_inline() -> None:
    """Django's Security, CSRF and X-Frame-Options middleware, on async requests, call their
    `process_request` and `process_response` in the event loop (sync requests are unchanged)."""
    for middleware in (DjangoSecurityMiddleware, CsrfViewMiddleware, XFrameOptionsMiddleware):
        middleware.__acall__ = InlineAsyncMixin._inline_acall
        middleware.needs_thread = InlineAsyncMixin.needs_thread
    CsrfViewMiddleware.needs_thread = _csrf_in_session  # its secret would be read from the database


def _csrf_in_session(self, request=None) -> bool:
    return settings.CSRF_USE_SESSIONS


def no_hop_at_request_start() -> None:
    """Under daphne, `request_started` has no receiver left: Django's two (close_old_connections,
    reset_queries) act on the thread they run on, and an async request's is one with no
    connection yet — a page's thread is new, and a stream's pool thread closes its connections
    after each step (runtime/executors.py) — so they cost every request a thread hop before its
    view for nothing. Profiled under a 50-stream burst: the event loop spent most of its time
    waiting to get the interpreter back after that hop (issue 29). `request_finished` keeps
    them: it closes what a page's view opened."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_started.disconnect(reset_queries)


class InlineHooksASGIHandler(ASGIHandler):
    """Django's ASGI handler; CSRF's `process_view` runs inline unless it may read the body."""

    def adapt_method_mode(self, is_async, method, method_is_async=None, debug=False, name=None):
        if is_async and isinstance(getattr(method, "__self__", None), CsrfViewMiddleware):
            return _csrf_view_hook(method)
        return super().adapt_method_mode(is_async, method, method_is_async, debug, name)


def _csrf_view_hook(process_view):
    in_thread = sync_to_async(process_view, thread_sensitive=True)

    async def hook(request, callback, callback_args, callback_kwargs):
        if not settings.CSRF_USE_SESSIONS and (request.method in SAFE_METHODS or getattr(callback, "csrf_exempt", False)):
            return process_view(request, callback, callback_args, callback_kwargs)
        return await in_thread(request, callback, callback_args, callback_kwargs)  # reads the form

    return hook
