// One ingest job's live progress: replays the stored events (EventSource sends Last-Event-ID
// on reconnection, and a page reload replays from the start), so the view survives reloads.
// The status the server rendered is the job's once the events stored by then are replayed: only
// later ones change it (after a replay, the last `act` may be of a run now paused or requeued).

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
const renderedUpTo = Number(root.dataset.lastEvent) || 0; // the last event stored when the page was rendered
let live = false; // the event being handled came after the page was rendered
let progressOf = {}; // act → its last `act` event
let actElapsed = {};
let remaining = null; // {seconds, at}: the last estimate and when its event was stored

function newRow(act) {
  const row = document.createElement("li");
  row.className = "act";
  row.dataset.act = act;
  row.innerHTML = '<span class="act-state" aria-hidden="true"></span><span class="act-label"></span>'
    + '<span class="act-counts"></span><span class="act-elapsed"></span><progress max="1" value="0"></progress>';
  return row;
}

function actRow(data) {
  const key = data.act || data.label;
  let row = acts.querySelector(`[data-act="${CSS.escape(key)}"]`);
  if (!row) {
    row = newRow(key);
    acts.appendChild(row);
  }
  row.hidden = false; // OCR's row shows only when OCR runs
  return row;
}

// A relaunched job starts over: every act to come again, as the server renders a queued job.
function resetActs() {
  acts.replaceChildren(...Object.entries(actLabels).map(([act, label]) => {
    const row = newRow(act);
    row.dataset.state = "pending";
    row.querySelector(".act-state").textContent = "·";
    row.querySelector(".act-label").textContent = label;
    row.querySelector(".act-elapsed").textContent = strings.toCome;
    row.hidden = act === "ocr"; // shown only if OCR runs
    return row;
  }));
  progressOf = {};
  actElapsed = {};
  remaining = null;
  elapsedLabel.textContent = "";
  document.getElementById("overall-progress").value = 0;
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
  if (live) setStatus("running", strings.running);
  clearScheduled();
  if (data.act) progressOf[data.act] = data;
  showOverall(data.at);
}

// The overall bar and « environ N min restantes »: the acts' progress and elapsed time so far,
// the acts still to come at the pace of earlier jobs (ingest_estimate.js).
function showOverall(at) {
  const result = estimate(progressOf, rates, pages);
  const bar = document.getElementById("overall-progress");
  bar.value = result.fraction;
  // Counted from when the event was stored (`at`), not from its replay after a reload; never
  // from the future (a browser clock behind the server's).
  remaining = { seconds: result.remainingS, at: Math.min(Date.parse(at) || Date.now(), Date.now()) };
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

// The job's status, its label, and what goes with it: « Annuler l'ingestion » while it is queued
// or running; the time left counts down only while it runs (showRemaining), is estimated again
// once queued, and says nothing while the job waits for its start (an ended job hides it).
function setStatus(status, label) {
  root.dataset.status = status;
  statusLabel.textContent = label;
  document.getElementById("stop-slot").hidden = !["queued", "running"].includes(status);
  if (status === "queued") document.getElementById("remaining").textContent = strings.estimating;
  if (status === "scheduled") document.getElementById("remaining").textContent = "";
}

// « 17:31 », with its day when it is not today: « 17:31 (lundi 7 décembre) », in the site's time
// zone and the page's language, as the server writes it (ingest.views.start_time).
function startTime(iso) {
  const date = new Date(iso);
  const time = hourMinute(iso, timeZone);
  if (Number.isNaN(date.getTime())) return time;
  const zone = timeZone || undefined;
  const dayOf = (d) => new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(d);
  if (dayOf(date) === dayOf(new Date())) return time;
  const parts = new Intl.DateTimeFormat(language, { timeZone: zone, weekday: "long", day: "numeric", month: "long" }).formatToParts(date);
  const part = (type) => parts.find((p) => p.type === type)?.value || "";
  return `${time} (${part("weekday")} ${part("day")} ${part("month")})`;
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
  text.textContent = strings.resting.replace("HH:MM", startTime(data.retryAt || data.resetAt));
  panel.appendChild(text);
  slot.replaceChildren(panel);
  if (live) setStatus("scheduled", strings.scheduled);
}

function showPlanned(data) {
  const slot = document.getElementById("scheduled-slot");
  const panel = document.createElement("div");
  panel.className = "scheduled-panel reason-user";
  const text = document.createElement("p");
  text.className = "planned";
  text.textContent = strings.planned.replace("HH:MM", startTime(data.scheduledAt));
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
  document.getElementById("overall").hidden = true;
  acts.querySelectorAll(".act[hidden]").forEach((row) => row.remove()); // acts that did not run (OCR)
  if (kind === "error" && data.cancelled) kind = "cancelled"; // a job stopped on request
  acts.querySelectorAll('.act:not([data-state="done"])').forEach((row) => {
    if (kind === "done") {
      row.dataset.state = "done";
      row.querySelector(".act-state").textContent = "✓";
    } else if (row.dataset.state === "pending") {
      row.remove(); // failed or cancelled: an act it will not reach is not promised
    } else {
      row.dataset.state = "stopped"; // the act it stopped in
      row.querySelector(".act-state").textContent = "✕";
      row.querySelector(".act-elapsed").textContent = strings.stopped;
    }
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
    live = Number(event.lastEventId) > renderedUpTo;
    handler(data);
    root.dataset.shownEvent = event.lastEventId; // the browser tests wait for a replay's end on it
  });
  on("act", showAct);
  on("warning", addWarning);
  on("language", showLanguage);
  on("quota_pause", showResting);
  on("scheduled", (data) => (data.reason === "quota" ? showResting(data) : showPlanned(data)));
  on("resumed", () => { clearScheduled(); if (live) setStatus("queued", strings.queued); });
  on("retry", () => {
    // Relaunched: the page follows the new run, not the one that failed or was cancelled.
    ["job-error", "job-done", "job-cancelled"].forEach((id) => { document.getElementById(id).hidden = true; });
    document.getElementById("overall").hidden = false;
    clearScheduled();
    resetActs();
    if (live) setStatus("queued", strings.queued);
  });
  on("done", (data) => finish("done", data, source));
  // An `error` the job was relaunched after (replayed) is not its end: its `retry` follows.
  on("error", (data) => { if (!data.relaunched) finish("error", data, source); });
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
// The language the job read, as stored: shown with the page, not only once the stream's
// replay reaches its event (a page reloaded after the job ended showed « done » without it).
const storedLanguage = readJsonScript("ingest-language");
if (storedLanguage) showLanguage(storedLanguage);
listen();
