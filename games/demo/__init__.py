"""The demo game shipped with Oracle: generated PDFs, their manifest and the loader."""
