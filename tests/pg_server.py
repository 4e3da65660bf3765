"""A throwaway PostgreSQL server for tests: initdb in a temporary folder, a Unix socket there,
no TCP. PostgreSQL refuses to run as root, so as root it runs as the `postgres` user.

A server started here stops when the process that started it is gone (or the process named
as its owner: pytest-xdist's controlling process, so that the run's workers share one server),
however it ends (pytest killed by a timeout or SIGKILL included): a small watchdog process
(`watch`, this file run as a script) waits on that process's death and runs `pg_ctl stop -m
immediate`.

`CATALOG_TEST_POSTGRES=postgresql://...` uses a server you already run instead (each test
database is created on it and dropped after; the login roles `ensure_roles` names are made
there if missing, with the password ROLE_PASSWORD). `skip_reason()` says in one line why the
tests cannot run here (no binaries), or None.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ENV_VAR = "CATALOG_TEST_POSTGRES"
# The test roles' password (the throwaway server trusts local connections and ignores it).
ROLE_PASSWORD = "catalog-test"
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

    def __init__(self, base_url: str | None = None):
        """`base_url`: a server already running (another process started it)."""
        self.folder: Path | None = None
        self.base_url = base_url or os.environ.get(ENV_VAR)
        self._watchdog: subprocess.Popen | None = None

    def start(self, owner: int | None = None) -> "Server":
        """Start it, to stop when process `owner` ends (default: this process)."""
        if self.base_url:
            return self
        self.folder = Path(tempfile.mkdtemp(prefix="catalog-pg-"))
        data = self.folder / "data"
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        os.chmod(self.folder, 0o700)
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE, "check": True}
        subprocess.run(_as_server_user([_binary("initdb"), "-D", str(data), "-U", "postgres",
                                        "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"]), **quiet)
        port = "5432"
        options = (f"-k {self.folder} -p {port} -c listen_addresses='' -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=100")
        self._watchdog = _start_watchdog(self.folder, owner or os.getpid())
        subprocess.run(_as_server_user([_binary("pg_ctl"), "-D", str(data), "-o", options,
                                        "-l", str(self.folder / "log"), "-w", "start"]), **quiet)
        self.base_url = f"postgresql://postgres@/postgres?host={self.folder}&port={port}"
        return self

    def url(self, dbname: str) -> str:
        head, _, query = self.base_url.partition("?")
        head = head.rsplit("/", 1)[0] + "/" + dbname
        return head + ("?" + query if query else "")

    def create(self, template: str | None = None, *, owner: str | None = None) -> str:
        """A new database, empty or a copy of the one at URL `template`, owned by the role
        `owner` (else the server's superuser); its URL (as the superuser)."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        copy = f' TEMPLATE "{_name(template)}"' if template else ""
        owned = f' OWNER "{owner}"' if owner else ""
        with psycopg.connect(self.base_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"{copy}{owned}')
        return self.url(name)

    def ensure_roles(self, *names: str) -> None:
        """Login roles without special privileges (no superuser, no CREATEROLE), made once."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.base_url, autocommit=True) as conn:
            for name in names:
                try:
                    conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
                        sql.Identifier(name), sql.Literal(ROLE_PASSWORD)))
                except psycopg.errors.DuplicateObject:
                    pass

    def drop(self, url: str) -> None:
        import psycopg

        name = _name(url)
        with psycopg.connect(self.base_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        if self.folder is None:
            return
        if self._watchdog is not None:
            self._watchdog.kill()
            self._watchdog.wait()
        _stop_server(self.folder)


def _stop_server(folder: Path) -> None:
    if (folder / "data" / "postmaster.pid").exists():
        subprocess.run(_as_server_user([_binary("pg_ctl"), "-D", str(folder / "data"), "-m", "immediate",
                                        "-w", "stop"]), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shutil.rmtree(folder, ignore_errors=True)


def _start_watchdog(folder: Path, owner: int) -> subprocess.Popen:
    """The watchdog of the server in `folder`, started before the server: once it says it is
    watching, the death of process `owner` (however it comes) stops the server. In a session
    of its own, so a signal to pytest's process group leaves it to do its job."""
    watchdog = subprocess.Popen([sys.executable, __file__, str(owner), str(folder)],
                                stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
    if watchdog.stdout.readline() != b"watching\n":
        raise RuntimeError("the PostgreSQL test server's watchdog did not start")
    return watchdog


def watch(owner: int, folder: Path) -> None:
    """Wait until process `owner` ends, then stop the server in `folder` and remove it."""
    try:
        handle = os.pidfd_open(owner)  # Linux 5.3+: readable once the process has ended
    except ProcessLookupError:  # it ended before we watched it
        handle = None
    except (AttributeError, OSError):
        handle = "poll"
    if handle is not None:
        print("watching", flush=True)
        if handle == "poll":
            while _alive(owner):
                time.sleep(0.2)
        else:
            select.select([handle], [], [])
    _stop_server(folder)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _name(url: str) -> str:
    return url.split("?")[0].rsplit("/", 1)[1]


def as_role(url: str, role: str) -> str:
    """The database at `url`, connecting as `role` (one of `Server.ensure_roles`)."""
    scheme, rest = url.split("://", 1)
    place = rest.split("@", 1)[1] if "@" in rest.split("/", 1)[0] else rest
    return f"{scheme}://{role}:{ROLE_PASSWORD}@{place}"


if __name__ == "__main__":
    watch(int(sys.argv[1]), Path(sys.argv[2]))
