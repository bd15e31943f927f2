// One ingest job's live progress: replays the stored events (EventSource sends Last-Event-ID
// on reconnection, and a page reload replays from the start), so the view survives reloads.

import { csrfToken, errorMessage, hourMinute, readJsonScript } from "./common.js";
import { attachCancelButtons } from "./ingest_cancel.js";
import { estimate, remainingText } from "./ingest_estimate.js";

const root = document.getElementById("ingest-job");
const strings = readJsonScript("ingest-strings");
const actLabels = readJsonScript("ingest-acts"); // act → its name in the page's language
const acts = document.getElementById("acts");
const statusLabel = document.getElementById("job-status-label");
const elapsedLabel = document.getElementById("elapsed");
const timeZone = root.dataset.timeZone;
const language = (document.documentElement.lang || "fr").slice(0, 2);

// A warning's or an error's text in the page's language (`messages`), else as stored.
const messageOf = (data) => data.messages?.[language] || data.message;
const rates = readJsonScript("ingest-rates");
const pages = Number(root.dataset.pages) || 0;
const progressOf = {}; // act → its last `act` event
let remaining = null; // {seconds, at}: the last estimate and when it was made

function actRow(data) {
  const key = data.act || data.label;
  let row = acts.querySelector(`[data-act="${CSS.escape(key)}"]`);
  if (!row) {
    row = document.createElement("li");
    row.className = "act";
    row.dataset.act = key;
    row.innerHTML = '<span class="act-state" aria-hidden="true"></span><span class="act-label"></span>'
      + '<span class="act-counts"></span><span class="act-elapsed"></span><progress max="1" value="0"></progress>';
    acts.appendChild(row);
  }
  row.hidden = false; // OCR's row shows only when OCR runs
  return row;
}

function formatSeconds(seconds) {
  if (typeof seconds !== "number") return "";
  return seconds < 60 ? `${seconds.toFixed(1)} s` : `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

function showAct(data) {
  const row = actRow(data);
  const state = data.state || "progress";
  row.dataset.state = state;
  row.querySelector(".act-state").textContent = state === "done" ? "✓" : "…";
  row.querySelector(".act-label").textContent = actLabels[data.act] || data.label || data.act;
  const progress = row.querySelector("progress");
  if (typeof data.total === "number" && data.total > 0) {
    row.querySelector(".act-counts").textContent = `${data.done ?? 0}/${data.total}`;
    progress.max = data.total;
    progress.value = data.done ?? 0;
  } else if (state === "done") {
    progress.max = 1;
    progress.value = 1;
  }
  if (state === "done") progress.value = progress.max;
  row.querySelector(".act-elapsed").textContent = formatSeconds(data.elapsed);
  if (typeof data.elapsed === "number") actElapsed[row.dataset.act] = data.elapsed;
  elapsedLabel.textContent = formatSeconds(Object.values(actElapsed).reduce((a, b) => a + b, 0));
  setStatus("running", strings.running);
  clearScheduled();
  if (data.act) progressOf[data.act] = data;
  showOverall();
}

// The overall bar and « environ N min restantes »: the acts' progress and elapsed time so far,
// the acts still to come at the pace of earlier jobs (ingest_estimate.js).
function showOverall() {
  const result = estimate(progressOf, rates, pages);
  const bar = document.getElementById("overall-progress");
  bar.value = result.fraction;
  remaining = { seconds: result.remainingS, at: Date.now() };
  showRemaining();
}

function showRemaining() {
  if (!remaining || root.dataset.status !== "running") return;
  const seconds = Math.max(remaining.seconds - (Date.now() - remaining.at) / 1000, 0);
  document.getElementById("remaining").textContent = remainingText(seconds, {
    minutes: strings.minutesLeft, oneMinute: strings.oneMinuteLeft, underMinute: strings.underMinute,
  });
}
setInterval(showRemaining, 5000);

function showLanguage(data) {
  const panel = document.getElementById("language-panel");
  const fix = document.getElementById("language-fix");
  const names = readJsonScript("language-names");
  const name = (code, label) => names[code] || label || code || "";
  const fill = (text) => text.replace("LANG", name(data.detected, data.detected_label)).replace("DECLARED", name(data.declared, data.declared_label));
  // Corrected after the job ended, the stream stopped at `done` before that event: the
  // booklet's language (from the page) says it.
  const corrected = data.corrected || (data.mismatch && data.detected === panel.dataset.bookletLanguage);
  let text;
  if (corrected) text = strings.langCorrected;
  else if (data.mismatch) text = strings.langMismatch;
  else if (data.applied) text = strings.langDetected;
  else if (!data.detected) text = strings.langUnknown;
  else return; // the chosen language is the text's: nothing to say
  document.getElementById("language-text").textContent = fill(text);
  // The fix is offered while the booklet's language is not yet the detected one.
  const offer = data.mismatch && data.detected && data.detected !== panel.dataset.bookletLanguage;
  document.getElementById("language-fix-name").textContent = name(data.detected, data.detected_label);
  fix.hidden = !offer;
  panel.hidden = false;
}
const actElapsed = {};

function setStatus(status, label) {
  root.dataset.status = status;
  statusLabel.textContent = label;
}

function clearScheduled() {
  document.getElementById("scheduled-slot").replaceChildren();
}

function showResting(data) {
  const slot = document.getElementById("scheduled-slot");
  const panel = document.createElement("div");
  panel.className = "scheduled-panel reason-quota";
  const text = document.createElement("p");
  text.className = "resting";
  text.textContent = `${strings.resting.replace("HH:MM", hourMinute(data.retryAt || data.resetAt, timeZone))}`;
  panel.appendChild(text);
  slot.replaceChildren(panel);
  setStatus("scheduled", statusLabel.textContent);
}

function showPlanned(data) {
  const slot = document.getElementById("scheduled-slot");
  const panel = document.createElement("div");
  panel.className = "scheduled-panel reason-user";
  const text = document.createElement("p");
  text.className = "planned";
  text.textContent = `${strings.planned.replace("HH:MM", hourMinute(data.scheduledAt, timeZone))}`;
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.className = "secondary cancel-scheduled";
  cancel.dataset.cancelUrl = root.dataset.cancelUrl;
  cancel.textContent = strings.cancel;
  panel.append(text, cancel);
  slot.replaceChildren(panel);
}

function addWarning(data) {
  const item = document.createElement("li");
  item.textContent = messageOf(data) || data.detail || JSON.stringify(data); // its warning icon: oracle.css
  document.getElementById("warnings").appendChild(item);
}

function finish(kind, data, source) {
  source.close();
  document.getElementById("stop-slot").hidden = true;
  document.getElementById("overall").hidden = true;
  acts.querySelectorAll(".act[hidden]").forEach((row) => row.remove()); // acts that did not run (OCR)
  if (kind === "error" && data.cancelled) kind = "cancelled"; // a job stopped on request
  acts.querySelectorAll('.act:not([data-state="done"])').forEach((row) => {
    if (kind === "done") { row.dataset.state = "done"; row.querySelector(".act-state").textContent = "✓"; }
  });
  if (kind === "done") {
    setStatus("done", strings.done);
    document.getElementById("job-done").hidden = false;
  } else if (kind === "cancelled") {
    setStatus("cancelled", strings.cancelled);
    document.getElementById("job-cancelled").hidden = false;
    clearScheduled();
  } else {
    setStatus("error", strings.error);
    const error = document.getElementById("job-error");
    error.textContent = messageOf(data) || data.error || error.textContent;
    error.hidden = false;
  }
}

function listen() {
  const source = new EventSource(root.dataset.eventsUrl);
  const on = (name, handler) => source.addEventListener(name, (event) => {
    if (!(event instanceof MessageEvent)) return; // a transport error, not the job's `error` event
    let data = {};
    try { data = JSON.parse(event.data || "{}"); } catch { /* keep {} */ }
    handler(data);
  });
  on("act", showAct);
  on("warning", addWarning);
  on("language", showLanguage);
  on("quota_pause", showResting);
  on("scheduled", (data) => (data.reason === "quota" ? showResting(data) : showPlanned(data)));
  on("resumed", () => { clearScheduled(); setStatus("queued", strings.queued); });
  on("retry", () => { document.getElementById("job-error").hidden = true; setStatus("queued", strings.queued); });
  on("done", (data) => finish("done", data, source));
  on("error", (data) => finish("error", data, source));
  on("cancelled", (data) => finish("cancelled", data, source));
  source.addEventListener("error", async (event) => {
    if (event instanceof MessageEvent) return;
    // The stream ended without a final event (e.g. cancelled): ask the job before reconnecting.
    const response = await fetch(root.dataset.jobUrl, { credentials: "same-origin" }).catch(() => null);
    if (response?.status === 404) return finish("cancelled", {}, source);
    const job = response?.ok ? await response.json() : null;
    if (job && ["done", "error", "cancelled"].includes(job.status)) finish(job.status, job, source);
  });
}

// « Annuler l'ingestion » on a queued or running job: its worker stops between two pages.
document.addEventListener("click", async (event) => {
  const button = event.target.closest(".cancel-job");
  if (!button) return;
  button.disabled = true;
  const response = await fetch(button.dataset.cancelUrl, {
    method: "POST",
    credentials: "same-origin",
    headers: { "X-CSRFToken": csrfToken() },
  });
  if (response.ok) {
    button.textContent = strings.stopping;
  } else {
    button.disabled = false;
    alert(await errorMessage(response));
  }
});

attachCancelButtons(document, (button) => {
  setStatus("cancelled", strings.cancelled);
  document.getElementById("job-cancelled").hidden = false;
  button.closest(".scheduled-panel")?.remove();
});
listen();
