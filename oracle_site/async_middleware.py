"""Django's middleware, run inline in the event loop when a request is served async.

Under daphne, Django calls each `MiddlewareMixin` hook of an async request through
`sync_to_async(thread_sensitive=True)`: two hops to a thread and back per middleware and per
request — sixteen for one request with our stack. With fifty requests at once and answer
threads holding the GIL, those hops were most of the time before an SSE stream's first event
(docs/reliability.md, « Load »). The hooks below do no I/O, so they run in the loop; when
one may touch the database (saving a modified session, storing messages into it) it still
goes through Django's thread (`runtime.executors.on_request_thread`), as Django does. A hook
that reached the database in the loop would fail loudly (Django's SynchronousOnlyOperation), never block silently.

SecurityMiddleware, CsrfViewMiddleware and XFrameOptionsMiddleware stay Django's own:
`check --deploy` finds them by their dotted path (and its HTTPS checks need SecurityMiddleware).

Sync requests (the test client, WSGI) are unchanged: these classes only add the async path.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoAuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware as DjangoMessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware as DjangoSessionMiddleware
from django.middleware.common import CommonMiddleware as DjangoCommonMiddleware
from django.middleware.locale import LocaleMiddleware as DjangoLocaleMiddleware

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
