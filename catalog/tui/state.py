"""What the TUI remembers between runs: the last query, the paper under the cursor, whether
the sidebar was shown, the theme, the sort order, the search history, the places ctrl+o and
ctrl+i go back and forward to, and where each triage
stopped (one person's place in a list, like the cursor; the decisions themselves are in the
catalog), and the marked papers. One small JSON file in the user's state directory (platformdirs),
replaced atomically on exit (and
on leaving triage). A missing, unreadable or corrupt file is an empty session: remembering is
a convenience and never stops the app.

The query, the paper, the sort, the triage places, the marks and the places behind and ahead
are each catalog's own, kept under the
catalog's location (its file's absolute path, or the server's URL without a password): a
second catalog (a lab's server beside your own file) started with the first one's query and
cursor. The theme, the sidebar and the search history are the person's, for every catalog.

    $CATALOG_STATE_DIR overrides the directory (tests, several profiles).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

ENV_VAR = "CATALOG_STATE_DIR"
FILE = "tui-state.json"
HISTORY = 200  # queries kept
TRIAGES = 50  # triage places kept (the most recently used)
PASSED = 2000  # papers put off for later (n) remembered per triage
VERSION = 1
CATALOGS = 30  # catalogs whose places are kept (the most recently used)
PER_CATALOG = ("query", "key", "sort", "triage", "marks", "back", "forward")
MARKS = 100_000  # marked papers remembered (the newest): all of a real library (16k came back as 5,000)
PLACES = 100  # places ctrl+o can go back through (and ctrl+i forward)


def remember(history: list[str], query: str) -> None:
    """Add a query to a history (moved to the end if it was there), keeping the last HISTORY."""
    query = " ".join(query.split())
    if not query:
        return
    if query in history:
        history.remove(query)
    history.append(query)
    del history[:-HISTORY]


@dataclass
class Place:
    """Where the user was (catalog/tui/jumps.py): a query, its order, the paper under the cursor."""

    query: str = ""
    sort: str = ""
    key: str | None = None

    @classmethod
    def from_json(cls, data: object) -> "Place | None":
        if not isinstance(data, dict) or not isinstance(data.get("query"), str):
            return None
        sort, key = data.get("sort"), data.get("key")
        return cls(data["query"], sort if isinstance(sort, str) else "", key if isinstance(key, str) else None)


def _places(data: object) -> list[Place]:
    places = [Place.from_json(d) for d in data] if isinstance(data, list) else []
    return [p for p in places if p is not None][-PLACES:]


@dataclass
class State:
    query: str = ""
    key: str | None = None  # the paper under the cursor
    sidebar: bool | None = None  # None: as the terminal's width decides
    theme: str | None = None
    sort: str = ""  # catalog.searching.query.Sort as text ("year", "-title"); "" is relevance
    history: list[str] = field(default_factory=list)  # oldest first, no repeats
    # Where each triage stopped, by its query (spaces normalised): the paper it showed and
    # the papers passed over without a decision (they come again after the others).
    triage: dict[str, dict] = field(default_factory=dict)
    marks: list[str] = field(default_factory=list)  # keys of the marked papers
    back: list[Place] = field(default_factory=list)  # the places ctrl+o goes back to, newest last
    forward: list[Place] = field(default_factory=list)  # those ctrl+i goes forward to, next last

    def remember(self, query: str) -> None:
        remember(self.history, query)

    def triage_place(self, query: str) -> tuple[str | None, list[str]]:
        place = self.triage.get(_normal(query), {})
        return place.get("key"), list(place.get("passed", []))

    def remember_triage(self, query: str, key: str | None, passed: list[str]) -> None:
        name = _normal(query)
        self.triage.pop(name, None)
        self.triage[name] = {"key": key, "passed": list(passed)[-PASSED:]}
        for old in list(self.triage)[:-TRIAGES]:
            del self.triage[old]

    @classmethod
    def from_json(cls, data: object) -> "State":
        """The fields that are present and of the right type; anything else is ignored."""
        if not isinstance(data, dict) or data.get("version") != VERSION:
            return cls()

        def get(name: str, kinds: tuple[type, ...], default):
            value = data.get(name, default)
            return value if isinstance(value, kinds) else default

        history = [q for q in get("history", (list,), []) if isinstance(q, str) and q.strip()]
        return cls(query=get("query", (str,), ""), key=get("key", (str, type(None)), None),
                   sidebar=get("sidebar", (bool, type(None)), None),
                   theme=get("theme", (str, type(None)), None), sort=get("sort", (str,), ""),
                   history=history[-HISTORY:],
                   triage=_triage_places(get("triage", (dict,), {})),
                   marks=[k for k in get("marks", (list,), []) if isinstance(k, str)][-MARKS:],
                   back=_places(data.get("back")), forward=_places(data.get("forward")))


def _normal(query: str) -> str:
    return " ".join(query.split())


def _triage_places(data: dict) -> dict[str, dict]:
    places = {}
    for query, place in list(data.items())[-TRIAGES:]:
        if not isinstance(query, str) or not isinstance(place, dict):
            continue
        key = place.get("key")
        passed = place.get("passed")
        places[query] = {"key": key if isinstance(key, str) else None,
                         "passed": [k for k in passed if isinstance(k, str)][-PASSED:]
                         if isinstance(passed, list) else []}
    return places


def catalog_identity(location: str) -> str:
    """A catalog's name in the session file: a file's absolute path, or a server's URL as
    shown (without its password)."""
    from catalog.paths import is_server_url, shown

    return shown(location) if is_server_url(location) else str(Path(location).resolve())


class StateStore:
    """Reads and writes one session file; `catalog` (catalog_identity) names the catalog whose
    places are read and written, beside the person's own settings."""

    def __init__(self, path: Path, catalog: str = "") -> None:
        self.path, self.catalog = path, catalog

    def for_catalog(self, catalog: str) -> "StateStore":
        return StateStore(self.path, catalog)

    @classmethod
    def default(cls) -> "StateStore":
        directory = os.environ.get(ENV_VAR)
        if directory:
            return cls(Path(directory).expanduser() / FILE)
        from platformdirs import user_state_path

        return cls(user_state_path("catalog", appauthor=False) / FILE)

    def _read(self) -> dict:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) and data.get("version") == VERSION else {}

    def load(self) -> State:
        data = self._read()
        catalogs = data.get("catalogs")
        mine = catalogs.get(self.catalog) if isinstance(catalogs, dict) else None
        # A file from before places were kept per catalog: its query and triage places are
        # some catalog's, which one unknown; only the person's own settings are read.
        own = {k: v for k, v in data.items() if k not in PER_CATALOG and k != "catalogs"}
        return State.from_json({**own, **(mine if isinstance(mine, dict) else {}), "version": VERSION})

    def _merged(self, state: State) -> dict:
        """The file's new contents: the person's settings from `state`, this catalog's places
        from `state` (the most recent last), the other catalogs' as they were."""
        fields = asdict(state)
        catalogs = self._read().get("catalogs")
        catalogs = dict(catalogs) if isinstance(catalogs, dict) else {}
        catalogs.pop(self.catalog, None)
        catalogs[self.catalog] = {k: fields.pop(k) for k in PER_CATALOG}
        for old in list(catalogs)[:-CATALOGS]:
            del catalogs[old]
        return {"version": VERSION, **fields, "catalogs": catalogs}

    def save(self, state: State) -> bool:
        """Write atomically (a temporary file beside it, then a rename); False if it failed."""
        temp = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp",
                                        dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(self._merged(state), out, ensure_ascii=False, indent=1)
            os.replace(temp, self.path)
            return True
        except OSError:
            if temp is not None:
                try:
                    os.unlink(temp)
                except OSError:
                    pass
            return False
