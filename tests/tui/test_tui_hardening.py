"""The TUI on hostile input: queries typed half-way are a normal state, not a failure."""

from __future__ import annotations

SIZE = (120, 36)


async def test_a_filter_typed_half_way_gets_an_explanation_not_a_failure(app, settle, type_search):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        hint = app.query_one("#search-hint")
        for typed in ('year:"', 'attention year:"', 'rating:""', "author:kim"):
            await type_search(pilot, typed)
            text = str(hint.content)
            assert hint.has_class("-error"), typed
            assert "search failed" not in text and "NoneType" not in text, (typed, text)
            assert ("expected a" in text or "unknown filter" in text), (typed, text)
        await type_search(pilot, "year:2026")
        assert not hint.has_class("-error")
