"""The bilingual lexicon: the file, its size, the segmenter keeping its Chinese words whole, everyday
classroom sentences with no unknown word, and feature vectors whose similarities make sense.

Similarities are cosines (dot products of unit vectors): the engine may rescale the lexicon vectors, and
the direction of a vector is what survives the rescaling.
"""

from collections import defaultdict

import numpy as np
import pytest

from app.engine.text.embed import embed_tokens
from app.engine.text.lexicon import FEATURES, ROLE_NAMES, ROLES, load_lexicon, parse_features
from app.engine.text.tokenize import lexicon_split, tokenize
from tests.support.lexicon_file import lexicon_rows

ALLOWED_WEIGHTS = {"", "0.25", "0.5", "0.75"}  # "" = a bare name = weight 1


def chinese_alternatives(zh):
    return [word for word in zh.split("|") if word != "-"]


def texts(sentence):
    return [token.text for token in tokenize(sentence)]


def similarity(a, b):
    """Cosine of two words' vectors (a word, or a vector for one sense)."""
    lexicon = load_lexicon()
    u = lexicon.lookup(a) if isinstance(a, str) else a
    v = lexicon.lookup(b) if isinstance(b, str) else b
    return float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))


def sense(en, zh):
    """The vector of the one row of `en` that lists the Chinese word `zh` (bank + 河岸 = the river sense)."""
    matches = [f for _, e, z, f in lexicon_rows() if e == en and zh in z.split("|")]
    assert len(matches) == 1, (en, zh, matches)
    return parse_features(matches[0], 0)


# ---------------------------------------------------------------------------
# The file
# ---------------------------------------------------------------------------


def test_the_file_parses_into_rows_of_four_columns():
    rows = lexicon_rows()
    assert all(len(row) == 4 for row in rows), [row for row in rows if len(row) != 4]
    lexicon = load_lexicon()
    assert len(lexicon.vectors) == len(lexicon.english_words | lexicon.chinese_words)


def test_every_feature_name_is_known_weights_are_quarters_and_a_row_has_at_most_four():
    problems = []
    for number, _, _, features in lexicon_rows():
        items = [item.partition(":") for item in features.split()]
        names = [name for name, _, _ in items]
        if not 1 <= len(items) <= 4:
            problems.append(f"line {number}: {len(items)} features")
        if not set(names) <= set(FEATURES) or len(set(names)) != len(names):
            problems.append(f"line {number}: feature names {names}")
        problems += [f"line {number}: weight {weight!r}" for _, _, weight in items if weight not in ALLOWED_WEIGHTS]
    assert problems == []


def test_no_duplicate_rows():
    seen, duplicates = set(), []
    for number, en, zh, _ in lexicon_rows():
        pairs = [(en, word) for word in chinese_alternatives(zh)] or [(en, "-")]
        if len(set(pairs)) != len(pairs):
            duplicates.append(f"line {number}: a Chinese word twice in one row")
        for pair in pairs:
            if pair in seen and pair != ("-", "-"):
                duplicates.append(f"line {number}: {pair} again")
            seen.add(pair)
    senses = defaultdict(list)  # one row per sense: two rows of a word never share their features
    for _, en, _, features in lexicon_rows():
        if en != "-":
            senses[en].append(" ".join(sorted(features.split())))
    duplicates += [en for en, rows in senses.items() if len(set(rows)) != len(rows)]
    assert duplicates == []


def test_every_row_has_a_word_on_at_least_one_side_and_chinese_words_are_chinese_characters():
    for number, en, zh, _ in lexicon_rows():
        assert not (en == "-" and zh == "-"), number
        assert en == "-" or (en == en.strip().lower() and " " not in en), number
        for word in chinese_alternatives(zh):
            assert all("\u4e00" <= ch <= "\u9fff" for ch in word), (number, word)


def test_at_least_1000_english_words_and_1000_chinese_words():
    rows = lexicon_rows()
    english = {en for _, en, _, _ in rows if en != "-"}
    chinese = {word for _, _, zh, _ in rows for word in chinese_alternatives(zh)}
    lexicon = load_lexicon()
    assert lexicon.english_words == english and lexicon.chinese_words == chinese
    assert len(english) >= 1000
    assert len(chinese) >= 1000
    # Not padded with forms: words whose rows are identical (go/went/gone, big/large, i/me) count once,
    # and contractions (don't, i'm) not at all.
    entries = defaultdict(list)
    for _, en, zh, features in rows:
        entries[en].append((zh, features))
    distinct = {tuple(sorted(entries[word])) for word in english if "'" not in word}
    assert len(distinct) >= 1000


# ---------------------------------------------------------------------------
# Inflections: the loader finds the base word
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "form, base",
    [("bigger", "big"), ("biggest", "big"), ("larger", "large"), ("happiest", "happy"), ("quickly", "quick"),
     ("happily", "happy"), ("it's", "it"), ("Tom's", "tom"), ("teachers", "teacher"), ("running", "run")],
)  # fmt: skip
def test_inflected_forms_find_their_base_word(form, base):
    lexicon = load_lexicon()
    assert form.lower() not in lexicon.vectors
    np.testing.assert_array_equal(lexicon.lookup(form.lower()), lexicon.lookup(base))


def test_a_curly_apostrophe_is_read_as_a_straight_one():
    lexicon = load_lexicon()
    np.testing.assert_array_equal(lexicon.lookup("don’t"), lexicon.lookup("don't"))
    assert embed_tokens(tokenize("It’s cold, don’t go."))[1] == []


# ---------------------------------------------------------------------------
# Segmentation: the lexicon's Chinese words stay whole
# ---------------------------------------------------------------------------

TEMPLATES = ["{}", "我喜欢{}。", "{}很重要。", "他们的{}呢？", "看，{}！", "这个{}很好。", "我们说{}和{}。"]


def test_every_chinese_word_stays_one_token_alone_and_in_template_sentences():
    broken = []
    for word in sorted(load_lexicon().chinese_words):
        for template in TEMPLATES:
            sentence = template.replace("{}", word)
            if word not in texts(sentence):
                broken.append(f"{sentence}: {'/'.join(texts(sentence))}")
    assert broken == []


@pytest.mark.parametrize(
    "sentence, tokens",
    [
        ("小猫在河边散步", ["小猫", "在", "河边", "散步"]),
        ("我们在河边散步然后去银行取钱", ["我们", "在", "河边", "散步", "然后", "去", "银行", "取", "钱"]),
        ("我坐在河岸上", ["我", "坐", "在", "河岸", "上"]),
        ("我把钱放在银行里", ["我", "把", "钱", "放", "在", "银行", "里"]),
        ("小猫喝了牛奶，因为它饿了。", ["小猫", "喝", "了", "牛奶", "，", "因为", "它", "饿", "了", "。"]),
        ("汤姆追逐杰瑞", ["汤姆", "追逐", "杰瑞"]),
        ("我爱你", ["我", "爱", "你"]),
        # the lexicon's words do not flatten jieba's sense of common words: not 他/说明/天/会
        ("他说明天会下雨", ["他", "说", "明天", "会", "下雨"]),
        ("这本书多少钱", ["这", "本", "书", "多少", "钱"]),
        ("孩子们在操场上踢足球", ["孩子", "们", "在", "操场", "上", "踢", "足球"]),
    ],
)
def test_natural_sentences_are_segmented_into_lexicon_words(sentence, tokens):
    assert texts(sentence) == tokens


@pytest.mark.parametrize(
    "phrase, pieces",
    [("我爱你", ["我", "爱", "你"]), ("打篮球", ["打", "篮球"]), ("很大", ["很", "大"]), ("三只", ["三", "只"]),
     ("看着", ["看", "着"]), ("家里", ["家", "里"]), ("长长的", ["长", "长", "的"]), ("本书", ["本", "书"])],
)  # fmt: skip
def test_a_phrase_jieba_returns_whole_is_cut_into_lexicon_words(phrase, pieces):
    assert phrase not in load_lexicon().chinese_words
    assert lexicon_split(phrase) == pieces


@pytest.mark.parametrize("word", ["关系", "条件", "部门", "个人", "只要", "进行", "湖北", "放心", "人口"])
def test_a_real_word_the_lexicon_lacks_is_not_cut_into_unrelated_words(word):
    known = load_lexicon().chinese_words
    assert word not in known
    assert all(character in known for character in word)  # it could be spelled from lexicon words
    assert lexicon_split(word) == [word]


# ---------------------------------------------------------------------------
# Everyday classroom sentences: every word is known
# ---------------------------------------------------------------------------

ENGLISH_SENTENCES = """\
My name is Lily and I am ten years old.
I have a brother and two sisters.
The cat is sleeping under the table.
We go to school by bus every morning.
What time is it now?
It is raining, so take your umbrella.
My mother cooks dinner in the kitchen.
The dog ran after the ball in the park.
Can you help me with my homework?
I like apples but I don't like bananas.
There are thirty students in our class.
The teacher is writing on the blackboard.
Tom is taller than Jerry.
Where is the nearest hospital?
She bought a new dress for her birthday.
The sun rises in the east.
Birds can fly, but fish can swim.
It's very cold in winter.
We had a picnic by the lake last Sunday.
How much is this book?
My father works in a bank.
The children are playing football on the playground.
Please open the window.
I am hungry. Let's eat some noodles.
He lives in a small village near the mountains.
The river flows into the sea.
Do you want a cup of tea?
Yesterday I went to the zoo with my family.
The elephant is the biggest animal in the zoo.
Why are you sad?
I was late for school because I missed the bus.
She can speak English and Chinese.
Look at the beautiful flowers in the garden.
Our classroom is clean and bright.
The little girl is afraid of the dark.
We should drink more water every day.
My grandmother tells us stories at night.
The shop opens at nine o'clock.
I put my money in the bank.
The boy fell off his bike and hurt his knee.
Which season do you like best?
In spring the trees turn green.
He is reading a book about dinosaurs.
The baby is crying because she is tired.
Turn left at the traffic lights.
I often play basketball with my friends after school.
The train leaves at half past seven.
My sister is a doctor in a big hospital.
Don't run in the classroom!
We are going to visit Beijing next summer.
Who is your favourite singer?
The quick brown fox jumps over the lazy dog.
I forgot my pencil at home.
The students listened carefully to the teacher.
There is a bird in the tree.
Mary has long black hair.
How do you spell your name?
The moon is bright tonight.
It takes ten minutes to walk to the station.
I usually get up at seven o'clock.
The water in the river is cold and clear.
My brother wants to be a pilot when he grows up.
Thank you for your help.
We watched a funny movie on Saturday.
The farmer has many cows and sheep.
Be careful when you cross the road.
Are these your shoes?
The cake smells delicious.
I sat by the river bank.
I put money in the bank.
The cat drank the milk because it was hungry.
Tom chased Jerry around the house.
I love you.
Walk by the river bank.
She gave me a red apple.
Let's meet at the library on Friday.
The old man is sitting on a chair.
My friend lives in a tall building.
What is the weather like today?
The wind is blowing and the leaves are falling.""".splitlines()

CHINESE_SENTENCES = """\
我叫莉莉，今年十岁。
我有一个哥哥和两个妹妹。
小猫在桌子下面睡觉。
我们每天早上坐公交车去学校。
现在几点了？
下雨了，带上你的雨伞。
妈妈在厨房里做晚饭。
小狗在公园里追着球跑。
你能帮我做作业吗？
我喜欢吃苹果，但是不喜欢吃香蕉。
我们班有三十个学生。
老师在黑板上写字。
汤姆比杰瑞高。
最近的医院在哪里？
她过生日的时候买了一条新裙子。
太阳从东方升起。
鸟会飞，鱼会游泳。
冬天非常冷。
上个星期天我们在湖边野餐。
这本书多少钱？
我爸爸在银行工作。
孩子们在操场上踢足球。
请打开窗户。
我饿了，我们去吃面条吧。
他住在山脚下的一个小村子里。
河水流进大海。
你想喝杯茶吗？
昨天我和家人去了动物园。
大象是动物园里最大的动物。
你为什么难过？
我上学迟到了，因为我没赶上公交车。
她会说英语和汉语。
看花园里美丽的花。
我们的教室又干净又明亮。
那个小女孩怕黑。
我们每天应该多喝水。
奶奶晚上给我们讲故事。
商店九点开门。
我把钱存进了银行。
男孩从自行车上摔下来，伤了膝盖。
你最喜欢哪个季节？
春天树都变绿了。
他在看一本关于恐龙的书。
宝宝哭了，因为她累了。
在红绿灯那里向左转。
放学后我常常和朋友们打篮球。
火车七点半开。
我姐姐是一家大医院的医生。
不要在教室里跑！
明年夏天我们要去北京旅游。
我们在河边散步。
我们在河边散步然后去银行取钱。
我坐在河岸上。
我把钱放在银行里。
小猫喝了牛奶，因为它饿了。
汤姆追逐杰瑞。
我爱你。
今天天气怎么样？
风在吹，树叶在落。
谢谢你的帮助。
我们星期六看了一部有趣的电影。
农民有很多牛和羊。
过马路的时候要小心。
这是你的鞋吗？
蛋糕闻起来很香。
我忘了带铅笔。
学生们认真地听老师讲课。
树上有一只鸟。
玛丽有一头长长的黑头发。
你的名字怎么拼？
今晚月亮很亮。
走到车站要十分钟。
我通常七点起床。
我弟弟长大以后想当飞行员。
她给了我一个红苹果。
我们星期五在图书馆见面吧。
那个老人坐在椅子上。
我的朋友住在一座很高的楼里。
我的猫很可爱。
这只狗跑得很快。
他说明天会下雨。
这个东西很好吃。
我马上就来。
他有很多朋友。
妈妈让我早点睡觉。
我们一起去公园玩吧。
我的书包里有三本书和两支笔。
你有没有看见我的钥匙？
他们正在教室里上课。
下课以后我们去操场跑步。
这件衣服太贵了。
我家有四口人。
爸爸每天开车上班。
天黑了，我们回家吧。
小明的妈妈是老师。
我想喝一杯热牛奶。
外面下雪了，很冷。
请把门关上。
我们学校有一个很大的图书馆。
老师问了我一个问题。
他跑得比我快。
我们在河里游泳。
桌子上有一个红色的杯子。
猫在追一只老鼠。
我的生日是五月十号。
明天我们要考试。
他的房间又小又乱。
我喜欢看书，也喜欢画画。
这条河很长。
我们应该保护动物。
他坐飞机去上海。
你吃早饭了吗？
哥哥比我大三岁。
这是我第一次来北京。
我不知道他的名字。
我们的老师很喜欢笑。
秋天的树叶是黄色的。
我每天晚上九点睡觉。
银行在邮局旁边。""".splitlines()


def test_there_are_at_least_60_sentences_in_each_language():
    assert len(ENGLISH_SENTENCES) >= 60 and len(set(ENGLISH_SENTENCES)) == len(ENGLISH_SENTENCES)
    assert len(CHINESE_SENTENCES) >= 60 and len(set(CHINESE_SENTENCES)) == len(CHINESE_SENTENCES)


@pytest.mark.parametrize("sentence", ENGLISH_SENTENCES + CHINESE_SENTENCES)
def test_every_word_of_an_everyday_sentence_is_in_the_lexicon(sentence):
    _, unknown = embed_tokens(tokenize(sentence))
    assert unknown == [], "/".join(texts(sentence))


# ---------------------------------------------------------------------------
# Meaningful vectors: related words are more similar than unrelated ones
# ---------------------------------------------------------------------------


def test_the_river_bank_is_near_the_river_and_the_money_bank_near_money():
    river_bank, money_bank = sense("bank", "河岸"), sense("bank", "银行")
    assert similarity("river", river_bank) > similarity("river", money_bank) > similarity("river", "money")
    assert similarity("money", money_bank) > similarity("money", river_bank)
    for word in ("water", "fish", "riverside", "lake", "boat"):
        assert similarity(word, river_bank) > similarity(word, money_bank), word
    for word in ("pay", "buy", "cash", "price", "rich"):
        assert similarity(word, money_bank) > similarity(word, river_bank), word
    # the Chinese words are one sense each
    assert similarity("河岸", "river") > similarity("银行", "river")
    assert similarity("银行", "money") > similarity("河岸", "money")


@pytest.mark.parametrize(
    "word, related, unrelated",
    [
        ("river", "water", "money"), ("river", "fish", "pay"), ("money", "pay", "river"), ("money", "buy", "fish"),
        ("pay", "buy", "swim"), ("cat", "dog", "milk"), ("cat", "mouse", "bread"), ("cat", "animal", "food"),
        ("dog", "animal", "meat"), ("milk", "water", "cat"), ("eat", "food", "river"), ("apple", "banana", "teacher"),
        ("teacher", "student", "apple"), ("school", "classroom", "river"), ("doctor", "nurse", "tree"),
        ("rain", "weather", "money"), ("snow", "winter", "summer"), ("hot", "summer", "winter"),
        ("cold", "winter", "summer"), ("big", "elephant", "ant"), ("small", "ant", "elephant"),
        ("run", "walk", "book"), ("say", "speak", "eat"), ("read", "book", "food"), ("happy", "love", "table"),
        ("sad", "cry", "laugh"), ("morning", "breakfast", "dinner"), ("mother", "father", "river"),
        ("hand", "finger", "money"), ("car", "bus", "apple"), ("tree", "flower", "phone"),
        ("week", "month", "apple"), ("red", "blue", "run"), ("shirt", "dress", "river"),
    ],
)  # fmt: skip
def test_related_words_are_more_similar_than_unrelated_ones(word, related, unrelated):
    assert similarity(word, related) > similarity(word, unrelated)


def test_cat_is_nearer_to_animals_than_to_food():
    animals = ["dog", "mouse", "rabbit", "bird", "tiger", "animal"]
    foods = ["milk", "bread", "rice", "apple", "meat", "food"]
    assert min(similarity("cat", a) for a in animals) > max(similarity("cat", f) for f in foods)


def test_personal_pronouns_are_nearer_to_each_other_than_to_nouns():
    pronouns = ["i", "you", "he", "she", "we", "they"]
    nouns = ["cat", "river", "money", "school", "book", "apple", "teacher", "mother", "friend", "table"]
    between = min(similarity(p, q) for p in pronouns for q in pronouns if p != q)
    assert between > max(similarity(p, n) for p in pronouns for n in nouns)
    # and they never tie, except he and she (there is no gender feature)
    ties = [(p, q) for p in pronouns for q in pronouns if p < q and similarity(p, q) > 0.999]
    assert ties == [("he", "she")]


def test_the_pronoun_is_nearer_to_the_cat_than_to_the_milk():
    # "the cat drank the milk because it was hungry"
    assert similarity("it", "cat") > similarity("it", "milk") > similarity("it", "hungry")


@pytest.mark.parametrize(
    "source, target",
    [(["tom", "chase", "jerry"], ["汤姆", "追逐", "杰瑞"]), (["i", "love", "you"], ["我", "爱", "你"])],
)
def test_each_chinese_word_of_a_translation_example_is_nearest_its_counterpart(source, target):
    for position, chinese in enumerate(target):
        similarities = [similarity(chinese, english) for english in source]
        others = similarities[:position] + similarities[position + 1 :]
        assert similarities[position] > max(others), (chinese, similarities)


def test_every_row_has_a_role_and_the_common_words_have_the_right_one():
    from tests.support.lexicon_file import lexicon_roles

    rows = lexicon_roles()
    assert all(role in ROLE_NAMES for _, _, _, role in rows), [r for r in rows if r[3] not in ROLE_NAMES]
    role_of = {(en, zh): role for _, en, zh, role in rows}
    assert role_of[("the", "-")] == "determiner" and role_of[("my", "我的")] == "determiner"
    assert role_of[("walk", "散步|走|走路")] == "verb" and role_of[("in", "在|里")] == "preposition"
    assert role_of[("bank", "银行")] == role_of[("bank", "河岸")] == "noun"
    assert role_of[("because", "因为")] == "conjunction" and role_of[("-", "吗")] == "particle"
    counts = {name: sum(role == name for *_, role in rows) for name in ROLE_NAMES}
    assert counts["noun"] > counts["verb"] > counts["adjective"] > 100, counts  # everyday words, mostly nouns
    lexicon = load_lexicon()
    np.testing.assert_array_equal(lexicon.roles["河岸"], np.eye(len(ROLES))[ROLES.index("noun")])
    np.testing.assert_allclose(lexicon.roles["她"], [0.5, 0, 0, 0, 0.5, 0, 0, 0])  # she (a pronoun) and her
