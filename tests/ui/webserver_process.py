"""The Dagster webserver on a demo run's instance, as `make ui` starts it, on a free loopback port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml

from headless_chromium import wait_until
from demo_world import PROJECT_ROOT, World

WEBSERVER = str(Path(sys.executable).with_name("dagster-webserver"))
DAGSTER = str(Path(sys.executable).with_name("dagster"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_workspace(run: World) -> Path:
    """A workspace.yaml beside the config: the project's definitions, importable from the project root."""
    workspace = run.root / "workspace.yaml"
    module = {"module_name": "pipelines.defs.definitions", "working_directory": str(PROJECT_ROOT)}
    workspace.write_text(yaml.safe_dump({"load_from": [{"python_module": module}]}))
    return workspace


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


@contextmanager
def dagster_webserver(
    run: World, log_path: Path, *, with_daemon: bool = False, env: dict[str, str] | None = None
) -> Iterator[str]:
    """Serve the run's Dagster home; the working folder is the config's, as the definitions expect.
    `with_daemon`: `dagster dev` as `make ui` starts it (the daemon starts queued runs too)."""
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    command = [DAGSTER, "dev"] if with_daemon else [WEBSERVER]
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [*command, "-w", str(write_workspace(run)), "-h", "127.0.0.1", "-p", str(port)],
            cwd=run.root,
            env={**os.environ, **(env or {}), "DAGSTER_HOME": str(run.dagster_home)},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=with_daemon,  # its own group: stopping it stops the daemon and code servers it started
        )
        try:
            up = wait_until(lambda: server.poll() is not None or _answers(f"{base_url}/server_info"), timeout=120)
            assert up and server.poll() is None, f"dagster-webserver did not start; see {log_path}"
            yield base_url
        finally:
            stop(server, group=with_daemon)


def stop(process: subprocess.Popen, *, group: bool = False) -> None:
    """Terminate a server process (with `group`, the process group it leads), killing it if it has
    not stopped within 20 s."""
    send = (lambda sig: os.killpg(process.pid, sig)) if group else process.send_signal
    try:
        send(signal.SIGTERM)
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        send(signal.SIGKILL)
        process.wait()
    except ProcessLookupError:
        pass
    if group:  # the group's other members (the daemon, code servers) may outlive its leader
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
