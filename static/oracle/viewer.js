// The booklet viewer (pdf.js, vendored): opens the PDF at ?page=N and highlights ?q=quote.

const body = document.body;
const params = new URLSearchParams(location.search);
const targetPage = Math.max(1, parseInt(params.get("page"), 10) || 1);
const quote = (params.get("q") || "").trim();
const strings = JSON.parse(document.getElementById("viewer-strings").textContent);
const pageNumber = document.getElementById("page-number");
const findStatus = document.getElementById("find-status");

document.getElementById("native-link").href += `#page=${targetPage}`;
document.getElementById("fallback-link").href += `#page=${targetPage}`;

/** The longest piece of a quote the model elided with "…": the part most likely verbatim. */
export function searchableQuote(text) {
  const pieces = text.split(/…|\.\.\.|\[…\]/).map((piece) => piece.trim()).filter(Boolean);
  return pieces.sort((a, b) => b.length - a.length)[0] || "";
}

// pdf.js needs an absolutely positioned container: place it under the bars above it.
function layout() {
  const top = document.querySelector(".viewer-toolbar").offsetHeight + document.getElementById("quote").offsetHeight;
  document.getElementById("viewerContainer").style.top = `${top}px`;
}
addEventListener("resize", layout);

async function open() {
  const pdfjsLib = await import(body.dataset.pdfjsUrl);
  globalThis.pdfjsLib = pdfjsLib; // pdf_viewer.mjs reads the library from the global
  pdfjsLib.GlobalWorkerOptions.workerSrc = body.dataset.workerUrl;
  const { EventBus, PDFFindController, PDFLinkService, PDFViewer } = await import(body.dataset.viewerModuleUrl);

  const eventBus = new EventBus();
  const linkService = new PDFLinkService({ eventBus });
  const findController = new PDFFindController({ eventBus, linkService });
  const viewer = new PDFViewer({
    container: document.getElementById("viewerContainer"),
    eventBus,
    linkService,
    findController,
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

  eventBus.on("pagesinit", () => {
    viewer.currentScaleValue = "page-width";
    viewer.currentPageNumber = Math.min(targetPage, viewer.pagesCount);
    find();
  });
  eventBus.on("pagechanging", ({ pageNumber: number }) => {
    pageNumber.textContent = number;
    body.dataset.currentPage = number;
  });
  eventBus.on("updatefindcontrolstate", ({ state }) => {
    // FindState: 0 found, 1 not found, 2 wrapped, 3 pending
    if (state === 3) return;
    body.dataset.quoteFound = state === 1 ? "false" : "true";
    findStatus.textContent = state === 1 ? strings.notFound : strings.found;
  });

  const pdf = await pdfjsLib.getDocument({ url: body.dataset.pdfUrl, standardFontDataUrl: body.dataset.fontsUrl }).promise;
  viewer.setDocument(pdf);
  linkService.setDocument(pdf, null);
  document.getElementById("page-count").textContent = pdf.numPages;
  pageNumber.textContent = targetPage;
  body.dataset.currentPage = Math.min(targetPage, pdf.numPages);
  body.dataset.state = "ready";

  document.getElementById("prev-page").addEventListener("click", () => viewer.previousPage());
  document.getElementById("next-page").addEventListener("click", () => viewer.nextPage());
  if (quote) {
    const button = document.getElementById("find-quote");
    button.hidden = false;
    button.addEventListener("click", () => { viewer.currentPageNumber = targetPage; find(); });
  }
  layout();
}

if (quote) {
  const quoteBox = document.getElementById("quote");
  quoteBox.textContent = `« ${quote} »`;
  quoteBox.hidden = false;
}
layout();
open().catch((error) => {
  console.error("pdf.js failed", error);
  body.dataset.state = "error";
  document.getElementById("viewer-error").hidden = false;
});
