"""The order of a triage: which paper is shown, which come next, which came before. Pure
Python (no Textual, no database), driven by the triage screen (screens/triage.py).

A triage goes through the papers of a list that are not triaged yet (status unread and no
rating; catalog.triage.triage_count, catalog/parts/triaging.py). Papers arrive in windows of the search's own
order (`fill`); a ranking from the recommender (`reorder`) rearranges the papers still to
come, never the one on screen. A paper passed over without a decision goes after all the
others and comes again once they are done. Going back (`back`, or an undo) puts the paper on
screen first in line again."""

from __future__ import annotations

from collections.abc import Iterable

from catalog.results import PaperSummary


class TriageQueue:
    def __init__(self, start: str | None = None, passed: Iterable[str] = ()) -> None:
        self.current: PaperSummary | None = None
        self.upcoming: list[PaperSummary] = []
        self.history: list[PaperSummary] = []  # shown before the current one, oldest first
        self.passed: list[str] = list(dict.fromkeys(passed))  # passed over, oldest first
        self.start = start  # the paper to begin with, when it arrives (resuming)

    def __len__(self) -> int:
        """Papers left to show, the current one included."""
        return len(self.upcoming) + (self.current is not None)

    def known(self) -> set[str]:
        return {p.key for p in (*self.history, *self.upcoming)} | (
            {self.current.key} if self.current else set())

    def fill(self, rows: list[PaperSummary]) -> None:
        """Untriaged papers in the list's order (a first window or a later one): those not
        seen yet join the papers to come, before those passed over."""
        known = self.known()
        new = [p for p in rows if p.key not in known]
        passed = set(self.passed)
        self._arrange([*self._fresh(), *(p for p in new if p.key not in passed)],
                      [*self._waiting(), *(p for p in new if p.key in passed)])
        if self.current is None:
            self._take(self.start)
            self.start = None

    def reorder(self, ranked: list[PaperSummary]) -> None:
        """The papers to come, most promising first as `ranked` says; those it does not rank
        keep their order after them; passed ones stay last. The current paper stays."""
        ahead = {p.key: p for p in self._fresh()}
        on_screen = {p.key for p in self.history} | ({self.current.key} if self.current else set())
        passed = set(self.passed)
        first = [p for p in ranked if p.key not in on_screen and p.key not in passed]
        firsts = {p.key for p in first}
        self._arrange([*first, *(p for p in ahead.values() if p.key not in firsts)], self._waiting())

    def advance(self) -> PaperSummary | None:
        """A decision was taken on the current paper: the next one."""
        if self.current is not None:
            if self.current.key in self.passed:
                self.passed.remove(self.current.key)
            self._remember(self.current)
        self._take(None)
        return self.current

    def pass_over(self) -> PaperSummary | None:
        """No decision now: the current paper comes again after the others."""
        paper = self.current
        if paper is None:
            return None
        if paper.key in self.passed:
            self.passed.remove(paper.key)
        self.passed.append(paper.key)
        self._remember(paper)
        self.upcoming.append(paper)
        self._take(None)
        return self.current

    def back(self) -> PaperSummary | None:
        """The paper shown before this one (None at the first)."""
        if not self.history:
            return None
        self.go_to(self.history[-1])
        return self.current

    def go_to(self, paper: PaperSummary) -> None:
        """Show `paper` now (going back to it, or to the paper of an undone decision); the one
        on screen comes next."""
        if self.current is not None and self.current.key == paper.key:
            self.current = paper
            return
        self.history = [p for p in self.history if p.key != paper.key]
        self.upcoming = [p for p in self.upcoming if p.key != paper.key]
        if self.current is not None:
            self.upcoming.insert(0, self.current)
        self.current = paper

    def update(self, papers: Iterable[PaperSummary]) -> None:
        """Newer versions of these papers (after an edit), wherever they are."""
        fresh = {p.key: p for p in papers}
        if self.current is not None:
            self.current = fresh.get(self.current.key, self.current)
        self.history = [fresh.get(p.key, p) for p in self.history]
        self.upcoming = [fresh.get(p.key, p) for p in self.upcoming]

    # --- inside -------------------------------------------------------------------------------

    def _fresh(self) -> list[PaperSummary]:
        passed = set(self.passed)
        return [p for p in self.upcoming if p.key not in passed]

    def _waiting(self) -> list[PaperSummary]:
        passed = set(self.passed)
        waiting = {p.key: p for p in self.upcoming if p.key in passed}
        return [waiting[k] for k in self.passed if k in waiting]

    def _arrange(self, fresh: list[PaperSummary], waiting: list[PaperSummary]) -> None:
        self.upcoming = [*fresh, *waiting]

    def _remember(self, paper: PaperSummary) -> None:
        self.history = [p for p in self.history if p.key != paper.key] + [paper]

    def _take(self, key: str | None) -> None:
        """Make `key` (when it is to come), or else the first paper to come, the current one."""
        index = next((i for i, p in enumerate(self.upcoming) if p.key == key), 0) if key else 0
        self.current = self.upcoming.pop(index) if self.upcoming else None
        if self.current is not None:
            self.history = [p for p in self.history if p.key != self.current.key]
