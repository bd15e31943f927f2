"""Runs the ingestion of one booklet: the stages in order, their progress as events, and
any failure turned into a job state with a message a person can act on.

Only the job's own rows and files are touched: a broken PDF fails its job, nothing else.
A quota error from an LLM stage pauses the job (ingest.quota_pause), it never fails it.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy, gettext_noop
from pdfminer.pdfparser import PDFSyntaxError
from pdfminer.psparser import PSException

from games.models import Chunk
from games.terms import learn_booklet_terms
from rag import language
from rag.busy import AskingSignal, ThreadPlan
from rag.llm.base import ClaudeQuotaError
from rag.sparse import SparseVector

from . import booklet_swap, cancellation, language_choice
from .models import IngestJob
from .pdf_guard import HostilePdf, check_pdf, limits_from_settings
from .progress import ACTS, Listener, Reporter, Text, message_data, never_stops
from .quota_pause import pause_for_quota
from .recovery import job_heartbeat
from .stages import chunk, conflicts, context, embed, furniture, hierarchy, index, lost_glyphs, ocr, read, read_child, rules
from .stages.cache import JsonCache
from .stages.embed_cache import EmbeddingCache, cache_path

log = logging.getLogger(__name__)


class IngestFailure(Exception):
    """A failure whose message tells the admin what to do."""


def run_job(job_id: str, listener: Listener | None = None) -> IngestJob:
    """Run a queued job to its end (done, error, or scheduled after a quota pause)."""
    job = IngestJob.objects.select_related("game", "extension").get(pk=job_id)
    started = job.transition(
        IngestJob.Status.RUNNING,
        allowed_from=(IngestJob.Status.QUEUED,),
        started_at=timezone.now(),
        error="",
        attempts=job.attempts + 1,
    )
    if not started:
        log.info("ingest %s is %s: not started", job.pk, job.status)
        return job
    reporter = Reporter(job, listener)
    reporter.checkpoint = cancellation.Checkpoint(job, job.pdf_pages or job.booklet.owner.pdf_pages or 0)
    pipeline = None
    try:
        with job_heartbeat(job.pk):  # a killed worker's job is requeued (ingest.recovery)
            pipeline = Pipeline(job, reporter)
            stats = pipeline.run()
    except cancellation.JobCancelled:
        stopped(job, reporter, pipeline)
        cancellation.acknowledge(job, reporter)
    except cancellation.JobOverBudget as err:
        stopped(job, reporter, pipeline)
        fail(job, reporter, IngestFailure(*err.args))
    except ClaudeQuotaError as err:
        rest(job, reporter, pipeline, err)
    except Exception as err:  # noqa: BLE001 - every failure becomes the job's state
        stopped(job, reporter, pipeline)
        fail(job, reporter, err)
    else:
        finish(job, reporter, stats)
    return job


def stopped(job: IngestJob, reporter: Reporter, pipeline: Pipeline | None, tell: bool = True) -> None:
    """A job that will not finish now: what it staged goes; a replacement says the booklet
    kept what it had (before the final event, so the job page shows it)."""
    swapped = pipeline is not None and pipeline.swapped
    try:
        booklet_swap.discard(job)
    except Exception:  # noqa: BLE001 - the job's own failure is the one to report
        log.exception("ingest %s: its staged files could not all be removed", job.pk)
    if tell and pipeline is not None and pipeline.replacement is not None and not swapped:
        reporter.warning(Text(gettext_noop(
            "Le livret garde son PDF, ses règles, ses images de pages et sa langue d'avant : le nouveau PDF n'a pas été adopté.")))


def rest(job: IngestJob, reporter: Reporter, pipeline: Pipeline | None, err: ClaudeQuotaError) -> None:
    """The LLM quota is spent: the job pauses until its reset — unless a cancel was asked and the
    quota came before the next checkpoint saw it. That job ends « annulée » now: resting, it
    resumed after the reset and ran on (the cancel's cache flag lasts 24 h, a quota up to a week)."""
    asked = IngestJob.objects.filter(pk=job.pk, cancel_requested=True).exists()
    stopped(job, reporter, pipeline, tell=asked)
    if asked or pause_for_quota(job, err) is None:  # pause_for_quota refuses if a cancel came meanwhile
        cancellation.acknowledge(job, reporter)


def finish(job: IngestJob, reporter: Reporter, stats: dict) -> None:
    with transaction.atomic():  # a reader sees the status and its final event together (events.event_stream)
        job.transition(IngestJob.Status.DONE, allowed_from=(IngestJob.Status.RUNNING,), finished_at=timezone.now(), stats=stats)
        reporter.emit("done", {"chunks": stats["chunks"], "pages": stats["pages"], "ocr": stats["ocr"]["pages_ocr"], "stats": stats})


def fail(job: IngestJob, reporter: Reporter, err: Exception) -> None:
    if isinstance(err, IngestFailure):
        message = err.args[0] if err.args and isinstance(err.args[0], Text) else str(err)
        log.warning("ingest %s failed: %s", job.pk, message)
    else:
        log.exception("ingest %s failed during %s", job.pk, reporter.act or "start")
        message = Text(gettext_noop("L'étape « %(act)s » a échoué : %(error)s. Corrigez la cause puis relancez l'ingestion."), {
            "act": ACTS.get(reporter.act, reporter.act) if reporter.act else gettext_lazy("démarrage"),
            "error": str(err) or err.__class__.__name__,
        })
    with transaction.atomic():
        job.transition(IngestJob.Status.ERROR, allowed_from=(IngestJob.Status.RUNNING,), finished_at=timezone.now(), error=str(message))
        reporter.emit("error", message_data(message))


LANGUAGE_SAMPLE_CHUNKS = 40  # enough text to tell French from English


class Pipeline:
    """The stages of one job, each a small method; heavy lifting lives in `stages/`."""

    def __init__(self, job: IngestJob, reporter: Reporter):
        from runtime import components

        self.job = job
        self.reporter = reporter
        self.booklet = job.booklet
        self.llm = components.llm_backend()
        self.components = components
        self.stats: dict = {"embedder": "", "timings": reporter.timings}
        self.ocr_words: dict[int, ocr.OcrPage] = {}  # the pages whose text came from OCR
        # A new PDF for a booklet that has one: adopted with the chunks, not before (ingest.booklet_swap).
        self.replacement = booklet_swap.Replacement(job) if booklet_swap.is_replacement(job, self.booklet) else None
        self.swapped = False

    def run(self) -> dict:
        pdf = self.pdf_path()
        pages = self.read(pdf)
        self.stats["pages"] = len(pages)
        self.ocr(pdf, pages)
        drafts = self.chunk(pages)
        self.structure(pages, drafts)
        self.contextualise(drafts)
        dense, sparse = self.embed(drafts)
        self.archive(drafts, dense, sparse)
        self.stats.update(pages=len(pages), chunks=len(drafts))
        return self.stats

    def pdf_path(self) -> Path:
        path = Path(settings.MEDIA_ROOT) / self.job.pdf_path
        if not self.job.pdf_path or not path.is_file():
            raise IngestFailure(Text(gettext_noop("Le PDF de cette ingestion est introuvable (%(path)s). Téléversez à nouveau le livret."), {"path": self.job.pdf_path}))
        return path

    def read(self, pdf: Path) -> list[read.Page]:
        total = self.job.pdf_pages or self.booklet.owner.pdf_pages or 0
        pages = []
        with self.reporter.act_scope("read", total):
            try:
                check_pdf(pdf, limits_from_settings())
            except HostilePdf as exc:
                raise IngestFailure(Text(gettext_noop("Ce PDF ne peut pas être lu sans risque : %(error)s. Corrigez ou exportez-le à nouveau, puis relancez."), {"error": exc})) from exc
            try:
                for page in read_child.read_pages(pdf, settings.INGEST_READ_MEMORY_MB, table_rows=settings.INGEST_TABLE_ROWS):  # capped child
                    pages.append(page)
                    self.reporter.progress(len(pages), max(total, len(pages)))
            except (PDFSyntaxError, PSException, read_child.ReadFailed) as exc:
                raise IngestFailure(
                    Text(gettext_noop("Le PDF est illisible (fichier abîmé ?) : %(error)s. Exportez-le à nouveau puis relancez."), {"error": exc})
                ) from exc
        if not pages:
            raise IngestFailure(Text(gettext_noop("Ce PDF ne contient aucune page.")))
        return pages

    def ocr(self, pdf: Path, pages: list[read.Page]) -> None:
        config = ocr_settings()
        decision = ocr.decide_ocr(pages, config)
        self.stats["ocr"] = {"outcome": decision.outcome, "average_chars": round(decision.average_chars, 1), "pages_ocr": 0, "from_cache": 0}
        if not decision.should_ocr:
            return
        with self.reporter.act_scope("ocr", len(decision.pages)):
            result = ocr.run_ocr(
                pdf,
                decision.pages,
                slug=self.booklet.slug,
                images_dir=booklet_swap.staging_images_dir(self.job) if self.replacement else self.booklet.images_dir,
                cache_dir=Path(settings.INGEST_CACHE_DIR),
                config=config,
                on_page=self.reporter.progress,
            )
        replaced = ocr.apply_ocr(pages, result)
        self.ocr_words = ocr.words_of_replaced_pages(pages, result)
        self.stats["ocr"].update(pages_ocr=len(decision.pages), pages_replaced=replaced, from_cache=result.from_cache)
        for number, confidence in result.low_confidence:
            self.reporter.warning(
                Text(gettext_noop("Page %(page)d : la reconnaissance optique est peu fiable (confiance %(conf).0f < %(min).0f). Vérifiez la qualité du scan."), {"page": number, "conf": confidence, "min": config.min_confidence})
            )

    def chunk(self, pages: list[read.Page]) -> list[chunk.ChunkDraft]:
        with self.reporter.act_scope("chunk", len(pages)):
            # before anything reads the text: a lost ligature is a NUL, which PostgreSQL refuses
            words = lambda: hierarchy.word_lists() | hierarchy.booklet_words(pages)  # noqa: E731
            self.stats["lost_glyphs_repaired"] = lost_glyphs.repair_pages(pages, words)
            self.stats["page_numbers_dropped"] = read.drop_page_numbers(pages)
            if settings.INGEST_DROP_RUNNING_LINES:  # off by default: docs/ingestion.md
                self.stats["running_lines_dropped"] = furniture.drop_running_lines(pages)
            self.stats["headings"] = hierarchy.mark_headings(pages)
            numbered = rules.is_rules_document(pages)
            drafts = rules.chunk_rules(pages) if numbered else chunk.chunk_pages(pages)
            self.stats["chunker"] = "rules" if numbered else "paragraphs"
            furniture.attach(pages, drafts)
            self.reporter.progress(len(pages), len(pages))
        if not drafts:
            raise IngestFailure(
                Text(gettext_noop("Aucun texte n'a pu être lu dans ce PDF, même par reconnaissance optique. Vérifiez que c'est bien un livret de règles lisible."))
            )
        self.check_language(drafts)
        return drafts

    def check_language(self, drafts) -> None:
        """Questions in the other language search this booklet with translated words only if
        its language is right: set it from the text when the admin left it to detection, say
        so when the text disagrees with the admin's choice (ingest.language_choice)."""
        text = " ".join(d.text for d in drafts[:LANGUAGE_SAMPLE_CHUNKS])
        writer = self.replacement.set_language if self.replacement else language_choice.set_owner_language
        settled = language_choice.settle(self.job, self.booklet, text, write=writer)
        self.stats["language"] = settled.detected or ""
        self.reporter.emit("language", settled.as_event())
        if settled.applied:
            self.booklet = self.current_booklet()
        if settled.mismatch:
            self.reporter.warning(
                Text(gettext_noop("Ce livret semble rédigé en %(detected)s alors que sa langue déclarée est « %(declared)s ». "
                                  "Corrigez la langue (bouton « Corriger la langue » de la page de l'ingestion) : les questions posées dans l'autre langue le trouveront mieux."),
                     {"detected": language_choice.NAMES.get(language.normalise(settled.detected) or "", settled.detected or "?"),
                      "declared": settled.declared})
            )

    def structure(self, pages, drafts) -> None:
        with self.reporter.act_scope("hierarchy", len(drafts)):
            if self.llm.available:
                cache = JsonCache(Path(settings.INGEST_CACHE_DIR) / f"{hierarchy.CACHE_VERSION}-{self.booklet.slug}.json")
                self.stats["headings_llm"] = hierarchy.refine_with_llm(pages, self.llm, cache=cache)
            hierarchy.assign_paths(pages, drafts)
            self.reporter.progress(len(drafts), len(drafts))

    def contextualise(self, drafts) -> None:
        with self.reporter.act_scope("context", len(drafts)):
            self.stats["llm_contexts"] = context.contextualise(
                drafts,
                game=self.booklet.game.name,
                booklet=self.booklet.name,
                slug=self.booklet.slug,
                llm=self.llm,
                cache_dir=Path(settings.INGEST_CACHE_DIR),
                concurrency=settings.INGEST_LLM_CONCURRENCY,
                on_progress=self.reporter.progress,
                whole_document_max_chars=settings.CONTEXT_WHOLE_DOCUMENT_MAX_CHARS,
            )

    def embed(self, drafts):
        embedder = self.components.embedder()
        self.stats["embedder"] = embedder.name
        cache = EmbeddingCache(cache_path(Path(settings.INGEST_CACHE_DIR), self.booklet.slug, embedder.name))
        plan = ThreadPlan(AskingSignal(settings.ASKING_SIGNAL_FILE, settings.ASKING_SIGNAL_TTL_S), settings.INGEST_EMBED_THREADS)
        stats = embed.EmbedStats()
        with self.reporter.act_scope("embed", len(drafts)):
            result = embed.embed_drafts(drafts, embedder, batch_size=settings.INGEST_EMBED_BATCH,
                                        on_progress=self.reporter.progress, cache=cache, plan=plan, stats=stats)
        self.stats["embedding"] = stats.as_dict()
        return result

    def archive(self, drafts, dense, sparse) -> None:
        with self.reporter.act_scope("index", len(drafts)):
            self.booklet = self.current_booklet()  # « Corriger la langue » may have been clicked meanwhile
            notes = self.detect_conflicts(drafts, dense, sparse)
            # Conflict detection has no checkpoint inside (its LLM calls may take minutes): a
            # cancel or an overrun meanwhile stops the job here, before its rules replace the
            # booklet's (its answers are cached for « Relancer »).
            self.reporter.checkpoint(force=True)
            rows = index.build_rows(self.job, self.booklet, drafts, dense, sparse, notes, self.stats["embedder"])
            self.stats["replaced_chunks"] = index.replace_booklet_rows(self.job, self.booklet, rows, also=self.adopt)
            # Swapped: a cancel now would leave a done job marked cancelled; the job finishes.
            self.swapped, self.reporter.checkpoint = True, never_stops
            if self.replacement:
                booklet_swap.move_images(self.job, self.booklet)
                self.stats["replaced_pdf"] = True
            self.stats["booklet_terms"] = learn_booklet_terms(self.booklet.game)
            if self.components.store_is_shared():  # a local folder belongs to the web process
                index.sync_now(self.booklet.collection)
            self.reporter.progress(len(drafts), len(drafts))

    def adopt(self) -> None:
        """In the transaction that swaps the chunks: the OCR word boxes, and for a
        replacement the new PDF, its page count and language."""
        self.stats["ocr_word_pages"] = index.replace_ocr_words(self.booklet, self.ocr_words)
        booklet_swap.adopt(self.job, self.booklet, self.replacement, self.stats.get("pages") or 0)

    def current_booklet(self):
        """The booklet as stored, with the language a replacement read (applied on adoption)."""
        booklet = language_choice.fresh_booklet(self.job)
        if self.replacement and self.replacement.language:
            booklet = dataclasses.replace(booklet, language=self.replacement.language)
        return booklet

    def detect_conflicts(self, drafts, dense, sparse) -> list:
        """Each draft's `ChunkConflict`, or None."""
        if not self.booklet.is_extension:
            return [None for _ in drafts]
        base = base_chunks(self.booklet.game, dense.shape[1])
        if not base:
            self.reporter.warning(Text(gettext_noop("Le livret de base n'est pas encore indexé : pas de détection de conflits.")))
            return [None for _ in drafts]
        texts = [d.text for d in drafts]
        found = conflicts.find_candidates(
            texts, dense, sparse, base, settings.CONFLICT_SIMILARITY_THRESHOLD, headings=[d.hierarchy_path for d in drafts]
        )
        classes = conflicts.classify(
            texts,
            found,
            {b.id: b.text for b in base},
            llm=self.llm,
            slug=self.booklet.slug,
            cache_dir=Path(settings.INGEST_CACHE_DIR),
            concurrency=settings.INGEST_LLM_CONCURRENCY,
            model=settings.CONFLICT_MODEL,
        )
        self.stats["conflict_candidates"] = sum(1 for f in found if f)
        return [conflicts.annotations(f, c) for f, c in zip(found, classes)]


def ocr_settings() -> ocr.OcrSettings:
    return ocr.OcrSettings(
        enabled=settings.OCR_ENABLED,
        auto_threshold=settings.OCR_AUTO_THRESHOLD,
        page_min_chars=settings.OCR_PAGE_MIN_CHARS,
        concurrency=settings.OCR_CONCURRENCY,
        languages=settings.OCR_LANGUAGES,
        min_confidence=settings.OCR_MIN_CONFIDENCE,
        dpi=settings.OCR_DPI,
    )


def base_chunks(game, dim: int) -> list[conflicts.BaseChunk]:
    """The base booklet's rows with vectors of the current embedder's size."""
    rows = Chunk.objects.of_booklet(game.base_booklet).filter(dense__isnull=False)
    base = []
    for row in rows.only("id", "text", "page_start", "dense", "sparse", "hierarchy_path"):
        vector = row.dense_vector
        if len(vector) == dim:
            base.append(conflicts.BaseChunk(
                str(row.pk), row.text, row.page_start, vector, SparseVector.from_dict(row.sparse), row.hierarchy_path
            ))
    return base
