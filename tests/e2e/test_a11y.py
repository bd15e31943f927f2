"""Accessibility and the English page, in a real Chromium: axe-core (npm, installed by
`scripts/install.sh --test` into var/axe-core) finds no serious or critical violation on the
home, chat (after an answer), viewer, ingest wizard and login pages; a page in English shows
no French word of the Oracle's own (phases, answer opening, badge, wizard); the phone's top
bar takes one row."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import screenshot
from tests.support.daphne import BASE_DIR

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

AXE = BASE_DIR / "var" / "axe-core" / "node_modules" / "axe-core" / "axe.min.js"
# Words of French that English never uses (checked as whole words, lower case), and its accents.
FRENCH_WORDS = set(
    """le la les des du une est et pour dans avec votre vos vous sur aux au ou où de d l qu ce cette
    livret livrets règles règle réponse posez poser jeu jeux connexion déconnexion demander nouvelle
    fichier quand démarrer lancer planifier nom langue""".split()
)
ACCENTS = re.compile(r"[àâçéèêëîïôûùüœ«»]", re.IGNORECASE)


@pytest.fixture
def axe_source():
    if not AXE.exists():
        pytest.skip("axe-core is not installed: run scripts/install.sh --test")
    return AXE.read_text(encoding="utf-8")


def new_page(browser, base_url, user=None, *, locale="fr-FR", viewport=None):
    """A page (CSP bypassed so axe can be injected), signed in as `user` when given."""
    from django.test import Client

    context = browser.new_context(base_url=base_url, locale=locale, bypass_csp=True,
                                  viewport=viewport or {"width": 1280, "height": 860})  # fmt: skip
    if user is not None:
        client = Client()
        client.force_login(user)
        context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base_url}])
    page = context.new_page()
    page.on("console", lambda message: print(f"[browser {message.type}] {message.text}"))
    return page


def serious_violations(page, axe_source, frame=None) -> list[str]:
    target = frame or page
    target.add_script_tag(content=axe_source)
    results = target.evaluate("() => axe.run(document, { resultTypes: ['violations'] })")
    assert results["testEngine"]["name"] == "axe-core" and results["url"]
    print(f"axe {results['url']}: " + (", ".join(f"{v['id']} ({v['impact']})" for v in results["violations"]) or "no violation"))
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — " + "; ".join(n["target"][0] if n["target"] else "" for n in v["nodes"][:5])
        for v in results["violations"] if v["impact"] in ("serious", "critical")
    ]


def ask(page, question):
    page.fill("#question", question)
    page.click("#ask-button")
    page.locator(".turn[data-state=done]").last.wait_for(timeout=120_000)


def french_in(text: str) -> list[str]:
    words = re.findall(r"[^\W\d_]+", text.lower())
    return sorted({w for w in words if w in FRENCH_WORDS or ACCENTS.search(w)})


def test_axe_finds_no_serious_violation_on_the_main_pages(browser, live_daphne, course_folle, bob, alice, axe_source):
    game, extension = course_folle
    found = {}

    page = new_page(browser, live_daphne)
    page.goto("/login/")
    found["login"] = serious_violations(page, axe_source)

    page = new_page(browser, live_daphne, bob)
    page.goto("/")
    found["home"] = serious_violations(page, axe_source)

    page.goto(f"/jeux/{game.slug}/")
    ask(page, "Combien de cartes pioche le joueur actif ?")
    found["chat"] = serious_violations(page, axe_source)
    screenshot(page, "a11y-chat")
    # the three confidence badges side by side: each at 4.5:1 at least on its background
    page.evaluate("""() => { const line = document.createElement('p'); line.id = 'all-badges';
        for (const level of ['high', 'medium', 'low']) {
          const badge = document.createElement('span'); badge.className = `confidence confidence-${level}`;
          badge.textContent = level; line.appendChild(badge); }
        document.querySelector('.answer-body').appendChild(line); }""")
    contrast = page.evaluate("() => axe.run('#all-badges', { runOnly: ['color-contrast'] })")
    assert not contrast["violations"] and len(contrast["passes"][0]["nodes"]) == 3, contrast["violations"]

    page.goto(f"/booklets/{game.pk}/view?page=2")
    page.locator("body[data-state=ready]").wait_for(timeout=30_000)
    found["viewer"] = serious_violations(page, axe_source)
    region = page.evaluate("() => axe.run(document, { runOnly: ['region'] })")  # every part in a landmark
    assert not region["violations"], [n["target"] for v in region["violations"] for n in v["nodes"]]

    page = new_page(browser, live_daphne, alice)
    page.goto("/ingestion/nouvelle/")
    found["wizard"] = serious_violations(page, axe_source)

    assert found == {name: [] for name in found}


def test_the_english_chat_and_wizard_show_no_french(browser, live_daphne, course_folle, bob, alice, axe_source):
    game, extension = course_folle
    page = new_page(browser, live_daphne, bob, locale="en-US")
    page.goto(f"/jeux/{game.slug}/")
    assert page.get_attribute("html", "lang") == "en"
    # every phase the Oracle shows while it works, recorded as it changes
    page.evaluate("""() => { window.phases = [];
        new MutationObserver(() => document.querySelectorAll('.turn .phase').forEach((p) => {
          if (p.textContent && !window.phases.includes(p.textContent)) window.phases.push(p.textContent); }))
        .observe(document.getElementById('turns'), { subtree: true, childList: true, characterData: true }); }""")
    ask(page, "How many cards does the active player draw?")
    phases = page.evaluate("() => window.phases")
    assert phases and all(not french_in(phase) for phase in phases), phases
    answer = page.inner_text(".turn .answer-body")
    assert answer.startswith("According to the booklets:"), answer
    assert page.locator(".turn .confidence").count() == 1
    # the page's own words: the quotes (citations, their sections) and the names are the booklets'
    visible = page.evaluate("""(names) => {
        const copy = document.body.cloneNode(true);
        copy.querySelectorAll('a.citation, .citation-quote, .citation-unknown, .answer-body em, .question-text, script, template, [hidden]')
          .forEach((node) => node.remove());
        document.body.appendChild(copy); copy.hidden = false;
        let text = copy.innerText; copy.remove();
        for (const name of names) text = text.split(name).join(' ');
        return text; }""", [game.name, extension.name])
    screenshot(page, "chat-english")
    assert french_in(visible) == [], visible

    page = new_page(browser, live_daphne, alice, locale="en-US")
    page.goto("/ingestion/nouvelle/")
    visible = page.evaluate("""(names) => {
        let text = document.body.innerText;
        for (const name of names) text = text.split(name).join(' ');
        return text; }""", [game.name])
    assert "Start the ingestion" in visible or "Upload a booklet" in visible or "booklet" in visible.lower()
    assert french_in(visible) == [], visible


def test_the_phone_top_bar_takes_one_row(browser, live_daphne, alice):
    page = new_page(browser, live_daphne, alice, viewport={"width": 390, "height": 844})
    page.goto("/")
    boxes = page.evaluate("""() => ({
        bar: document.querySelector('.topbar').getBoundingClientRect().height,
        tops: [...document.querySelectorAll('.topbar .brand, .topnav > a, .topnav > form')]
          .map((node) => Math.round(node.getBoundingClientRect().top + node.getBoundingClientRect().height / 2)),
        width: document.documentElement.scrollWidth,
        hidden: [...document.querySelectorAll('.topnav > a, .topnav button:not(.current)')]
          .filter((node) => node.getBoundingClientRect().right > window.innerWidth).map((node) => node.textContent.trim()) })""")
    screenshot(page, "phone-top-bar")
    assert boxes["bar"] <= 56, boxes
    assert max(boxes["tops"]) - min(boxes["tops"]) <= 4, boxes  # every item on the same row
    assert boxes["width"] <= 390, boxes  # nothing sticks out of the screen
    assert boxes["hidden"] == [], boxes  # every link and the language switch fit, none scrolled away


def test_the_skip_link_is_the_first_tab_stop_and_jumps_to_the_content(browser, live_daphne, bob):
    page = new_page(browser, live_daphne, bob)
    page.goto("/")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.className") == "skip-link"
    assert page.is_visible(".skip-link")
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main"


def test_an_english_job_page_shows_the_acts_warnings_and_error_in_english(browser, live_daphne, alice, axe_source):
    from django.utils.translation import gettext_noop

    from ingest.coordinator import IngestFailure, fail
    from ingest.progress import Reporter, Text
    from ingest.models import IngestJob
    from tests.factories import GameFactory, IngestJobFactory

    job = IngestJobFactory(game=GameFactory(name="Heat"), status=IngestJob.Status.RUNNING)
    reporter = Reporter(job)  # the worker's events, as stored (French labels and messages)
    with reporter.act_scope("read", 2):
        reporter.progress(2, 2)
    reporter.warning(Text(gettext_noop("Page %(page)d : la reconnaissance optique est peu fiable (confiance %(conf).0f < %(min).0f). "
                                       "Vérifiez la qualité du scan."), {"page": 2, "conf": 41.0, "min": 60.0}))
    reporter.act = "chunk"
    fail(job, reporter, IngestFailure(Text(gettext_noop("Ce PDF ne contient aucune page."))))

    page = new_page(browser, live_daphne, alice, locale="en-US")
    page.goto(f"/ingestion/{job.pk}/")
    page.locator("#job-error:not([hidden])").wait_for(timeout=15_000)
    page.wait_for_function("() => document.getElementById('job-error').textContent.includes('page')")
    labels = page.locator(".act .act-label").all_inner_texts()  # the acts it ran (no act to come: it failed)
    assert labels[0] == "Reading" and not french_in(" ".join(labels)), labels
    page.locator("#warnings li").first.wait_for(timeout=15_000)  # the error is on the page at once, warnings come with the replay
    assert "optical character recognition" in page.inner_text("#warnings").lower() or "ocr" in page.inner_text("#warnings").lower()
    visible = page.inner_text("main").replace("Heat", " ")
    assert french_in(visible) == [], visible
    assert serious_violations(page, axe_source) == []
