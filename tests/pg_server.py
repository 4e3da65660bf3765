"""A throwaway PostgreSQL server for tests: initdb in a temporary folder, a Unix socket there,
no TCP. PostgreSQL refuses to run as root, so as root it runs as the `postgres` user.

`CATALOG_TEST_POSTGRES=postgresql://...` uses a server you already run instead (each test
database is created on it and dropped after). `skip_reason()` says in one line why the tests
cannot run here (no binaries), or None.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

ENV_VAR = "CATALOG_TEST_POSTGRES"
BIN_DIRS = [Path(p) for p in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)]


def _binary(name: str) -> str | None:
    for folder in BIN_DIRS:
        if (folder / name).exists():
            return str(folder / name)
    return shutil.which(name)


def skip_reason() -> str | None:
    if os.environ.get(ENV_VAR):
        return None
    missing = [n for n in ("initdb", "pg_ctl") if _binary(n) is None]
    if missing:
        return f"no PostgreSQL server binaries here ({', '.join(missing)}; apt-get install postgresql)"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed"
    return None


def _as_server_user(args: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return args
    return ["runuser", "-u", "postgres", "--", *args]


class Server:
    """A running server: `url(dbname)` names a database on it; `create()` makes a fresh one."""

    def __init__(self):
        self.folder: Path | None = None
        self.base_url = os.environ.get(ENV_VAR)

    def start(self) -> "Server":
        if self.base_url:
            return self
        self.folder = Path(tempfile.mkdtemp(prefix="catalog-pg-"))
        data = self.folder / "data"
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        os.chmod(self.folder, 0o700)
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE, "check": True}
        subprocess.run(_as_server_user([_binary("initdb"), "-D", str(data), "-U", "postgres",
                                        "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"]), **quiet)
        port = "5432"
        options = (f"-k {self.folder} -p {port} -c listen_addresses='' -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=100")
        subprocess.run(_as_server_user([_binary("pg_ctl"), "-D", str(data), "-o", options,
                                        "-l", str(self.folder / "log"), "-w", "start"]), **quiet)
        self.base_url = f"postgresql://postgres@/postgres?host={self.folder}&port={port}"
        return self

    def url(self, dbname: str) -> str:
        head, _, query = self.base_url.partition("?")
        head = head.rsplit("/", 1)[0] + "/" + dbname
        return head + ("?" + query if query else "")

    def create(self, template: str | None = None) -> str:
        """A new database, empty or a copy of the one at URL `template`; its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        copy = f' TEMPLATE "{_name(template)}"' if template else ""
        with psycopg.connect(self.base_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"{copy}')
        return self.url(name)

    def drop(self, url: str) -> None:
        import psycopg

        name = _name(url)
        with psycopg.connect(self.base_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        if self.folder is None:
            return
        subprocess.run(_as_server_user([_binary("pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate",
                                        "-w", "stop"]), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.folder, ignore_errors=True)


def _name(url: str) -> str:
    return url.split("?")[0].rsplit("/", 1)[1]
