"""A real OpenSSH `sshd` on 127.0.0.1 for tests: temporary host and user keys, a generated
sshd_config, and `SetEnv` giving the remote commands their PATH (so `claude` resolves) and
the stand-in API's environment. The current user plays production's `oracle` user."""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

PRIVSEP_DIR = Path("/run/sshd")


@dataclass
class SSHServer:
    host: str
    port: int
    user: str
    key_path: Path
    known_hosts_path: Path
    log_path: Path
    process: subprocess.Popen
    env: dict  # what the remote commands get (SetEnv), HOME included

    def accepted_logins(self) -> int:
        return self.log_path.read_text(errors="replace").count("Accepted publickey")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)


def sshd_binary() -> str:
    for candidate in ("/usr/sbin/sshd", shutil.which("sshd") or ""):
        if candidate and Path(candidate).exists():
            return candidate
    raise RuntimeError("sshd not found: scripts/install.sh --test installs openssh-server")


def start_sshd(folder: Path, env: dict[str, str]) -> SSHServer:
    folder.mkdir(parents=True, exist_ok=True)
    host_key, user_key = folder / "host_key", folder / "user_key"
    for key in (host_key, user_key):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    authorized = folder / "authorized_keys"
    authorized.write_text(Path(f"{user_key}.pub").read_text())
    port = _free_port()
    known_hosts = folder / "known_hosts"
    host_public = Path(f"{host_key}.pub").read_text().split()
    known_hosts.write_text(f"[127.0.0.1]:{port} {host_public[0]} {host_public[1]}\n")
    log_path = folder / "sshd.log"
    config = folder / "sshd_config"
    set_env = " ".join(f'"{name}={value}"' for name, value in env.items())
    config.write_text(
        f"ListenAddress 127.0.0.1\nPort {port}\nHostKey {host_key}\nPidFile {folder / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {authorized}\nStrictModes no\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nPermitRootLogin prohibit-password\n"
        "UsePAM no\nSubsystem sftp internal-sftp\nLogLevel VERBOSE\nMaxSessions 50\nMaxStartups 50\n"
        + (f"SetEnv {set_env}\n" if set_env else "")
    )
    if os.geteuid() == 0:
        PRIVSEP_DIR.mkdir(mode=0o755, exist_ok=True)  # sshd run as root refuses to start without it
    process = subprocess.Popen([sshd_binary(), "-D", "-e", "-f", str(config)],
                               stdout=subprocess.DEVNULL, stderr=log_path.open("wb"))
    server = SSHServer("127.0.0.1", port, getpass.getuser(), user_key, known_hosts, log_path, process, dict(env))
    _wait_for_port(port, process)
    return server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if process.poll() is not None:
            raise RuntimeError(f"sshd exited with status {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("sshd did not start listening")
