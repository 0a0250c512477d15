"""Weight × value norm (Kobayashi et al. 2020) as the views send it, against the float64 reference written from the
paper's formula (tools/reference/norm_reference.py): the named heads and MiniLM on sentences drawn at random, e5 and
the translators on a few; and the parameter, the arithmetic and the answer's size.

Tolerance: 1e-5 of the row's largest contribution. The teaching engine and the translators compute in float64 (they
meet the reference to ~1e-15). MiniLM and e5 compute in float32 (unit roundoff u = 2^-24 ≈ 6e-8) from the same
float32 layer input: v_j is a 384-term dot product (rounding errors of a sum of n terms grow like √n u on average,
√384 u ≈ 1.2e-6 of Σ|x w|), the norm over 384 more, and α a softmax of 32-term dot products of scores up to ~10
(absolute error of a score ≈ √32 u · 10 ≈ 3e-6, which is the relative error of its weight). Together a few 1e-6
relative: 1e-5 holds with room, and a wrong row of W_O, a missing bias or a square instead of a root misses it by
orders of magnitude (what each test was checked to catch).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine.attention.norms import head_rows, shares, value_norms, weighted_norms
from app.engine.models.encoder import round_to_8_bits
from app.engine.text.lexicon import load_lexicon
from app.view import models
from app.view.compute import compute_view
from app.view.state import State
from tools.reference.norm_reference import contribution_norms, softmax_attention

TOLERANCE = 1e-5  # of the row's largest contribution (see the module's docstring)
PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MODEL_PROPERTY = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def view_of(**params) -> dict:
    """The answer of a view, its parameters validated as a link's are (a later step opens the last)."""
    return compute_view(State.model_validate(params))


def assert_rows_match(shown, reference):
    shown, reference = np.asarray(shown, np.float64), np.asarray(reference, np.float64)
    assert shown.shape == reference.shape
    scale = np.maximum(reference.max(axis=1, keepdims=True), 1e-30)  # (n_q, 1) each row's largest
    worst = float((np.abs(shown - reference) / scale).max())
    assert worst <= TOLERANCE, worst
    return worst


# ---------------------------------------------------------------- the teaching engine

LEXICON_WORDS = sorted(word for word in load_lexicon().vectors if word.isascii() and word.isalpha())[:400]
PUNCTUATION = ["", ".", ",", "!", "?"]


@st.composite
def sentences(draw, low=2, high=9):
    words = draw(st.lists(st.sampled_from(LEXICON_WORDS), min_size=low, max_size=high))
    return " ".join(words) + draw(st.sampled_from(PUNCTUATION))


@PROPERTY
@given(sentence=sentences(), step=st.integers(0, 20), head=st.integers(0, 7), causal=st.booleans())
def test_named_heads_match_the_reference(sentence, step, head, causal):
    view = view_of(source=sentence, step=step, head=head, causal=causal, attribution="norm")
    n_heads = view["n_heads"]
    x = np.asarray(view["embeddings"]["keys"])  # (n_k, d_model) the words' vectors
    d = x.shape[1]
    W_O = np.eye(d) / n_heads  # the named heads' W_O averages them: head h's rows are I / n_heads; W_V = I
    reference = contribution_norms(view["head"]["weights"], x, np.eye(d), None, W_O)
    assert_rows_match(view["attribution"]["contributions"], reference)
    step = view["params"]["step"]
    assert_rows_match([view["arithmetic"]["contributions"]], reference[[step]])


@PROPERTY
@given(sentence=sentences(), seed=st.integers(0, 1000), heads=st.sampled_from([1, 2, 4, 8]), head=st.integers(0, 7))
def test_random_projections_match_the_reference(sentence, seed, heads, head):
    """Random W_V and W_O: a wrong block of W_O's rows, or W_O left out, is caught here (named heads' blocks are
    all alike)."""
    head = head % heads
    view = view_of(source=sentence, projection="random", seed=seed, heads=heads, head=head, attribution="norm")
    x = np.asarray(view["embeddings"]["keys"])
    W_V, W_O = np.asarray(view["head"]["parameters"]["W_V"]), np.asarray(view["parameters"]["W_O"])
    d_v = W_V.shape[1]
    reference = contribution_norms(view["head"]["weights"], x, W_V, None, W_O[head * d_v : (head + 1) * d_v])
    assert_rows_match(view["attribution"]["contributions"], reference)


def test_an_exercise_has_no_W_O_so_its_norms_are_the_values_lengths():
    view = view_of(q=((1, 0), (0, 1)), k=((1, 0), (0, 1)), v=((3, 4), (0, 1)), attribution="norm")
    assert view["attribution"]["value_norms"].tolist() == [5.0, 1.0]
    reference = contribution_norms(view["head"]["weights"], np.array([[3, 4], [0, 1]]), np.eye(2), None, None)
    assert_rows_match(view["attribution"]["contributions"], reference)


# ---------------------------------------------------------------- MiniLM and e5

ENGLISH = ["the", "cat", "sat", "on", "mat", "river", "bank", "money", "quickly", "unbelievable", "she", "gave", "him",
           "a", "book", "because", "it", "was", "raining", "Paris", "computers", "don't"]  # fmt: skip


def model_reference(name: str, sentence: str, layer: int, head: int) -> tuple[np.ndarray, np.ndarray]:
    """(α, α‖f(x)‖) of one head of a real model, in float64 from the layer's input: α recomputed by the reference
    too, so nothing of the view's head enters but the input x and the weights files."""
    model = models.get(name)
    cfg = model.params.config
    lp = model.params.layers[layer]
    run = models.run(name, sentence)
    x = run.hidden[layer]  # (n, d) the layer's input, float32 as the model holds it
    if cfg.round_inputs:  # e5 multiplies W_Q, W_K, W_V by its input rounded to 8 bits per block (e5.c's Q8_0)
        x = round_to_8_bits(x.copy())
    d, dh = cfg.d_model, cfg.d_head
    cols = {part: slice(part * d + head * dh, part * d + (head + 1) * dh) for part in range(3)}  # Q, K, V of the head
    alpha = softmax_attention(x, lp.w_qkv[:, cols[0]], lp.b_qkv[cols[0]], lp.w_qkv[:, cols[1]], lp.b_qkv[cols[1]])
    W_O = lp.w_o[head * dh : (head + 1) * dh]  # the attention.output.dense rows that multiply this head's context
    return alpha, contribution_norms(alpha, x, lp.w_qkv[:, cols[2]], lp.b_qkv[cols[2]], W_O)


@MODEL_PROPERTY
@given(
    words=st.lists(st.sampled_from(ENGLISH), min_size=1, max_size=12),
    end=st.sampled_from(PUNCTUATION),
    layer=st.integers(0, 5),
    head=st.integers(0, 11),
)
def test_minilm_matches_the_reference(words, end, layer, head):
    sentence = " ".join(words) + end
    view = view_of(model="minilm", source=sentence, layer=layer, head=head, attribution="norm")
    alpha, reference = model_reference("minilm", sentence, layer, head)
    assert_rows_match(view["head"]["weights"], alpha)  # the weights the view shows are the reference's too
    assert_rows_match(view["attribution"]["contributions"], reference)
    step = view["params"]["step"]
    assert_rows_match([view["arithmetic"]["contributions"]], reference[[step]])


@pytest.mark.parametrize(
    ("sentence", "layer", "head"),
    [("小猫在河边喝水。", 0, 0), ("The bank of the river, at night.", 5, 7), ("我爱北京", 11, 11)],
)
def test_e5_matches_the_reference(sentence, layer, head):
    view = view_of(model="e5", source=sentence, layer=layer, head=head, attribution="norm")
    _, reference = model_reference("e5", sentence, layer, head)
    assert_rows_match(view["attribution"]["contributions"], reference)


def test_hidden_specials_keep_each_keys_norm_and_words_sum_their_pieces():
    sentence = "The unbelievable cat sat."
    pieces = view_of(model="minilm", source=sentence, layer=2, head=3, attribution="norm")
    hidden = view_of(model="minilm", source=sentence, layer=2, head=3, attribution="norm", hide_special=True)
    np.testing.assert_allclose(hidden["attribution"]["value_norms"], pieces["attribution"]["value_norms"][1:-1])
    words = view_of(model="minilm", source=sentence, layer=2, head=3, attribution="norm", units="words")
    # to a word: the sum over its pieces; from a word: the mean over its pieces. [CLS] is one piece and one word, so
    # its row keeps the pieces' total
    assert words["tokens"]["keys"][2] == "unbelievable"
    totals = np.asarray(words["attribution"]["contributions"]).sum(axis=1)
    piece_totals = np.asarray(pieces["attribution"]["contributions"]).sum(axis=1)
    assert np.isclose(totals[0], piece_totals[0], rtol=1e-5)


# ---------------------------------------------------------------- the translators


def test_rnnsearch_norms_use_the_readout_columns_of_the_context():
    view = view_of(model="rnnsearch", source="Tom chase Jerry in the garden", attribution="norm")
    p = models.translator("rnnsearch").network.p
    d_h = p["cell.weight_hh"].shape[1]
    W_c = p["out.weight"][:, d_h : 3 * d_h].T  # logits = W_out [s (d_h); c (2 d_h); e] + b: c's columns
    annotations = np.asarray(view["head"]["v"])  # h_j, keys and values
    reference = contribution_norms(view["head"]["weights"], annotations, np.eye(2 * d_h), None, W_c)
    assert_rows_match(view["attribution"]["contributions"], reference)


@pytest.mark.parametrize(("layer", "head"), [(0, 0), (1, 3)])
def test_transformer_mt_norms_use_each_heads_rows_of_W_O(layer, head):
    view = compute_view(
        State(model="transformer-mt", source="a rabbit loves that fat man", layer=layer, head=head, attribution="norm")
    )
    p = models.translator("transformer-mt").network.p
    d_head = np.asarray(view["head"]["v"]).shape[1]
    rows = slice(head * d_head, (head + 1) * d_head)
    cross_O = p[f"dec.{layer}.cross_attn.o.weight"][:, rows].T  # (d_head, d): PyTorch keeps (out, in)
    v = np.asarray(view["head"]["v"])  # the source's values, x W_V + b_V as the model computed them
    reference = contribution_norms(view["head"]["weights"], v, np.eye(d_head), None, cross_O)
    assert_rows_match(view["attribution"]["contributions"], reference)
    self_attention = view["translation"]["self_attention"]
    self_O = p[f"dec.{layer}.self_attn.o.weight"][:, rows].T
    expected = contribution_norms(np.ones((1, len(self_attention["v"]))), np.asarray(self_attention["v"]),
                                  np.eye(d_head), None, self_O)[0]  # fmt: skip
    np.testing.assert_allclose(self_attention["value_norms"], expected, rtol=1e-12)


def test_rnnencdec_has_no_attention_to_attribute():
    view = view_of(model="rnnencdec", source="Tom chase Jerry")
    assert view["attribution"] is None
    with pytest.raises(ValueError, match="choice_requires|needs model"):
        State(model="rnnencdec", source="Tom chase Jerry", attribution="norm")


# ---------------------------------------------------------------- the engine's functions, the link, the answer


def test_the_engine_functions_on_a_small_case():
    v = np.array([[3.0, 4.0], [1.0, 0.0]])  # (n_k, d_v)
    W_O = np.array([[1.0, 0.0], [0.0, 2.0], [5.0, 5.0], [6.0, 6.0]])  # (2 heads * d_v, d_model)
    assert head_rows(W_O, 1, 2).tolist() == [[5.0, 5.0], [6.0, 6.0]]
    norms = value_norms(v, head_rows(W_O, 0, 2))  # rows (3, 8) and (1, 0)
    assert norms.tolist() == [np.hypot(3, 8), 1.0]
    contributions = weighted_norms(np.array([[0.5, 0.5], [0.0, 1.0]]), norms)
    np.testing.assert_allclose(contributions, [[np.hypot(3, 8) / 2, 0.5], [0.0, 1.0]])
    np.testing.assert_allclose(shares(contributions).sum(axis=1), [1.0, 1.0])


def test_the_link_carries_the_choice_and_only_norm_sends_the_matrix():
    weights = view_of(source="walk by river bank", step=3)
    norm = view_of(source="walk by river bank", step=3, attribution="norm")
    assert weights["query"] == "" and norm["query"] == "attribution=norm"
    assert weights["attribution"]["contributions"] is None
    assert len(norm["attribution"]["contributions"]) == 4
    assert weights["arithmetic"]["contributions"].tolist() == norm["arithmetic"]["contributions"].tolist()
    shares_ = norm["arithmetic"]["contribution_shares"]
    assert abs(sum(shares_) - 1) < 1e-12


def test_the_default_answer_grows_by_a_few_hundred_bytes_at_most():
    from app.web.jsonio import dumps

    view = view_of()
    new = [
        view["attribution"],
        {k: view["arithmetic"][k] for k in ("value_norms", "contributions", "contribution_shares")},
    ]
    assert len(dumps(new)) < 500  # the head's n_k norms and the step's 3 x n_k numbers, no matrix
