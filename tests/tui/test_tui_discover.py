"""Discovery in the TUI: `m` lists the papers like the one under the cursor (found in a worker,
saying so meanwhile), the reading pane shows them; the Topics facet groups the catalog in a
worker, and choosing a topic shows and marks its papers for the bulk actions."""

from __future__ import annotations

import threading

from catalog.tui.screens.similar import FINDING, SimilarScreen
from catalog.tui.widgets.sidebar import Sidebar
from tests.tui.conftest import facet_node
from tests.test_discover import sae_keys_in

SIZE = (120, 36)


def sae_keys(catalog) -> set[str]:
    return set(sae_keys_in(catalog.path))


async def test_m_lists_similar_papers_and_enter_goes_to_one(app, seeded, settle, type_search,
                                                            monkeypatch):
    sae = sae_keys(seeded)
    release, finding = threading.Event(), seeded.discovery.similar
    monkeypatch.setattr(seeded.discovery, "similar", lambda key, limit=10: release.wait(20) and finding(key, limit))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "LocA-SAE")
        await pilot.press("escape")  # back to the list
        asked = app.main.papers.current.key
        assert asked in sae
        await pilot.press("m")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SimilarScreen) and screen.key == asked
        # The first `m` builds the cache in a worker: the dialog says so, the UI still answers.
        assert FINDING in str(screen.query_one("#similar-hint").render())
        assert "finding similar papers" in app.main.query_one("#detail").text
        release.set()
        await settle(pilot)
        found = [p.key for p in screen.papers]
        assert len(found) == 20 and asked not in found
        assert sum(k in sae for k in found[:5]) >= 2, found
        assert all(p.why for p in screen.papers[:5])
        await pilot.press("escape")
        assert not isinstance(app.screen, SimilarScreen)
        pane = app.main.query_one("#detail").text
        assert "Papers like this one" in pane and found[0] in pane and "shares:" in pane
        await pilot.press("m")  # again: answered from what was found, at once
        await pilot.pause()
        assert [p.key for p in app.screen.papers] == found
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.main.search_bar.value == f"key:{found[1]}"
        assert app.main.papers.current.key == found[1]


async def test_the_topics_facet_groups_shows_and_marks_a_topic(app, seeded, settle, monkeypatch):
    sae = sae_keys(seeded)
    release, grouping = threading.Event(), seeded.discovery.topics
    monkeypatch.setattr(seeded.discovery, "topics", lambda query="": release.wait(20) and grouping(query))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sidebar = app.query_one(Sidebar)
        find = facet_node(sidebar, "find topics")
        sidebar.focus()
        sidebar.move_cursor(find)
        await pilot.press("enter")
        await pilot.pause()
        assert facet_node(sidebar, "finding topics…") is not None
        await pilot.press("down")  # the UI answers while the topics are being found
        release.set()
        await settle(pilot)
        assert facet_node(sidebar, "find topics") is None
        topics, stale = seeded.discovery.stored_topics()
        assert not stale and 4 <= len(topics) <= 20
        # The topic holding most SAE papers, chosen in the sidebar.
        best = max(topics, key=lambda t: len(sae & {p.key for p in seeded.discovery.topic_papers(t.number)}))
        members = {p.key for p in seeded.discovery.topic_papers(best.number)}
        # Its leaf shows the number `topic:N` takes and keeps the count in view.
        leaf = facet_node(sidebar, f"{best.number}. ")
        assert leaf.label.plain.endswith(f" {best.count}")
        assert leaf.label.cell_len <= sidebar.size.width - 4
        assert leaf.label.plain.startswith(f"{best.number}. {best.label[:5]}")
        sidebar.move_cursor(leaf)
        await pilot.press("enter")
        await settle(pilot)
        assert app.main.search_bar.value == f"topic:{best.number}"
        assert app.main.papers.total == best.count
        assert set(app.main.papers.marked) == members
        app.main.papers.focus()
        await pilot.press("s", "5")  # skipped: the whole topic dismissed at once
        await settle(pilot)
        assert {p.key for p in seeded.search("status:skipped", limit=100)} == members



async def test_topics_say_when_papers_came_since(app, seeded, settle, change_shown, type_search, monkeypatch,
                                                 tmp_path):
    """The stored topics are read with the first counts, not at every key; papers imported
    elsewhere make them stale, and the sidebar offers to group again."""
    from catalog.library import Catalog
    from catalog.tui import watching
    from catalog.tui.watching import ChangeWatch

    monkeypatch.setattr(watching, "POLL", 0.05)
    seeded.discovery.topics()
    other = Catalog.open(seeded.path)  # another shell
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sidebar = app.query_one(Sidebar)
        assert sidebar.topics and facet_node(sidebar, "group again") is None
        read, stored = [], seeded.discovery.stored_topics
        monkeypatch.setattr(seeded.discovery, "stored_topics", lambda: read.append(1) or stored())
        await type_search(pilot, "graph neural")
        assert read == [] and sidebar.facets.query == "graph neural*"  # counts, not topics
        seen = app.main.query_one(ChangeWatch).version
        extra = tmp_path / "more.txt"
        extra.write_text("ICML 2025\n\nA brand new abstract about zebra finches and their song.\n",
                         encoding="utf-8")
        other.import_paths([extra])
        await change_shown(pilot, seen)
        assert facet_node(sidebar, "group again (papers changed)") is not None and read == [1]
    other.close()
