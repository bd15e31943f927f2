// The chat of one game, on htmx: the question form posts to the chat view (hx-post), which
// returns the new turn; the turn listens to its answer's events with the htmx SSE extension
// (sse-connect / sse-swap: the server renders every partial). This script keeps only what htmx
// cannot do: the question box (counter, Enter, @-mentions sent as a hidden field, suggested
// questions), following the answer as it grows, the polling fallback when the event stream
// fails, errors shown where they belong, the focus kept when a turn is replaced, copying an
// answer, the deckbuilding tools, card chips and the PDF viewer.
// Back and Forward load the page again (chat.html's htmx-config): the elements held here
// live as long as the page.

import { readJsonScript } from "./common.js";
import { attachCardMentions } from "./mentions.js";
import { attachCardPreview } from "./cards.js";
import { attachDeckTools } from "./deck.js";

const config = readJsonScript("chat-config");
const S = config.strings;

const form = document.getElementById("ask-form");
const textarea = document.getElementById("question");
const counter = document.getElementById("char-counter");
const askButton = document.getElementById("ask-button");
const askError = document.getElementById("ask-error");
const turns = document.getElementById("turns");

const mentions = attachCardMentions(textarea, config.cardsUrl, S);
attachCardPreview(turns, config.cardUrl, S); // card chips of the answers
attachDeckTools(turns, S.copied); // a deck answer's export buttons

// --- question box ---------------------------------------------------------------------

/** The question's length as the server counts it (characters, not UTF-16 units). */
const questionLength = () => [...textarea.value.trim()].length;

// The limit is the server's (chat.html's `maxlength`, what the browser alone would do): the
// browser would cut a longer pasted question without a word; it stays whole, said too long.
textarea.removeAttribute("maxlength");

function updateCounter() {
  const length = [...textarea.value].length;
  counter.textContent = `${length}/${config.maxChars}`;
  counter.classList.toggle("near-limit", length > config.maxChars * 0.9);
  const tooLong = questionLength() > config.maxChars;
  textarea.setAttribute("aria-invalid", String(tooLong));
  if (tooLong && askError.dataset.kind !== "too-long") showError(askError, S.tooLong, { kind: "too-long" });
  else if (!tooLong && askError.dataset.kind === "too-long") hideError(askError);
}
textarea.addEventListener("input", updateCounter);
textarea.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !mentions.isOpen()) {
    event.preventDefault();
    form.requestSubmit();
  }
});

document.getElementById("suggestions")?.addEventListener("click", (event) => {
  const button = event.target.closest(".suggested-question");
  if (!button) return;
  textarea.value = button.dataset.question;
  updateCounter();
  textarea.focus();
});

/** A turn is still being answered: the next question waits for it. */
const answering = () => turns.querySelector(".turn[data-state=live], .turn[data-state=polling]");

function updateBusy() {
  const busy = Boolean(answering());
  askButton.disabled = busy;
  form.classList.toggle("busy", busy);
}

form.addEventListener("htmx:configRequest", (event) => {
  if (event.target !== form) return;
  const question = textarea.value.trim();
  if (!question || answering()) return event.preventDefault();
  if (questionLength() > config.maxChars) {
    showError(askError, S.tooLong, { kind: "too-long" });
    return event.preventDefault();
  }
  // the @-picked cards still named in the question go with it
  event.detail.parameters["card_mentions"] = JSON.stringify(mentions.mentionsIn(question));
});

form.addEventListener("htmx:afterRequest", (event) => {
  if (event.target !== form) return;
  if (event.detail.successful) {
    mentions.forget();
    textarea.value = "";
    updateCounter();
    textarea.focus();
  }
});

// The FR/EN switch and the sign-in link of the top bar go back to the page as it is now: the
// conversation's own URL once the first question pushed it.
document.body.addEventListener("htmx:pushedIntoHistory", () => {
  const here = location.pathname + location.search;
  const next = document.querySelector(".lang-switch input[name=next]");
  if (next) next.value = here;
  const signIn = document.querySelector(".topnav a[href*='?next=']");
  if (signIn) signIn.search = `?next=${encodeURIComponent(here)}`;
});

// --- errors: under the box for the box's requests, in its turn for a turn's actions ----------

/** The error line of a turn, made on its first error (the turn's actions sit above it). */
function turnError(turn) {
  let line = turn.querySelector(".turn-error");
  if (!line) {
    line = document.createElement("p");
    line.className = "turn-error error-text";
    line.setAttribute("role", "alert");
    turn.querySelector(".answer-bubble").append(line);
  }
  return line;
}

const errorPlace = (elt) => {
  const turn = elt?.closest?.(".turn");
  return turn ? turnError(turn) : askError;
};

let shown = 0; // which message each error line shows, so a later timer hides only its own

/** `message`: text, or the server's signed-out note (its sign-in link). `wait` (s): the
 *  message holds until then (a rate limit's Retry-After). */
function showError(place, message, { kind = "", wait = null } = {}) {
  if (typeof message === "string") place.textContent = message;
  else place.replaceChildren(message);
  place.dataset.kind = kind;
  place.hidden = false;
  const id = String(++shown);
  place.dataset.shown = id;
  if (wait) setTimeout(() => place.dataset.shown === id && hideError(place), wait * 1000);
}

function hideError(place) {
  place.hidden = true;
  place.dataset.kind = "";
  place.dataset.shown = "";
  place.replaceChildren();
}

/** What a refused request says: the server's message (plain text), its signed-out note
 *  (questions/_signed_out.html, with its link), else that the connection failed. */
function refusal(xhr) {
  if ((xhr.getResponseHeader("Content-Type") || "").startsWith("text/html")) {
    const note = new DOMParser().parseFromString(xhr.responseText, "text/html").querySelector(".signed-out");
    return note ? document.adoptNode(note) : S.failed;
  }
  const text = xhr.responseText.trim();
  return text && text.length <= 300 ? text : S.failed;
}

const polling = (elt) => elt?.matches?.(".turn[data-state=polling]");

document.body.addEventListener("htmx:responseError", (event) => {
  const { elt, xhr } = event.detail;
  if (polling(elt)) return pollFailed(elt, event.detail);
  showError(errorPlace(elt), refusal(xhr), { wait: Number(xhr.getResponseHeader("Retry-After")) || null });
});
document.body.addEventListener("htmx:sendError", (event) => {
  const elt = event.detail.elt;
  if (polling(elt)) return pollFailed(elt, event.detail);
  showError(errorPlace(elt), S.failed);
});
// an action that went through: the errors before it no longer hold
document.body.addEventListener("htmx:afterRequest", (event) => {
  const elt = event.detail.elt;
  if (!event.detail.successful || polling(elt)) return;
  if (askError.dataset.kind !== "too-long") hideError(askError);
  const line = elt?.closest?.(".turn")?.querySelector(".turn-error");
  if (line) hideError(line);
});

// --- following the answers ---------------------------------------------------------------

function follow(turn) {
  if (!turn) return;
  // the last turn: to the page's end, where the sticky question box sits below it; another
  // turn (regenerated): into view, the CSS scroll padding keeping clear of the box and top bar
  if (turn === turns.lastElementChild) window.scrollTo({ top: document.documentElement.scrollHeight });
  else turn.scrollIntoView({ block: "end" });
}

function nearBottom() {
  return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 160;
}

document.body.addEventListener("htmx:sseBeforeMessage", (event) => {
  event.target.dataset.follow = nearBottom() ? "1" : "";
});
document.body.addEventListener("htmx:sseMessage", (event) => {
  if (event.target.dataset?.follow) follow(event.target.closest(".turn"));
});

document.body.addEventListener("htmx:afterSettle", (event) => {
  updateBusy();
  const target = event.detail.target;
  if (target === turns) follow(turns.lastElementChild); // a new question
  else if (target?.classList?.contains("turn") && target.isConnected) follow(target);
  keepFocus(event.target);
});

// --- the focus, when the control holding it is replaced -------------------------------------
// « Arrêter » ends with the final turn, « Régénérer » brings a new one, « Utile » a new form:
// the focus goes to the matching control of what replaced it, not to the page's start.

const MATCHING = {
  "stop-answer": ["regenerate-answer", "copy-answer"],
  "regenerate-answer": ["stop-answer", "regenerate-answer", "copy-answer"],
  "copy-answer": ["copy-answer"],
  "rate-up": ["rate-up"],
  "rate-down": ["rate-down"],
  "send-comment": ["send-comment"],
};
let refocus = null; // {turnId, wanted}: where the focus goes back once its turn is replaced

document.body.addEventListener("htmx:beforeRequest", (event) => {
  const control = document.activeElement;
  const turn = control?.closest?.(".turn");
  const name = turn && Object.keys(MATCHING).find((cls) => control.classList.contains(cls));
  if (name && event.detail.elt.contains(control)) refocus = { turnId: turn.id, wanted: MATCHING[name] };
});
document.addEventListener("focusin", () => (refocus = null)); // the player went elsewhere

function keepFocus(settled) {
  if (!refocus || (document.activeElement && document.activeElement !== document.body)) return;
  const turn = settled?.closest?.(".turn");
  // its own turn, or the one that replaced it (« Régénérer »: a new question, a new id)
  if (!turn || (turn.id !== refocus.turnId && document.getElementById(refocus.turnId))) return;
  const control = refocus.wanted.map((cls) => turn.querySelector(`.${cls}`)).find((el) => el?.checkVisibility());
  if (control) control.focus(); // the focusin clears `refocus`
}

// The event stream failed (network, proxy, a server restart): the answer goes on server-side;
// the turn now asks for its stored state every 3 s, the server saying when to stop (at the 15th
// try). A try that fails (the server down) is made again 3 s later; when none of the 15 got
// through, the page says the Oracle could not finish, and the box asks again.
document.body.addEventListener("htmx:sseError", (event) => {
  const turn = event.target.closest?.(".turn");
  if (!turn || turn.dataset.state !== "live") return;
  turn.removeAttribute("sse-connect"); // no reconnection: polling takes over
  event.detail.source?.close();
  turn.dataset.state = "polling";
  turn.classList.add("offline");
  const phase = turn.querySelector(".phase");
  if (phase) phase.textContent = S.offline;
  poll(turn, 0);
});

function poll(turn, attempt) {
  if (!turn.isConnected) return;
  htmx.ajax("GET", `${turn.dataset.pollUrl}?try=${attempt}`, { source: turn, target: turn, swap: "outerHTML" })
    .catch(() => {}); // a failed try: htmx:sendError / htmx:responseError (pollFailed)
}

function pollFailed(turn, detail) {
  const path = detail.pathInfo?.requestPath ?? detail.requestConfig?.path ?? "";
  const attempt = Number(new URL(path, location.href).searchParams.get("try")) || 0;
  // the same turn without its own `every 3s` (which would send this try again): tries from here
  const waiting = turn.cloneNode(true);
  waiting.removeAttribute("hx-get");
  waiting.removeAttribute("hx-trigger");
  turn.replaceWith(waiting);
  if (attempt + 1 >= config.pollMaxTries) return gaveUp(waiting);
  setTimeout(() => poll(waiting, attempt + 1), config.pollEveryS * 1000);
}

function gaveUp(turn) {
  turn.dataset.state = "error";
  turn.classList.remove("offline");
  turn.removeAttribute("aria-busy");
  turn.querySelector(".answer.streaming")?.classList.remove("streaming");
  const phase = turn.querySelector(".phase");
  const error = document.createElement("p");
  error.className = "error-text";
  error.setAttribute("role", "alert");
  error.textContent = S.gaveUp;
  if (phase) phase.replaceWith(error);
  else turn.querySelector(".answer-bubble").append(error);
  updateBusy();
}

// --- copying an answer ---------------------------------------------------------------------

turns.addEventListener("click", async (event) => {
  const button = event.target.closest(".copy-answer");
  if (!button) return;
  const text = button.closest(".turn").querySelector(".answer-body")?.innerText ?? "";
  try {
    await navigator.clipboard.writeText(text);
    const label = button.textContent;
    button.textContent = S.copied;
    setTimeout(() => (button.textContent = label), 1500);
  } catch (error) {
    console.warn("copy failed", error);
  }
});

// --- the PDF viewer beside the chat -----------------------------------------------------------

const pane = document.getElementById("viewer-pane");
const frame = document.getElementById("viewer-frame");

turns.addEventListener("click", (event) => {
  const link = event.target.closest("a.citation");
  if (!link || !link.dataset.viewerUrl) return;
  // Ctrl/⌘/Shift-click (or a middle click): the browser opens the PDF in a tab or window
  if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey || event.button !== 0) return;
  event.preventDefault();
  openViewer(link);
});

// On a phone the viewer covers the whole page (oracle.css, max-width 52rem): it is then a
// modal dialog, and what it covers is inert — no focus reaches the chat hidden behind it.
const viewerCovers = matchMedia("(max-width: 52rem)");

function coverBehindViewer() {
  const covering = !pane.hidden && viewerCovers.matches;
  const main = pane.parentElement;
  const behind = [...document.body.children].filter((el) => el !== main && el.tagName !== "SCRIPT");
  for (const el of [...behind, ...[...main.children].filter((el) => el !== pane)]) el.inert = covering;
  if (covering) {
    pane.setAttribute("role", "dialog");
    pane.setAttribute("aria-modal", "true");
  } else {
    pane.removeAttribute("role");
    pane.removeAttribute("aria-modal");
  }
}
viewerCovers.addEventListener("change", coverBehindViewer);

let openedFrom = null; // the citation that opened the viewer: focus goes back to it

function openViewer(link) {
  openedFrom = link;
  pane.hidden = false;
  document.body.classList.add("viewer-open");
  document.getElementById("viewer-title").textContent = link.textContent.trim();
  document.getElementById("viewer-open").href = link.href;
  frame.src = link.dataset.viewerUrl;
  coverBehindViewer();
  closeButton.focus();
}

function closeViewer() {
  if (pane.hidden) return;
  pane.hidden = true;
  document.body.classList.remove("viewer-open");
  frame.removeAttribute("src");
  coverBehindViewer();
  if (openedFrom?.isConnected) openedFrom.focus();
  else textarea.focus();
  openedFrom = null;
}
const closeButton = document.getElementById("viewer-close");
closeButton.addEventListener("click", closeViewer);
// Escape closes it, from the chat or from inside the viewer's frame (which tells us: viewer.js).
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !pane.hidden && !event.defaultPrevented) closeViewer();
});
addEventListener("message", (event) => {
  if (event.origin === location.origin && event.source === frame.contentWindow && event.data === "oracle-viewer-escape") closeViewer();
});

updateCounter();
updateBusy();
turns.querySelectorAll(".turn[data-state=done]").length && follow(turns.lastElementChild);
