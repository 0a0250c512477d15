"""Every example and lesson states what its view shows, in numbers; the engine must show exactly that.

The claims themselves live beside the texts (app/view/presets.py, lessons.py); this file checks them
all against the engine, and checks the named heads' invariants with hypothesis.
"""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.attention.multihead import multi_head_attention
from app.engine.attention.named_heads import NAMED_HEADS, named_heads
from app.engine.text.embed import column_names, embed_tokens
from app.engine.text.lexicon import load_lexicon
from app.engine.text.tokenize import tokenize
from app.view.claims import Claim, ClaimFailed, check
from app.view.lessons import LESSONS, lessons_for
from app.view.presets import PRESETS, preset_numbers, preset_state, presets_for


@pytest.mark.parametrize("preset", PRESETS, ids=[p["id"] for p in PRESETS])
def test_every_example_shows_what_it_says(preset):
    assert preset["claims"], "every example states a claim in numbers"
    state = preset_state(preset["id"])
    for claim in preset["claims"]:
        check(state, claim)  # raises ClaimFailed when the view does not show it
    numbers = preset_numbers(preset["id"])
    for lang in ("en", "zh"):
        text = preset["lesson"][lang].format(**numbers)
        assert "{" not in text and "seed" not in text.lower(), text


def test_the_classic_examples_at_default_settings():
    """Issue-level claims, written out: the defaults show the lesson without changing a setting."""
    from app.view.links import state_from_query

    translate = state_from_query("source=Tom+chase+Jerry&target=汤姆+追逐+杰瑞")
    love = state_from_query("source=I+love+you&target=我+爱+你")
    for state, pairs in ((translate, ["Tom", "chase", "Jerry"]), (love, ["I", "love", "you"])):
        for step, key in enumerate(pairs):
            assert check(state, Claim("top", step=step, key=key, at_least=0.4))["weight"] >= 0.4
    river = state_from_query("source=I+sat+by+the+river+bank")
    money = state_from_query("source=I+put+money+in+the+bank")
    assert check(river, Claim("top", step=5, key="river"))["key"] == "river"
    assert check(money, Claim("top", step=5, key="money"))["key"] == "money"
    assert check(state_from_query(""), Claim("top", step=3, key="river"))  # the default view: bank looks at river


def test_a_false_claim_fails():
    state = preset_state("river-bank")
    with pytest.raises(ClaimFailed):
        check(state, Claim("top", step=3, key="bank"))
    with pytest.raises(ClaimFailed):
        check(state, Claim("top", step=3, key="river", at_least=0.9999999))
    with pytest.raises(ClaimFailed):
        check(state, Claim("one_hot"))
    with pytest.raises(ClaimFailed, match="below 0.95"):  # bank puts 0.999 on river: saturated
        check(state, Claim("top", step=3, key="river", below=0.95))
    assert check(preset_state("bank-tree"), Claim("top", step=5, key="river", below=0.95))["weight"] < 0.95
    made_up = preset_state("mt-made-up")
    with pytest.raises(ClaimFailed, match="made up"):  # 停 translates stopped: nothing made up at step 1
        check(made_up, Claim("made_up", step=1, key="stopped"))
    with pytest.raises(ClaimFailed, match="expected the"):  # 迈克 was made up looking at rain, not the
        check(made_up, Claim("made_up", step=0, key="the"))
    with pytest.raises(ClaimFailed, match="made up"):  # the right translation: nothing made up, nothing left out
        check(made_up.replace(source="Tom chase Jerry"), Claim("made_up", step=2, key="jerry"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_lesson_quotes_its_view(lang, client):
    lessons = lessons_for(lang)
    assert len(lessons) == len(LESSONS)
    for lesson in lessons:
        assert "{" not in lesson["text"] and "seed" not in lesson["text"].lower(), lesson["text"]
        assert re.search(r"\d\.\d\d", lesson["text"]) or "0 或 1" in lesson["text"] or "0 or 1" in lesson["text"]
        assert client.get(lesson["link"]).status_code == 200


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_examples_are_offered_with_their_numbers(lang):
    offered = presets_for(lang)
    assert [p["id"] for p in offered] == [p["id"] for p in PRESETS]
    for preset in offered:
        assert "{" not in preset["lesson"]


# ---------------------------------------------------------------------------
# Named heads: invariants
# ---------------------------------------------------------------------------

WORDS = sorted(word for word in load_lexicon().english_words if word.isalpha())


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=12),
    st.sampled_from(sorted(NAMED_HEADS)),
    st.sampled_from([1, 2, 4]),
    st.booleans(),
    st.one_of(st.none(), st.integers(0, 4)),
    st.booleans(),
)
def test_named_heads_give_distributions_that_honour_the_mask(words, kind, n_heads, positional, window, causal):
    tokens = tokenize(" ".join(words))
    x, _ = embed_tokens(tokens, positional=positional)
    causal = causal and kind == "self"
    result = multi_head_attention(
        x, x, n_heads=n_heads, projection="named", window=window, causal=causal,
        inputs=column_names("lexicon", 16, positional), kind=kind,
    )  # fmt: skip
    assert len(result.heads) == n_heads
    for head, named in zip(result.heads, named_heads(kind, n_heads), strict=True):
        np.testing.assert_allclose(head.weights.sum(axis=1), 1.0, atol=1e-9)
        assert np.all(head.weights[~head.mask] == 0)
        assert head.q.shape[1] == len(named.dimensions)
        np.testing.assert_array_equal(head.parameters["W_V"], np.eye(x.shape[1]))
    np.testing.assert_allclose(result.output, np.mean([h.output for h in result.heads], axis=0), atol=1e-9)


def test_the_previous_word_head_needs_positions():
    tokens = tokenize("the cat drank the milk because it was hungry")
    inputs = column_names("lexicon", 16, True)
    x, _ = embed_tokens(tokens, positional=True)
    head = multi_head_attention(x, x, n_heads=4, projection="named", inputs=inputs, kind="self").heads[2]
    assert [int(row.argmax()) for row in head.weights[1:]] == list(range(len(tokens) - 1))
    plain, _ = embed_tokens(tokens)
    blind = multi_head_attention(plain, plain, n_heads=4, projection="named", inputs=column_names("lexicon", 16, False))
    np.testing.assert_allclose(blind.heads[2].weights, 1 / len(tokens))  # without positions it cannot ask
