"""The HSK sentences that measure the translators (tools/translator/real_pairs.py): what is read, the tenth held out,
how they are judged, and how the `train.py --real-pairs` trial hides a word too rare to learn on both sides. The
committed weights were not trained on them (their vocab.json names no `real_pairs_sha256`)."""

import collections

from hsk_sentences_audio import load_sentences

from app.engine.models import mt_check, mt_dictionary
from tools.translator import dataset, everyday, real_pairs


def test_a_tenth_is_held_out_by_the_sentence_itself_and_never_trained_on():
    every = real_pairs.sentences()
    held = [s for s in every if real_pairs.is_held_out(s)]
    # 4,354 records: 80 placeholders without a translation, 48 second translations or hand-written sentences (the
    # fifth set took one from the tuning part: thank you for your help); the tenth is chosen by the words as the
    # translators read them, so reading digits in words moved a few sentences with numbers (none of HSK 1-3)
    assert (len(load_sentences()), len(every), len(held)) == (4354, 4226, 408)
    trained = {" ".join(p["en"].split()) for p in real_pairs.training_pairs([])}
    assert not trained & {" ".join(s.words) for s in held}
    # the same sentences in any process and on any machine: sha256 of the English, not Python's salted hash
    assert [s.id for s in held[:3]] == ["hsk1-0007", "hsk1-0009", "hsk1-0035"]


def test_the_hand_written_sets_that_the_package_also_has_are_left_out():
    package = {" ".join(real_pairs.source_words(r["translation"]["en"])) for r in load_sentences()}
    hand_written = dataset.hand_written_sentences()
    shared = package & hand_written
    assert {"please close the door", "i usually get up at seven", "the sun rises in the east"} <= shared
    assert not shared & {" ".join(s.words) for s in real_pairs.sentences()}


def test_de_after_a_pronoun_is_one_word_as_the_corpus_writes_it():
    zh = {s.english: s.zh for s in real_pairs.sentences()}
    assert zh["He took my book away."] == ("他", "拿走", "了", "我的", "书")
    assert all("的" not in s.zh[i + 1 : i + 2] or s.zh[i] not in ("我", "他", "她") for s in real_pairs.sentences()
               for i in range(len(s.zh)))  # fmt: skip


def test_a_hidden_english_word_hides_exactly_the_chinese_word_whose_gloss_names_it():
    pairs = real_pairs.training_pairs([])  # no corpus: every word must be common among the sentences themselves
    counts_en = collections.Counter(w for s in real_pairs.sentences() if not real_pairs.is_held_out(s) for w in s.words)
    sources = iter(s for s in real_pairs.sentences() if not real_pairs.is_held_out(s))  # the pairs keep their order
    hidden_pairs = 0
    for pair in pairs:
        en, zh = pair["en"].split(), pair["zh"].split()
        source = next(s for s in sources if len(s.words) == len(en) and len(s.zh) == len(zh)
                      and all(a == b or a.startswith("<unk") for a, b in zip(en, s.words, strict=True)))  # fmt: skip
        hidden = [j for j, w in enumerate(en) if w.startswith("<unk")]
        unknown = {i for i, w in enumerate(zh) if w == real_pairs.UNK}
        assert len(hidden) == len(unknown)
        for j in hidden:  # its typed <unk>, and the one Chinese word its gloss names became <unk>
            assert en[j] == mt_dictionary.unknown_token(source.words[j])
            assert len(set(real_pairs.naming(source, source.words[j])) & unknown) >= 1
        assert all(w in mt_dictionary.UNKNOWN_TOKENS or counts_en[w] >= real_pairs.MIN_COUNT for w in en)
        hidden_pairs += bool(hidden)
    assert 0 < hidden_pairs < len(pairs)


def test_the_gloss_that_names_a_word_worked_through():
    source = next(s for s in real_pairs.sentences() if s.english == "The flight was delayed two hours.")
    assert source.zh == ("航班", "晚点", "了", "两", "个", "小时")
    assert real_pairs.naming(source, "delayed") == [1]  # 晚点: "(of trains etc) late; delayed"
    assert real_pairs.naming(source, "hours") == [5]  # 小时: "hour", the lemma the dictionary gives
    assert real_pairs.naming(source, "was") == []  # 了's gloss names no English word of it
    # a word the dictionary lacks is named only as it is written: napping is not nap (午睡, "to take a nap ...")
    napping = next(s for s in real_pairs.sentences() if s.english == "I have the habit of napping at noon.")
    assert mt_dictionary.lookup("napping") is None
    assert real_pairs.naming(napping, "napping") == []


def test_held_out_items_judge_every_content_word_by_the_reference_or_the_dictionary():
    items = real_pairs.items()
    assert len(items) > 300 and all(item.content for item in items)
    judged = named_first = 0
    for item in items:
        words = everyday.judged_words(item.en)  # the meeting: the noun, as read
        suggestion = {w for j, w in enumerate(words) if real_pairs.is_suggestion(words, j)}
        assert {
            w for w in words if mt_check.is_english_content(w) and mt_check.counterparts(w, with_taught=False)
        } - suggestion <= set(item.content)  # every content word the dictionary knows is judged
        for english, alternatives in item.content.items():
            assert english in words and alternatives
            assert not set(alternatives) & mt_check.GRAMMAR - mt_check.counterparts(english, with_taught=False)
            judged += 1
            named_first += alternatives[0] in item.zh
    assert named_first > judged / 2  # most are judged by the reference's own word first
    every = real_pairs.items(every=True)
    assert len(every) > 9 * len(items) and {item.en for item in items} <= {item.en for item in every}


def test_let_in_a_suggestion_is_not_judged_where_the_reference_has_no_word_for_it():
    every = {item.en: item for item in real_pairs.items(every=True)}
    assert "let" not in every["Let's eat together."].content  # 我们 一起 吃饭 吧: no 让 to ask for
    assert "let" not in every["Let me introduce my friend."].content  # 我 来 介绍 一 下 我的 朋友
    assert "eat" in every["Let's eat together."].content and "friend" in every["Let me introduce my friend."].content
    assert real_pairs.is_suggestion(("let", "'s", "go"), 0) and real_pairs.is_suggestion(("let", "us", "go"), 0)
    assert not real_pairs.is_suggestion(("let", "him", "go"), 0)  # a permission: 让 他 走, judged
    assert not real_pairs.is_suggestion(("they", "let"), 1)
    assert real_pairs.is_suggestion(["let", "'s", "go"], 0)  # a list as the translators read a sentence, too
