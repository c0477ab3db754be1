"""How a process reaches Redis: who it logs in as, over TLS where asked, and errors that say what to set.

Passwords come from a file or the environment, never from the URL: a URL is a command-line flag
(`--transport-url`), and the command line shows in process lists, shell histories and logs. A URL
with a password in it (`redis://:pw@host`, or `?password=pw`, which redis-py also reads) is refused. The file is read when the connection is made, in the process
that makes it, so a pickled transport carries the file's path, never the password; an agent of a
team with ACL users carries neither (`access.py`: its password comes from its share of the keys).

TLS: a `rediss://` URL speaks TLS, checking the server's certificate against the system's CAs or
`tls_ca_file`, and the host name it is for, always (a URL whose query sets `ssl_*`, such as
`ssl_cert_reqs=none`, is refused); `tls_cert_file` and `tls_key_file` present a client certificate where the server asks
for one (`tls-auth-clients`).
"""

from __future__ import annotations

import errno
import os
import select
import stat
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from smol_core.plugin_api import MessagingError

ENV_USERNAME = "SMOL_REDIS_USERNAME"
ENV_PASSWORD = "SMOL_REDIS_PASSWORD"
ENV_PASSWORD_FILE = "SMOL_REDIS_PASSWORD_FILE"
ENV_ADMIN_USERNAME = "SMOL_REDIS_ADMIN_USERNAME"
ENV_ADMIN_PASSWORD = "SMOL_REDIS_ADMIN_PASSWORD"
ENV_ADMIN_PASSWORD_FILE = "SMOL_REDIS_ADMIN_PASSWORD_FILE"
ENV_TLS_CA_FILE = "SMOL_REDIS_TLS_CA_FILE"
ENV_TLS_CERT_FILE = "SMOL_REDIS_TLS_CERT_FILE"
ENV_TLS_KEY_FILE = "SMOL_REDIS_TLS_KEY_FILE"
MAX_PASSWORD_FILE_BYTES = 4096
PIPE_WAIT_SECONDS = 5.0

PLAIN_HINT = (
    f"set {ENV_PASSWORD_FILE} to a file that holds the password (and {ENV_USERNAME} for an ACL user), "
    "or pass password_file="
)
ADMIN_HINT = (
    f"set {ENV_ADMIN_PASSWORD_FILE} to a file that holds the password of a user allowed to run "
    f"ACL SETUSER ({ENV_ADMIN_USERNAME} names it; default: 'default'), or pass admin_password_file="
)


class RedisAccessError(MessagingError):
    """Redis refused this process's login or a command its user may not run, or a setting for
    reaching it is wrong (a password in the URL, a password file that cannot be read)."""


@dataclass(frozen=True)
class Login:
    """Who a process logs in as; `hint` says what to set when the server refuses it."""

    username: str | None
    password: str | None = field(repr=False)
    hint: str = PLAIN_HINT


@dataclass(frozen=True)
class Tls:
    """Paths of the files a TLS connection uses (None: the system's CAs, no client certificate)."""

    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None

    @classmethod
    def from_environment(cls, ca_file: str | None, cert_file: str | None, key_file: str | None) -> Tls:
        return cls(
            ca_file or os.environ.get(ENV_TLS_CA_FILE) or None,
            cert_file or os.environ.get(ENV_TLS_CERT_FILE) or None,
            key_file or os.environ.get(ENV_TLS_KEY_FILE) or None,
        )

    def given(self) -> bool:
        return any((self.ca_file, self.cert_file, self.key_file))


def read_password(path: str | None, variable: str, file_variable: str) -> str | None:
    """The password in the file `path` (else the file `$file_variable` names), else `$variable`;
    None when none is set. The file's last line break is not part of the password."""
    path = path or os.environ.get(file_variable) or None
    if path is None:
        return os.environ.get(variable) or None
    try:
        raw = _read_secret_file(path, MAX_PASSWORD_FILE_BYTES + 1)
    except OSError as error:
        raise RedisAccessError(
            f"the Redis password file {path} cannot be read ({error.strerror or type(error).__name__}): "
            f"check the path in password_file= or ${file_variable}"
        ) from None
    password = raw.decode("utf-8", "replace").rstrip("\r\n")
    if not password or len(raw) > MAX_PASSWORD_FILE_BYTES:
        raise RedisAccessError(
            f"the Redis password file {path} is empty or over {MAX_PASSWORD_FILE_BYTES} bytes: "
            "write the password alone in it"
        )
    return password


def _read_secret_file(path: str, limit: int) -> bytes:
    """Up to `limit` bytes of the file `path`: a regular file, or a pipe (`<(pass show redis)`)
    read until its writer closes it, waiting `PIPE_WAIT_SECONDS` at most, so that a named pipe
    nobody writes to is an error rather than a read that blocks for ever. Anything else (a device,
    a folder) is an `OSError` that says what it is."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(descriptor, "rb") as handle:
        mode = os.fstat(descriptor).st_mode
        if stat.S_ISREG(mode):
            return handle.read(limit)
        if not stat.S_ISFIFO(mode):
            raise OSError(errno.EINVAL, "not a regular file or a pipe")
        data = b""
        deadline = time.monotonic() + PIPE_WAIT_SECONDS
        while len(data) <= limit:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([descriptor], [], [], left)[0]:
                raise OSError(errno.ETIMEDOUT, f"nothing closed the pipe within {PIPE_WAIT_SECONDS:g} s")
            chunk = os.read(descriptor, limit + 1 - len(data))
            if not chunk:
                break
            data += chunk
        return data


def plain_login(username: str | None, password_file: str | None) -> Login:
    """The login a process uses when it is neither a team's launcher nor one of its ACL agents."""
    password = read_password(password_file, ENV_PASSWORD, ENV_PASSWORD_FILE)
    return Login(username or os.environ.get(ENV_USERNAME) or None, password)


def admin_login(username: str | None, password_file: str | None) -> Login | None:
    """The launcher's credential for making the team's ACL users; None when none is set."""
    password = read_password(password_file, ENV_ADMIN_PASSWORD, ENV_ADMIN_PASSWORD_FILE)
    if password is None:
        return None
    return Login(username or os.environ.get(ENV_ADMIN_USERNAME) or None, password, ADMIN_HINT)


def check_url(url: str, tls: Tls) -> None:
    """Refuse a URL with a password in it, and TLS files for a URL that does not speak TLS."""
    parts = urlsplit(url)
    options = {name.lower() for name in parse_qs(parts.query, keep_blank_values=True)}
    if parts.password or "password" in options:
        raise RedisAccessError(
            "the Redis URL holds a password, which would show in process lists and logs: remove it "
            f"from the URL and {PLAIN_HINT}"
        )
    tls_options = sorted(name for name in options if name.startswith("ssl"))
    if tls_options:
        raise RedisAccessError(
            f"the Redis URL sets {', '.join(tls_options)}, and TLS is set by this process's own settings "
            f"only (the certificate is always checked): remove it from the URL and set {ENV_TLS_CA_FILE} "
            "(or pass tls_ca_file=)"
        )
    if tls.given() and parts.scheme != "rediss":
        raise RedisAccessError(
            f"TLS files were given for {parts.scheme}://{parts.hostname}:{parts.port or 6379}, which does "
            "not speak TLS: use a rediss:// URL"
        )


def connect(url: str, login: Login, tls: Tls) -> Any:
    """A redis-py client for `url` as `login`. A server that is down is an error within seconds,
    never a hang (reads may block: a receive waits on purpose, and its own timeout bounds it)."""
    import redis

    options: dict[str, Any] = {"socket_connect_timeout": 5, "socket_keepalive": True}
    if login.password is not None:
        options.update(username=login.username, password=login.password)
    if urlsplit(url).scheme == "rediss":
        # said outright: redis-py before 6 does not check the host name unless told to, and then
        # any certificate from a trusted CA, for any name, would pass for the server's
        options.update(ssl_cert_reqs="required", ssl_check_hostname=True)
        options.update(ssl_ca_certs=tls.ca_file, ssl_certfile=tls.cert_file, ssl_keyfile=tls.key_file)
    return redis.Redis.from_url(url, **options)


def explain(url: str, doing: str, login: Login | None, error: Exception) -> MessagingError | None:
    """Redis refusing, down, restarting or unreachable: the `MessagingError` the caller (or the
    model) reads instead of a client library exception, naming the server and what to set, never
    its password; None for an error that is not about reaching Redis. The connection is made again
    on the next call, so a team goes on once Redis is back."""
    import redis

    where = urlsplit(url)
    server = f"Redis at {where.hostname}:{where.port or 6379}"
    if isinstance(error, redis.AuthenticationError):
        return RedisAccessError(f"{server} {_refusal(login)} while {doing}: {_hint(login)}")
    if isinstance(error, redis.ResponseError) and _not_permitted(error):
        user = login.username if login is not None and login.username else "default"
        return RedisAccessError(
            f"{server} refused user {user!r} a command while {doing}: its ACL rules do not allow it "
            f"({str(error).splitlines()[0][:200]}); {_hint(login)}"
        )
    if isinstance(error, redis.ConnectionError | redis.TimeoutError):
        if "CERTIFICATE_VERIFY_FAILED" in str(error) and "mismatch" in str(error):
            return RedisAccessError(
                f"{server} shows a TLS certificate that is not for the host name in the URL while "
                f"{doing}: use the name (or address) the certificate was made for in the rediss:// URL"
            )
        if "CERTIFICATE_VERIFY_FAILED" in str(error):
            return RedisAccessError(
                f"{server} shows a TLS certificate this process does not trust while {doing}: set "
                f"{ENV_TLS_CA_FILE} to the CA certificate that signed it, or pass tls_ca_file="
            )
        if "_ssl.c" in str(error) or "SSL" in str(error):
            return RedisAccessError(
                f"{server} ended the TLS handshake while {doing} ({str(error).splitlines()[0][:200]}): "
                f"where it asks for a client certificate, set {ENV_TLS_CERT_FILE} and {ENV_TLS_KEY_FILE} "
                "(or pass tls_cert_file= and tls_key_file=)"
            )
        return MessagingError(
            f"{server} is not reachable ({type(error).__name__}) while {doing}; try again in a moment"
        )
    return None


def _not_permitted(error: Exception) -> bool:
    """NOPERM, or the same refusal of a command a script called (Redis reports it as a script error)."""
    import redis

    return isinstance(error, redis.exceptions.NoPermissionError) or "user executing the script can't" in str(
        error
    )


def _refusal(login: Login | None) -> str:
    if login is None or login.password is None:
        return "requires a password"
    return f"refused the login of user {login.username or 'default'!r} (a wrong password, or no such user)"


def _hint(login: Login | None) -> str:
    return login.hint if login is not None else PLAIN_HINT
