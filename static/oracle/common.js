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

/** Message of a 4xx/5xx JSON answer (django-ninja: {detail: "…" | [{msg, loc}…]}). */
export async function errorMessage(response) {
  try {
    const body = await response.json();
    const detail = body.detail ?? body.message ?? body.error;
    if (Array.isArray(detail)) {
      return detail.map((d) => `${(d.loc || []).slice(-1)[0] || ""} ${d.msg || ""}`.trim()).join(" ; ");
    }
    if (detail) return String(detail);
  } catch { /* not JSON */ }
  return `HTTP ${response.status}`;
}
