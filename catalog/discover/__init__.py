"""Discovery: papers like this one, recommendations from tags, topics of a list.

    from catalog.discover import Discovery
    engine = Discovery(store)            # store: anything implementing DiscoverStore
    engine.similar(paper_id)             # [SimilarPaper(paper_id, score, why), ...]
    engine.recommend_tag("thesis", candidate_ids)
    engine.topics(paper_ids)             # [Topic(number, label, terms, paper_ids), ...]

Importing this package (and a `similar` on a fresh cache) loads neither numpy nor
scikit-learn; building, updating, recommending and topics do, when called.
"""

from catalog.discover.engine import Discovery
from catalog.discover.protocol import DiscoverStore
from catalog.discover.results import (
    CacheStatus, CatalogVersion, PaperText, Recommendation, SimilarPaper, Topic, TopicRecord,
    topic_records,
)

__all__ = [
    "CacheStatus", "CatalogVersion", "DiscoverStore", "Discovery", "PaperText", "Recommendation",
    "SimilarPaper", "Topic", "TopicRecord", "topic_records",
]
