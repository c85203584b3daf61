"""Who is asking: people with passwords and sessions, brokers' systems with API tokens.

Why this shape: people need a modern password hash (argon2id), sessions with CSRF
protection, a wait after repeated failures (per account and address, ``lockout``), and
per-broker tokens that the program office
can revoke. No secret is stored: passwords as argon2 hashes; session cookies and API tokens
as their SHA-256, so a copy of the database lets no one log in.

Roles: ``oficina`` (the program office), ``comisionista`` (a broker, bound to its name),
``auditor`` (the control bodies: read-only) and ``publico`` (anyone, not logged in).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Connection, delete, insert, select, text, update

from democratiza.storage import audit
from democratiza.storage.database import new_id
from democratiza.storage.schema import api_tokens, sessions, users
from democratiza.web.security.lockout import LoginWaits
from democratiza.words import count

PUBLIC, OFFICE, BROKER, AUDITOR = "publico", "oficina", "comisionista", "auditor"
ROLES = (PUBLIC, OFFICE, BROKER, AUDITOR)
STAFF_ROLES = (OFFICE, BROKER, AUDITOR)  # roles a person logs in with
SESSION_LIFE = timedelta(hours=8)
MIN_PASSWORD = 12
TOKEN_PREFIX = "dz_"
REVOKED = "tokens_revocados"  # PostgreSQL's channel for a revoked token's number


@cache
def _dummy_hash() -> str:
    """Verified against when the login does not exist, so both answers take the same time.
    Made on first use: hashing costs a tenth of a second that no command should pay."""
    return PasswordHasher().hash("nadie-tiene-esta-clave")


class AuthError(Exception):
    """A refused request about people or tokens; the message is for the person."""


@dataclass(frozen=True)
class Principal:
    role: str
    name: str  # as shown on pages
    who: str  # as recorded in the audit log and the offer's events
    broker: str | None = None  # the broker a comisionista acts for
    csrf: str | None = None  # the session's CSRF token (sessions only)
    via: str = "anonimo"  # anonimo, sesion or token
    user_id: int | None = None


ANONYMOUS = Principal(PUBLIC, "público", "público")


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create_user(
    conn: Connection,
    login: str,
    name: str,
    role: str,
    broker: str | None,
    password: str,
    who: str,
    hasher: PasswordHasher | None = None,
) -> int:
    if role not in STAFF_ROLES:
        raise AuthError(f"Rol desconocido '{role}'; use uno de: {', '.join(STAFF_ROLES)}.")
    if (role == BROKER) != bool(broker):
        raise AuthError("Un usuario comisionista necesita el nombre de su comisionista, y solo él.")
    if len(password) < MIN_PASSWORD:
        raise AuthError(f"La contraseña debe tener al menos {MIN_PASSWORD} caracteres.")
    if conn.execute(select(users.c.id).where(users.c.login == login)).first():
        raise AuthError(f"Ya existe el usuario '{login}'.")
    user_id = new_id(
        conn.execute(
            insert(users).values(
                login=login,
                nombre=name,
                rol=role,
                comisionista=broker or None,
                hash=(hasher or PasswordHasher()).hash(password),
                intentos_fallidos=0,
                bloqueado_hasta=None,
                activo=True,
                creado_en=datetime.now(),
            )
        )
    )
    audit.append(
        conn, who, "usuario.crear", f"usuarios/{login}", None, {"rol": role, "comisionista": broker}
    )
    return user_id


@dataclass(frozen=True)
class LoginOutcome:
    user_id: int | None
    message: str  # why it was refused (Spanish); empty when it succeeded


def check_password(
    conn: Connection, login: str, password: str, lockout: LoginWaits, address: str
) -> LoginOutcome:
    """One login attempt from ``address``.

    The answer never tells whether the account exists: an unknown login is verified against
    a dummy hash (the same time) and counted by the lockout like any other, so it waits
    alike. While the account-and-address waits, no password is tried at all.
    """
    refused = "Usuario o contraseña incorrectos."
    if waiting := lockout.wait(login, address):
        return LoginOutcome(None, _wait_text(waiting))
    row = conn.execute(select(users).where(users.c.login == login)).first()
    known = row is not None and bool(row.activo)
    if row is not None and known and _verify(row.hash, password):
        lockout.succeeded(login, address)
        return LoginOutcome(int(row.id), "")
    if not known:
        _verify(_dummy_hash(), password)
    waiting = lockout.failed(login, address)
    if not waiting:
        return LoginOutcome(None, refused)
    if known:  # the auditors see that someone is guessing this person's password
        audit.append(
            conn,
            "sistema",
            "usuario.bloquear",
            f"usuarios/{login}",
            None,
            {"direccion": address, "segundos": waiting},
        )
    return LoginOutcome(None, f"{refused} {_wait_text(waiting)}")


def _wait_text(seconds: int) -> str:
    return (
        "Demasiados intentos fallidos con este usuario desde esta dirección: espere "
        f"{count(seconds, 'segundo', 'segundos')} antes de intentar de nuevo."
    )


def _verify(stored_hash: str, password: str) -> bool:
    try:
        return PasswordHasher().verify(stored_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def open_session(conn: Connection, user_id: int, now: datetime) -> str:
    """A new session; returns the cookie's value (only its hash is kept)."""
    cookie = secrets.token_urlsafe(32)
    conn.execute(
        insert(sessions).values(
            huella=digest(cookie),
            usuario_id=user_id,
            csrf=secrets.token_urlsafe(32),
            creada_en=now,
            expira_en=now + SESSION_LIFE,
        )
    )
    return cookie


def close_session(conn: Connection, cookie: str) -> None:
    conn.execute(delete(sessions).where(sessions.c.huella == digest(cookie)))


def session_principal(conn: Connection, cookie: str, now: datetime) -> Principal | None:
    row = conn.execute(
        select(users, sessions.c.csrf, sessions.c.expira_en)
        .join(sessions, sessions.c.usuario_id == users.c.id)
        .where(sessions.c.huella == digest(cookie))
    ).first()
    if row is None or row.expira_en <= now or not row.activo:
        return None
    return Principal(
        row.rol,
        row.nombre,
        f"usuario:{row.login}",
        row.comisionista,
        row.csrf,
        "sesion",
        int(row.id),
    )


def create_token(conn: Connection, broker: str, description: str, who: str) -> tuple[int, str]:
    """A new API token for one broker; the token is shown once and never stored."""
    if not broker.strip():
        raise AuthError("Un token necesita el nombre del comisionista.")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token_id = new_id(
        conn.execute(
            insert(api_tokens).values(
                comisionista=broker,
                huella=digest(token),
                descripcion=description or "-",
                creado_en=datetime.now(),
                creado_por=who,
                revocado_en=None,
            )
        )
    )
    audit.append(conn, who, "token.crear", f"tokens_api/{token_id}", None, {"comisionista": broker})
    return token_id, token


def revoke_token(conn: Connection, token_id: int, who: str) -> None:
    changed = conn.execute(
        update(api_tokens)
        .where(api_tokens.c.id == token_id, api_tokens.c.revocado_en.is_(None))
        .values(revocado_en=datetime.now())
    ).rowcount
    if changed != 1:
        raise AuthError(f"No hay un token vigente con el número {token_id}.")
    audit.append(
        conn, who, "token.revocar", f"tokens_api/{token_id}", {"vigente": True}, {"vigente": False}
    )
    if conn.dialect.name == "postgresql":
        # Every service process listening forgets the token when this commits (token_cache).
        conn.execute(
            text("SELECT pg_notify(:channel, :id)"), {"channel": REVOKED, "id": str(token_id)}
        )


def token_principals(conn: Connection, digests: Sequence[str]) -> dict[str, Principal]:
    """The brokers of the tokens with these SHA-256 that are valid, by SHA-256 (one query)."""
    rows = conn.execute(
        select(api_tokens.c.id, api_tokens.c.comisionista, api_tokens.c.huella).where(
            api_tokens.c.huella.in_(digests), api_tokens.c.revocado_en.is_(None)
        )
    )
    return {
        row.huella: Principal(
            BROKER,
            row.comisionista,
            f"token:{row.id}:{row.comisionista}",
            row.comisionista,
            None,
            "token",
        )
        for row in rows
    }
