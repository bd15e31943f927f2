// The ingest wizard's form: posts the PDF and its metadata to POST /api/games/ingest, then
// opens the job's progress page (its URL carries the job id, so a reload resumes it).

import { csrfToken, errorMessage } from "./common.js";

const form = document.getElementById("ingest-form");
const gameSelect = document.getElementById("game-select");
const kindSelect = document.getElementById("kind-select");
const scheduleToggle = document.getElementById("schedule-toggle");
const scheduleField = document.getElementById("schedule-field");
const scheduledStart = document.getElementById("scheduled-start");
const errorBox = document.getElementById("ingest-error");

function syncFields() {
  const newGame = !gameSelect.value;
  document.getElementById("new-game-field").hidden = !newGame;
  form.elements.new_game_name.required = newGame;
  document.getElementById("bgg-field").hidden = !newGame;
  const base = kindSelect.value === "base";
  form.elements.name.required = !base;
  scheduleField.hidden = !scheduleToggle.checked;
  scheduledStart.required = scheduleToggle.checked; // a ticked box without a date is refused before sending
}

[gameSelect, kindSelect, scheduleToggle].forEach((input) => input.addEventListener("change", syncFields));
syncFields();

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  errorBox.hidden = true;
  const data = new FormData(form);
  for (const [key, value] of [...data.entries()]) {
    if (value === "") data.delete(key); // optional fields left empty are not sent
  }
  if (scheduleToggle.checked) {
    if (!scheduledStart.value) {
      scheduledStart.reportValidity();
      return;
    }
    data.set("scheduled_start_at", scheduledStart.value); // as typed, no zone: the server reads it in the site's
  }
  const submit = document.getElementById("ingest-submit");
  submit.disabled = true;
  try {
    const response = await fetch(form.dataset.apiUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken() },
      body: data,
    });
    if (response.status === 202 || response.ok) {
      const body = await response.json();
      const jobId = body.job_id ?? body.jobId;
      location.assign(`/ingestion/${jobId}/`);
      return;
    }
    errorBox.textContent = await errorMessage(response);
  } catch (error) {
    errorBox.textContent = String(error);
  }
  errorBox.hidden = false;
  submit.disabled = false;
});
