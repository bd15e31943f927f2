// « Annuler » on a user-scheduled ingest: DELETE /api/ingest/{job id}/scheduled (the job, not
// its game: a game may have its base booklet and an expansion both scheduled).

import { csrfToken, errorMessage } from "./common.js";

export function attachCancelButtons(root, onCancelled) {
  root.addEventListener("click", async (event) => {
    const button = event.target.closest(".cancel-scheduled");
    if (!button) return;
    button.disabled = true;
    const response = await fetch(button.dataset.cancelUrl, {
      method: "DELETE",
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken() },
    });
    if (response.ok) {
      onCancelled(button);
    } else {
      button.disabled = false;
      alert(await errorMessage(response));
    }
  });
}

if (!document.getElementById("ingest-job")) {
  attachCancelButtons(document, (button) => button.closest("li")?.remove());
}
