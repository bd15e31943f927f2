// The booklet viewer (pdf.js, vendored): opens the PDF at ?page=N and highlights ?q=quote.
// Zoom: the toolbar's − / + / « Pleine largeur », ctrl + = / - / 0, ctrl + wheel (a trackpad
// pinch) and a two-finger pinch on touch screens. On a scanned page (no text layer) the quote
// is looked for in the words tesseract read there at ingestion; elsewhere pdf.js finds it.

const body = document.body;
const params = new URLSearchParams(location.search);
const targetPage = Math.max(1, parseInt(params.get("page"), 10) || 1);
const quote = (params.get("q") || "").trim();
const strings = JSON.parse(document.getElementById("viewer-strings").textContent);
const pageNumber = document.getElementById("page-number");
const findStatus = document.getElementById("find-status");
const container = document.getElementById("viewerContainer");
const PHONE_WIDTH = 600; // under it pages lose their grey frame: the text gets the whole width

document.getElementById("native-link").href += `#page=${targetPage}`;
document.getElementById("fallback-link").href += `#page=${targetPage}`;

/** The longest piece of a quote the model elided with "…": the part most likely verbatim. */
export function searchableQuote(text) {
  const pieces = text.split(/…|\.\.\.|\[…\]/).map((piece) => piece.trim()).filter(Boolean);
  return pieces.sort((a, b) => b.length - a.length)[0] || "";
}

/** Letters and digits only, lower case, no accents: OCR and quotes agree on little else. */
export function fold(text) {
  return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}

/**
 * The indexes of the OCR words that spell `query`: first the exact letters (across spaces,
 * punctuation and end-of-line hyphens), else the run of words sharing most of the query's
 * words (at least 60 %, OCR misreads a few). [] when nothing fits.
 */
export function matchWords(words, query) {
  const folded = words.map((word) => fold(word[4]));
  const target = fold(query);
  if (!target) return [];
  let joined = "";
  const starts = folded.map((word) => { const at = joined.length; joined += word; return at; });
  const at = joined.indexOf(target);
  if (at >= 0) {
    const end = at + target.length;
    return folded.map((_, i) => i).filter((i) => folded[i] && starts[i] < end && starts[i] + folded[i].length > at);
  }
  const tokens = query.split(/\s+/).map(fold).filter(Boolean);
  let best = { score: 0, first: -1 };
  for (let first = 0; first + tokens.length <= folded.length; first++) {
    const score = tokens.filter((token, k) => folded[first + k] === token).length;
    if (score > best.score) best = { score, first };
  }
  if (tokens.length < 2 || best.score < 0.6 * tokens.length) return [];
  return tokens.map((_, k) => best.first + k);
}

/** One box per line of matched words, as fractions of the page: [left, top, right, bottom]. */
export function lineBoxes(page, indexes) {
  const lines = new Map();
  for (const i of indexes) {
    const [x0, y0, x1, y1, , line] = page.words[i];
    const box = lines.get(line);
    lines.set(line, box ? [Math.min(box[0], x0), Math.min(box[1], y0), Math.max(box[2], x1), Math.max(box[3], y1)] : [x0, y0, x1, y1]);
  }
  return [...lines.values()].map(([x0, y0, x1, y1]) => [x0 / page.width, y0 / page.height, x1 / page.width, y1 / page.height]);
}

/** The OCR words of the cited page ({page, width, height, words}), or null (a text page). */
async function fetchOcrWords() {
  if (!quote) return null;
  const response = await fetch(body.dataset.wordsUrl.replace("/pages/0/", `/pages/${targetPage}/`), { credentials: "same-origin" });
  return response.ok ? response.json() : null;
}
const ocrWords = fetchOcrWords().catch(() => null);

async function open() {
  const pdfjsLib = await import(body.dataset.pdfjsUrl);
  globalThis.pdfjsLib = pdfjsLib; // pdf_viewer.mjs reads the library from the global
  pdfjsLib.GlobalWorkerOptions.workerSrc = body.dataset.workerUrl;
  const { EventBus, PDFFindController, PDFLinkService, PDFViewer } = await import(body.dataset.viewerModuleUrl);

  const eventBus = new EventBus();
  const linkService = new PDFLinkService({ eventBus });
  const findController = new PDFFindController({ eventBus, linkService });
  const viewer = new PDFViewer({
    container,
    eventBus,
    linkService,
    findController,
    removePageBorders: container.clientWidth < PHONE_WIDTH,
  });
  linkService.setViewer(viewer);

  const find = () => {
    const query = searchableQuote(quote);
    if (!query) return;
    eventBus.dispatch("find", {
      source: null, type: "", query, caseSensitive: false, entireWord: false,
      highlightAll: true, findPrevious: false, matchDiacritics: false,
    });
  };
  const showFound = (found, source) => {
    body.dataset.quoteFound = found ? "true" : "false";
    body.dataset.quoteSource = found ? source : "";
    findStatus.textContent = found ? strings.found : strings.notFound;
  };

  // --- a scanned page: the quote drawn over tesseract's words ---------------------------
  let ocrBoxes = null; // fractions of the target page, once found
  const drawOcrBoxes = (scroll) => {
    const pageDiv = viewer.getPageView(targetPage - 1)?.div;
    if (!ocrBoxes || !pageDiv) return;
    pageDiv.querySelector(".ocr-highlights")?.remove();
    const layer = document.createElement("div");
    layer.className = "ocr-highlights";
    for (const [left, top, right, bottom] of ocrBoxes) {
      const mark = document.createElement("div");
      mark.className = "ocr-highlight";
      Object.assign(mark.style, {
        left: `${left * 100}%`, top: `${top * 100}%`, width: `${(right - left) * 100}%`, height: `${(bottom - top) * 100}%`,
      });
      layer.append(mark);
    }
    pageDiv.append(layer);
    if (scroll) layer.firstElementChild?.scrollIntoView({ block: "center", inline: "nearest" });
  };
  // A scanned page's words come with the page (fetched while the PDF loads); when they
  // spell the quote, pdf.js's search (which reads every page's text first) is not needed.
  const highlightInOcrWords = async () => {
    const page = await ocrWords;
    const boxes = page ? lineBoxes(page, matchWords(page.words, searchableQuote(quote))) : [];
    if (!boxes.length) return false;
    ocrBoxes = boxes;
    drawOcrBoxes(true);
    showFound(true, "ocr");
    return true;
  };

  eventBus.on("pagesinit", async () => {
    viewer.currentScaleValue = "page-width";
    viewer.currentPageNumber = Math.min(targetPage, viewer.pagesCount);
    if (!quote) return;
    const found = await highlightInOcrWords().catch((error) => { console.error("OCR words", error); return false; });
    if (!found) find();
  });
  eventBus.on("pagerendered", ({ pageNumber: number }) => {
    if (number === targetPage) drawOcrBoxes(false); // pdf.js empties a page it renders again (zoom)
  });
  // The counter shows the page being read (pageInView). pdf.js's own current page is the one
  // with the largest share of its area in view: a quote found near the bottom of p.5 and put
  // at the top of the view made it say p.6, the next page filling the rest of the view.
  const showPageInView = () => {
    const number = pageInView(container);
    if (!number) return;
    pageNumber.textContent = number;
    body.dataset.currentPage = number;
  };
  let counting = false;
  container.addEventListener("scroll", () => {
    if (counting) return;
    counting = true;
    requestAnimationFrame(() => { counting = false; showPageInView(); });
  }, { passive: true });
  eventBus.on("pagechanging", showPageInView);
  eventBus.on("updateviewarea", showPageInView);
  eventBus.on("scalechanging", ({ scale }) => {
    document.getElementById("zoom-level").textContent = `${Math.round(scale * 100)} %`;
    body.dataset.scale = scale;
  });
  eventBus.on("updatefindcontrolstate", ({ state }) => {
    // FindState: 0 found, 1 not found, 2 wrapped, 3 pending
    if (state === 3 || body.dataset.quoteSource === "ocr") return;
    showFound(state !== 1, "text");
  });

  const pdf = await pdfjsLib.getDocument({ url: body.dataset.pdfUrl, standardFontDataUrl: body.dataset.fontsUrl }).promise;
  viewer.setDocument(pdf);
  linkService.setDocument(pdf, null);
  document.getElementById("page-count").textContent = pdf.numPages;
  pageNumber.textContent = Math.min(targetPage, pdf.numPages);
  body.dataset.currentPage = Math.min(targetPage, pdf.numPages);
  body.dataset.state = "ready";

  document.getElementById("prev-page").addEventListener("click", () => viewer.previousPage());
  document.getElementById("next-page").addEventListener("click", () => viewer.nextPage());
  // The buttons zoom around the quote while it is in sight, else around the middle of the view.
  const zoomOrigin = () => {
    const view = container.getBoundingClientRect();
    const mark = [...container.querySelectorAll(".textLayer .highlight.selected, .ocr-highlight")]
      .map((element) => element.getBoundingClientRect())
      .find((r) => r.bottom > view.top && r.top < view.bottom && r.right > view.left && r.left < view.right);
    const [x, y] = mark ? [(mark.left + mark.right) / 2, (mark.top + mark.bottom) / 2] : [(view.left + view.right) / 2, (view.top + view.bottom) / 2];
    return [x - view.left + container.offsetLeft, y - view.top + container.offsetTop];
  };
  document.getElementById("zoom-in").addEventListener("click", () => viewer.increaseScale({ origin: zoomOrigin() }));
  document.getElementById("zoom-out").addEventListener("click", () => viewer.decreaseScale({ origin: zoomOrigin() }));
  document.getElementById("zoom-fit").addEventListener("click", () => { viewer.currentScaleValue = "page-width"; });
  addEventListener("keydown", (event) => { // ctrl/cmd + = - 0 zoom the booklet, not the whole page
    if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
    if (event.key === "+" || event.key === "=") viewer.increaseScale({ origin: zoomOrigin() });
    else if (event.key === "-") viewer.decreaseScale({ origin: zoomOrigin() });
    else if (event.key === "0") viewer.currentScaleValue = "page-width";
    else return;
    event.preventDefault();
  });
  addEventListener("resize", () => {
    if (viewer.currentScaleValue === "page-width") viewer.currentScaleValue = "page-width"; // a phone turned: fit again
  });
  pinchToZoom(viewer);
  if (quote) {
    const button = document.getElementById("find-quote");
    button.hidden = false;
    button.addEventListener("click", () => {
      viewer.currentPageNumber = targetPage;
      if (ocrBoxes) drawOcrBoxes(true);
      else find();
    });
  }
}

/**
 * The number of the page being read: the one under the view's reading line, a quarter down
 * from its top (where find puts a quote, where eyes go after a scroll); else the page taking
 * the most height in the view. null before layout.
 */
export function pageInView(scroller) {
  const view = scroller.getBoundingClientRect();
  const line = view.top + view.height / 4;
  let best = null;
  let bestHeight = 0;
  for (const page of scroller.querySelectorAll(".page[data-page-number]")) {
    const box = page.getBoundingClientRect();
    if (box.top <= line && box.bottom > line) return Number(page.dataset.pageNumber);
    const height = Math.min(box.bottom, view.bottom) - Math.max(box.top, view.top);
    if (height > bestHeight) [best, bestHeight] = [Number(page.dataset.pageNumber), height];
  }
  return best;
}

/** Escape in the viewer shown beside the chat: the chat closes it (static/oracle/chat.js). */
function closeFromInside() {
  if (window.parent !== window) window.parent.postMessage("oracle-viewer-escape", location.origin);
}

/** Two fingers pinch, or ctrl + wheel (how trackpads pinch): zoom around the fingers. */
function pinchToZoom(viewer) {
  let pinch = null;
  const spread = (touches) => Math.hypot(touches[0].clientX - touches[1].clientX, touches[0].clientY - touches[1].clientY);
  // pdf.js takes the origin relative to the container's offset parent (our .viewer-stage).
  const origin = (x, y) => {
    const rect = container.getBoundingClientRect();
    return [x - rect.left + container.offsetLeft, y - rect.top + container.offsetTop];
  };
  const middle = (touches) => origin((touches[0].clientX + touches[1].clientX) / 2, (touches[0].clientY + touches[1].clientY) / 2);
  container.addEventListener("touchstart", (event) => {
    if (event.touches.length === 2) pinch = { spread: spread(event.touches), scale: viewer.currentScale };
  }, { passive: true });
  container.addEventListener("touchmove", (event) => {
    if (!pinch || event.touches.length !== 2) return;
    event.preventDefault();
    const wanted = pinch.scale * (spread(event.touches) / pinch.spread);
    viewer.updateScale({ scaleFactor: wanted / viewer.currentScale, drawingDelay: 300, origin: middle(event.touches) });
  }, { passive: false });
  const end = (event) => { if (event.touches.length < 2) pinch = null; };
  container.addEventListener("touchend", end);
  container.addEventListener("touchcancel", end);
  container.addEventListener("wheel", (event) => {
    if (!event.ctrlKey) return;
    event.preventDefault();
    viewer.updateScale({ steps: event.deltaY < 0 ? 1 : -1, drawingDelay: 300, origin: origin(event.clientX, event.clientY) });
  }, { passive: false });
}

addEventListener("keydown", (event) => { if (event.key === "Escape") closeFromInside(); });
if (quote) {
  const quoteBox = document.getElementById("quote");
  quoteBox.textContent = `« ${quote} »`;
  quoteBox.hidden = false;
}
open().catch((error) => {
  console.error("pdf.js failed", error);
  body.dataset.state = "error";
  document.getElementById("viewer-error").hidden = false;
});
