"""`LLM_BACKEND=claude-ssh`: the Claude Code CLI on another machine (the VM logged in to the
Claude subscription), reached with paramiko.

One SSH connection is kept and reused by every call; a semaphore caps the commands running
at once on it (`CLAUDE_SSH_MAX_CONCURRENT`, 10 by default). Each call is one exec channel:
the prompt goes to stdin, stream-json lines come back as the model writes. The remote shell
prints its pid first so a timeout can kill the remote process group, not just drop the
channel (a CLI waiting on the network would otherwise live on). The same kill ends a call
left early (the caller stopped reading, « Arrêter »): a closed channel alone leaves the CLI
writing to its file until the answer is done, spending quota.
"""

from __future__ import annotations

import logging
import posixpath
import re
import socket
import stat
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import paramiko

from .base import LLMConfigError, LLMError, LLMTimeout, LLMUnreachable
from .claude_code import ClaudeCodeBackend, ClaudeCommandConfig, spooled_shell_command

log = logging.getLogger(__name__)

PID_PREFIX = b"oracle-pid:"
_PID_LINE = re.compile(rb"^" + re.escape(PID_PREFIX) + rb"(\d+)\n", re.M)
PID_WAIT_S = 3.0  # the pid is the remote shell's first output: only a call ended at once waits for it
# TERM to the group, then KILL to what is left after 2 s; returns as soon as the group is gone.
KILL_GROUP = ("kill -TERM -- -{pid} 2>/dev/null || exit 0; i=0; "
              "while [ $i -lt 20 ] && kill -0 -- -{pid} 2>/dev/null; do sleep 0.1; i=$((i+1)); done; "
              "kill -KILL -- -{pid} 2>/dev/null; true")


@dataclass(frozen=True)
class SSHConfig:
    host: str
    user: str = "oracle"
    port: int = 22
    key_path: str = ""
    known_hosts_path: str = ""
    accept_unknown_host: bool = False
    connect_timeout_s: float = 10.0
    max_concurrent: int = 10
    images_path: str = ""  # where the VM reads page images (VISION_SSH_IMAGES_PATH)
    images_shared: bool = False  # True: the VM mounts our page images folder at images_path
    local_images_root: str = ""


class SSHConnection:
    """The one reused connection to the Claude host, and the cap on concurrent commands."""

    def __init__(self, config: SSHConfig):
        self.config = config
        self.slots = threading.BoundedSemaphore(config.max_concurrent)
        self._lock = threading.Lock()
        self._client: paramiko.SSHClient | None = None

    def transport(self) -> paramiko.Transport:
        with self._lock:
            transport = self._client.get_transport() if self._client else None
            if transport is None or not transport.is_active():
                self._client = self._connect()
                transport = self._client.get_transport()
            return transport

    def _connect(self) -> paramiko.SSHClient:
        client = paramiko.SSHClient()
        if self.config.known_hosts_path:
            client.load_host_keys(self.config.known_hosts_path)
        client.set_missing_host_key_policy(
            paramiko.AutoAddPolicy() if self.config.accept_unknown_host else paramiko.RejectPolicy()
        )
        try:
            client.connect(
                self.config.host, port=self.config.port, username=self.config.user,
                key_filename=self.config.key_path or None, timeout=self.config.connect_timeout_s,
                banner_timeout=self.config.connect_timeout_s, auth_timeout=self.config.connect_timeout_s,
                allow_agent=False, look_for_keys=not self.config.key_path,
            )
        except paramiko.BadHostKeyException as exc:
            raise LLMConfigError(f"SSH host key of {self.config.host} does not match the known hosts file: {exc}") from exc
        except paramiko.AuthenticationException as exc:
            raise LLMConfigError(f"SSH authentication as {self.config.user}@{self.config.host} refused: {exc}") from exc
        except paramiko.SSHException as exc:
            if "not found in known_hosts" in str(exc):
                raise LLMConfigError(
                    f"unknown SSH host {self.config.host}: add its key to CLAUDE_SSH_KNOWN_HOSTS ({exc})"
                ) from exc
            raise LLMUnreachable(f"SSH connection to {self.config.host} failed: {exc}") from exc
        except (OSError, socket.timeout) as exc:
            raise LLMUnreachable(f"SSH connection to {self.config.host}:{self.config.port} failed: {exc}") from exc
        # Detects a half-open connection (VM rebooted) instead of hanging on it.
        client.get_transport().set_keepalive(30)
        return client

    def open_channel(self, deadline: float) -> paramiko.Channel:
        try:
            return self.transport().open_session(timeout=max(0.1, deadline - time.monotonic()))
        except paramiko.SSHException as exc:
            raise LLMUnreachable(f"could not open an SSH channel: {exc}") from exc

    def run(self, command: str, timeout: float = 10.0) -> tuple[int, str, str]:
        """A short command (kill, version check) on its own channel."""
        channel = self.open_channel(time.monotonic() + timeout)
        try:
            channel.settimeout(timeout)
            channel.exec_command(command)
            channel.shutdown_write()
            out = channel.makefile("rb").read().decode("utf-8", errors="replace")
            err = channel.makefile_stderr("rb").read().decode("utf-8", errors="replace")
            return channel.recv_exit_status(), out, err
        finally:
            channel.close()

    def copy_if_missing(self, local: Path, remote: str) -> bool:
        """SFTP `local` to `remote` unless a file of the same size is already there."""
        size = local.stat().st_size
        try:
            with self._sftp() as sftp:
                try:
                    if sftp.stat(remote).st_size == size:
                        return False
                except FileNotFoundError:
                    pass
                _makedirs(sftp, posixpath.dirname(remote))
                sftp.put(str(local), remote)
                return True
        except (OSError, paramiko.SSHException) as exc:
            raise LLMError(f"could not copy {local.name} to {self.config.host}:{remote}: {exc}") from exc

    @contextmanager
    def _sftp(self):
        sftp = paramiko.SFTPClient.from_transport(self.transport())
        try:
            yield sftp
        finally:
            sftp.close()

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
            self._client = None


def _makedirs(sftp: paramiko.SFTPClient, folder: str) -> None:
    missing = []
    while folder not in ("", "/"):
        try:
            if stat.S_ISDIR(sftp.stat(folder).st_mode):
                break
        except FileNotFoundError:
            missing.append(folder)
        folder = posixpath.dirname(folder)
    for path in reversed(missing):
        sftp.mkdir(path)


class RemoteCommand:
    """One CLI run on an exec channel; stdout is read as it comes, stderr collected."""

    def __init__(self, connection: SSHConnection, command: str, stdin: bytes, deadline: float):
        self._connection = connection
        self._channel = connection.open_channel(deadline)
        self._stderr = bytearray()
        self._stderr_lock = threading.Lock()  # the reading thread and a stopping one both drain it
        self._pid: int | None = None
        self._terminated = False
        try:
            self._channel.settimeout(max(0.1, deadline - time.monotonic()))
            self._channel.exec_command(command)
            self._channel.sendall(stdin)
            self._channel.shutdown_write()
        except socket.timeout as exc:
            self.terminate()
            raise LLMTimeout("the Claude host did not take the prompt in time") from exc
        except (paramiko.SSHException, OSError) as exc:
            self._channel.close()
            raise LLMError(f"could not start the Claude CLI over SSH: {exc}") from exc

    def read_stdout(self, wait: float) -> bytes | None:
        self._drain_stderr()
        self._channel.settimeout(wait)
        try:
            chunk = self._channel.recv(65536)
        except socket.timeout:
            return b""
        if chunk:
            return chunk
        self._drain_stderr()
        return None

    def _drain_stderr(self) -> None:
        with self._stderr_lock:
            while self._channel.recv_stderr_ready():
                self._stderr.extend(self._channel.recv_stderr(65536))
            if self._pid is None and (found := _PID_LINE.search(self._stderr)):
                self._pid = int(found.group(1))
                del self._stderr[found.start():found.end()]

    def _await_pid(self, wait: float) -> None:
        end = time.monotonic() + wait
        self._drain_stderr()
        while self._pid is None and not self._channel.closed and time.monotonic() < end:
            time.sleep(0.05)
            self._drain_stderr()

    def stderr_text(self) -> str:
        self._drain_stderr()
        with self._stderr_lock:
            return self._stderr.decode("utf-8", errors="replace")

    def exit_status(self, wait: float) -> int | None:
        end = time.monotonic() + wait
        while not self._channel.exit_status_ready():
            if time.monotonic() >= end:
                return None
            time.sleep(0.02)
        self._drain_stderr()
        return self._channel.recv_exit_status()

    def terminate(self) -> None:
        """Close the channel and kill the remote process group, once (a timeout, a stop from
        another thread and the end of the call may all ask)."""
        with self._stderr_lock:
            if self._terminated:
                return
            self._terminated = True
        self._await_pid(PID_WAIT_S)
        self._channel.close()
        if not self._pid:
            log.warning("the remote Claude CLI never printed its pid: it may run on")
            return
        # The remote shell is a session leader (sshd calls setsid): its pid is the group id.
        try:
            self._connection.run(KILL_GROUP.format(pid=self._pid), timeout=10)
        except (LLMError, paramiko.SSHException, OSError) as exc:
            log.warning("could not kill remote Claude CLI (pid %s): %s", self._pid, exc)

    def close(self) -> None:
        """The call is over. A command still running (the caller stopped reading early) is
        killed: closing the channel alone would leave the CLI answering to its file."""
        if self._channel.exit_status_ready():
            self._channel.close()
        else:
            self.terminate()


class ClaudeSSHBackend(ClaudeCodeBackend):
    name = "claude-ssh"

    def __init__(self, config: ClaudeCommandConfig, ssh: SSHConfig):
        super().__init__(config)
        self.ssh = ssh
        self.connection = SSHConnection(ssh)

    def remote_command(self, arguments: list[str]) -> str:
        """The spooled CLI run, after the shell's pid (the process group a timeout kills)."""
        return f"printf '{PID_PREFIX.decode()}%s\\n' \"$$\" >&2; {spooled_shell_command(arguments)}"

    @contextmanager
    def _start(self, arguments, stdin, deadline):
        if not self.connection.slots.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise LLMTimeout(f"all {self.ssh.max_concurrent} SSH command slots stayed busy")
        try:
            command = RemoteCommand(self.connection, self.remote_command(arguments), stdin, deadline)
            try:
                yield command
            finally:
                command.close()
        finally:
            self.connection.slots.release()

    def image_location(self, path: Path) -> str:
        root = Path(self.ssh.local_images_root) if self.ssh.local_images_root else None
        try:
            relative = PurePosixPath(*path.relative_to(root).parts) if root else None
        except ValueError:
            relative = None
        if relative is None:
            relative = PurePosixPath(path.parent.name, path.name)
        return str(PurePosixPath(self.ssh.images_path) / relative)

    def _prepare_images(self, images, deadline):
        if self.ssh.images_shared:
            return
        for image in images:
            if self.connection.copy_if_missing(Path(image), self.image_location(Path(image))):
                log.info("copied page image %s to the Claude host", image)

    def describe(self) -> str:
        return f"Claude CLI on {self.ssh.user}@{self.ssh.host}"
