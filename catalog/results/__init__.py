"""Plain dataclasses the library hands to the CLI and the TUI (never ORM objects), one module
per area: papers.py (a paper, its details and state), searching.py (pages, counts, facets,
suggestions, triage), edits.py (changes users make, undone by Edits), exchange.py (imports,
exports, the annotations file), discovery.py, web.py. Import them from here.

An area's module is loaded when one of its names is first asked for (AREAS says where each
is): each dataclass costs about a millisecond to make at import, and a search needs two areas
of six."""

from __future__ import annotations

AREAS = {
    "papers": (
        "Attached", "AttachmentView", "FileFound", "FileRenamed", "NoteView", "Notice", "PageSnippet",
        "PaperDetail", "PaperFile", "PaperState", "PaperSummary", "RecordFields", "SourceRef", "SplitResult",
        "TextRead", "GRAVE_FLAGS", "NOTICE_FLAGS", "gravest", "paper_link",
    ),
    "searching": (
        "AddedAcronym", "AuthorCount", "Facets", "FirstPage", "MissingWords", "RatingCount", "SavedQuery",
        "SearchHit", "Stats", "StatusCount", "Suggestion", "TagCount", "TriageCount", "TriageOrder", "VenueCount",
    ),
    "edits": (
        "Change", "Edit", "FieldChanged", "Members", "NoteChanged", "PaperDeleted", "PaperEdited",
        "SavedSearchChanged", "TagsChanged",
    ),
    "exchange": ("AnnotationsReport", "CiteKeyChange", "ExportPaper", "ExportReport", "FileReport", "ImportReport"),
    "discovery": ("RelatedPaper", "StoredTopics", "TopicCount", "TopicGroup"),
    "web": ("Added", "Enriched", "Linked", "LinkedPaper", "PdfFetched"),
}
_AREA_OF = {name: area for area, names in AREAS.items() for name in names}
__all__ = sorted(_AREA_OF)


def __getattr__(name: str):
    # Each import written out, so that a reader and farm-studio can follow it.
    match _AREA_OF.get(name):
        case "papers":
            from catalog.results import papers as area
        case "searching":
            from catalog.results import searching as area
        case "edits":
            from catalog.results import edits as area
        case "exchange":
            from catalog.results import exchange as area
        case "discovery":
            from catalog.results import discovery as area
        case "web":
            from catalog.results import web as area
        case _:
            raise AttributeError(f"module 'catalog.results' has no attribute {name!r}")
    value = getattr(area, name)
    globals()[name] = value  # asked once
    return value


def __dir__() -> list[str]:
    return __all__
