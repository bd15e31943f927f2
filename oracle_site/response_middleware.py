"""A middleware that only rewrites the response, the same way for sync and async requests: a
sync request (the test client, WSGI) is answered in its thread, an async one (daphne) in the
event loop, so the SSE views keep streaming."""

from __future__ import annotations

from asgiref.sync import iscoroutinefunction, markcoroutinefunction


class ResponseMiddleware:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request):
        if self.is_async:
            return self._acall(request)
        return self.finish(request, self.get_response(request))

    async def _acall(self, request):
        return self.finish(request, await self.get_response(request))

    def finish(self, request, response):
        """The response as sent; no I/O (it runs in the event loop)."""
        raise NotImplementedError
