// The time an ingestion has left, from its acts' progress events and the rates of the jobs
// that finished before it (ingest/estimates.py). Pure functions: tests/ingest/test_estimate_js.py
// runs them under node.

export const ACT_ORDER = ["read", "ocr", "chunk", "hierarchy", "context", "embed", "index"];

// acts: {act: {state, done, total, elapsed}} as the `act` events left them; pages: the PDF's
// page count (0 if unknown). Returns {fraction (0–1), remainingS, elapsedS, pending: [act…]}.
export function estimate(acts, rates, pages) {
  const seconds = rates.seconds_per_unit || {};
  const pageActs = new Set(rates.page_acts || ["read", "ocr", "chunk"]);
  const started = ACT_ORDER.filter((act) => acts[act]);
  const chunks = chunkCount(acts, pages, rates.chunks_per_page || 4);
  let elapsedS = 0;
  let remainingS = 0;
  for (const act of started) {
    const { state, done = 0, total = 0, elapsed = 0 } = acts[act];
    elapsedS += elapsed;
    if (state === "done") continue;
    const units = total || (pageActs.has(act) ? pages : chunks);
    const left = Math.max(units - done, 0);
    // The act's own pace once it has one, else that of earlier jobs.
    const pace = done > 0 && elapsed > 0 ? elapsed / done : seconds[act] || 0;
    remainingS += Math.max(left * pace, 0);
  }
  const last = started.length ? ACT_ORDER.indexOf(started[started.length - 1]) : -1;
  // OCR runs only when pages lack text: once reading is done without it, it will not.
  const pending = ACT_ORDER.slice(last + 1).filter((act) => act !== "ocr");
  for (const act of pending) {
    remainingS += (pageActs.has(act) ? pages : chunks) * (seconds[act] || 0);
  }
  const total = elapsedS + remainingS;
  return { fraction: total > 0 ? Math.min(elapsedS / total, 1) : 0, remainingS, elapsedS, pending };
}

function chunkCount(acts, pages, chunksPerPage) {
  for (const act of ["hierarchy", "context", "embed", "index"]) {
    if (acts[act]?.total) return acts[act].total;
  }
  return Math.round(pages * chunksPerPage);
}

// « environ N min restantes », or the under-a-minute sentence; templates hold the words.
export function remainingText(remainingS, words) {
  if (remainingS < 60) return words.underMinute;
  const minutes = Math.ceil(remainingS / 60);
  return (minutes === 1 ? words.oneMinute : words.minutes).replace("N", String(minutes));
}
