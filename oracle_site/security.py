"""Response headers that Django's SecurityMiddleware does not set: a content security policy
strict enough to stop injected scripts, loose enough for the vendored pdf.js viewer.

Why each source is there:
- scripts only from our own origin (htmx, pdf.js and our modules are all vendored/static);
  no inline script runs, JSON blocks (`<script type="application/json">`) are data, not code;
- `worker-src blob:` and `img-src blob: data:`: pdf.js starts its worker and paints decoded
  images and fonts through blob:/data: URLs; `img-src` BGG's image host: the home page's
  covers (`games.bgg_client`, loaded without a referrer);
- `style-src 'unsafe-inline'`: pdf.js positions its text layer with inline styles and htmx
  injects its indicator style; styles cannot run code;
- `frame-ancestors`: 'none', except for the booklet viewer that our chat page frames.
"""

from __future__ import annotations

from django.conf import settings

from .response_middleware import ResponseMiddleware

BGG_IMAGES = "https://cf.geekdo-images.com"
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        f"img-src 'self' data: blob: {BGG_IMAGES}",
        "font-src 'self' data:",
        "worker-src 'self' blob:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
    ]
)
PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"


def content_security_policy(response) -> str:
    # Framing follows X-Frame-Options (DENY unless a view is marked sameorigin): browsers
    # obey frame-ancestors over X-Frame-Options when both are present.
    ancestors = "'self'" if response.get("X-Frame-Options", "").upper() == "SAMEORIGIN" else "'none'"
    policy = f"{CONTENT_SECURITY_POLICY}; frame-ancestors {ancestors}"
    if settings.SECURE_HTTPS:
        policy += "; upgrade-insecure-requests"
    return policy


class SecurityHeadersMiddleware(ResponseMiddleware):
    """Adds CSP, Permissions-Policy and Cross-Origin-Resource-Policy to every response that
    does not set its own (a view may send a stricter policy). Sync and async, so the SSE
    views keep streaming under daphne."""

    def finish(self, request, response):
        return add_headers(response)


def add_headers(response):
    header = "Content-Security-Policy-Report-Only" if settings.CSP_REPORT_ONLY else "Content-Security-Policy"
    response.headers.setdefault(header, content_security_policy(response))
    response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
    response.headers.setdefault("Cross-Origin-Resource-Policy", "same-origin")
    return response
