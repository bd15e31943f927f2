"""ASGI entry point served by daphne through channels' protocol router."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "oracle_site.settings")

import django  # noqa: E402
from channels.routing import ProtocolTypeRouter  # noqa: E402

django.setup(set_prefix=False)  # what django.core.asgi.get_asgi_application does, with our handler

# Django's middleware hooks that do no I/O run in the event loop (oracle_site/async_middleware.py).
from oracle_site.async_middleware import InlineHooksASGIHandler, no_hop_at_request_start, run_djangos_hooks_inline  # noqa: E402

run_djangos_hooks_inline()
no_hop_at_request_start()
django_asgi_app = InlineHooksASGIHandler()

# Bodies over their route's limit are refused before anything reads them (docs/reliability.md).
from oracle_site import daphne_limit  # noqa: E402
from oracle_site.body_limit import BodySizeLimit  # noqa: E402

# At most STREAMS_MAX_OPEN event streams at once; past it a 503 with Retry-After (docs/reliability.md).
from oracle_site.stream_cap import StreamCap  # noqa: E402

daphne_limit.install()

# SIGTERM stops the process within SHUTDOWN_GRACE_S, busy or not (oracle_site/shutdown.py).
from oracle_site.shutdown import arm_on_shutdown  # noqa: E402

arm_on_shutdown()
application = ProtocolTypeRouter({"http": StreamCap(BodySizeLimit(django_asgi_app))})

# The ASGI server process owns the local vector index: keep it in sync with the rows.
from oracle_site.index_owner import start_index_owner  # noqa: E402

start_index_owner()

# The apps' periodic work (the recovery sweeps: questions and ingest jobs left in progress
# by a killed process are failed or requeued), registered in their AppConfig.ready().
from runtime.periodic import start_web_work  # noqa: E402

start_web_work()

# The URLconf, the lexicon and the ask pools' threads made now rather than by the first
# requests, then the start-up heap kept out of the garbage collector's full scans
# (oracle_site/warmup.py).
from oracle_site.warmup import start_warmup  # noqa: E402

start_warmup()
