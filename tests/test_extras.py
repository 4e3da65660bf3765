"""An installation without the optional extras: catalog[discover] (numpy, scipy, scikit-learn)
and catalog[postgres] (psycopg). Every other command works; one that needs a missing extra
says so in one line naming it, and an import still imports (the discovery cache it would have
kept is simply not there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from catalog.extras import EXTRAS

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "seeds"
# What the two extras install, as their folders in site-packages are named.
EXTRA_FOLDERS = ("numpy", "scipy", "sklearn", "scikit_learn", "psycopg", "joblib", "threadpoolctl", "narwhals")


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    """Runs `python -S -m catalog ARGS` over a copy of this environment's site-packages that
    lacks the extras' packages (links to the rest): the modules truly cannot be found."""
    folder = tmp_path_factory.mktemp("site-packages")
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.lower().startswith(EXTRA_FOLDERS) and not entry.name.endswith(".pth"):
            (folder / entry.name).symlink_to(entry)
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{folder}", "CATALOG_DB": ""}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-S", "-m", "catalog", *args], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=300)

    missing = subprocess.run([sys.executable, "-S", "-c", "import numpy"], env=env, capture_output=True)
    assert missing.returncode != 0  # the copy really lacks them
    return run


def test_without_the_discover_extra_discovery_says_which_extra_and_the_rest_works(bare, tmp_path):
    db = str(tmp_path / "catalog.db")
    imported = bare("--db", db, "import", str(SEEDS))
    assert imported.returncode == 0 and "90 new" in imported.stdout + imported.stderr, imported.stderr
    key = json.loads(bare("--db", db, "search", "sparse autoencoders", "--json").stdout)["papers"][0]["key"]
    for args in (["similar", key], ["recommend", "--json"], ["topics"]):
        out = bare("--db", db, *args)
        assert out.returncode == 1 and out.stdout == "", (args, out.stderr)
        assert out.stderr.count("\n") == 1 and "pip install 'catalog[discover]'" in out.stderr, out.stderr
        assert "Traceback" not in out.stderr
    for args in (["show", key], ["list", "topic:1"], ["stats"], ["doctor"], ["tag", key, "+x"]):
        out = bare("--db", db, *args)
        assert out.returncode == 0 and "Traceback" not in out.stderr, (args, out.stderr)


def test_without_the_postgres_extra_a_server_url_says_which_extra(bare):
    out = bare("--db", "postgresql://someone@localhost/papers", "search", "attention")
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "pip install 'catalog[postgres]'" in out.stderr, out.stderr


def test_the_test_extra_pulls_both_extras():
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert set(EXTRAS) <= set(extras)
    assert any(spec.replace(" ", "").startswith("catalog[") and all(e in spec for e in EXTRAS)
               for spec in extras["test"])
    core = " ".join(project["dependencies"]).lower()
    assert not any(module in core for module in ("numpy", "scipy", "scikit-learn", "psycopg"))
