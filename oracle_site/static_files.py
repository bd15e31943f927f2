"""WhiteNoise, async-capable.

WhiteNoise 6 is a sync-only middleware: under daphne Django then runs the whole middleware
stack around it in a thread and hops back to the event loop for the rest (async_to_sync),
one more round trip per request through threads that answer threads keep busy. This
subclass serves static files exactly as WhiteNoise does (in a worker thread: the file is
opened there) and hands every other request straight to the next middleware, in the loop.
"""

from __future__ import annotations

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    sync_capable = True
    async_capable = True

    def __init__(self, get_response=None, *args, **kwargs):
        super().__init__(get_response, *args, **kwargs)
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request):
        if self.is_async:
            return self._acall(request)
        return super().__call__(request)

    async def _acall(self, request):
        if self.autorefresh:  # DEBUG / finders: WhiteNoise looks at the disk
            static_file = await sync_to_async(self.find_file, thread_sensitive=False)(request.path_info)
        else:
            static_file = self.files.get(request.path_info)
        if static_file is not None:
            return await sync_to_async(self.serve, thread_sensitive=False)(static_file, request)
        return await self.get_response(request)
