"""Where the services live and how catalog introduces itself to them.

Every setting is an environment variable, documented in docs/web.md:

  CATALOG_CONTACT    an e-mail address sent in the User-Agent (and as Crossref's `mailto`, which
                     puts requests in its "polite pool"); services ask for one
  CATALOG_WEB_BASE   one base URL for every service (`http://127.0.0.1:8000`): each service is
                     then asked at BASE/<service>/... (BASE/arxiv/api/query, BASE/crossref/works/DOI);
                     the tests point it at a local server replaying recorded responses.
                     Rate limits are the real services' and are not applied to it.
  CATALOG_WEB_CACHE  the folder of cached responses (default: the user cache directory)
  CATALOG_WEB_TIMEOUT  seconds to wait for a service (default 20)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

CONTACT_VAR = "CATALOG_CONTACT"
BASE_VAR = "CATALOG_WEB_BASE"
CACHE_VAR = "CATALOG_WEB_CACHE"
TIMEOUT_VAR = "CATALOG_WEB_TIMEOUT"


@dataclass(frozen=True)
class Service:
    name: str
    base: str  # no trailing slash
    interval: float  # seconds between two requests, as the service documents


# arXiv's API terms ask for one request every three seconds; Crossref's public pool allows
# several a second (its x-rate-limit headers say 5/s); DataCite and OpenReview document no
# figure for anonymous reads, so one a second keeps us well inside what they serve.
SERVICES = {
    "arxiv": Service("arxiv", "https://export.arxiv.org", 3.0),
    "crossref": Service("crossref", "https://api.crossref.org", 0.25),
    "datacite": Service("datacite", "https://api.datacite.org", 1.0),
    "openreview": Service("openreview", "https://api2.openreview.net", 1.0),
    # Semantic Scholar shares 1,000 requests a second among all anonymous callers and asks
    # them to keep to about one a second.
    "semanticscholar": Service("semanticscholar", "https://api.semanticscholar.org", 1.0),
}


@dataclass(frozen=True)
class Settings:
    contact: str | None
    base: str | None  # $CATALOG_WEB_BASE
    cache: Path
    timeout: float

    def service(self, name: str) -> Service:
        real = SERVICES[name]
        if self.base:
            return Service(name, f"{self.base.rstrip('/')}/{name}", 0.0)
        return real

    @property
    def user_agent(self) -> str:
        from importlib.metadata import PackageNotFoundError, version

        try:
            mine = version("catalog")
        except PackageNotFoundError:
            mine = "dev"
        contact = f"; mailto:{self.contact}" if self.contact else ""
        return f"catalog/{mine} (a research-paper catalog for the terminal{contact})"


def from_environment() -> Settings:
    from catalog.errors import CatalogError

    cache = os.environ.get(CACHE_VAR)
    if cache:
        folder = Path(cache).expanduser()
    else:
        from platformdirs import user_cache_path

        folder = user_cache_path("catalog", appauthor=False) / "web"
    raw = os.environ.get(TIMEOUT_VAR) or "20"
    try:
        timeout = float(raw)
    except ValueError:
        raise CatalogError(f"${TIMEOUT_VAR} is {raw!r}; give a number of seconds") from None
    if not 0 < timeout <= 600:
        raise CatalogError(f"${TIMEOUT_VAR} is {raw}; give between 0 and 600 seconds")
    base = os.environ.get(BASE_VAR) or None
    if base and not base.startswith(("http://", "https://")):
        raise CatalogError(f"${BASE_VAR} is {base!r}; give an http:// or https:// URL")
    return Settings(os.environ.get(CONTACT_VAR) or None, base, folder, timeout)
