"""docs/python.md's script runs as written against a seeded catalog, and does what it says."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "python.md"


def test_the_scripting_example_runs(seeded, capsys):
    code = re.search(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S).group(1)
    key = seeded.search("", limit=1)[0].key
    other = seeded.search("", limit=2)[1].key
    seeded.tag([key], ["toread"])
    seeded.tag([other], ["toread/soon", "theory"])
    code = code.replace('"~/.local/share/catalog/catalog.db"', repr(str(seeded.path)))
    exec(compile(code, str(DOC), "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert sorted(line.split()[0] for line in printed) == sorted([key, other])
    assert all(line.split()[-1] in ("toread", "toread/soon") for line in printed)
    changed = [p for p in (seeded.get(key), seeded.get(other)) if p.summary.status == "read"]
    assert len(changed) == 1  # the first row's paper, and nothing else
    assert seeded.search("status:read")[0].key == changed[0].summary.key
    assert [n.body for n in changed[0].notes] == ["Read on the train: the proof in section 3 holds."]
    assert seeded.search("train proof")[0].key == changed[0].summary.key  # the note is searchable
    assert seeded.get(changed[0].summary.key).notes[0].created_at.year >= 2026
