"""A real redis-server that requires a login (and, where asked, TLS), on a free port of 127.0.0.1.

Its `default` user has a password: that user is the admin a team's launcher makes its ACL users
with. The password goes into the server's config file and a 0600 file for the clients, never on a
command line. TLS uses a self-signed certificate made with openssl for 127.0.0.1.
"""

from __future__ import annotations

import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import redis

from smol_core.testing.processes import free_port


@dataclass(frozen=True)
class SecuredRedis:
    url: str
    admin_password_file: str
    ca_file: str | None
    client_key_file: str | None = None
    """A key and certificate (`ca_file`, self-signed) the server takes from a client, where it asks for one."""

    def admin(self) -> redis.Redis:
        """A client logged in as the server's admin (its `default` user)."""
        return redis.Redis.from_url(self.url, password=self.admin_password(), **self.tls_options())

    def admin_password(self) -> str:
        return Path(self.admin_password_file).read_text().strip()

    def tls_options(self) -> dict[str, str]:
        options = {"ssl_ca_certs": self.ca_file} if self.ca_file else {}
        if self.client_key_file and self.ca_file:
            options.update(ssl_certfile=self.ca_file, ssl_keyfile=self.client_key_file)
        return options


def _self_signed(folder: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        raise RuntimeError("the openssl command is not installed: run scripts/setup.d/50-redis.sh")
    key, cert = folder / "server.key", folder / "server.crt"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return key, cert


def _config(
    folder: Path, port: int, password: str, tls: tuple[Path, Path] | None, client_certificates: bool
) -> Path:
    lines = ["bind 127.0.0.1", 'save ""', "appendonly no", f"dir {folder}", f"requirepass {password}"]
    if tls is None:
        lines.append(f"port {port}")
    else:
        key, cert = tls
        lines += ["port 0", f"tls-port {port}", f"tls-cert-file {cert}", f"tls-key-file {key}"]
        lines += [f"tls-ca-cert-file {cert}", f"tls-auth-clients {'yes' if client_certificates else 'no'}"]
    config = folder / "redis.conf"
    config.write_text("\n".join(lines) + "\n")
    config.chmod(0o600)
    return config


@contextmanager
def secured_redis(
    binary: str, folder: Path, tls: bool = False, client_certificates: bool = False, timeout: float = 30.0
) -> Iterator[SecuredRedis]:
    """The server, until the block ends. `tls`: it speaks TLS only; `client_certificates`: and it
    asks each client for a certificate signed by its CA."""
    password = secrets.token_hex(16)
    secret = folder / "admin-password"
    secret.write_text(password + "\n")
    secret.chmod(0o600)
    certificates = _self_signed(folder) if tls else None
    port = free_port()
    server = subprocess.Popen(
        [binary, str(_config(folder, port, password, certificates, client_certificates))],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    scheme = "rediss" if tls else "redis"
    secured = SecuredRedis(
        f"{scheme}://127.0.0.1:{port}/0",
        str(secret),
        str(certificates[1]) if certificates else None,
        str(certificates[0]) if certificates and client_certificates else None,
    )
    try:
        _wait_until_it_answers(server, secured, timeout)
        yield secured
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _wait_until_it_answers(server: subprocess.Popen[bytes], secured: SecuredRedis, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with secured.admin() as client:
                if client.ping():
                    return
        except redis.ConnectionError:
            pass
        if server.poll() is not None:
            raise RuntimeError(f"redis-server exited with status {server.returncode}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"redis-server did not answer within {timeout:.0f} s")
        time.sleep(0.05)
