"""The content security policy, seen by Chromium: the chat and the framed pdf.js viewer work
and report no violation; an injected inline script does not run."""

import pytest

from tests.e2e.conftest import browser, course_folle, live_daphne_env, open_signed_in  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(e.violatedDirective + " " + e.blockedURI));
"""


def test_viewer_and_chat_run_under_the_policy_without_violations(browser, live_daphne, course_folle, bob):  # noqa: F811
    game, _extension = course_folle
    page = open_signed_in(browser, live_daphne, bob)
    page.context.add_init_script(RECORD_VIOLATIONS)
    violations = []
    page.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))

    page.goto(f"/jeux/{game.slug}/")
    page.wait_for_selector("#question")
    page.goto(f"/booklets/{game.pk}/view?page=2")
    page.wait_for_selector("body[data-state=ready]", timeout=30_000)
    page.wait_for_selector(".page[data-page-number='2'] canvas, .page[data-page-number='2'] .textLayer", timeout=30_000)

    assert page.evaluate("window.__cspViolations") == []
    assert violations == []


def test_an_injected_inline_script_is_blocked(browser, live_daphne, course_folle, bob):  # noqa: F811
    game, _extension = course_folle
    page = open_signed_in(browser, live_daphne, bob)
    page.goto(f"/jeux/{game.slug}/")
    page.evaluate("""() => { const s = document.createElement('script'); s.textContent = 'window.__pwned = true'; document.body.appendChild(s); }""")
    assert page.evaluate("window.__pwned === true") is False
