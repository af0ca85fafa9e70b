"""The mask over historical bars, keyed by a secret the agents never see.

Where the secret comes from. Given (``secret=``), it is used as it is. Otherwise
it is derived: ``HMAC-SHA256(project key, opening digest)``, the digest of the
bars' first date alone, so the same bars give the same mask, and the same results,
in every run and process of a project, and no later bar moves the mask (nor,
through the masked volumes, a fill before it). The
project key is 32 random bytes drawn once, on first use, into
``.workbench/mask-key`` at the project root (the nearest folder up from the
working directory holding ``pyproject.toml``, ``.git`` or ``.workbench``; the
working directory itself otherwise), or the file ``WORKBENCH_MASK_FILE`` names.
The folder gets a ``.gitignore`` of its own so the key is never committed.

Why it stays hidden from agents: an agent learns only what its payload and its
``RunInfo`` say, and neither carries the key, the secret or anything computed
from them but masked values and a hash (the market fingerprint). Without the key
the secret cannot be recomputed from the data, even by someone holding the same
bars; and one run's secret (which its results and recordings keep, to repeat it
anywhere) says nothing about the key or about the mask of data whose first date's
bars differ. Agent *code* running as you can read your files, the key included:
the mask guards against a model that recognises history, not against code you
chose to run.

What the mask replaces, and why:

- **symbols** become ``ASSET001…`` aliases in an order drawn from the secret, so
  knowing the seed and the symbol list gives nothing (the secret is never in a
  payload or in the ``RunInfo`` an agent is told);
- **price levels**: each name starts at its own level drawn from the secret
  (log-uniform between ``LEVELS``), so no real price level survives;
- **volume levels**: each name's volume is divided by its own median over the
  history rows before the first decision, then set so that its typical traded
  value is the universe's median traded value times a secret factor for the
  universe (log-uniform in ``1/3 … 3``) and one for the name (``1/10 … 10``). No
  name's own dollar volume survives and neither does the universe's exactly,
  while the book's liquidity stays within the range real universes span;
- **dates** become relative day numbers (done by the payload, which never
  carries a date).

What it cannot hide: the *shape* of every path. Returns, volatility and relative
volume are untouched (rescaling cannot change them), so anyone holding the same
data can still match the return paths and find both the names and the calendar.
Only a counterfactual variant (``workbench.engine.variants``) breaks that; the
contamination audit (``workbench.evaluation.contamination``) measures both.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from workbench.engine import portable
from workbench.errors import ConfigError

LEVELS = (20.0, 400.0)  # the range of starting price levels
# traded-value factors are log-uniform in [1/spread, spread]; the name's is wide so that a
# name's own path (its drift and volume swings, which no mask can change) moves its rank little
UNIVERSE_SPREAD, NAME_SPREAD = 3.0, 10.0
_SECRET_BYTES = 16
_KEY_BYTES = 32
KEY_FILE_VARIABLE = "WORKBENCH_MASK_FILE"
KEY_FOLDER, KEY_NAME = ".workbench", "mask-key"
_PROJECT_MARKERS = ("pyproject.toml", ".git", KEY_FOLDER)


def draw_secret() -> str:
    """A fresh secret from the operating system's entropy: 32 hex characters."""
    return secrets.token_hex(_SECRET_BYTES)


def derived_secret(bars_digest: str, key: bytes | None = None) -> str:
    """The secret of the bars whose first date has this digest (``Historical.opening_digest``):
    the same in every run of the project."""
    key = project_key() if key is None else key
    message = f"workbench-mask\0{bars_digest}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()[: 2 * _SECRET_BYTES]


def check_secret(secret: object) -> str:
    if not isinstance(secret, str) or len(secret) < 16:
        raise ConfigError(
            f"a mask secret must be a string of at least 16 characters, got {secret!r}; "
            "leave it out to use the one derived from the bars and the project's key"
        )
    return secret


def key_file() -> Path:
    """Where the project's mask key is kept (see the module docstring)."""
    named = os.environ.get(KEY_FILE_VARIABLE)
    if named:
        return Path(named).expanduser()
    here = Path.cwd()
    root = next(
        (d for d in (here, *here.parents) if any((d / m).exists() for m in _PROJECT_MARKERS)),
        here,
    )
    return root / KEY_FOLDER / KEY_NAME


def project_key(path: Path | None = None) -> bytes:
    """The project's mask key, drawn and written once (atomically: two processes starting
    at once agree on one key), then read."""
    path = key_file() if path is None else path
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise _unusable(path, exc) from None
    try:
        _write_key_once(path)
        return _read_key(path)
    except OSError as exc:
        raise _unusable(path, exc) from None


def _unusable(path: Path, exc: OSError) -> ConfigError:
    return ConfigError(
        f"the project's mask key {path} cannot be read or made ({exc.strerror or exc}); set "
        f"{KEY_FILE_VARIABLE} to a file in a folder you can write, or pass secret="
    )


def _read_key(path: Path) -> bytes:
    text = path.read_text(encoding="ascii").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != _KEY_BYTES:
        raise ConfigError(
            f"the project's mask key {path} is damaged (not {_KEY_BYTES} bytes of hex); "
            "restore it (runs masked with it repeat only with it), or delete it to draw "
            "a new key"
        )
    return key


def _write_key_once(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    ignore = path.parent / ".gitignore"
    if path.parent.name == KEY_FOLDER and not ignore.exists():
        ignore.write_text("# the workbench's mask key: never commit it\n*\n", encoding="ascii")
    drawn = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    handle = os.open(drawn, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(handle, "w", encoding="ascii") as out:
            out.write(secrets.token_hex(_KEY_BYTES) + "\n")
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(FileExistsError):  # another process's key came first
            os.link(drawn, path)
    finally:
        drawn.unlink(missing_ok=True)


@dataclass(frozen=True)
class Mask:
    """Aliases and rescaling drawn from ``secret``; the same secret gives the same mask."""

    secret: str

    def rng(self, purpose: str) -> np.random.Generator:
        digest = hashlib.sha256(f"{purpose}\0{self.secret}".encode()).digest()
        return np.random.default_rng(int.from_bytes(digest, "big"))

    def aliases(self, real: Sequence[str]) -> dict[str, str]:
        """Alias → real symbol, aliases numbered in a secret order of the real names."""
        order = self.rng("aliases").permutation(len(real))
        return {f"ASSET{rank + 1:03d}": real[i] for rank, i in enumerate(order)}

    def price_factors(self, first_close: np.ndarray) -> np.ndarray:
        """What each name's prices are multiplied by: its secret level over its first close
        (the first draws of ``rescale``, so text and figures scale as the bars do)."""
        low, high = portable.log_of(LEVELS[0]), portable.log_of(LEVELS[1])
        level = portable.exp(self.rng("levels").uniform(low, high, first_close.shape[0]))
        return level / first_close

    def rescale(self, panel: dict[str, np.ndarray], history_rows: int) -> dict[str, np.ndarray]:
        """Prices and volumes of ``panel`` (rows × names) with every level replaced."""
        names = panel["close"].shape[1]
        draws = self.rng("levels")
        low, high = portable.log_of(LEVELS[0]), portable.log_of(LEVELS[1])
        level = portable.exp(draws.uniform(low, high, names))
        universe_factor = portable.exp(
            draws.uniform(-portable.log_of(UNIVERSE_SPREAD), portable.log_of(UNIVERSE_SPREAD))
        )
        name_factor = portable.exp(
            draws.uniform(-portable.log_of(NAME_SPREAD), portable.log_of(NAME_SPREAD), names)
        )
        price_scale = self.price_factors(panel["close"][0])
        prices = {k: panel[k] * price_scale for k in ("open", "high", "low", "close")}
        history = slice(0, max(history_rows, 1))
        typical_volume = _floor_one(np.median(panel["volume"][history], axis=0))
        traded = _floor_one(np.median((panel["volume"] * panel["close"])[history], axis=0))
        target_value = np.median(traded) * universe_factor * name_factor
        volume_scale = target_value / (typical_volume * level)
        return {**prices, "volume": np.floor(panel["volume"] * volume_scale)}


def _floor_one(values: np.ndarray) -> np.ndarray:
    """At least 1: a name that never traded in the history rows keeps a finite scale."""
    return np.maximum(values, 1.0)
