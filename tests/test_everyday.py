"""A teacher's own sentences at default settings: visible patterns, pronouns, translations, guessed roles.

The sentences (tests/data/everyday.py) were written for these tests and are used in no preset or lesson.
Everything goes through the JSON API, as the page gets it: with no head in the link, each step shows
the head whose question its word asks (``focus``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.attention.named_heads import NAMED_HEADS
from app.engine.text.lexicon import load_lexicon
from app.engine.text.roles import guess_role, word_tags
from app.engine.text.tokenize import Token, tokenize
from tests.data.everyday import EVERYDAY, PAIRS, PRONOUNS
from tests.support.views import whole

VISIBLE_SHARE = 0.70  # of all query steps


def view(client, **params) -> dict:
    response = client.get("/api/attention", params=params)
    assert response.status_code == 200, response.text
    return whole(client, response.json())


def shown_rows(body: dict) -> np.ndarray:
    """(n_q, n_k) the weights the page shows at each step: row i of the head shown at step i."""
    rows = np.array(body["focus"]["rows"])  # (n_heads, n_q, n_k)
    heads = body["focus"]["heads"]
    return np.array([rows[h, i] for i, h in enumerate(heads)])


def is_visible(row: np.ndarray, step: int | None) -> bool:
    """The largest weight on another word is >= 0.3 and at least twice the mean of the other non-self words."""
    others = np.delete(row, step) if step is not None else row  # (n_k - 1,) self left out
    best = int(others.argmax())
    rest = np.delete(others, best)
    return others[best] >= 0.3 and (rest.size == 0 or others[best] >= 2 * rest.mean())


def test_the_sentences_are_everyday_and_new():
    from app.view.lessons import LESSONS
    from app.view.presets import PRESETS

    used = {str(value) for preset in PRESETS for value in preset["params"].values()}
    used |= {str(lesson) for lesson in LESSONS}
    assert len(EVERYDAY) >= 30 and len(PAIRS) >= 40
    chinese = [s for s in EVERYDAY if any("\u4e00" <= ch <= "\u9fff" for ch in s)]
    assert len(chinese) >= 10 and len(EVERYDAY) - len(chinese) >= 10
    for sentence in EVERYDAY:
        assert 5 <= len(tokenize(sentence)) <= 15, sentence
        assert not any(sentence in text for text in used), sentence


def test_most_steps_of_everyday_sentences_show_a_visible_pattern(client):
    visible = total = 0
    for sentence in EVERYDAY:
        body = view(client, source=sentence)
        assert body["params"]["heads"] is None and body["n_heads"] == len(NAMED_HEADS["self"])
        for step, row in enumerate(shown_rows(body)):
            total += 1
            visible += is_visible(row, step)
    assert visible / total >= VISIBLE_SHARE, f"{visible} of {total} steps"


def test_the_view_at_a_step_shows_the_head_its_word_asks(client):
    sentence = EVERYDAY[2]
    body = view(client, source=sentence)
    for step, head in enumerate(body["focus"]["heads"]):
        at_step = view(client, source=sentence, step=step)
        assert at_step["focus"]["head"] == head
        np.testing.assert_array_equal(at_step["head"]["weights"], np.array(body["focus"]["rows"])[head])
        assert at_step["arithmetic"]["weights"] == at_step["head"]["weights"][step]


@pytest.mark.parametrize("sentence, pronoun, noun", PRONOUNS)
def test_a_pronoun_with_one_candidate_points_to_it(client, sentence, pronoun, noun):
    keys = [token.key for token in tokenize(sentence)]
    step = keys.index(pronoun)
    body = view(client, source=sentence, step=step)
    assert body["named_head"]["name"] == "pronoun"
    row = np.array(body["head"]["weights"][step])
    assert keys[int(row.argmax())] == noun and row.max() >= 0.4, row
    assert body["focus"]["notes"][step]["en"].startswith(f"“{pronoun}” asks Head 2 (pronoun)")


def counterparts(chinese: str, english: list[str]) -> set[int]:
    """Positions of the English words whose lexicon rows list the Chinese word (its counterparts)."""
    lexicon = load_lexicon()
    found = set()
    for j, word in enumerate(english):
        entry = lexicon.entry(word.lower())
        if entry is not None and entry in SENSES_OF.get(chinese, set()):
            found.add(j)
    return found


def senses_of() -> dict[str, set[str]]:
    """Chinese word -> the English words of the lexicon rows that list it."""
    from tests.support.lexicon_file import lexicon_rows

    table: dict[str, set[str]] = {}
    for _, en, zh, _ in lexicon_rows():
        for word in zh.split("|"):
            if en != "-" and word != "-":
                table.setdefault(word, set()).add(en)
    return table


SENSES_OF = senses_of()


@pytest.mark.parametrize("english, chinese", PAIRS, ids=[e for e, _ in PAIRS])
def test_each_chinese_word_looks_most_at_its_counterpart(client, english, chinese):
    body = view(client, source=english, target=chinese)
    assert body["unknown_tokens"] == []
    keys, queries = body["tokens"]["keys"], body["tokens"]["queries"]
    weights = np.array(body["head"]["weights"])  # every step shows the counterpart head
    assert set(body["focus"]["heads"]) == {0} and body["named_head"]["name"] == "counterpart"
    checked = 0
    for i, word in enumerate(queries):
        own = counterparts(word, keys)
        if not own:
            continue  # a word with no counterpart in this sentence (很, 了, 在 before a place)
        checked += 1
        best = int(weights[i].argmax())
        assert best in own and weights[i, best] >= 0.4, (word, keys[best], weights[i])
        others = [weights[i, j] for j in range(len(keys)) if j not in own]
        assert not others or weights[i, best] >= 1.5 * max(others), (word, weights[i])  # clearly ahead
    assert checked >= 2


def test_the_classic_confusions_are_resolved(client):
    """Two animals, I and my: words that share features, told apart."""
    fox = view(client, source="the fox eats the rabbit", target="狐狸 吃 兔子")
    weights = np.array(fox["head"]["weights"])
    assert weights[0].argmax() == 1 and weights[2].argmax() == 4  # 狐狸 -> fox, 兔子 -> rabbit
    miss = view(client, source="I miss my father", target="我 想念 我的 父亲")
    weights = np.array(miss["head"]["weights"])
    assert weights[0].argmax() == 0 and weights[2].argmax() == 2  # 我 -> I, 我的 -> my


# ---------------------------------------------------------------------------
# The head in focus, and the notes that say why
# ---------------------------------------------------------------------------


def test_each_kind_of_word_asks_its_own_head(client):
    body = view(client, source="the young woman reads an old book in the garden , he said")
    names = body["focus"]["names"]
    shown = [names[h] for h in body["focus"]["heads"]]
    asked = body["focus"]["asks"]
    assert shown[:4] == ["describes", "describes", "verb", "doer"]  # the, young, woman, reads
    assert shown[7] == "preposition" and shown[11] == "pronoun"  # in, he
    assert asked[10] is None and shown[10] == "previous"  # the comma asks nothing
    assert body["focus"]["notes"][10]["en"] == "No head's question applies to “,”; shown: Head 3 (previous)."
    assert "没有哪个头的问题适用于" in body["focus"]["notes"][10]["zh"]


def test_a_head_in_the_link_is_kept_at_every_step(client):
    body = view(client, source="walk by river bank", head=3)
    assert not body["focus"]["auto"] and body["focus"]["heads"] == [3, 3, 3, 3]
    assert "head=3" in body["share_path"]
    assert body["focus"]["notes"][0]["en"].startswith("Head 4 (doer) asks")


def test_bank_asks_the_sense_head_and_walk_is_not_a_flat_row(client):
    body = view(client, source="walk by river bank")
    names = body["focus"]["names"]
    assert names[body["focus"]["heads"][3]] == "sense"
    rows = shown_rows(body)
    assert all(is_visible(row, step) for step, row in enumerate(rows)), rows


def test_identity_and_random_projections_show_head_zero(client):
    body = view(client, source="walk by river bank", projection="identity")
    assert body["focus"]["heads"] == [0, 0, 0, 0] and body["focus"]["notes"] is None


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(sorted(load_lexicon().english_words) + [",", "."]), min_size=1, max_size=12))
def test_every_step_shows_a_computed_head(words):
    from app.view.compute import compute_view
    from app.view.state import State

    body = compute_view(State(source=" ".join(words)))
    n_heads = body["n_heads"]
    for asked, shown in zip(body["focus"]["asks"], body["focus"]["heads"], strict=True):
        assert 0 <= shown < n_heads
        assert asked is None or asked == shown
    rows = body["focus"]["rows"]
    np.testing.assert_allclose(np.sum(rows, axis=-1), 1.0, atol=1e-12)


# ---------------------------------------------------------------------------
# Words the lexicon lacks: roles guessed by rules, and listed
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "word, role, how",
    [
        ("zorbling", "verb", "ending -ing"),
        ("blorped", "verb", "ending -ed"),
        ("quizzically", "adverb", "ending -ly"),
        ("frobnication", "noun", "ending -tion"),
        ("glorious", "adjective", "ending -ous"),
        ("wugs", "noun", "ending -s"),
        ("although", "conjunction", "function word"),
        ("qwxjv", "noun", "no rule: noun"),
    ],
)
def test_english_roles_are_guessed_from_endings_and_function_words(word, role, how):
    guess = guess_role(Token(word, word))
    assert (guess.role, guess.how) == (role, how)


def test_chinese_roles_are_guessed_from_jiebas_tags():
    assert guess_role(Token("跑步机", "跑步机")).role == "noun"
    assert guess_role(Token("咕噜", "咕噜")).how.startswith("jieba tag ")


def test_the_tagger_reads_jiebas_dictionary_as_jieba_does(tmp_path):
    """roles.word_tags reads the dictionary whole; jieba's POSTokenizer.load_word_tag reads it line by line:
    the same table, and a line that is not "word frequency tag" is refused by both."""
    import jieba.posseg

    path = tmp_path / "dict.txt"
    path.write_bytes("银行 3000 n\n追逐 120 v\r\n\n  很 9000 d  \n咕噜 5 o\n".encode())
    jiebas = jieba.posseg.POSTokenizer.__new__(jieba.posseg.POSTokenizer)
    jiebas.load_word_tag(path.open("rb"))
    assert word_tags(path.open("rb")) == jiebas.word_tag_tab == {"银行": "n", "追逐": "v", "很": "d", "咕噜": "o"}
    for broken in ("银 行 3000 n\n", "银行 3000\n追逐 120 v\n"):
        path.write_bytes(broken.encode())
        with path.open("rb") as file, pytest.raises(ValueError):
            jiebas.load_word_tag(file)  # which leaves the file open when it refuses a line
        with pytest.raises(ValueError):
            word_tags(path.open("rb"))


def test_the_page_lists_which_words_were_guessed_and_how(client):
    body = view(client, source="the zorbling cat quizzically blorped")
    guessed = {g["word"]: (g["role"], g["how"]) for g in body["guessed_roles"]}
    assert guessed == {
        "zorbling": ("verb", "ending -ing"),
        "quizzically": ("adverb", "ending -ly"),
        "blorped": ("verb", "ending -ed"),
    }
    assert body["unknown_tokens"] == ["zorbling", "quizzically", "blorped"]
