// The chat of one game, on htmx: the question form posts to the chat view (hx-post), which
// returns the new turn; the turn listens to its answer's events with the htmx SSE extension
// (sse-connect / sse-swap: the server renders every partial). This script keeps only what htmx
// cannot do: the question box (counter, Enter, @-mentions sent as a hidden field, suggested
// questions), following the answer as it grows, the polling fallback when the event stream
// fails, copying an answer, the deckbuilding tools, card chips and the PDF viewer.

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

function updateCounter() {
  const length = textarea.value.length;
  counter.textContent = `${length}/${config.maxChars}`;
  counter.classList.toggle("near-limit", length > config.maxChars * 0.9);
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
  // the @-picked cards still named in the question go with it
  event.detail.parameters["card_mentions"] = JSON.stringify(mentions.takeMentions(question));
});

form.addEventListener("htmx:afterRequest", (event) => {
  if (event.target !== form) return;
  if (event.detail.successful) {
    textarea.value = "";
    askError.hidden = true;
    updateCounter();
    textarea.focus();
  }
});

document.body.addEventListener("htmx:responseError", (event) => {
  const message = event.detail.xhr.responseText || S.failed;
  askError.textContent = message.length > 300 ? S.failed : message;
  askError.hidden = false;
});
document.body.addEventListener("htmx:sendError", () => {
  askError.textContent = S.failed;
  askError.hidden = false;
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
});

// The event stream failed (network, proxy): the answer goes on server-side; the turn now asks
// for its stored state every 3 s (15 times), the server saying when to stop.
document.body.addEventListener("htmx:sseError", (event) => {
  const turn = event.target.closest?.(".turn");
  if (!turn || turn.dataset.state !== "live") return;
  turn.removeAttribute("sse-connect"); // no reconnection: polling takes over
  event.detail.source?.close();
  turn.dataset.state = "polling";
  turn.classList.add("offline");
  const phase = turn.querySelector(".phase");
  if (phase) phase.textContent = S.offline;
  htmx.ajax("GET", `${turn.dataset.pollUrl}?try=0`, { source: turn, target: turn, swap: "outerHTML" });
});

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
  event.preventDefault();
  openViewer(link);
});

let openedFrom = null; // the citation that opened the viewer: focus goes back to it

function openViewer(link) {
  openedFrom = link;
  pane.hidden = false;
  document.body.classList.add("viewer-open");
  document.getElementById("viewer-title").textContent = link.textContent.trim();
  document.getElementById("viewer-open").href = link.href;
  frame.src = link.dataset.viewerUrl;
  closeButton.focus();
}

function closeViewer() {
  if (pane.hidden) return;
  pane.hidden = true;
  document.body.classList.remove("viewer-open");
  frame.removeAttribute("src");
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
