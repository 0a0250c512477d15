"""English→Chinese sentence pairs with their gold word alignments, from a small seeded grammar.

Every word on both sides is a word of the lexicon (app/engine/text/lexicon.tsv): an English word with
one of its Chinese alternatives, or a Chinese particle / measure word the lexicon lists (的 了 把 们 个 只 …).
The grammar makes the alignments cross, not run down the diagonal:

    places and times move before the verb   I read books in the library   → 我 在 图书馆 看 书
    relative clauses go before their noun   the cat that chased Jerry    → 追逐 杰瑞 的 猫
    possessives                             the boy 's mother            → 男孩 的 妈妈
    measure words between number and noun   three books                  → 三 本 书
    把 moves the object before the verb     I put money in the bank      → 我 把 钱 放 在 银行 里
    because-clauses come first              I sleep because I am tired... → 因为 … 所以 …
    inflections                             she reads / he chased / the boys → 她 看 / 他 追逐 了 / 男孩 们
    the two senses of bank, by context      on the river bank → 河岸, at the bank → 银行
    the text's base-form sentence           tom chase jerry              → 汤姆 追逐 杰瑞

The Chinese is a function of the English (one English sentence, one translation). Every Chinese
word is aligned to the English words it translates (particles to the words that call for them:
了 to the past-tense verb, 的 to 's or to the relative "that", a measure word to its number and noun).

The train / val / test splits, with the everyday grammar's sentences beside these, are made by dataset.py.

Pure Python (no numpy, no torch).
"""

import random

# ---------------------------------------------------------------------------
# The words: English, Chinese, and what they need
# ---------------------------------------------------------------------------

# name: (en, zh)
NAMES = [
    ("tom", "汤姆"),
    ("jerry", "杰瑞"),
    ("mary", "玛丽"),
    ("john", "约翰"),
    ("alice", "爱丽丝"),
    ("bob", "鲍勃"),
    ("jack", "杰克"),
    ("lucy", "露西"),
    ("peter", "彼得"),
    ("anna", "安娜"),
]
# subject, object, possessive, Chinese subject/object, Chinese possessive, third person singular, "be"
PRONOUNS = [
    ("i", "me", "my", "我", "我的", False, "am"),
    ("you", "you", "your", "你", "你的", False, "are"),
    ("he", "him", "his", "他", "他的", True, "is"),
    ("she", "her", "her", "她", "她的", True, "is"),
    ("we", "us", "our", "我们", "我们的", False, "are"),
    ("they", "them", "their", "他们", "他们的", False, "are"),
]
# singular, plural, Chinese, measure word, kind
NOUNS = [
    ("boy", "boys", "男孩", "个", "person"),
    ("girl", "girls", "女孩", "个", "person"),
    ("teacher", "teachers", "老师", "位", "person"),
    ("student", "students", "学生", "个", "person"),
    ("doctor", "doctors", "医生", "位", "person"),
    ("friend", "friends", "朋友", "个", "person"),
    ("child", "children", "孩子", "个", "person"),
    ("man", "men", "男人", "个", "person"),
    ("woman", "women", "女人", "个", "person"),
    ("cat", "cats", "猫", "只", "animal"),
    ("dog", "dogs", "狗", "只", "animal"),
    ("mouse", "mice", "老鼠", "只", "animal"),
    ("bird", "birds", "鸟", "只", "animal"),
    ("rabbit", "rabbits", "兔子", "只", "animal"),
    ("monkey", "monkeys", "猴子", "只", "animal"),
    ("tiger", "tigers", "老虎", "只", "animal"),
    ("fish", "fish", "鱼", "条", "animal"),
    ("book", "books", "书", "本", "object"),
    ("newspaper", "newspapers", "报纸", "张", "object"),
    ("pen", "pens", "笔", "支", "object"),
    ("car", "cars", "车", "辆", "object"),
    ("ball", "balls", "球", "个", "object"),
    ("picture", "pictures", "画", "张", "object"),
    ("bag", "bags", "包", "个", "object"),
    ("box", "boxes", "盒子", "个", "object"),
    ("cup", "cups", "杯子", "个", "object"),
    ("shirt", "shirts", "衬衫", "件", "object"),
    ("toy", "toys", "玩具", "个", "object"),
    ("apple", "apples", "苹果", "个", "food"),
    ("cake", "cakes", "蛋糕", "块", "food"),
    ("egg", "eggs", "鸡蛋", "个", "food"),
    ("banana", "bananas", "香蕉", "个", "food"),
]
# nouns that are possessed ("the boy 's mother"): people's relatives and things
RELATIVES = [("mother", "妈妈"), ("father", "爸爸"), ("sister", "姐姐"), ("brother", "哥哥")]
MASS = [("money", "钱", "thing"), ("water", "水", "drink"), ("milk", "牛奶", "drink"), ("tea", "茶", "drink"),
        ("rice", "米饭", "food"), ("bread", "面包", "food")]  # fmt: skip
# adjective, Chinese, kinds it goes with, Chinese needs 的
ADJECTIVES = [
    ("big", "大", ("animal", "object"), False),
    ("small", "小", ("animal", "object", "food"), False),
    ("old", "老", ("person", "animal"), False),
    ("new", "新", ("object",), False),
    ("red", "红", ("object", "food"), False),
    ("black", "黑", ("animal", "object"), False),
    ("white", "白", ("animal", "object"), False),
    ("fat", "胖", ("animal", "person"), False),
    ("lazy", "懒", ("animal", "person"), False),
    ("young", "年轻", ("person",), True),
    ("beautiful", "漂亮", ("person", "animal", "object"), True),
    ("clever", "聪明", ("person", "animal"), True),
    ("happy", "快乐", ("person",), True),
    ("delicious", "好吃", ("food",), True),
]
OLD_THINGS = "旧"  # old for an object: 旧 (old=老|旧 in the lexicon), for the living: 老
NUMBERS = [("two", "两"), ("three", "三"), ("four", "四"), ("five", "五")]
# base, 3rd singular, past, -ing, Chinese, what it takes as object (None: no object)
VERBS = [
    ("chase", "chases", "chased", "chasing", "追逐", ("person", "animal", "name")),
    ("see", "sees", "saw", "seeing", "看见", ("person", "animal", "name", "object", "food")),
    ("like", "likes", "liked", "liking", "喜欢", ("person", "animal", "name", "object", "food", "drink")),
    ("eat", "eats", "ate", "eating", "吃", ("food",)),
    ("drink", "drinks", "drank", "drinking", "喝", ("drink",)),
    ("read", "reads", "read", "reading", "看", ("reading",)),
    ("buy", "buys", "bought", "buying", "买", ("object", "food", "animal", "drink")),
    ("find", "finds", "found", "finding", "找到", ("object", "animal", "name", "person", "thing")),
    ("help", "helps", "helped", "helping", "帮助", ("person", "name")),
    ("catch", "catches", "caught", "catching", "抓住", ("animal",)),
    ("wash", "washes", "washed", "washing", "洗", ("object",)),
    ("draw", "draws", "drew", "drawing", "画", ("animal", "person", "name", "object")),
    ("love", "loves", "loved", "loving", "爱", ("person", "animal", "name")),
    ("carry", "carries", "carried", "carrying", "带", ("object", "animal", "food")),
    ("run", "runs", "ran", "running", "跑", None),
    ("sleep", "sleeps", "slept", "sleeping", "睡觉", None),
    ("swim", "swims", "swam", "swimming", "游泳", None),
    ("play", "plays", "played", "playing", "玩", None),
    ("work", "works", "worked", "working", "工作", None),
    ("dance", "dances", "danced", "dancing", "跳舞", None),
    ("sing", "sings", "sang", "singing", "唱歌", None),
]
SIT = ("sit", "sits", "sat", "sitting", "坐")
PUT = ("put", "puts", "put", "putting", "放")
GO = ("go", "goes", "went", "going", "去")
# English words, Chinese, (preposition, Chinese after the place or None), roles
RIVER_BANK = (("river", "bank"), "河岸")
PLACES = [
    (("library",), "图书馆", {"in": None}, "act go"),
    (("park",), "公园", {"in": None}, "act go sit"),
    (("school",), "学校", {"at": None}, "act go"),
    (("bank",), "银行", {"at": None, "in": "里"}, "act go put"),
    (("river", "bank"), "河岸", {"on": "上"}, "act go sit"),
    (("bank", "of", "the", "river"), "河岸", {"on": "上"}, "act sit"),
    (("river",), "河", {"near": "附近", "by": "边"}, "act"),
    (("kitchen",), "厨房", {"in": "里"}, "act go"),
    (("garden",), "花园", {"in": "里"}, "act go sit"),
    (("room",), "房间", {"in": "里"}, "act go put"),
    (("zoo",), "动物园", {"at": None}, "act go"),
    (("supermarket",), "超市", {"at": None}, "act go"),
    (("table",), "桌子", {"on": "上"}, "put sit"),
    (("box",), "盒子", {"in": "里"}, "put"),
    (("bag",), "包", {"in": "里"}, "put"),
    (("bed",), "床", {"on": "上"}, "put sit"),
    (("chair",), "椅子", {"on": "上"}, "sit"),
]
# English words, Chinese words (each aligned to all English words), tenses it goes with
TIMES = [
    (("yesterday",), ("昨天",), ("past",)),
    (("last", "week"), ("上个", "星期"), ("past",)),
    (("tomorrow",), ("明天",), ("future",)),
    (("every", "day"), ("每", "天"), ("present",)),
    (("in", "the", "morning"), ("早上",), ("present", "past", "future")),
    (("on", "sunday"), ("星期天",), ("present", "past", "future")),
    (("now",), ("现在",), ("progressive",)),
    (("today",), ("今天",), ("progressive", "past", "future")),
]

# ---------------------------------------------------------------------------
# Building a pair: English tokens and Chinese tokens that point at them
# ---------------------------------------------------------------------------


class En:
    """One English word; Chinese words point at these objects, so phrases can move freely.

    ``content``: the dictionary word it writes (everyday_grammar.Word), for the words that may become <unk>."""

    __slots__ = ("word", "content")

    def __init__(self, word: str):
        self.word = word
        self.content = None


def zh(word: str, *sources: En) -> tuple[str, tuple[En, ...]]:
    return (word, sources)


class Phrase:
    """English words in English order, Chinese words in Chinese order, and facts about the phrase."""

    def __init__(self, en=(), zh=(), **facts):
        self.en = list(en)
        self.zh = list(zh)
        self.facts = facts
        self.combos: list[tuple[str, str, str]] = []  # (kind, a, b) word combinations it contains

    def __getitem__(self, name):
        return self.facts[name]


def words(*english: str) -> list[En]:
    return [En(w) for w in english]


class Grammar:
    def __init__(self, rng: random.Random):
        self.rng = rng

    def pick(self, items):
        return items[self.rng.randrange(len(items))]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # --- noun phrases -----------------------------------------------------------------

    def name(self) -> Phrase:
        en, zh_word = self.pick(NAMES)
        (token,) = words(en)
        return Phrase([token], [zh(zh_word, token)], head=en, kind="name", third=True, plural=False)

    def pronoun(self, case: str) -> Phrase:
        subj, obj, _, zh_word, _, third, be = self.pick(PRONOUNS)
        (token,) = words(subj if case == "subject" else obj)
        return Phrase([token], [zh(zh_word, token)], head=subj, kind="person", third=third, plural=False, be=be)

    def possessor(self) -> Phrase:
        """my / Tom 's / the boy 's: the words before a possessed noun, with 的 where Chinese needs it."""
        roll = self.rng.random()
        if roll < 0.4:
            _, _, poss, _, zh_poss, _, _ = self.pick(PRONOUNS)
            (token,) = words(poss)
            return Phrase([token], [zh(zh_poss, token)])
        owner = self.name() if roll < 0.75 else self.simple_noun(("person",), det="the")
        (s,) = words("'s")
        return Phrase(owner.en + [s], owner.zh + [zh("的", s)])

    def adjective(self, noun: str, kind: str) -> tuple[En, list] | None:
        choices = [a for a in ADJECTIVES if kind in a[2]]
        if not choices:
            return None
        en, zh_word, _, needs_de = self.pick(choices)
        (token,) = words(en)
        if en == "old" and kind == "object":
            zh_word = OLD_THINGS
        return token, [zh(zh_word, token)] + ([zh("的", token)] if needs_de else [])

    def simple_noun(self, kinds, det=None, relative=False) -> Phrase:
        """A count noun with a determiner, a number, a possessor, an adjective, or a relative clause."""
        pool = [n for n in NOUNS if n[4] in kinds or ("reading" in kinds and n[0] in ("book", "newspaper"))]
        singular, plural_form, zh_noun, measure, kind = self.pick(pool)
        det = det or self.pick(["the", "the", "a", "number", "this", "that", "these", "those", "the-plural", "poss"])
        plural = det in ("number", "these", "those", "the-plural")
        noun = En(plural_form if plural else singular)
        phrase = Phrase(kind=kind, head=singular, third=not plural, plural=plural)
        adjective = self.adjective(singular, kind) if self.chance(0.3) else None
        if adjective:
            phrase.combos.append(("adj", adjective[0].word, singular))
        before_en: list[En] = []  # determiner words
        before_zh: list = []  # Chinese before the adjective
        if det in ("the", "the-plural"):
            before_en = words("the")
        elif det == "a":
            (a,) = before_en = words("a")
            before_zh = [zh("一", a), zh(measure, a, noun)]
        elif det == "number":
            number, zh_number = self.pick(NUMBERS)
            (n,) = before_en = words(number)
            before_zh = [zh(zh_number, n), zh(measure, n, noun)]
        elif det in ("this", "that"):
            (d,) = before_en = words(det)
            before_zh = [zh("这" if det == "this" else "那", d), zh(measure, d, noun)]
        elif det in ("these", "those"):
            (d,) = before_en = words(det)
            before_zh = [zh("这些" if det == "these" else "那些", d)]
        elif det == "poss":
            owner = self.possessor()
            before_en, before_zh = owner.en, owner.zh
            phrase.combos += owner.combos
        noun_zh = [zh(zh_noun, noun)]
        if det == "the-plural" and kind == "person":
            noun_zh.append(zh("们", noun))
        adj_en, adj_zh = ([adjective[0]], adjective[1]) if adjective else ([], [])
        if relative and det in ("the", "the-plural") and self.chance(0.5):
            clause = self.relative_clause(phrase, noun)
            phrase.en = before_en + adj_en + [noun] + clause.en
            phrase.zh = clause.zh + adj_zh + noun_zh
            phrase.combos += clause.combos
        else:
            phrase.en = before_en + adj_en + [noun]
            phrase.zh = before_zh + adj_zh + noun_zh
        return phrase

    def relative_clause(self, head: Phrase, noun: En) -> Phrase:
        """that chased Jerry → 追逐 杰瑞 的 ; that Tom bought → 汤姆 买 的 (before the noun in Chinese)."""
        (that,) = words("that")
        if self.chance(0.5):  # the noun does it
            verbs = [v for v in VERBS if v[5] and any(k in v[5] for k in ("name", "person", "animal", "object"))]
            verbs = [v for v in verbs if head["kind"] in ("person", "animal") or v[0] in ("see", "like")]
            base, third, past, _, zh_verb, takes = self.pick(verbs)
            verb = En(past if self.chance(0.5) else (third if head["third"] else base))
            obj = self.object_phrase(takes, simple=True)
            clause = Phrase([that, verb] + obj.en, [zh(zh_verb, verb)] + obj.zh + [zh("的", that)])
            clause.combos.append(("subj-verb", head["head"], base))
            clause.combos += obj.combos
            return clause
        # someone does it to the noun
        verbs = [v for v in VERBS if v[5] and head["kind"] in v[5] or (v[5] and head["head"] in ("book", "newspaper")
                 and "reading" in v[5])]  # fmt: skip
        base, third, past, _, zh_verb, _ = self.pick(verbs)
        doer = self.name() if self.chance(0.6) else self.pronoun("subject")
        verb = En(past)
        clause = Phrase([that] + doer.en + [verb], doer.zh + [zh(zh_verb, verb), zh("的", that)])
        clause.combos.append(("subj-verb", doer["head"], base))
        return clause

    def mass(self, kinds) -> Phrase:
        en, zh_word, kind = self.pick([m for m in MASS if m[2] in kinds])
        noun = En(en)
        det = self.pick(["", "", "some", "the", "poss"])
        phrase = Phrase(kind=kind, head=en, third=True, plural=False)
        if det == "some":
            (some,) = words("some")
            phrase.en, phrase.zh = [some, noun], [zh("一些", some), zh(zh_word, noun)]
        elif det == "poss":
            owner = self.possessor()
            phrase.en, phrase.zh = owner.en + [noun], owner.zh + [zh(zh_word, noun)]
        else:
            phrase.en, phrase.zh = words(det) + [noun] if det else [noun], [zh(zh_word, noun)]
        return phrase

    def relative_noun(self) -> Phrase:
        """the boy 's mother / my father → 男孩 的 妈妈 / 我的 爸爸."""
        en, zh_word = self.pick(RELATIVES)
        owner = self.possessor()
        noun = En(en)
        return Phrase(
            owner.en + [noun], owner.zh + [zh(zh_word, noun)], kind="person", head=en, third=True, plural=False
        )

    def object_phrase(self, takes, simple=False) -> Phrase:
        options = []
        if "name" in takes:
            options += ["name"] * 3
        if "person" in takes:
            options += ["pronoun", "noun", "relative"]
        if any(k in takes for k in ("animal", "object", "food", "reading")):
            options += ["noun"] * 3
        if any(k in takes for k in ("drink", "thing", "food")):
            options += ["mass"]
        choice = self.pick(options)
        if choice == "name":
            return self.name()
        if choice == "pronoun":
            return self.pronoun("object")
        if choice == "relative":
            return self.relative_noun()
        if choice == "mass":
            return self.mass([k for k in takes if k in ("drink", "thing", "food")])
        kinds = [k for k in takes if k in ("person", "animal", "object", "food", "reading")]
        return self.simple_noun(kinds, relative=not simple)

    def subject(self, simple=False) -> Phrase:
        roll = self.rng.random()
        if roll < 0.3:
            return self.name()
        if roll < 0.55:
            return self.pronoun("subject")
        if roll < 0.65:
            return self.relative_noun()
        return self.simple_noun(("person", "animal"), relative=not simple)

    # --- clauses ------------------------------------------------------------------------

    def place(self, role: str) -> tuple[list[En], list, list]:
        """(preposition + the + place in English, 在 + place (+ 里/上) in Chinese, combos)."""
        en_words, zh_place, preps, roles = self.pick([p for p in PLACES if role in p[3].split()])
        prep = self.pick(sorted(preps))
        (p,) = words(prep)
        place = words(*en_words)
        if en_words[0] == "bank" and len(en_words) == 4:  # the bank of the river
            en = [p, En("the")] + place
            zh_words = [zh("在", p), zh(zh_place, place[0], place[1], place[3])]
        else:
            en = [p, En("the")] + place
            zh_words = [zh("在", p), zh(zh_place, *place)]
        if preps[prep]:
            zh_words.append(zh(preps[prep], p))
        return en, zh_words, [("place", role, " ".join(en_words))]

    def verb_words(self, verb, tense, subject: Phrase) -> tuple[list[En], list, list]:
        """The English verb group (with its inflection) and the Chinese words before / after the verb."""
        base, third, past, ing, zh_verb = verb[:5]
        if tense == "present":
            if subject["third"] and subject["kind"] == "name" and self.chance(0.15):
                form = base  # the text's base-form sentences: "Tom chase Jerry"
            else:
                form = third if subject["third"] else base
            (v,) = words(form)
            return [v], [], [zh(zh_verb, v)]
        if tense == "past":
            (v,) = words(past)
            return [v], [], [zh(zh_verb, v)] + ([zh("了", v)] if verb[0] not in ("put", "sit") else [])
        if tense == "future":
            will, v = words("will", base)
            return [will, v], [zh("会", will)], [zh(zh_verb, v)]
        be_form = subject.facts.get("be") or ("are" if subject["plural"] else "is")
        be, v = words(be_form, ing)
        return [be, v], [zh("正在", be, v)], [zh(zh_verb, v)]

    def clause(self) -> Phrase:
        subject = self.subject()
        roll = self.rng.random()
        kind = "put" if roll < 0.08 else "sit" if roll < 0.14 else "go" if roll < 0.22 else "verb"
        verb = {"put": PUT, "sit": SIT, "go": GO}.get(kind) or self.pick(VERBS)
        takes = verb[5] if kind == "verb" else None
        tense = self.pick(["present", "present", "past", "past", "future", "progressive"])
        if verb[0] == verb[2] and tense == "past" and (not subject["third"] or subject["kind"] == "name"):
            tense = "present"  # "I read" / "Tom read" (the base form) would be present and past at once: present
        if tense == "present" and verb[0] in ("put", "sit"):
            tense = "past"
            if not subject["third"] and verb[0] == "put":
                tense = "present"
        verb_en, verb_before, verb_zh = self.verb_words(verb, tense, subject)
        combos = list(subject.combos) + [("subj-verb", subject["head"], verb[0])]
        en_after: list[En] = []  # after the verb in English (object, place)
        zh_middle: list = []  # between subject and verb in Chinese (time, place, 跟 …)
        zh_after: list = []  # after the verb in Chinese
        if kind == "put":
            obj = self.object_phrase(("object", "food", "thing"), simple=True)
            (ba,) = [zh("把", verb_en[-1])]
            place_en, place_zh, place_combos = self.place("put")
            en_after = obj.en + place_en
            verb_before = verb_before + [ba] + obj.zh
            zh_after = place_zh
            combos += obj.combos + place_combos
        elif kind == "sit":
            place_en, place_zh, place_combos = self.place("sit")
            en_after = place_en
            zh_after = place_zh
            combos += place_combos
        elif kind == "go":
            (to,) = words("to")
            en_words, zh_place, _, _ = self.pick([p for p in PLACES if "go" in p[3].split()])
            place = words(*en_words)
            en_after = [to, En("the")] + place
            verb_zh = [zh(verb_zh[0][0], verb_zh[0][1][0], to)] + verb_zh[1:]
            zh_after = [zh(zh_place, *place)]
            combos.append(("place", "go", " ".join(en_words)))
        elif takes:
            obj = self.object_phrase(takes)
            en_after = obj.en
            zh_after = obj.zh
            combos += obj.combos + [("verb-obj", verb[0], obj["head"])]
        if kind in ("go", "verb") and not takes and self.chance(0.3):
            (with_,) = words("with")
            partner = self.name() if self.chance(0.5) else self.simple_noun(("person", "animal"), det="poss")
            en_after = en_after + [with_] + partner.en
            zh_middle += [zh("跟", with_)] + partner.zh
            combos += partner.combos
        if kind == "verb" and self.chance(0.45):
            place_en, place_zh, place_combos = self.place("act")
            en_after = en_after + place_en
            zh_middle = place_zh + zh_middle
            combos += place_combos
        time_en: list[En] = []
        time_zh: list = []
        time_first = False
        times = [t for t in TIMES if tense in t[2]]
        if times and self.chance(0.4):
            en_words, zh_words, _ = self.pick(times)
            time_en = words(*en_words)
            anchors = [w for w in time_en if w.word not in ("the", "in", "on")]
            time_zh = [zh(w, *anchors) for w in zh_words]
            time_first = len(en_words) == 1 and self.chance(0.3)
        if time_first:
            en = time_en + subject.en + verb_en + en_after
            zh_words = time_zh + subject.zh + zh_middle + verb_before + verb_zh + zh_after
        else:
            en = subject.en + verb_en + en_after + time_en
            zh_words = subject.zh + time_zh + zh_middle + verb_before + verb_zh + zh_after
        if verb_before and verb_before[0][0] in ("会", "正在"):  # 会 / 正在 come before the place: 会 在 厨房 里 跑
            modal = verb_before[0]
            zh_words.remove(modal)
            zh_words.insert(
                zh_words.index(zh_middle[0])
                if zh_middle
                else zh_words.index(verb_before[1] if len(verb_before) > 1 else verb_zh[0]),
                modal,
            )
        phrase = Phrase(en, zh_words)
        phrase.combos = combos
        return phrase

    def sentence(self) -> Phrase:
        roll = self.rng.random()
        first = self.clause()
        if roll < 0.7:
            return first
        second = self.clause()
        if roll < 0.85:  # A but B → A 但是 B
            (but,) = words("but")
            phrase = Phrase(first.en + [but] + second.en, first.zh + [zh("但是", but)] + second.zh)
        else:  # A because B → 因为 B 所以 A
            (because,) = words("because")
            phrase = Phrase(
                first.en + [because] + second.en,
                [zh("因为", because)] + second.zh + [zh("所以", because)] + first.zh,
            )
        phrase.combos = first.combos + second.combos
        return phrase
