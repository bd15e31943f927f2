// The chat of one game: streams an answer from POST /api/ask/stream, falls back to polling
// GET /api/ask/{id}, then shows the stored answer as the server renders it (markdown +
// sanitiser, GET /jeux/<slug>/questions/<id>/answer),
// opens cited pages in the PDF viewer beside the chat, offers @-mentions of cards and shows
// the cards an answer names (chips).

import { readEvents } from "./sse.js";
import { csrfToken, errorMessage, readJsonScript, sleep } from "./common.js";
import { attachCardMentions } from "./mentions.js";
import { attachCardPreview } from "./cards.js";
import { renderDeckTools } from "./deck.js";
import { attachBookletChoice } from "./booklet_choice.js";

const config = readJsonScript("chat-config");
const S = config.strings;
const COLON = (document.documentElement.lang || "fr").startsWith("fr") ? " : " : ": "; // « Score : » / "Score:"

const form = document.getElementById("ask-form");
const textarea = document.getElementById("question");
const counter = document.getElementById("char-counter");
const askButton = document.getElementById("ask-button");
const turns = document.getElementById("turns");
const emptyNote = document.getElementById("turns-empty");
const historyNote = document.getElementById("history-note");
const turnTemplate = document.getElementById("turn-template");

let history = []; // the last turns sent back with each question: [{question, answer}]
let sticky = []; // cards mentioned earlier in the conversation, as the server last listed them
let busy = false;
const mentions = attachCardMentions(textarea, config.cardsUrl, S);
attachCardPreview(turns, config.cardUrl, S); // card chips of the answers
const booklets = attachBookletChoice(document.getElementById("booklet-choice"), config.gameId, config.choiceFromUrl);

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

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const question = textarea.value.trim();
  if (!question || busy) return;
  if (question.length > config.maxChars) return alert(S.tooLong);
  const cardMentions = mentions.takeMentions(question);
  textarea.value = "";
  updateCounter();
  setBusy(true);
  try {
    await ask(question, cardMentions, addTurn(question));
  } finally {
    setBusy(false);
    textarea.focus();
  }
});

function setBusy(value) {
  busy = value;
  askButton.disabled = value;
  form.classList.toggle("busy", value);
}

document.getElementById("new-conversation").addEventListener("click", () => {
  history = [];
  sticky = [];
  turns.querySelectorAll(".turn").forEach((turn) => turn.remove());
  emptyNote.hidden = false;
  updateHistoryNote();
  closeViewer();
  textarea.focus();
});

function updateHistoryNote() {
  historyNote.textContent = history.length ? `↺ ${history.length}/${config.maxHistory}` : "";
  historyNote.title = history.length ? S.historyTitle || "" : "";
}

// --- one turn ---------------------------------------------------------------------------

function addTurn(question) {
  emptyNote.hidden = true;
  const turn = turnTemplate.content.firstElementChild.cloneNode(true);
  turn.querySelector(".question-bubble .who").textContent = S.you;
  turn.querySelector(".question-text").textContent = question;
  turn.querySelector(".answer-bubble .who").textContent = S.oracle;
  setPhase(turn, S.thinking);
  turns.appendChild(turn);
  turn.scrollIntoView({ block: "end" });
  return turn;
}

function setPhase(turn, label) {
  const phase = turn.querySelector(".phase");
  phase.textContent = label || "";
  phase.hidden = !label;
}

function showError(turn, message) {
  setPhase(turn, "");
  const answer = turn.querySelector(".answer");
  answer.classList.remove("streaming");
  const error = document.createElement("p");
  error.className = "error-text";
  error.setAttribute("role", "alert");
  error.textContent = message;
  answer.appendChild(error);
  turn.classList.add("failed");
}

async function ask(question, cardMentions, turn) {
  const answer = turn.querySelector(".answer");
  let questionId = null;
  let finished = false;
  let streamed = "";
  const body = {
    gameId: config.gameId,
    question,
    extensions: booklets.checked(), // the ticked booklets, at the moment of asking
    history: history.slice(-config.maxHistory),
    cardMentions,
    stickyCardMentions: sticky,
  };
  try {
    const response = await fetch(config.askUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream", "X-CSRFToken": csrfToken() },
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      showError(turn, await errorMessage(response));
      return;
    }
    for await (const { event, data } of readEvents(response)) {
      if (event === "meta") {
        questionId = data.questionId;
        turn.dataset.questionId = questionId;
      } else if (event === "phase") {
        setPhase(turn, data.label);
      } else if (event === "token") {
        streamed += data.text ?? "";
        answer.textContent = streamed; // plain text while streaming: never raw HTML
        turn.scrollIntoView({ block: "end" });
      } else if (event === "diagnostics") {
        renderDiagnostics(turn, data);
      } else if (event === "done") {
        finished = true;
        // this turn's @-cards join the earlier ones (a deck's cards too): sent back next turn
        if (Array.isArray(data.stickyCardMentions)) sticky = data.stickyCardMentions;
        await finish(turn, question, data.fullAnswer ?? streamed, questionId);
        if (data.deck) renderDeckTools(turn, data.deck); // deckbuilding: verdict badge and exports
      } else if (event === "error") {
        finished = true;
        showError(turn, data.message || S.streamFailed);
      }
    }
  } catch (error) {
    console.warn("ask stream broke", error);
  }
  if (finished) return;
  if (questionId) await recoverByPolling(turn, question, questionId);
  else showError(turn, S.streamFailed);
}

async function finish(turn, question, text, questionId) {
  const answer = turn.querySelector(".answer");
  setPhase(turn, "");
  answer.classList.remove("streaming");
  turn.classList.remove("offline");
  turn.dataset.state = "done";
  try {
    answer.innerHTML = await storedAnswerHtml(questionId); // rendered and sanitised by the server
  } catch (error) {
    console.warn("answer rendering failed, showing plain text", error);
    answer.textContent = text;
  }
  history = [...history, { question, answer: text }].slice(-config.maxHistory);
  updateHistoryNote();
}

async function storedAnswerHtml(questionId) {
  const url = config.answerUrl.replace(config.anyQuestion, encodeURIComponent(questionId));
  const response = await fetch(url, { credentials: "same-origin" });
  if (response.status !== 200) throw new Error(`answer: HTTP ${response.status}`);
  return response.text();
}

// The stream broke after `meta`: the answer keeps being generated server-side; fetch it.
async function recoverByPolling(turn, question, questionId) {
  turn.classList.add("offline");
  setPhase(turn, S.offline);
  for (let attempt = 0; attempt < config.pollMaxTries; attempt++) {
    await sleep(config.pollEveryMs);
    let response;
    try {
      response = await fetch(config.pollUrl + encodeURIComponent(questionId), { credentials: "same-origin" });
    } catch {
      continue; // still offline: try again at the next tick
    }
    if (response.status === 202) continue;
    if (response.status === 200) {
      const body = await response.json();
      if (body.status === "error") return showError(turn, body.error || S.offlineFailed);
      if (Array.isArray(body.stickyCardMentions)) sticky = body.stickyCardMentions;
      return finish(turn, question, body.answer ?? "", questionId);
    }
    // The server sends `meta` before saving the question: a 404 right away may only be early.
    if (response.status === 404 && attempt >= 2) break;
  }
  turn.classList.remove("offline");
  showError(turn, S.offlineFailed);
}

// --- diagnostics ---------------------------------------------------------------------------

function renderDiagnostics(turn, data) {
  const details = turn.querySelector(".diagnostics");
  const body = details.querySelector(".diagnostics-body");
  body.replaceChildren();
  const add = (tag, text, className) => {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    body.appendChild(node);
    return node;
  };
  if (data.bestScore !== undefined && data.bestScore !== null) {
    add("p", `${S.bestScore}${COLON}${Number(data.bestScore).toFixed(3)}`);
  }
  if (data.timings && typeof data.timings === "object") {
    add("h4", S.timings);
    const list = add("ul", undefined, "timings");
    for (const [step, ms] of Object.entries(data.timings)) {
      const item = document.createElement("li");
      item.textContent = `${step}${COLON}${typeof ms === "number" ? Math.round(ms) : ms}`;
      list.appendChild(item);
    }
  }
  if (Array.isArray(data.chunks) && data.chunks.length) {
    add("h4", S.chunks);
    const list = add("ol", undefined, "diag-chunks");
    for (const chunk of data.chunks) list.appendChild(chunkItem(chunk));
  }
  if (data.hyde) {
    add("h4", S.hyde);
    add("p", typeof data.hyde === "string" ? data.hyde : JSON.stringify(data.hyde), "hyde");
  }
  details.hidden = false;
}

function chunkItem(chunk) {
  const item = document.createElement("li");
  const booklet = chunk.booklet ?? chunk.booklet_name ?? chunk.bookletName ?? chunk.collection ?? "";
  const start = chunk.page_start ?? chunk.pageStart ?? (Array.isArray(chunk.pages) ? chunk.pages[0] : chunk.page);
  const path = chunk.hierarchy_path ?? chunk.hierarchyPath ?? "";
  const score = chunk.score ?? chunk.fusedScore ?? chunk.fused_score;
  const head = document.createElement("strong");
  head.textContent = `${booklet}${start ? `, ${S.page}${start}` : ""}`;
  item.appendChild(head);
  if (path) item.append(` — ${path}`);
  if (typeof score === "number") item.append(` · ${score.toFixed(3)}`);
  const text = chunk.text ?? chunk.preview;
  if (text) {
    const preview = document.createElement("p");
    preview.className = "chunk-preview";
    preview.textContent = text.length > 280 ? `${text.slice(0, 280)}…` : text;
    item.appendChild(preview);
  }
  return item;
}

// --- the PDF viewer beside the chat -----------------------------------------------------------

const pane = document.getElementById("viewer-pane");
const frame = document.getElementById("viewer-frame");

turns.addEventListener("click", (event) => {
  const link = event.target.closest("a.citation");
  if (!link || !link.dataset.viewerUrl) return;
  event.preventDefault();
  openViewer(link);
});

function openViewer(link) {
  pane.hidden = false;
  document.body.classList.add("viewer-open");
  document.getElementById("viewer-title").textContent = link.textContent.trim();
  document.getElementById("viewer-open").href = link.href;
  frame.src = link.dataset.viewerUrl;
}

function closeViewer() {
  pane.hidden = true;
  document.body.classList.remove("viewer-open");
  frame.removeAttribute("src");
}
document.getElementById("viewer-close").addEventListener("click", closeViewer);

updateCounter();
