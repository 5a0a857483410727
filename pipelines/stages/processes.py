"""A child process that does not outlive the process that started it (Linux)."""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
"""prctl(2): the signal a Linux process gets when the thread that started it ends (its process killed, even by SIGKILL)."""


def dies_with(parent: int):
    """A `preexec_fn` (Linux) that has the child killed when its parent `parent` dies however it
    dies, so a code server never outlives the command that started it. SIGKILL, not SIGTERM: a
    server told to stop after it had served a run was seen waiting minutes in its graceful
    shutdown. The signal follows the starting thread: `code_server` keeps its thread for as long
    as the server serves. Elsewhere, or without prctl, it does nothing."""
    def preexec() -> None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # not Linux: the server is stopped by `code_server` only
            return
        if os.getppid() != parent:  # the parent died before prctl took hold
            os._exit(1)

    return preexec if sys.platform.startswith("linux") else None
