"""Connectors to the public meta sources the reference reads (MTGTop8, 17Lands): polite
HTTP clients that turn pages and exports into plain records. Plain Python, no Django:
`games.meta_sync` stores what they return as `meta_<slug>` documents."""

from .http import MetaSourceError, NoData, PoliteClient, SiteChanged

__all__ = ["MetaSourceError", "NoData", "PoliteClient", "SiteChanged"]
