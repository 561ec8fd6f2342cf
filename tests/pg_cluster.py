"""A throwaway PostgreSQL cluster the tests own: ``initdb`` and ``pg_ctl``
from the Debian binaries already on the machine (``/usr/lib/postgresql/*/bin``),
into a temporary folder, on a free port, its socket in that folder. A test
may stop it, restart it, ``kill -9`` its server, and terminate a connection,
without touching the machine's shared server.

``initdb`` refuses to run as root: as root the cluster belongs to the
``postgres`` OS user (commands run through util-linux's ``setpriv``).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def _binaries() -> Path | None:
    """The newest PostgreSQL's bin folder with initdb and pg_ctl, or None."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: (
            int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0
        ),
    )
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Unavailable(Exception):
    """Why no cluster can be started here."""


class Cluster:
    """One throwaway PostgreSQL server; ``url`` reaches it (trust auth, user
    ``postgres``, database ``postgres``)."""

    def __init__(self) -> None:
        bindir = _binaries()
        if bindir is None:
            raise Unavailable("no PostgreSQL binaries in /usr/lib/postgresql/*/bin")
        self.bindir = bindir
        self.prefix: list[str] = []
        owner: pwd.struct_passwd | None = None
        if os.getuid() == 0:
            if shutil.which("setpriv") is None:
                raise Unavailable("root, and no setpriv to run initdb as another user")
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise Unavailable("root, and no 'postgres' OS user to own a cluster") from None
            self.prefix = ["setpriv", f"--reuid={owner.pw_uid}", f"--regid={owner.pw_gid}",
                           "--init-groups", "--reset-env"]  # fmt: skip
        self.folder = Path(tempfile.mkdtemp(prefix="ledger-pg-"))
        if owner is not None:
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
        self.data = self.folder / "data"
        self.log = self.folder / "server.log"
        self.port = _free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        done = self._run(
            self.bindir / "initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust",
            "--no-sync", "-E", "UTF8", "--locale=C",
        )  # fmt: skip
        if done.returncode != 0:
            self.remove()
            raise Unavailable(f"initdb failed: {done.stderr.strip()[-500:]}")

    def _run(self, *args: object, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.prefix, *map(str, args)], capture_output=True, text=True, cwd=self.folder,
            timeout=timeout,
        )  # fmt: skip

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c full_page_writes=off -c max_connections=60"
        )
        done = self._run(self.bindir / "pg_ctl", "-D", self.data, "-l", self.log, "-o",
                         options, "-w", "-t", "60", "start")  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(
                f"pg_ctl start failed: {done.stdout}{done.stderr}{self.server_log()}"
            )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: connections are terminated)."""
        self._run(self.bindir / "pg_ctl", "-D", self.data, "-m", mode, "-w", "stop")

    def restart(self) -> None:
        self.stop()
        self.start()

    def server_pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def kill9(self) -> None:
        """``kill -9`` the server; waits until its processes are gone (they
        leave on the postmaster's death), so that ``start`` recovers it."""
        pid = self.server_pid()
        if pid is None:
            return
        children = self._children(pid)
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 60
        for child in [pid, *children]:
            while _alive(child):
                if time.monotonic() > deadline:
                    os.kill(child, signal.SIGKILL)
                time.sleep(0.02)
        # The dead server's pid may live on as an unreaped zombie (no init
        # reaps here), which PostgreSQL would take for a running server.
        (self.data / "postmaster.pid").unlink(missing_ok=True)
        (self.folder / f".s.PGSQL.{self.port}.lock").unlink(missing_ok=True)

    @staticmethod
    def _children(pid: int) -> list[int]:
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True,
                             text=True).stdout  # fmt: skip
        return [int(p) for p in out.split()]

    def terminate(self, where: str, params: tuple[object, ...] = ()) -> int:
        """``pg_terminate_backend`` every other backend matching the SQL
        condition ``where`` on pg_stat_activity; how many were terminated."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                f"WHERE pid <> pg_backend_pid() AND backend_type = 'client backend' AND ({where})",
                params,
            ).fetchall()
        return sum(1 for (done,) in rows if done)

    def server_log(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def remove(self) -> None:
        """Stop the server and remove its folder."""
        if (self.data / "postmaster.pid").exists():
            self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (our own child) counts as gone.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[-1][:1] != "Z"
    except OSError:
        return False
