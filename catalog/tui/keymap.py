"""Your own keys: a TOML file in the platform's config folder rebinds the TUI's keys by the
names the help screen shows in brackets (each binding's id), as lazygit and aerc allow:

    # ~/.config/catalog/keys.toml (Linux; `catalog tui --keys-file` prints where it is read)
    [keys]
    tag = "ctrl+t"          # a key, or several: "t,ctrl+t"
    stats = "I"
    triage-queue = "w"

The footer, the help screen and the command palette show the keys in use. A name that is
no binding, a value that is not a key, and a key given to two bindings each get one line at
start-up (the later binding keeps that key); nothing stops the app. $CATALOG_CONFIG_DIR
overrides the folder (tests, several profiles)."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from textual.binding import Binding

ENV_VAR = "CATALOG_CONFIG_DIR"
FILE = "keys.toml"


@dataclass
class Keymap:
    keys: dict[str, str] = field(default_factory=dict)  # binding id -> keys, as Textual's keymap
    problems: list[str] = field(default_factory=list)  # one line each, shown at start-up


def default_path() -> Path:
    folder = os.environ.get(ENV_VAR)
    if folder:
        return Path(folder) / FILE
    from platformdirs import user_config_path

    return user_config_path("catalog", appauthor=False) / FILE


def groups() -> list[tuple[str, list[Binding]]]:
    """The bindings a keymap may rebind, by where they act: a key is given once per group."""
    from catalog.tui import keys
    from catalog.tui.widgets.paper_list import PaperList

    return [("everywhere", [*keys.BINDINGS, *PaperList.BINDINGS]), ("triage", keys.TRIAGE_BINDINGS)]


def load(path: Path | None) -> Keymap:
    """The keymap in `path`: none when there is no such file."""
    found = Keymap()
    if path is None or not path.exists():
        return found
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        found.problems.append(f"{path}: not read ({_first_line(exc)}); the usual keys apply")
        return found
    table = data.get("keys", {})
    if not isinstance(table, dict):
        found.problems.append(f"{path}: [keys] should be a table of name = \"key\"")
        return found
    known = {b.id: b for _, bindings in groups() for b in bindings if b.id}
    for name, value in table.items():
        if name not in known:
            found.problems.append(f"{path}: no key named {name!r} (the help screen, ?, shows the names)")
        elif (not isinstance(value, str) or not value.strip() or " " in value.strip()
              or not all(is_key(k.strip()) for k in value.split(","))):
            found.problems.append(f"{path}: {name} = {value!r} is not a key (like \"ctrl+t\" or \"x,y\")")
        else:
            found.keys[name] = ",".join(k.strip() for k in value.split(","))
    found.problems += clashes(found.keys)
    return found


MODIFIERS = {"ctrl", "shift", "alt", "meta", "super", "hyper"}


def is_key(key: str) -> bool:
    """A key Textual can send: a character or a key's name ("f5", "pageup", "question_mark"),
    after lowercase modifiers. "ctrl-t" or "Ctrl+T" never arrive, and a binding given only
    those had no key at all."""
    *modifiers, base = key.split("+")
    return all(m in MODIFIERS for m in modifiers) and (
        (len(base) == 1 and base.isprintable() and not base.isspace()) or base in _key_names())


@lru_cache(maxsize=1)
def _key_names() -> frozenset[str]:
    from textual.keys import REPLACED_KEYS, Keys, _character_to_key

    named = {k.value for k in Keys if "+" not in k.value and not k.value.startswith("<")}
    characters = {_character_to_key(chr(c)) for c in range(33, 127)}
    return frozenset(named | characters | set(REPLACED_KEYS))


def keys_of(binding: Binding, keymap: dict[str, str]) -> str:
    return keymap.get(binding.id or "", binding.key)


def clashes(keymap: dict[str, str]) -> list[str]:
    """One line per key that two bindings of one group would have."""
    out = []
    for group, bindings in groups():
        owner: dict[str, Binding] = {}
        for binding in bindings:
            for key in keys_of(binding, keymap).split(","):
                other = owner.get(key)
                if other is not None and other.id != binding.id and (binding.id in keymap or other.id in keymap):
                    out.append(f"keys.toml: {key} is both {other.description} and {binding.description} "
                               f"({group}); give one of them another key")
                owner[key] = binding
    return out


def _first_line(exc: Exception) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0]
