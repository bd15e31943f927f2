"""`manage.py prerender_pages <booklet slug>`: render every page image of a booklet now, for
deployments that would rather not render a page on the first question that needs it."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from games.page_sources import booklet_by_slug, pdf_of
from rag import page_render


class Command(BaseCommand):
    help = "Render the page images of a booklet (a game's slug for its base booklet, or an extension's slug)."

    def add_arguments(self, parser):
        parser.add_argument("booklet", help="slug of the game (base booklet) or of the extension / FAQ")
        parser.add_argument("--dpi", type=int, default=None, help="default: PAGE_IMAGES_DPI")
        parser.add_argument("--threads", type=int, default=None, help="pdftoppm processes at once (default: PAGE_IMAGES_THREADS)")

    def handle(self, *args, booklet, dpi=None, threads=None, **options):
        found = booklet_by_slug(booklet)
        if found is None:
            raise CommandError(f"no game or extension with the slug {booklet!r}")
        pdf = pdf_of(found)
        if pdf is None:
            raise CommandError(f"{found.name!r} has no stored PDF: upload it first")

        def progress(done: int, total: int) -> None:
            self.stdout.write(f"\r{done}/{total} pages", ending="")

        try:
            rendered = page_render.render_all(
                pdf, found.images_dir, dpi=dpi or settings.PAGE_IMAGES_DPI,
                threads=threads or settings.PAGE_IMAGES_THREADS, on_page=progress,
            )
        except page_render.PageRenderError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"\n{found.name}: {rendered} page images rendered in {found.images_dir}")
