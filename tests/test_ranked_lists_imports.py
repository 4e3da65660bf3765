"""Imports and the ranked lists (catalog/store/lists/): past DIRTY_LIMIT new papers the lists
cannot be rescored, so `catalog import` ranks them before it returns, those typing reads first
(in a catalog past scoring.SHORT_AT_IMPORT papers it leaves the one- and two-letter prefixes
to the background refresher or to `catalog doctor --fix`: `short_left` lowers it below the
test catalog's size); an import cut short goes on where it stopped; a small import keeps the
lists serving (on the shared 10k catalog, tests/ranked_lists_catalog.py; `few_lists`: its copy
with the lists of words in half the papers).
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from benchmarks import corpus
from catalog.cli import main
from catalog.store.lists import scoring, sqlite_build, sqlite_words
from tests.ranked_lists_catalog import (  # noqa: F401 (fixtures)
    SIZE, _ranked, built, catalog, few_built, few_lists, served,
)


def _import_past_the_limit(tmp_path, seed: int = 99):
    big = tmp_path / f"big{seed}.txt"
    big.write_text("ICML 2022 Papers\n\n" + "".join(
        a + "\n\n" for _, _, a in corpus.abstracts(sqlite_words.DIRTY_LIMIT + 100, seed=seed)))
    return big


@pytest.fixture
def short_left(monkeypatch) -> None:
    """The test catalog (about 11k papers) counted as past SHORT_AT_IMPORT: an import leaves the
    one- and two-letter prefixes' lists, as at 1M papers."""
    monkeypatch.setattr(scoring, "SHORT_AT_IMPORT", SIZE // 2)


def test_a_large_import_is_ready_when_it_returns(catalog, few_lists, served, tmp_path, monkeypatch):
    """Past DIRTY_LIMIT new papers the lists cannot be rescored: in a catalog of at most
    SHORT_AT_IMPORT papers `catalog import` ranks every list before it returns, the one- and
    two-letter prefixes' too (`a*`), those searches as you type read first (so a kill keeps
    those), counting them as it goes; nothing is left, so no background refresher is started
    for the lists and the first search of `a*` reads its list. A small import ranks nothing."""
    from catalog.discover import refresher, related

    started = []
    monkeypatch.setenv(refresher.MODE_VARIABLE, "background")
    monkeypatch.setattr(refresher, "start", lambda db, cache_dir: started.append(db))
    monkeypatch.setattr(related, "refresh_after_import", lambda *a, **k: None)  # the discovery side's
    ranked = []
    original = sqlite_build.ListBuilder.rank
    monkeypatch.setattr(sqlite_build.ListBuilder, "rank", lambda self, key, *args, **kwargs: ranked.append(key)
                        or original(self, key, *args, **kwargs))
    progress = []
    small = tmp_path / "small.txt"
    small.write_text("ICML 2021 Papers\n\n" + "".join(a + "\n\n" for _, _, a in corpus.abstracts(30, seed=98)))
    assert catalog.import_paths([small], background=True, ranking=lambda *p: progress.append(p)).new == 30
    assert progress == [] and ranked == []
    report = catalog.import_paths([_import_past_the_limit(tmp_path)], background=True,
                                  ranking=lambda *p: progress.append(p))
    assert report.new == sqlite_words.DIRTY_LIMIT + 100
    with catalog.store.read() as tx:
        kept = tx.lists.maintenance().keys()
        assert '("a"*)' in kept and tx.lists.maintenance().stale(rescored=False) == []
    assert catalog.lists_left() == 0 and started == []
    assert progress[-1][0] == progress[-1][1] == len(kept)  # every list, counted as it went
    typing = [scoring.typed(key) for key in ranked]
    assert False in typing and typing == sorted(typing, reverse=True)  # the short prefixes last
    served.clear()
    for query in ("model", "interpret*", "a*", "in*"):
        assert _ranked(catalog, query, lists=True) == _ranked(catalog, query, lists=False)
    assert served == ['("model")', '("interpret"*)', '("a"*)', '("in"*)']


def test_past_the_size_the_short_prefixes_are_left_to_the_background(catalog, few_lists, short_left, served,
                                                                      tmp_path, monkeypatch):
    """In a catalog past SHORT_AT_IMPORT papers `catalog import` ranks the lists searches as you
    type read before it returns (saying how far it got), so the first search after it reads its
    list; only the one- and two-letter prefixes' are left to the background refresher, started
    for them (until then `a*` ranks every match: the same page)."""
    from catalog.discover import refresher, related

    started = []
    monkeypatch.setenv(refresher.MODE_VARIABLE, "background")
    monkeypatch.setattr(refresher, "start", lambda db, cache_dir: started.append(db))
    monkeypatch.setattr(related, "refresh_after_import", lambda *a, **k: None)  # the discovery side's
    progress = []
    big = _import_past_the_limit(tmp_path)
    report = catalog.import_paths([big], background=True, ranking=lambda *p: progress.append(p))
    assert report.new == sqlite_words.DIRTY_LIMIT + 100
    assert progress[-1][0] == progress[-1][1] > 100  # every list typing reads, counted as it went
    with catalog.store.read() as tx:
        short = tx.lists.maintenance().stale(rescored=False)  # but a span they share with a longer prefix
        assert '("a"*)' in short and not any(scoring.typed(k) for k in short)
    assert catalog.lists_left() == len(short) and started == [catalog.path]
    served.clear()
    for query in ("model", "interpret*", "a*"):
        assert _ranked(catalog, query, lists=True) == _ranked(catalog, query, lists=False)
    assert served == ['("model")', '("interpret"*)']  # `a*` ranked every match
    assert refresher._ranked_lists(catalog.store, tmp_path) == len(short)  # what the refresher runs
    with catalog.store.read() as tx:
        assert tx.lists.maintenance().stale(rescored=False) == [] and catalog.lists_left() == 0
        assert tx.conn.execute("SELECT count(*) FROM term_top_dirty").scalar() == 0
    served.clear()
    assert _ranked(catalog, "a*", lists=True) == _ranked(catalog, "a*", lists=False)
    assert served == ['("a"*)']


def test_the_import_says_it_left_nothing(catalog, few_lists, tmp_path, monkeypatch):
    """Up to SHORT_AT_IMPORT papers `catalog import` says how many lists it ranked, and nothing
    of lists left: there are none."""
    from catalog.discover import refresher

    monkeypatch.setenv(refresher.MODE_VARIABLE, "off")
    result = CliRunner().invoke(main, ["--db", str(catalog.path), "import", str(_import_past_the_limit(tmp_path))])
    assert result.exit_code == 0, result.output
    with catalog.store.read() as tx:
        kept = len(tx.lists.maintenance().keys())
    assert f"ranked the lists of {kept:,} frequent words and prefixes in " in result.stderr
    assert "ranking lists:" not in result.stderr and catalog.lists_left() == 0


def test_the_import_says_which_lists_it_left_and_doctor_ranks_them(catalog, few_lists, short_left, tmp_path,
                                                                   monkeypatch):
    """With no background refresher (CATALOG_DISCOVER_REFRESH=off) `catalog import` into a
    catalog past SHORT_AT_IMPORT papers says how many lists of one- and two-letter prefixes it
    left, why, and who ranks them: `catalog doctor --fix`, which does."""
    from catalog.discover import refresher

    monkeypatch.setenv(refresher.MODE_VARIABLE, "off")
    result = CliRunner().invoke(main, ["--db", str(catalog.path), "import", str(_import_past_the_limit(tmp_path))])
    assert result.exit_code == 0, result.output
    left = catalog.lists_left()
    assert left > 0 and "ranked the lists of" in result.stderr
    assert f"ranking lists: {left:,} left, of prefixes like `a*` or `in*`" in result.stderr
    assert "a large catalog's import leaves them" in result.stderr
    assert "`catalog doctor --fix` ranks them" in result.stderr
    result = CliRunner().invoke(main, ["--db", str(catalog.path), "doctor", "--fix"])
    assert catalog.lists_left() == 0, result.output


def test_an_import_cut_short_while_ranking_goes_on_in_the_background(catalog, few_lists, served, tmp_path,
                                                                      monkeypatch):
    """Ctrl-C while the import ranks its lists: the papers stay imported, what was ranked stays
    ranked, the refresher is started for the rest, and it goes on from there (it ranks only
    what is left)."""
    from catalog.discover import refresher, related

    started = []
    monkeypatch.setenv(refresher.MODE_VARIABLE, "background")
    monkeypatch.setattr(refresher, "start", lambda db, cache_dir: started.append(db) or object())
    monkeypatch.setattr(related, "refresh_after_import", lambda *a, **k: None)

    def interrupted(done, of):
        if done >= 20:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        catalog.import_paths([_import_past_the_limit(tmp_path)], background=True, ranking=interrupted)
    assert started == [catalog.path]
    left = catalog.lists_left()
    with catalog.store.read() as tx:
        total = len(tx.lists.maintenance().keys())
        assert tx.conn.execute("SELECT count(*) FROM paper").scalar() == SIZE + sqlite_words.DIRTY_LIMIT + 100
    assert 0 < left <= total - 20
    started.clear()  # a search says so, and starts the refresher when none is at work
    result = CliRunner().invoke(main, ["--db", str(catalog.path), "search", "model"])
    assert result.exit_code == 0 and f"ranking lists: {left:,} left" in result.stderr
    assert started == [catalog.path]
    served.clear()
    assert _ranked(catalog, "model", lists=True) == _ranked(catalog, "model", lists=False)  # stale: not read
    ranked = []
    original = sqlite_build.ListBuilder.rank
    monkeypatch.setattr(sqlite_build.ListBuilder, "rank", lambda self, key, *args, **kwargs: ranked.append(key)
                        or original(self, key, *args, **kwargs))
    assert refresher._ranked_lists(catalog.store, tmp_path) == left  # what the refresher process runs
    assert len(ranked) <= left and catalog.lists_left() == 0
    served.clear()
    assert _ranked(catalog, "model", lists=True) == _ranked(catalog, "model", lists=False)
    assert served == ['("model")']


def test_the_same_import_again_after_a_kill_finishes_the_lists(catalog, few_lists, short_left, served, tmp_path,
                                                              monkeypatch):
    """An import killed while ranking (its papers stored, some lists not): running the same
    import again adds nothing and ranks what is left before it returns."""
    from catalog.discover import refresher, related

    monkeypatch.setenv(refresher.MODE_VARIABLE, "off")  # no background process: the re-run alone
    monkeypatch.setattr(related, "refresh_after_import", lambda *a, **k: None)
    big = _import_past_the_limit(tmp_path, seed=97)

    def killed(done, of):
        if done >= 10:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        catalog.import_paths([big], background=True, ranking=killed)
    assert catalog.lists_left() > 0
    progress = []
    assert catalog.import_paths([big], background=True, ranking=lambda *p: progress.append(p)).new == 0
    assert progress and progress[-1][0] == progress[-1][1]
    with catalog.store.read() as tx:  # no background refresher (=off): the short prefixes wait for doctor
        short = tx.lists.maintenance().stale()
        assert short and not any(scoring.typed(k) for k in short)
    catalog.store.lists.refresh(budget=None, rescored=True)  # what `catalog doctor --fix` runs
    assert catalog.lists_left() == 0
    served.clear()
    assert _ranked(catalog, "model", lists=True) == _ranked(catalog, "model", lists=False)
    assert served == ['("model")']


def test_a_small_import_keeps_the_lists_serving(catalog, served, tmp_path, monkeypatch):
    from catalog import library

    monkeypatch.setattr(library, "RANKED_LISTS_FLOOR", 600.0)  # all of them, however loaded the machine
    more = corpus.write_paper_lists(200, tmp_path / "more", per_file=200)
    more[0].write_text(more[0].read_text() + "A model of models, model model.\n")
    catalog.import_paths(more)
    with catalog.store.read() as tx:
        assert tx.lists.maintenance().stale() == []
    served.clear()
    assert _ranked(catalog, "model", lists=True) == _ranked(catalog, "model", lists=False)
    assert served == ['("model")']
