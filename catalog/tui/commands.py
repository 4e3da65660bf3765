"""The command palette (ctrl+p): every action by name, and every saved search."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from catalog.tui.display import one_line
from catalog.tui.keys import BINDINGS
from catalog.tui.widgets.paper_list import PaperList

LIST_ACTIONS = ("open", "mark", "unmark_all")


class CatalogCommands(Provider):
    def _commands(self) -> list[tuple[str, str, object]]:
        app, main = self.app, self.app.main
        palette_commands = getattr(self.screen, "palette_commands", None)
        if palette_commands is not None:  # a screen of its own keys (triage mode)
            return palette_commands()
        out = []
        for binding in BINDINGS:
            if binding.action.startswith("saved("):
                continue
            help_text = f"{binding.tooltip}  ({app.get_key_display(binding)})"
            out.append((binding.description, help_text, partial(main.palette_action, binding.action)))
        for binding in PaperList.BINDINGS:
            if binding.action in LIST_ACTIONS:
                help_text = f"{binding.tooltip}  ({app.get_key_display(binding)})"
                out.append((binding.description, help_text,
                            partial(main.palette_action, binding.action, on_list=True)))
        for saved in main.facets.saved if main.facets else ():
            out.append((f"Saved search: {one_line(saved.name)}", one_line(saved.query),
                        partial(main.run_saved, saved)))
        return out

    async def discover(self) -> Hits:
        for name, help_text, command in self._commands():
            yield DiscoveryHit(Content(name), command, text=name, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, command in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), command, text=name, help=help_text)
