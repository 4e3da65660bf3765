"""The TUI on hostile input: queries typed half-way are a normal state, not a failure."""

from __future__ import annotations

SIZE = (120, 36)


async def test_a_filter_typed_half_way_gets_an_explanation_not_a_failure(app, settle, type_search):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        hint = app.query_one("#search-hint")
        for typed in ('year:"', 'attention year:"', 'rating:""', "journal:kim"):
            await type_search(pilot, typed)
            text = str(hint.content)
            assert hint.has_class("-error"), typed
            assert "search failed" not in text and "NoneType" not in text, (typed, text)
            assert ("expected a" in text or "unknown filter" in text), (typed, text)
        await type_search(pilot, "year:2026")
        assert not hint.has_class("-error")


async def test_waiting_for_the_app_outlasts_a_worker_a_newer_one_replaced(app, settle):
    """The tests' wait for idle (conftest's settle) must not fail when a worker it waits on is
    cancelled by a newer one of its group (a search typed over): it failed the suite at random
    on a busy machine."""
    import asyncio
    import threading

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        release = threading.Event()
        app.run_worker(lambda: release.wait(5), thread=True, exclusive=True, group="typed-over")
        waiting = asyncio.create_task(settle(pilot))
        await asyncio.sleep(0.05)
        app.run_worker(lambda: None, thread=True, exclusive=True, group="typed-over")
        release.set()
        await asyncio.wait_for(waiting, 10)
        # The group's workers, not every worker: the screen's timer starts a look for changes
        # made elsewhere every POLL seconds, which may run just as the wait ends.
        assert not [w for w in app.workers if w.is_running and w.group == "typed-over"]
