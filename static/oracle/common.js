// Helpers shared by the page scripts.

export function csrfToken() {
  return document.querySelector('meta[name="csrf-token"]')?.content || "";
}

export function readJsonScript(id) {
  return JSON.parse(document.getElementById(id).textContent);
}

/** HH:MM of an ISO date, in the site's time zone when given. */
export function hourMinute(iso, timeZone) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const options = { hour: "2-digit", minute: "2-digit", hour12: false };
  if (timeZone) options.timeZone = timeZone;
  return new Intl.DateTimeFormat(document.documentElement.lang || "fr", options).format(date);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Message of a 4xx/5xx JSON answer: the API's {detail: "…", errors: [{field, message}…]}
 *  (docs/api-resources.md), with every field error when there are several. */
export async function errorMessage(response) {
  try {
    const body = await response.json();
    const detail = body.detail ?? body.message ?? body.error;
    const errors = Array.isArray(body.errors) ? body.errors : [];
    if (errors.length > 1) {
      return errors.map((e) => `${e.field || ""} ${e.message || ""}`.trim()).join(" ; ");
    }
    if (detail) return String(detail);
  } catch { /* not JSON */ }
  return `HTTP ${response.status}`;
}
