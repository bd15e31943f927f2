"""Oracle's ASGI application in a process that also runs a thread Python must join at exit
and that never ends (as an executor thread busy in a long sync call or native code is): the
web process must still stop on SIGTERM (tests/reliability/test_web_shutdown.py)."""

import threading
import time

from oracle_site.asgi import application  # noqa: F401  (served)

threading.Thread(target=time.sleep, args=(3600,), name="stuck-non-daemon", daemon=False).start()
