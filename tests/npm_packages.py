"""Node packages the tests pin in a folder of their own (package.json + package-lock.json).

``npm ci`` runs only when the folder's node_modules is missing or was installed from another
package.json or lock: a stamp in node_modules holds the digest of the two it was installed
from, so the quick loop does not reinstall and a changed pin does. One helper for every such
folder (clients/typescript's tools, tests/e2e/axe's axe-core).
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

STAMP = ".boneyard-installed"


def lock_digest(folder: Path) -> str:
    return hashlib.sha256(
        (folder / "package.json").read_bytes() + (folder / "package-lock.json").read_bytes()
    ).hexdigest()


def npm(folder: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``npm ARGS`` in ``folder`` (scripts/ensure-node puts npm on PATH)."""
    binary = shutil.which("npm")
    if binary is None:
        pytest.fail("npm is not installed: run scripts/ensure-node")
    return subprocess.run([binary, *args], check=False, cwd=folder, capture_output=True, text=True, timeout=timeout)


def npm_ci(folder: Path) -> None:
    """node_modules of ``folder`` exactly as its package-lock.json pins it, installed only when stale.

    Two pytest workers may ask for the same folder at once (tests in different xdist groups use
    it), and two ``npm ci`` in one folder remove each other's files (ENOTEMPTY): one at a time,
    under a lock file outside the source tree, and the stamp is read again once the lock is held.
    """
    stamp = folder / "node_modules" / STAMP
    key = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"boneyard-npm-ci-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists() and stamp.read_text() == lock_digest(folder):
            return
        done = npm(folder, "ci", "--no-audit", "--no-fund")
        assert done.returncode == 0, done.stdout + done.stderr
        stamp.write_text(lock_digest(folder))
