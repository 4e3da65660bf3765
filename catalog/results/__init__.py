"""Plain dataclasses the library hands to the CLI and the TUI (never ORM objects), one module
per area: papers.py (a paper, its details and state), searching.py (pages, counts, facets,
suggestions, triage), edits.py (changes users make, undone by Edits), exchange.py (imports,
exports, the annotations file), discovery.py, web.py. Import them from here."""

from catalog.results.papers import (
    Attached, AttachmentView, FileFound, FileRenamed, NoteView, Notice, PageSnippet, PaperDetail, PaperFile,
    PaperState, PaperSummary, RecordFields, SourceRef, SplitResult, TextRead, GRAVE_FLAGS, NOTICE_FLAGS,
    gravest, paper_link,
)
from catalog.results.searching import (
    AddedAcronym, AuthorCount, Facets, FirstPage, MissingWords, RatingCount, SavedQuery, SearchHit,
    Stats, StatusCount, Suggestion, TagCount, TriageCount, TriageOrder, VenueCount,
)
from catalog.results.edits import (
    Change, Edit, FieldChanged, Members, NoteChanged, PaperDeleted, PaperEdited, SavedSearchChanged,
    TagsChanged,
)
from catalog.results.exchange import (
    AnnotationsReport, CiteKeyChange, ExportPaper, ExportReport, FileReport, ImportReport,
)
from catalog.results.discovery import RelatedPaper, StoredTopics, TopicCount, TopicGroup
from catalog.results.web import Added, Enriched, Linked, LinkedPaper, PdfFetched
