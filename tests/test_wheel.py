"""The package as users get it: a wheel built from this checkout, installed into a fresh
virtual environment, runs `catalog` with its migrations and bundled seeds found inside it."""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_a_built_wheel_installs_and_runs(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(REPO)],
                   check=True, capture_output=True, timeout=600)
    [wheel] = wheels.glob("catalog-*.whl")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    # Dependencies come from this environment's site-packages, as a plain path: its .pth files
    # (the editable install of this checkout among them) are not run, so only the wheel's
    # `catalog` can be imported.
    fresh_site = Path(subprocess.run([python, "-c", "import site; print(site.getsitepackages()[0])"],
                                     check=True, capture_output=True, text=True).stdout.strip())
    (fresh_site / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    str(wheel)], check=True, capture_output=True, timeout=600)
    home = tmp_path / "home"
    env = {**{k: v for k, v in os.environ.items() if k not in ("CATALOG_DB", "PYTHONPATH")},
           "HOME": str(home), "XDG_DATA_HOME": str(home / "data")}
    where = subprocess.run([python, "-c", "import catalog; print(catalog.__file__)"], cwd=tmp_path,
                           check=True, capture_output=True, text=True, env=env).stdout
    assert str(env_dir) in where  # the wheel's copy, not this checkout
    catalog = env_dir / "bin" / "catalog"
    found = subprocess.run([catalog, "search", "sparse autoencoders", "--json"], cwd=tmp_path,
                           capture_output=True, text=True, env=env, timeout=300)
    assert found.returncode == 0, found.stderr
    assert "imported 90 papers from the bundled seeds" in found.stderr  # seeds inside the wheel
    assert json.loads(found.stdout)["papers"]  # and migrations: the new catalog was created and searched
    current = subprocess.run([catalog, "db", "current"], cwd=tmp_path, capture_output=True, text=True,
                             env=env, timeout=120)
    assert current.stdout.strip() == subprocess.run(
        [catalog, "db", "history"], cwd=tmp_path, capture_output=True, text=True, env=env
    ).stdout.splitlines()[-1].split()[2]
