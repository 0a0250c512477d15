"""The grammar of everyday sentences, over the translators' dictionary (app/engine/models/mt/dictionary.tsv).

corpus.py's story grammar has about 250 words; this one draws its nouns, verbs, adjectives and adverbs from
the dictionary built from wordfreq, CC-CEDICT and LemmInflect (docs/data-sources.md), in the sentence
shapes a teacher types, each Chinese word aligned to the English words it translates:

    a copula with an adjective       the river is very long            → 河 很 长
    negation                         she does not like tea             → 她 不 喜欢 茶     (didn't → 没)
    yes/no questions                 do you like apples                → 你 喜欢 苹果 吗
    please-imperatives               please open the window            → 请 打开 窗
    have / there is                  there is a car in the garden      → 花园 里 有 一 辆 车
    a noun after the copula          my father is a doctor             → 我的 爸爸 是 一 个 医生
    ditransitives                    the girl gave her friend a present → 女孩 给 了 她的 朋友 一 件 礼物
    manner and frequency adverbs     the old man walks slowly          → 老 男人 慢慢 地 走
    modals                           can you help me                   → 你 能 帮助 我 吗
    weather                          it will rain tomorrow             → 明天 会 下雨
    times and places move forward    she drinks coffee every morning   → 她 每 天 早上 喝 咖啡
    bare nouns, many, containers     the farmer has many sheep         → 农民 有 很多 羊    (a glass of water: 一 杯 水)
    a place after its noun           the water in the lake is clean    → 湖 里 的 水 很 干净
    phrasal verbs (phrasal.tsv)      please sit down                   → 请 坐下             (listen to → 听)
    going somewhere, and how         she goes to school by bus         → 她 坐 公共汽车 去 学校
    place adverbs, meals and hours   it is snowing outside             → 外面 正在 下雪      (before dinner → 晚饭 前)

The third part, the shapes the first two did not write (the README's "What the models cannot do"):

    wh-questions, asked in place     what did she buy                  → 她 买 了 什么   (where is it → 它 在 哪里)
    comparisons                      the river is longer than the road → 河 比 路 长         (is not … than → 没有)
    the to-infinitive                i like to eat apples              → 我 喜欢 吃 苹果
    the present perfect              she has finished her homework     → 她 完成 了 她的 作业 (never … → 从来 没 … 过)
    complements of degree            he runs very fast                 → 他 跑 得 很 快
    if-clauses                       if it rains we will stay at home  → 如果 下雨 我们 会 …

The fourth part (2026-12-04, later still):

    relative who                     the man who lives here            → 住 在 这里 的 男人
    superlatives                     he is the tallest boy in the class → 他 是 班 里 最 高 的 男孩
    going to                         we are going to visit the zoo     → 我们 要 参观 动物园 (not going to → 不 打算)
    how old, how many, what time     how many apples do you have       → 你 有 多少 苹果    (how old are you → 你 几 岁)
    whose                            whose book is this                → 这 是 谁的 书

The fifth part (2026-12-04, the next day), what a teacher typed that the first four did not write:

    greetings and thanks             good morning tom                  → 汤姆 早上 好       (thank you very much →
                                                                         非常 感谢 你; what time is it → 几 点 了)
    names                            what is your sister 's name       → 你的 姐姐 叫 什么 名字
                                                                         (my name is tom → 我 叫 汤姆)
    a length of time                 we have lived here for two years  → 我们 在 这里 住 了 两 年 了
    comparing verbs                  tom runs faster than his friends  → 汤姆 比 他的 朋友 们 跑 得 快
    an object with a degree          she speaks english very well      → 她 英语 说 得 很 好
    too, let's, that one             the tea is too hot                → 茶 太 热 了         (let 's go → 我们 去 吧;
                                                                         i like that one → 我 喜欢 那 个)

The sixth part (the same day): words among wordfreq's 400 commonest English words that no part wrote:

    modals                           you should rest                   → 你 应该 休息       (must 必须, may 可以,
                                                                         might 可能, could 能, would like to 想)
    adverbs before the verb          she also likes tea                → 她 也 喜欢 茶      (still 还, only 只,
                                                                         even 甚至; we all … → 我们 都 …)
    again, together                  he was late again                 → 他 又 迟到 了      (再 but in the past)
    will be, please be               it will be cold tomorrow          → 明天 会 很 冷      (please be quiet → 请 安静)

The seventh part: clauses joined by when / after / before / so / then, and more of wordfreq's commonest words:

    a clause Chinese puts first      i read books when it rains        → 下雨 的 时候 我 看 书 (after 以后, before
                                                                         以前; so → 所以, and then → 然后)
    or, and, about, which            a story about a dog               → 一 个 关于 狗 的 故事 (tea or coffee → 茶
                                                                         或者 咖啡; which book → 哪 本 书)
    each other, from, just, maybe    they help each other              → 他们 互相 帮助     (from the park → 从
                                                                         公园; she just left → 她 刚 走 了)

The eighth part: being somewhere, and the commonest words the first seven did not write:

    being somewhere                  she is at home                    → 她 在 家           (is he in the garden →
                                                                         他 在 花园 里 吗; not here → 不 在 这里)
    no, any                          i have no money                   → 我 没有 钱         (do you have any books
                                                                         → 你 有 书 吗; there are no … → 没有 …)
    another, enough, both            another cup of tea                → 另 一 杯 茶        (enough food → 足够 的
                                                                         食物; we both like tea → 我们 都 喜欢 茶)
    everyone, everything, nothing    i saw nothing                     → 我 什么 都 没 看见  (everyone likes music →
                                                                         大家 都 喜欢 音乐)
    as … as, how much, used to       she is as tall as her brother     → 她 和 她的 哥哥 一样 高 (how much is this
                                                                         book → 这 本 书 多少 钱; i used to live
                                                                         here → 我 以前 住 在 这里)
    yes, no, half, last year         yes i like it                     → 是的 我 喜欢 它     (half an hour → 半 个
                                                                         小时; last year → 去年; tonight → 今晚)
    can not, every night             i can not swim                    → 我 不 能 游泳       (can't and cannot are
                                                                         read so; every night → 每 天 晚上)

The ninth part: what the blind set's outputs showed the first eight parts did not write:

    have to                          i have to go                      → 我 必须 去         (don't have to → 不 用)
    good at                          she is good at swimming           → 她 擅长 游泳
    something, anything, someone     i didn't buy anything             → 我 什么 都 没 买    (i bought something →
                                                                         我 买 了 一些 东西; someone called → 有人 …)
    more before a noun               we need more water                → 我们 需要 更 多 的 水
    this morning, half past          this afternoon                    → 今天 下午          (at half past seven → 七
                                                                         点 半; this + a time word is never 这 个)
    sorry before a clause            i am sorry i forgot               → 对不起 我 忘记 了

The tenth part: more of the words the eighth part's notes listed as never written:

    since, until                     we have lived here since last year → 我们 从 去年 开始 就 在 这里 住
                                                                         (we waited until nine → 我们 等 到 九 点)
    less before a noun               we need less sugar                → 我们 需要 更 少 的 糖
    by bus                           坐 (and 骑) aligned to by and the vehicle: by alone never teaches 坐

The eleventh part: two shapes of the HSK sentences' misses (tuning part), common in what a teacher types:

    a bare imperative                open the window                   → 打开 窗          (don't worry → 不要 担心;
                                                                         never joined to another clause)
    a clause reported                i think it will rain              → 我 觉得 会 下雨   (think, feel: 觉得; know,
                                                                         hope, believe, say, remember; that is
                                                                         aligned to the verb; i don't think → 不 觉得)

The twelfth part: a word whose Chinese depends on the word it goes with, as bank's does on river (``SENSES``,
applied to every sentence by ``senses``, the story grammar's old → 旧 for things among them):

    old, short by what they describe the old book is on the table       → 旧 书 在 桌子 上  (an old man → 老 男人;
                                                                         the boy is short → 男孩 很 矮)
    wear, play, lose, drive by object she wears a hat                   → 她 戴 帽子        (play football → 踢 足球,
                                                                         play the piano → 弹 钢琴, lost my key → 丢
                                                                         了 我的 钥匙, drive a bus → 开 公共汽车)
    carefully by its verb            listen carefully                  → 仔细 地 听        (drive carefully → 小心
                                                                         地 开车)

The thirteenth part: more verbs whose Chinese depends on their object (or, without one, their subject), the senses
the older blind sets' misses showed most (``SENSES``, the same ``senses``):

    miss, visit, take, know          we missed the bus                 → 我们 错过 了 公共汽车 (miss my mother →
                                                                         想念; visit my grandmother → 看望, visit the
                                                                         museum → 参观; take a photo → 拍, take the
                                                                         bus → 坐, take medicine → 吃; i know him →
                                                                         认识, know the answer → 知道)
    carry, make, catch, answer, see  carry the box                     → 搬 盒子            (make friends → 交 朋友,
                                                                         catch the bus → 赶, answer the phone → 接,
                                                                         see a doctor → 看 医生)
    open and close, said of a shop   the shop opens at nine            → 商店 九 点 开门    (open the door → 打开 门)

**The model's vocabulary, and <unk>.** A content word is *common* when the lexicon has it or wordfreq ranks
its lemma among the first ``VOCABULARY_RANK`` English words; the models read every form of a common word. A
*rare* word is still drawn (about one content word in seven), but the models never learn it: its English stays
in the corpus (the model reads it as the typed <unk> of its role, ``mt_dictionary.unknown_token``) and its
Chinese is ``<unk>``, aligned to it. A share ``DROPOUT`` of the common content words is also written as their
typed <unk> on both sides. So the models learn to emit <unk> where the source has one, and their attention
shows which word it stands for: the app puts the dictionary's translation of that word in its place (Luong
et al. 2015, *Addressing the Rare Word Problem in Neural Machine Translation*).

Pure Python (the app's tests import it through dataset.py).
"""

from __future__ import annotations

import functools

from app.engine.models import mt_dictionary
from tools.translator import corpus as story
from tools.translator.corpus import En, Phrase, words, zh

# The corpus is written from the dictionary's core only (mt_dictionary.parts: the wide part, for reading rarer
# words, changes nothing here).
CORE = mt_dictionary.load()
VOCABULARY_RANK = 2000  # a lemma ranked within this many English words (wordfreq) is in the models' vocabulary
RARE_SHARE = 0.15  # the share of content words drawn from the rare ones
DROPOUT = 0.05  # the share of common content words written as <unk> on both sides
UNK = "<unk>"

# Words the grammar itself uses, or that need a construction of their own, are not drawn as plain content words.
GRAMMAR_WORDS = {
    "be", "have", "do", "will", "would", "can", "could", "may", "might", "must", "shall", "should", "let", "go",
    "put", "sit", "give", "tell", "teach", "show", "send", "bring", "rain", "snow", "want", "get", "very", "not",
    "please", "there", "here", "so", "too", "also", "just", "only", "then", "now", "today", "yesterday",
    "tomorrow", "always", "usually", "often", "sometimes", "never", "again", "still", "even", "ever", "already",
}  # fmt: skip
# Where the dictionary's first sense is not the everyday one (the lexicon's own rows list 感冒 before 冷, the
# noun's sense of "walk"); the story grammar's words keep its Chinese (corpus.py) in both grammars.
CHINESE_FIXES = {("cold", "adjective"): "冷", ("walk", "verb"): "走"}
PERSON_ENDINGS = ("人", "生", "师", "员", "者", "家", "孩", "友", "妈", "爸", "哥", "姐", "弟", "妹")
# the twelfth part: 子 ends 孩子 and 儿子 but also 桌子 and 帽子 (a table was a person), and some endings above end
# things too; these are the exceptions either way
PERSON_CHINESE = frozenset(
    {"孩子", "儿子", "妻子", "王子", "警察", "婴儿", "国王", "女儿", "部长", "丈夫", "法官", "女士", "高手"}
    | {"队长", "女王", "助手", "州长", "公主", "校长", "歌手", "士兵", "叔叔", "护士", "爷爷", "游客", "阿姨"}
    | {"农民", "访客", "渔夫", "店主", "人们", "神", "总统", "家伙", "人类", "主任", "人物", "首领", "经理"}
    | {"教练", "秘书", "粉丝", "教授", "伙伴", "主席", "老板", "罪犯", "司机", "保安", "英雄", "父母", "邻居"}
    | {"青少年", "小偷", "牙医", "祖父母", "代表", "高管", "同事", "同学", "导游", "总裁", "市长", "邮递员"}
)
THING_CHINESE = frozenset({"家", "国家", "野生", "出生", "机器人"})
# living, not people: an old dog is 老 as an old man is (an old book 旧); the twelfth part
ANIMAL_CHINESE = frozenset(
    {"狗", "鱼", "动物", "猫", "马", "熊", "鸟", "鸡", "宠物", "龙", "狼", "老鼠", "老虎", "狮子", "蛇", "虫子"}
    | {"羊", "牛", "蜜蜂", "大象", "猴子", "兔子", "蝴蝶", "青蛙", "鹅", "恐龙", "螃蟹", "昆虫", "熊猫", "驴"}
    | {"斑马", "长颈鹿", "鸭子", "蜘蛛", "鹿", "蚂蚁"}
)
PERSON_MEASURES = ("位", "名")
PREPOSITION_PARTICLES = ("at", "to", "for", "after")  # a phrasal verb with one of these always has an object
MASS_MEASURES = (None, "杯", "瓶", "份", "片", "碗")
PARTICLES = {"了", "们", "的", "地", "吗", "很", "不", "没", "会", "正在", "在", "是", "有", "请", "给", "一", "个"}


def _story_chinese() -> dict[tuple[str, str], str]:
    """The Chinese the story grammar gives its own words: both grammars must agree (one translation a word)."""
    table = {}
    for singular, _, chinese, _, _ in story.NOUNS:
        table[(singular, "noun")] = chinese
    for en, chinese in story.RELATIVES:
        table[(en, "noun")] = chinese
    for en, chinese, _ in story.MASS:
        table[(en, "noun")] = chinese
    for en, chinese, _, _ in story.ADJECTIVES:
        table[(en, "adjective")] = chinese
    for verb in story.VERBS:
        table[(verb[0], "verb")] = verb[4]
    for en_words, chinese, _, _ in story.PLACES:
        if len(en_words) == 1:
            table[(en_words[0], "noun")] = chinese
    return table


STORY_CHINESE = _story_chinese()


class Word:
    """A content word of the dictionary: its forms, its Chinese, and whether the models learn it."""

    __slots__ = ("lemma", "role", "chinese", "measure", "forms", "common", "person", "mass", "particle")

    def __init__(self, lemma, role, chinese, measure, forms, common, particle=None):
        self.lemma, self.role, self.chinese, self.measure = lemma, role, chinese, measure or "个"
        self.forms, self.common, self.particle = forms, common, particle
        self.person = (
            role == "noun"
            and chinese not in THING_CHINESE
            and (chinese.endswith(PERSON_ENDINGS) or chinese in PERSON_CHINESE or self.measure in PERSON_MEASURES)
        )
        # a noun English may use bare in the singular (coffee, dinner, music): CC-CEDICT counts it by the cup, the
        # bottle, the portion, or names no measure word for it
        self.mass = role == "noun" and not self.person and measure in MASS_MEASURES

    def form(self, tag: str) -> str:
        return self.forms.get(tag, self.lemma)

    def participle(self) -> str:
        """The past participle: the dictionary's, else the past when it is regular, else the lemma (the dictionary
        lists no form that is the lemma itself: come, run, become)."""
        past = self.form("past")
        return self.forms.get("past-participle") or (past if past.endswith("ed") else self.lemma)


def _pools() -> dict[str, list[Word]]:
    dictionary = CORE
    forms: dict[str, dict[str, str]] = {}
    for form, readings in dictionary.forms.items():
        for lemma, tag in readings:
            forms.setdefault(lemma, {}).setdefault(tag, form)
    pools: dict[str, list[Word]] = {"noun": [], "verb": [], "adjective": [], "adverb": [], "phrasal": []}
    for lemma, senses in dictionary.senses.items():
        if lemma in GRAMMAR_WORDS or not lemma.isalpha():
            continue
        seen_roles = set()
        for sense in senses:
            if sense.role not in pools or sense.role in seen_roles or not sense.chinese:
                continue
            seen_roles.add(sense.role)
            chinese = STORY_CHINESE.get((lemma, sense.role)) or CHINESE_FIXES.get((lemma, sense.role), sense.chinese)
            if " " in chinese or chinese in PARTICLES:
                continue  # a content word the grammar's particle translates (achieve → 了) could not be hidden
            common = sense.source == "lexicon" or (sense.rank is not None and sense.rank <= VOCABULARY_RANK)
            own = forms.get(lemma, {})
            if sense.role == "verb" and not all(t in own for t in ("present-3rd", "past", "progressive")):
                continue
            if sense.role == "adverb" and not lemma.endswith("ly"):
                continue  # manner adverbs only (slowly → 慢慢 地); the frequency adverbs have their own table
            if sense.role == "verb" and any(
                dictionary.phrasal.get((lemma, particle)) == chinese for particle in PREPOSITION_PARTICLES
            ):
                continue  # listen to, look at, wait for: the preposition is the verb's, drawn as the phrasal verb
            pools[sense.role].append(Word(lemma, sense.role, chinese, sense.measure, own, common))
    for (verb, particle), chinese in sorted(dictionary.phrasal.items()):  # get up → 起床: one Word, two English words
        own = forms.get(verb, {})
        if all(t in own for t in ("present-3rd", "past", "progressive")):
            pools["phrasal"].append(Word(verb, "verb", chinese, None, own, True, particle))
    return pools


POOLS = _pools()
COMMON = {role: [w for w in pool if w.common] for role, pool in POOLS.items()}
_COMMON_FORMS = {f for pool in COMMON.values() for w in pool for f in (w.lemma, *w.forms.values())}
# The rare words: none of their forms is also a common word's (lay, a rare verb, is also the past of lie down's lie).
RARE = {
    role: [w for w in pool if not w.common and not {w.lemma, *w.forms.values()} & _COMMON_FORMS]
    for role, pool in POOLS.items()
}
RARE_FORMS = frozenset(f for pool in RARE.values() for w in pool for f in (w.lemma, *w.forms.values()))


LONG_ADJECTIVE_ENDINGS = ("ful", "ous", "ive", "ing", "ed", "al", "ent", "ant", "ic", "ble", "less", "ish")


def degree_form(word: Word, tag: str) -> str | None:
    """How English grades the adjective (tag "comparative" or "superlative"): its -er / -est form (taller, tallest;
    happier; better, best), "more" / "most" for a long one (more careful), None when neither fits (first, same). An
    -er / -est form counts when the dictionary reads it back as this adjective's form (older, not elder). A
    comparative ending in -eer is skipped (freeer), a superlative in -eest is not (freeest): the committed corpus was
    written so; make them agree at the next retraining."""
    lemma = word.lemma
    suffix, long_form = ("er", "more") if tag == "comparative" else ("est", "most")
    if len(lemma) >= 7 or lemma.endswith(LONG_ADJECTIVE_ENDINGS):
        return long_form
    regular = [lemma + suffix, lemma + suffix[1:], lemma[:-1] + "i" + suffix, lemma + lemma[-1] + suffix]
    for form in [*regular, word.forms.get(tag)]:
        skipped = tag == "comparative" and form and form.endswith("eer")
        reading = CORE.lookup(form) if form and not skipped else None
        if reading and reading.lemma == lemma and reading.tag == tag:
            return form
    return None


# (adjective, its form) for each adjective English grades so, common and rare as the content words are
COMPARABLE, SUPERLATIVE = (
    {
        kind: [(w, form) for w in pool["adjective"] if (form := degree_form(w, tag))]
        for kind, pool in (("common", COMMON), ("rare", RARE))
    }
    for tag in ("comparative", "superlative")
)

TIMES = [  # English words, Chinese words (each aligned to the English words but "the", "in", "on"), tenses
    (("yesterday",), ("昨天",), ("past",)),
    (("last", "night"), ("昨天", "晚上"), ("past",)),
    (("last", "week"), ("上个", "星期"), ("past",)),
    (("today",), ("今天",), ("past", "future", "progressive", "adjective")),
    (("tomorrow",), ("明天",), ("future",)),
    (("next", "week"), ("下个", "星期"), ("future",)),
    (("now",), ("现在",), ("progressive", "adjective")),
    (("every", "day"), ("每", "天"), ("present",)),
    (("every", "morning"), ("每", "天", "早上"), ("present",)),
    (("in", "the", "morning"), ("早上",), ("present", "past", "future")),
    (("in", "the", "evening"), ("晚上",), ("present", "past", "future")),
    (("at", "night"), ("晚上",), ("present", "past", "future")),
    (("on", "monday"), ("星期一",), ("present", "past", "future")),
    (("on", "friday"), ("星期五",), ("present", "past", "future")),
    (("on", "sunday"), ("星期天",), ("present", "past", "future")),
]
_ALL_TENSES = ("present", "past", "future")
_MEALS = [(meal, CORE.lookup(meal).chinese) for meal in ("breakfast", "lunch", "dinner")]  # 早饭 午饭 晚饭
TIMES += [((word, meal), (chinese, after), _ALL_TENSES) for meal, chinese in _MEALS for word, after in
          (("before", "前"), ("after", "后"))]  # fmt: skip
TIMES += [(("after", "school"), ("放学", "后"), _ALL_TENSES), (("after", "class"), ("下课", "后"), _ALL_TENSES)]
_HOURS = (("six", "六"), ("seven", "七"), ("eight", "八"), ("nine", "九"))
TIMES += [
    (("at", hour, *clock), (chinese, "点"), _ALL_TENSES) for hour, chinese in _HOURS for clock in ((), ("o'clock",))
]
# preposition → Chinese after the place (在 X 里); "at": none
PLACE_WORDS = {("in",): "里", ("at",): None, ("on",): "上", ("near",): "附近", ("under",): "下面", ("behind",): "后面",
               ("in", "front", "of"): "前面", ("next", "to"): "旁边"}  # fmt: skip
# a place said by one word: 在 外面 V, 外面 正在 下雪 (at home: 在 家)
PLACE_ADVERBS = [(("outside",), "外面"), (("inside",), "里面"), (("here",), "这里"), (("at", "home"), "家")]
# how one goes somewhere: (English, Chinese) before the verb of going: by bus → 坐 公共汽车 去
_RIDES = (("bus", "坐"), ("car", "坐"), ("train", "坐"), ("plane", "坐"), ("taxi", "坐"), ("bike", "骑"))
VEHICLES = [(("by", noun), (verb, CORE.lookup(noun).chinese)) for noun, verb in _RIDES]
VEHICLES.append((("on", "foot"), ("走路",)))
MOTION = [("go", "goes", "went", "去"), ("come", "comes", "came", "来")]  # going home: 回 家
# a container and its measure word: a glass of water → 一 杯 水
CONTAINERS = [("glass", "glasses", "杯"), ("cup", "cups", "杯"), ("bottle", "bottles", "瓶"), ("bowl", "bowls", "碗"),
              ("piece", "pieces", "块"), ("box", "boxes", "盒")]  # fmt: skip
# --- the third part's tables ---
# a question word and its Chinese, which stands where the answer would (她 买 了 什么)
WH_BEFORE_VERB = {"where": ("在", "哪里"), "when": ("什么时候",), "why": ("为什么",), "how": ("怎么",)}
DO_VERB = ("do", "does", "did", "doing", "做")  # what are you doing → 你 正在 做 什么
# verb + to + verb: the first verb's Chinese is aligned to it and to "to" (want to → 想 is verb_clause's)
CATENATIVES = [
    ("like", "likes", "liked", "喜欢"), ("love", "loves", "loved", "爱"), ("need", "needs", "needed", "需要"),
    ("start", "starts", "started", "开始"), ("begin", "begins", "began", "开始"), ("hope", "hopes", "hoped", "希望"),
    ("decide", "decides", "decided", "决定"), ("plan", "plans", "planned", "计划"),
    ("forget", "forgets", "forgot", "忘记"), ("learn", "learns", "learned", "学"),
    ("want", "wants", "wanted", "想"),  # the seventh part: verb_clause's want to has no past
]  # fmt: skip
# negated with 不 in the past too: she didn't like to … → 她 不 喜欢 …
STATIVE = {"like", "love", "need", "hope", "want"}
DEGREE_ADVERBS = [("well", "好"), ("fast", "快"), ("hard", "努力")]  # V 得 很 好
# --- the fifth part's tables ---
# what one says as a whole: English words, then each Chinese word with the English positions it translates
GREETINGS = [
    (("thank", "you"), (("谢谢", (0,)), ("你", (1,)))),
    (("thank", "you", "very", "much"), (("非常", (2, 3)), ("感谢", (0,)), ("你", (1,)))),
    (("thanks",), (("谢谢", (0,)),)),
    (("good", "morning"), (("早上", (1,)), ("好", (0,)))),
    (("good", "afternoon"), (("下午", (1,)), ("好", (0,)))),
    (("good", "evening"), (("晚上", (1,)), ("好", (0,)))),
    (("good", "night"), (("晚安", (0, 1)),)),
    (("hello",), (("你好", (0,)),)),
    (("goodbye",), (("再见", (0,)),)),
    (("see", "you", "tomorrow"), (("明天", (2,)), ("见", (0,)))),
    (("how", "are", "you"), (("你", (2,)), ("好", (0,)), ("吗", (1,)))),
    (("i", "am", "fine"), (("我", (0,)), ("很", (1,)), ("好", (2,)))),
    (("what", "time", "is", "it"), (("几", (0,)), ("点", (1,)), ("了", (2, 3)))),
    (("what", "time", "is", "it", "now"), (("现在", (4,)), ("几", (0,)), ("点", (1,)), ("了", (2, 3)))),
    (("i", "am", "sorry"), (("对不起", (2,)),)),
    (("sorry",), (("对不起", (0,)),)),
    (("excuse", "me"), (("打扰", (0,)), ("一下", (1,)))),
    (("you", "are", "welcome"), (("不", (0, 1)), ("客气", (2,)))),
    (("nice", "to", "meet", "you"), (("很", (0,)), ("高兴", (0,)), ("认识", (2,)), ("你", (3,)))),
    (("happy", "birthday"), (("生日", (1,)), ("快乐", (0,)))),
    (("happy", "new", "year"), (("新年", (1, 2)), ("快乐", (0,)))),
]
# for two hours → 两 个 小时, after the verb and 了: (singular, plural, Chinese, measure word or None)
DURATIONS = [
    ("minute", "minutes", "分钟", None), ("hour", "hours", "小时", "个"), ("day", "days", "天", None),
    ("week", "weeks", "星期", "个"), ("month", "months", "月", "个"), ("year", "years", "年", None),
]  # fmt: skip
DURATION_VERBS = (
    "live", "work", "study", "sleep", "play", "walk", "run", "swim", "sing", "dance", "rest", "stay", "talk", "learn",
    "practice", "travel", "cry", "laugh", "drive", "write",
)  # fmt: skip
DURATION_WORDS = [w for w in COMMON["verb"] if w.lemma in DURATION_VERBS]  # wait for two hours
# runs faster than → 比 … 跑 得 快: the comparative adverb, and its Chinese after 得
COMPARED_ADVERBS = [("faster", "快"), ("better", "好"), ("harder", "努力"), ("earlier", "早"), ("later", "晚")]
# --- the sixth part's tables: words among wordfreq's 400 commonest English words that no part wrote ---
# a modal before the verb (should → 应该), and whether it asks a question (should we go → 我们 应该 去 吗)
MODALS = [
    (("should",), "应该", True), (("must",), "必须", False), (("may",), "可以", True), (("might",), "可能", False),
    (("could",), "能", True), (("would", "like", "to"), "想", True),
]  # fmt: skip
# an adverb before the verb group in both languages (she also likes tea → 她 也 喜欢 茶; we all … → 我们 都 …)
BEFORE_VERB = [("also", "也"), ("still", "还"), ("only", "只"), ("even", "甚至"), ("almost", "几乎")]
# an adverb English puts after the verb and its object, Chinese before the verb: (English, Chinese in the past,
# Chinese otherwise): he was late again → 他 又 迟到 了; please say it again → 请 再 说; we play together → 我们 一起 玩
AFTER_VERB = [("again", "又", "再"), ("together", "一起", "一起")]
# --- the seventh part's tables: more of wordfreq's commonest words that no part wrote (or, then, about, which,
# each other, from, almost, just, maybe, wanted) and the clauses a sentence joins with when / after / before / so
# before the verb in both languages, in the past only: she just left → 她 刚 走 了
JUST = ("just", "刚")
# verbs two people do to each other: they help each other → 他们 互相 帮助
RECIPROCAL = ("help", "love", "know", "meet", "call", "miss", "understand", "visit", "hate", "trust", "hug", "kiss",
              "like", "respect", "see", "thank", "watch", "invite", "follow")  # fmt: skip
# what a book, a song, a film can be about: a story about a dog → 一 个 关于 狗 的 故事
TOPICS = ("book", "story", "news", "question", "report", "program", "song", "film", "movie", "picture", "article",
          "message", "letter", "email", "joke", "lesson", "game")  # fmt: skip
# a clause joined before or after another: (English, Chinese after the clause it opens); Chinese puts that clause
# first: when it rains we … / we … when it rains → 下雨 的 时候 我们 …
SUBORDINATORS = [("when", ("的", "时候")), ("after", ("以后",)), ("before", ("以前",))]
# --- the eighth part's tables: more of wordfreq's commonest words that no part wrote (no, any, another, enough,
# both, everyone, everything, nothing, as, much, used, half, yes), being somewhere, and more times (not this year:
# the noun phrases write this year → 这 个 年 as they write this book)
TIMES += [
    (("last", "year"), ("去年",), ("past",)),
    (("next", "year"), ("明年",), ("future",)),
    (("last", "month"), ("上个", "月"), ("past",)),
    (("next", "month"), ("下个", "月"), ("future",)),
    (("tonight",), ("今晚",), ("future", "progressive")),
    (("every", "night"), ("每", "天", "晚上"), ("present",)),
    (("every", "evening"), ("每", "天", "晚上"), ("present",)),
    (("every", "week"), ("每", "个", "星期"), ("present",)),
    (("every", "year"), ("每", "年"), ("present",)),
    (("last", "summer"), ("去年", "夏天"), ("past",)),
    (("last", "winter"), ("去年", "冬天"), ("past",)),
]
# --- the ninth part's tables: what the blind set's outputs showed the first eight parts did not write ---
TIMES += [
    (("this", "morning"), ("今天", "早上"), ("past", "future", "progressive")),
    (("this", "afternoon"), ("今天", "下午"), ("past", "future", "progressive")),
    (("this", "evening"), ("今天", "晚上"), ("past", "future", "progressive")),
    (("in", "the", "afternoon"), ("下午",), _ALL_TENSES),
]
TIMES += [(("at", "half", "past", hour), (chinese, "点", "半"), _ALL_TENSES) for hour, chinese in _HOURS]
# --- the tenth part's tables ---
# until a time, after the verb: we waited until nine → 我们 等 到 九 点 (English, Chinese aligned to the English)
UNTIL = [((hour, *clock), (chinese, "点")) for hour, chinese in _HOURS for clock in ((), ("o'clock",))]
UNTIL += [(("tomorrow",), ("明天",)), (("next", "week"), ("下个", "星期")), (("friday",), ("星期五",))]
# since a time, with the present perfect: since last year → 从 去年 开始 (从, 开始 and 就 aligned to since)
SINCE = [(("yesterday",), ("昨天",)), (("last", "week"), ("上个", "星期")), (("last", "month"), ("上个", "月")),
         (("last", "year"), ("去年",)), (("monday",), ("星期一",)), (("last", "summer"), ("去年", "夏天"))]  # fmt: skip
# nouns of time, which a noun phrase never opens with this: this morning is 今天 早上 (a TIMES entry), not 这 个 早上
TIME_NOUNS = {"morning", "afternoon", "evening", "night", "day", "week", "month", "year", "summer", "winter"}
# what English says before a noun that Chinese says with its own word (a place, where one goes: my school → 我的 学校)
OWNERS = {"the": (), "my": ("我的",), "our": ("我们的",)}
# every Chinese word the tables above write
GRAMMAR_CHINESE = frozenset(
    {word for _, chinese, _ in TIMES for word in chinese}
    | {chinese for chinese in PLACE_WORDS.values() if chinese}
    | {chinese for _, chinese in PLACE_ADVERBS}
    | {word for _, chinese in VEHICLES for word in chinese}
    | {motion[3] for motion in MOTION}
    | {container[2] for container in CONTAINERS}
    | {"很多", "回", "家"}
    | {word for chinese in WH_BEFORE_VERB.values() for word in chinese}
    | {DO_VERB[4]}
    | {verb[3] for verb in CATENATIVES}
    | {chinese for _, chinese in DEGREE_ADVERBS}
    | {"什么", "谁", "比", "没有", "已经", "还", "从来", "过", "得", "如果", "这", "那", "好"}
    | {word for _, chinese in GREETINGS for word, _ in chinese}
    | {chinese for _, chinese, _, measure in DURATIONS}
    | {chinese for _, chinese in COMPARED_ADVERBS}
    | {"太", "吧", "叫", "名字", "个"}
    | {chinese for _, chinese, _ in MODALS}
    | {chinese for _, chinese in BEFORE_VERB}
    | {"都"}
    | {word for _, past, other in AFTER_VERB for word in (past, other)}
    | {JUST[1], "也许", "互相", "关于", "哪", "从", "或者", "和", "然后", "所以"}
    | {word for _, chinese in SUBORDINATORS for word in chinese}
    | {"另", "足够", "一样", "多少", "钱", "大家", "半", "是的", "以前"}
    | {"必须", "用", "擅长", "东西", "有人", "更", "多", "对不起"}
    | {"到", "开始", "就", "少"}
)
FREQUENCY = [("always", "总是"), ("usually", "通常"), ("often", "经常"), ("sometimes", "有时候")]
# The twelfth part: (lemma, role) → (the words it goes with, its Chinese there), the first that holds; else the
# dictionary's. An adjective goes with its noun ("person", "animal" or "thing" when it is said of one: the boy is
# short), a verb with its object's noun, an adjective's adverb (carefully) with its verb.
ATTENTIVE = frozenset({"listen", "look", "read", "check", "watch", "study", "think", "write", "learn", "examine"})
VEHICLES_AND_EVENTS = frozenset({"bus", "train", "plane", "class", "lesson", "chance", "film", "movie", "flight"})
SHOPS = ("shop", "store", "library", "bank", "museum", "restaurant", "supermarket", "office", "school")
SENSES = {
    ("old", "adjective"): (({"thing"}, story.OLD_THINGS),),  # 老 of the living, 旧 of things (as corpus.py writes)
    ("short", "adjective"): (({"person"}, "矮"),),  # 矮 of people, 短 of things
    ("wear", "verb"): (({"hat", "cap", "glasses", "watch", "ring", "mask"}, "戴"),),  # 穿 for clothes
    ("play", "verb"): (
        ({"football", "soccer"}, "踢"), ({"basketball", "tennis", "baseball", "badminton", "golf"}, "打"),
        ({"piano", "guitar"}, "弹"),
    ),  # 玩 for games and the rest
    ("lose", "verb"): (({"game", "match", "race"}, "输"), ({"thing"}, "丢")),  # lost the game 输, lost my key 丢
    ("drive", "verb"): (({"car", "bus", "taxi", "truck", "train"}, "开"),),  # 开车 without an object
    ("careful", "adjective"): ((ATTENTIVE, "仔细"),),  # listen carefully 仔细 地 听; drive carefully 小心 地 开车
    # the thirteenth part (a subject's lemma and " -": said of it, with no object)
    ("miss", "verb"): ((VEHICLES_AND_EVENTS, "错过"),),  # miss my mother 想念
    ("visit", "verb"): (({"person"}, "看望"),),  # visit the museum 参观
    ("take", "verb"): (({"photo", "picture"}, "拍"), ({"bus", "train", "taxi", "plane"}, "坐"), ({"medicine"}, "吃")),
    ("know", "verb"): (({"person"}, "认识"),),  # know the answer 知道
    ("carry", "verb"): (({"box", "table", "chair", "desk", "bed", "sofa"}, "搬"),),  # carry a bag 带
    ("make", "verb"): (({"friend"}, "交"),),  # make a cake 做
    ("catch", "verb"): (({"bus", "train", "plane"}, "赶"),),  # catch the ball 抓住
    ("answer", "verb"): (({"phone"}, "接"),),  # answer the question 回答
    ("see", "verb"): (({"doctor"}, "看"),),  # see a bird 看见
    ("open", "verb"): (({f"{shop} -" for shop in SHOPS}, "开门"),),  # open the door 打开
    ("close", "verb"): (({f"{shop} -" for shop in SHOPS}, "关门"),),  # close the door 关
}  # fmt: skip
# the words a sense clause draws an object from, by verb (the first row's words, and a few more for lose)
SENSE_OBJECTS = {
    "wear": ("hat", "cap", "glasses", "watch", "ring", "mask"),
    "play": ("football", "soccer", "basketball", "tennis", "baseball", "badminton", "piano", "guitar", "game"),
    "lose": ("game", "match", "race", "key", "bag", "phone", "money", "book", "ticket", "wallet", "watch", "umbrella"),
    "drive": ("car", "bus", "taxi", "truck"),
    # the thirteenth part: the nouns of each sense, and some of the dictionary's own sense beside them
    "miss": ("bus", "train", "plane", "class", "lesson", "chance", "film", "friend", "mother", "family", "grandmother"),
    "visit": (
        "grandmother",
        "grandfather",
        "grandparent",
        "friend",
        "teacher",
        "aunt",
        "uncle",
        "museum",
        "zoo",
        "city",
    ),
    "take": ("photo", "picture", "bus", "train", "taxi", "plane", "medicine", "book", "bag", "pen"),
    "know": ("friend", "teacher", "man", "woman", "doctor", "neighbor", "answer", "way", "word", "news", "story"),
    "carry": ("box", "table", "chair", "desk", "bag", "book", "umbrella"),
    "make": ("friend", "cake", "dinner", "card"),
    "catch": ("bus", "train", "plane", "ball", "fish", "thief"),
    "answer": ("phone", "question", "letter"),
    "see": ("doctor", "bird", "film", "picture", "friend"),
}
_BY_LEMMA = {(w.lemma, w.role): w for role in ("noun", "verb", "adjective") for w in COMMON[role]}
SENSE_WORDS = {lemma: _BY_LEMMA[(lemma, role)] for (lemma, role) in SENSES}
SENSE_NOUNS = {  # (mask and watch are no noun of the dictionary's core)
    verb: tuple(_BY_LEMMA[(noun, "noun")] for noun in nouns if (noun, "noun") in _BY_LEMMA)
    for verb, nouns in SENSE_OBJECTS.items()
}
SHOP_NOUNS = tuple(_BY_LEMMA[(shop, "noun")] for shop in SHOPS)
# the verbs a sense clause says carefully with: those that take 仔细 (ATTENTIVE) and some that take 小心
MANNER_VERBS = [
    w for w in COMMON["verb"] + COMMON["phrasal"]
    if w.lemma in ATTENTIVE | {"drive", "walk", "cross", "carry", "hold", "cut", "move", "climb", "cook", "open"}
]  # fmt: skip
# give X Y → 给 X Y; show X Y → 给 X 看 Y: (base, 3rd, past, -ing, Chinese before X, Chinese after X)
DITRANSITIVES = [
    ("give", "gives", "gave", "giving", "给", None),
    ("send", "sends", "sent", "sending", "给", "寄"),
    ("show", "shows", "showed", "showing", "给", "看"),
    ("bring", "brings", "brought", "bringing", "给", "带"),
    ("tell", "tells", "told", "telling", "告诉", None),
    ("teach", "teaches", "taught", "teaching", "教", None),
]
WEATHER = [("rain", "rains", "rained", "raining", "下雨"), ("snow", "snows", "snowed", "snowing", "下雪")]
PRONOUNS = story.PRONOUNS + [("it", "it", "its", "它", "它的", True, "is")]
PLURAL_NUMBERS = story.NUMBERS + [("six", "六"), ("ten", "十")]
# negation and question helpers: (tense, third person) → English auxiliary
DO = {("present", True): "does", ("present", False): "do", ("past", True): "did", ("past", False): "did"}
NOT_FORMS = {"does": "doesn't", "do": "don't", "did": "didn't", "will": "won't", "is": "isn't", "are": "aren't",
             "can": "can't", "am": "am"}  # fmt: skip


# a degree word before an adjective after be (the river is very long → 河 很 长)
DEGREE_CHINESE = {"very": "很", "not": "不", "so": "很", "really": "真", "too": "太"}


def degree_words(degree: str, be: En) -> tuple[list[En], list, list]:
    """The English degree word (none for ""), the Chinese before the adjective (DEGREE_CHINESE's, or 很 aligned to be
    when English says none: the river is long → 河 很 长) and after it (too cold → 太 冷 了)."""
    d = words(degree) if degree else []
    before = [zh(DEGREE_CHINESE[degree], *d)] if d else [zh("很", be)]
    return d, before, [zh("了", *d)] if degree == "too" else []


# The everyday clauses: each one's upper bound on one draw of rng.random() (the shares are the differences: verb
# clauses 18% (26% before the eleventh part's reported clauses, 3%, and the senses, 3% then 5%), be 14%, have 7%,
# please and let's 7%, going 5%, weather 3%; the third part: wh-questions 6%, comparisons 4%, the to-infinitive 3%,
# the present perfect 3%, complements of degree 3%; the fourth: superlatives 3%, going to 3%, how old / how many /
# what time / whose 3%; the fifth: greetings 3%, names 2%, lengths of time 3%, comparing verbs 2%).
IMPERATIVES = ("please", "let")  # never joined to another clause (nor is a bare imperative: its fact "imperative")
ACTIONS = ("verb_clause", "motion_clause", "weather_clause")  # the clause a when / after / before opens
# the eleventh part: a clause reported after think, know, hope ... (i think it will rain → 我 觉得 会 下雨); think and
# feel before a clause are 觉得, an opinion (the dictionary's first sense of think, 想, is the verb alone)
REPORTERS = [
    ("think", "thinks", "thought", "觉得"), ("feel", "feels", "felt", "觉得"), ("know", "knows", "knew", "知道"),
    ("hope", "hopes", "hoped", "希望"), ("believe", "believes", "believed", "相信"), ("say", "says", "said", "说"),
    ("remember", "remembers", "remembered", "记得"),
]  # fmt: skip
REPORTED = ("verb_clause", "be_clause", "weather_clause", "have_clause")  # statements, reported
CLAUSES = (
    (0.18, "verb_clause"), (0.23, "sense_clause"), (0.26, "reported_clause"), (0.40, "be_clause"),
    (0.47, "have_clause"), (0.54, "please_clause"), (0.59, "motion_clause"),
    (0.62, "weather_clause"), (0.68, "wh_clause"), (0.72, "comparison_clause"), (0.75, "catenative_clause"),
    (0.78, "perfect_clause"), (0.81, "degree_clause"), (0.84, "superlative_clause"), (0.87, "going_to_clause"),
    (0.90, "how_many_clause"), (0.93, "greeting_clause"), (0.95, "name_clause"), (0.98, "duration_clause"),
    (1.0, "verb_comparison_clause"),
)  # fmt: skip


@functools.cache  # filtered once, not on every draw (it was a tenth of the generation's time under cProfile)
def people_or_not(role: str, rare: bool, person: bool | None) -> list[Word]:
    """The role's rare or common words; with person given, only the people (True) or only the rest (False), or all
    of them when the pool has none of that kind."""
    pool = (RARE if rare else COMMON)[role]
    if person is None:
        return pool
    return [w for w in pool if w.person == person] or pool


class Everyday(story.Grammar):
    """Sentences of the shapes above; the story grammar's noun phrases, names and pronouns where they fit."""

    # --- words ----------------------------------------------------------------------------

    def content(self, role: str, person: bool | None = None) -> Word:
        return self.pick(people_or_not(role, self.draws_rare(RARE[role]), person))

    def common_or_rare(self, common: list, rare: list) -> list:
        """The rare pool for about RARE_SHARE of the draws (when it has any), else the common one."""
        return rare if self.draws_rare(rare) else common

    def draws_rare(self, rare: list) -> bool:
        """Whether this draw takes the rare pool: about RARE_SHARE of the draws, when it has any."""
        return bool(rare) and self.chance(RARE_SHARE)

    def content_token(self, word: Word, form: str) -> En:
        """An English content word; to_pair writes it (or its typed <unk>) and its Chinese (or <unk>)."""
        token = En(form)
        token.content = word
        return token

    def chinese(self, word: Word, token: En) -> tuple[str, tuple[En, ...]]:
        return zh(word.chinese, token)

    # --- noun phrases ---------------------------------------------------------------------

    def noun_phrase(
        self,
        person: bool | None = None,
        plural: bool | None = None,
        place: bool = True,
        noun: Word | None = None,
        adjective: Word | None = None,
    ) -> Phrase:
        """A noun with a determiner, maybe an adjective, maybe a place after it; ``noun`` and ``adjective`` given
        (the twelfth part) are the ones written."""
        if person and noun is None and self.chance(0.35):
            return self.name() if self.chance(0.5) else self.pronoun_phrase("subject")
        noun = noun or self.content("noun", person)
        plural = self.chance(0.3) if plural is None else plural
        if noun.mass and not plural and adjective is None and self.chance(0.15):
            return self.container_phrase(noun)
        token = self.content_token(noun, noun.form("plural") if plural else noun.lemma)
        phrase = Phrase(kind="person" if noun.person else "object", head=noun.lemma, third=not plural, plural=plural)
        det = self.pick(
            ["the", "the", "a", "my", "poss", "this", "number"] + (["bare", "bare", "a lot of"] if noun.mass else [])
            if not plural
            else ["the", "number", "these", "my", "some", "bare", "bare", "many", "a lot of"]
        )
        if self.chance(0.04):  # the eighth part: another book → 另 一 本 书; enough water → 足够 的 水
            det = "enough" if plural or noun.mass else "another"
            if det == "enough" and self.chance(0.5):  # the ninth part: more water → 更 多 的 水
                det = "less" if noun.mass and self.chance(0.3) else "more"  # the tenth: less sugar → 更 少 的 糖
        if det in ("this", "these") and noun.lemma in TIME_NOUNS:  # the ninth part: this morning is a time
            det = "the"
        adjective = adjective or (self.content("adjective") if self.chance(0.25) else None)
        before_en: list[En] = []
        before_zh: list = []
        if det == "a":
            (a,) = before_en = words("an" if (adjective.lemma if adjective else noun.lemma)[0] in "aeiou" else "a")
            before_zh = [zh("一", a), zh(noun.measure, a, token)]
        elif det == "number":
            number, zh_number = self.pick(PLURAL_NUMBERS) if plural else ("one", "一")
            (n,) = before_en = words(number)
            before_zh = [zh(zh_number, n), zh(noun.measure, n, token)]
        elif det in ("this", "these"):
            (d,) = before_en = words(det)
            before_zh = self.this_chinese(d, noun, token)
        elif det == "some":
            (d,) = before_en = words("some")
            before_zh = [zh("一些", d)]
        elif det == "another":
            (d,) = before_en = words("another")
            before_zh = [zh("另", d), zh("一", d), zh(noun.measure, d, token)]
        elif det == "enough":
            (d,) = before_en = words("enough")
            before_zh = [zh("足够", d), zh("的", d)]
        elif det in ("more", "less"):
            (d,) = before_en = words(det)
            before_zh = [zh("更", d), zh("多" if det == "more" else "少", d), zh("的", d)]
        elif det in ("many", "a lot of"):
            before_en = words(*det.split())
            before_zh = [zh("很多", *before_en)]
        elif det == "my":
            _, _, poss, _, zh_poss, _, _ = self.pick(PRONOUNS[:-1])
            (d,) = before_en = words(poss)
            before_zh = [zh(zh_poss, d)]
        elif det == "poss":
            owner = self.possessor()
            before_en, before_zh = owner.en, owner.zh
        elif det == "the":
            before_en = words("the")
        adj_en, adj_zh = [], []
        if adjective:
            a = self.content_token(adjective, adjective.lemma)
            adj_en = [a]
            adj_zh = [self.chinese(adjective, a)] + ([zh("的", a)] if len(adjective.chinese) > 1 else [])
        noun_zh = [self.chinese(noun, token)]
        if plural and noun.person and det in ("the", "my"):
            noun_zh.append(zh("们", token))
        phrase.en = before_en + adj_en + [token]
        phrase.zh = before_zh + adj_zh + noun_zh
        if noun.person and det == "the" and self.chance(0.2):  # the man who lives here → 住 在 这里 的 男人
            relative = self.relative_who(plural)
            phrase.en += relative.en
            phrase.zh = relative.zh + phrase.zh
            return phrase
        if place and noun.lemma in TOPICS and det in ("the", "a") and self.chance(0.25):
            # the seventh part: a story about a dog → 一 个 关于 狗 的 故事 (before its adjective: 关于 … 的 新 书)
            topic = self.noun_phrase(place=False)
            (about,) = words("about")
            phrase.en += [about] + topic.en
            phrase.zh = before_zh + [zh("关于", about)] + topic.zh + [zh("的", about)] + adj_zh + noun_zh
            return phrase
        if place and det == "the" and self.chance(0.1):  # the water in the lake → 湖 里 的 水
            place_en, place_zh = self.place_phrase(preposition=True)
            (at,) = place_zh[:1]
            phrase.en += place_en
            phrase.zh = place_zh[1:] + [zh("的", *at[1])] + phrase.zh
        return phrase

    def this_chinese(self, this: En, noun: Word, token: En) -> list:
        """this book → 这 本 (the measure word aligned to this and to the noun); these books → 这些."""
        return [zh("这", this), zh(noun.measure, this, token)] if this.word == "this" else [zh("这些", this)]

    def container_phrase(self, noun: Word) -> Phrase:
        """a glass of water → 一 杯 水; two cups of tea → 两 杯 茶 (of has no Chinese word)."""
        single, plural_form, measure = self.pick(CONTAINERS)
        plural = self.chance(0.3)
        number, zh_number = self.pick(PLURAL_NUMBERS) if plural else ("a", "一")
        n, container, of = words(number, plural_form if plural else single, "of")
        token = self.content_token(noun, noun.lemma)
        phrase = Phrase(kind="object", head=noun.lemma, third=not plural, plural=plural)
        phrase.en = [n, container, of, token]
        phrase.zh = [zh(zh_number, n), zh(measure, container), self.chinese(noun, token)]
        return phrase

    def pronoun_phrase(self, case: str) -> Phrase:
        subj, obj, _, zh_word, _, third, be = self.pick(PRONOUNS[:-1])
        (token,) = words(subj if case == "subject" else obj)
        return Phrase(
            [token], [zh(zh_word, token)], head=subj, kind="person", third=third, plural=subj in ("we", "they"), be=be
        )

    def subject_phrase(self) -> Phrase:
        roll = self.rng.random()
        if roll < 0.25:
            return self.pronoun_phrase("subject")
        if roll < 0.4:
            return self.name()
        return self.noun_phrase()

    def object_phrase_(self) -> Phrase:
        roll = self.rng.random()
        if roll > 0.97:  # that one → 那 个 (the fifth part)
            this, one = words(self.pick(["this", "that"]), "one")
            return Phrase(
                [this, one],
                [zh("这" if this.word == "this" else "那", this), zh("个", one)],
                kind="object", head="one", third=True, plural=False,
            )  # fmt: skip
        if roll < 0.15:
            return self.pronoun_phrase("object")
        if roll < 0.25:
            return self.name()
        if roll < 0.29:  # the seventh part: tea or coffee → 茶 或者 咖啡; apples and bananas → 苹果 和 香蕉
            first, second = self.noun_phrase(place=False), self.noun_phrase(place=False)
            (joint,) = words(self.pick(["or", "and"]))
            return Phrase(
                first.en + [joint] + second.en,
                first.zh + [zh("或者" if joint.word == "or" else "和", joint)] + second.zh,
                kind="object", head=second.facts.get("head"), third=False, plural=True,
            )  # fmt: skip
        return self.noun_phrase()

    def place_phrase(self, preposition: bool = False) -> tuple[list[En], list]:
        """in the park → 在 公园 里, in front of a big house → 在 一 个 大 房子 前面; outside → 在 外面 (not with
        ``preposition``: a place after a noun). The first Chinese word is 在."""
        if not preposition and self.chance(0.2):
            en_words, chinese = self.pick(PLACE_ADVERBS)
            place = words(*en_words)
            return place, [zh("在", *place), zh(chinese, *place)]
        prep = self.pick(sorted(PLACE_WORDS))
        noun = self.content("noun", person=False)
        token = self.content_token(noun, noun.lemma)
        p = words(*prep)
        det = words(self.pick(["the", "the", "my", "our", "a"]))
        if det[0].word == "a":
            adjective = self.content("adjective") if self.chance(0.3) else None
            first = adjective.lemma if adjective else noun.lemma
            det = words("an" if first[0] in "aeiou" else "a")
            det_zh = [zh("一", det[0]), zh(noun.measure, det[0], token)]
        else:
            adjective = self.content("adjective") if det[0].word == "the" and self.chance(0.15) else None
            det_zh = [zh(word, det[0]) for word in OWNERS[det[0].word]]
        adj_en, adj_zh = [], []
        if adjective:
            a = self.content_token(adjective, adjective.lemma)
            adj_en = [a]
            adj_zh = [self.chinese(adjective, a)] + ([zh("的", a)] if len(adjective.chinese) > 1 else [])
        after = PLACE_WORDS[prep]
        return p + det + adj_en + [token], [zh("在", *p)] + det_zh + adj_zh + [self.chinese(noun, token)] + (
            [zh(after, *p)] if after else []
        )

    def time_phrase(self, tense: str) -> tuple[list[En], list] | None:
        choices = [t for t in TIMES if tense in t[2]]
        if not choices:
            return None
        en_words, zh_words, _ = self.pick(choices)
        time_en = words(*en_words)
        anchors = [w for w in time_en if w.word not in ("the", "in", "on", "at")]
        return time_en, [zh(w, *anchors) for w in zh_words]

    # --- the verb group -------------------------------------------------------------------

    def subject_be(self, subject: Phrase) -> str:
        return subject.facts.get("be") or ("are" if subject["plural"] else "is")

    def verb_clause(
        self,
        subject: Phrase | None = None,
        verb: Word | None = None,
        objects: tuple[Word, ...] = (),
        manner: Word | None = None,
        intransitive: bool = False,
    ) -> Phrase:
        """subject + (negated / questioned / modal) verb + objects, adverb, place, time. The twelfth part may give
        the ``verb``, the nouns its object is drawn from (``objects``) and an adjective whose adverb it takes
        (``manner``: carefully), or ask for no object (``intransitive``: the shop opens at nine)."""
        everyone = words("everyone") if subject is None and self.chance(0.04) else []  # the eighth part: 大家 都
        if everyone:
            subject = Phrase(
                everyone, [zh("大家", *everyone)], kind="person", head="everyone", third=True, plural=False
            )
        elif subject is None and self.chance(0.03):  # the ninth part: someone took my bag → 有人 拿 了 我的 包
            someone = words("someone")
            subject = Phrase(someone, [zh("有人", *someone)], kind="person", head="someone", third=True, plural=False)
        subject = subject or self.subject_phrase()
        third = subject["third"]
        shape = self.pick(
            ["plain"] * 5 + ["not", "not", "question", "question", "can", "want", "ditransitive", "modal", "modal"]
        )
        tense = self.pick(["present", "present", "past", "past", "future", "progressive"])
        if (everyone and shape == "not") or (subject["head"] == "someone" and shape in ("not", "question")):
            shape = "plain"
        if manner or (verb and shape == "ditransitive"):
            shape = "plain"
        if shape == "ditransitive":
            base, third_form, past, ing, zh_before, zh_after = self.pick(DITRANSITIVES)
            word = None
        else:
            word = verb or (self.content("phrasal") if self.chance(0.15) else self.content("verb"))
            base, third_form, past, ing = (
                word.lemma,
                word.form("present-3rd"),
                word.form("past"),
                word.form("progressive"),
            )
        negated = shape == "not"
        question = shape == "question"
        en_before: list[En] = []  # English before the subject (questions)
        en_verb: list[En] = []  # the English verb group
        zh_before_verb: list = []  # 不 / 没 / 会 / 正在 / 能 / 想
        zh_after_verb: list = []  # 了
        tail_zh: list = []  # 吗

        def verb_token(form: str) -> En:
            return self.content_token(word, form) if word else En(form)

        if shape == "can" and self.chance(0.2):  # the eighth part: i can not swim (i can't: i can not) → 我 不 能 游泳
            can, not_ = words("can", "not")
            v = verb_token(base)
            en_verb = [can, not_, v]
            zh_before_verb = [zh("不", not_), zh("能", can)]
            tense = "modal"
        elif shape in ("can", "want"):
            modal = words("can") if shape == "can" else words("want" if not third else "wants", "to")
            if shape == "can" and self.chance(0.4):
                (modal_token,) = words("can")
                en_before = [modal_token]
                v = verb_token(base)
                en_verb = [v]
                zh_before_verb = [zh("能", modal_token)]
                tail_zh = [zh("吗", modal_token)]
                question = True
            else:
                v = verb_token(base)
                en_verb = modal + [v]
                zh_before_verb = [zh("能" if shape == "can" else "想", *modal)]
            tense = "modal"
        elif shape == "modal" and self.chance(0.25):  # the ninth part: have to → 必须; don't have to → 不 用
            have_word = "had" if self.chance(0.3) else ("has" if third else "have")
            v = verb_token(base)
            if have_word != "had" and self.chance(0.3):
                aux_word = DO[("present", third)]
                negation = words(NOT_FORMS[aux_word]) if self.chance(0.4) else words(aux_word, "not")
                have, to = words("have", "to")
                en_verb = negation + [have, to, v]
                zh_before_verb = [zh("不", negation[-1]), zh("用", have, to)]
            else:
                have, to = words(have_word, "to")
                en_verb = [have, to, v]
                zh_before_verb = [zh("必须", have, to)]
            tense = "had to" if have_word == "had" else "modal"
        elif shape == "modal":  # the sixth part: should, must, may, might, could, would like to
            modal_words, chinese, asks = self.pick(MODALS)
            modal = words(*modal_words)
            v = verb_token(base)
            if asks and self.chance(0.3):  # should we go → 我们 应该 去 吗
                en_before, en_verb = modal[:1], modal[1:] + [v]
                zh_before_verb, tail_zh = [zh(chinese, *modal)], [zh("吗", modal[0])]
                question = True
            elif modal_words == ("should",) and self.chance(0.25):  # should not → 不 应该
                (not_,) = words("not")
                en_verb = modal + [not_, v]
                zh_before_verb = [zh("不", not_), zh(chinese, *modal)]
            else:
                en_verb = modal + [v]
                zh_before_verb = [zh(chinese, *modal)]
            tense = "modal"
        elif tense == "progressive":
            be_word = self.subject_be(subject)
            (be,) = words(be_word)
            v = verb_token(ing)
            if question:
                en_before, en_verb = [be], [v]
                zh_before_verb, tail_zh = [zh("正在", be, v)], [zh("吗", be)]
            elif negated:
                if self.chance(0.3) and be_word != "am":
                    (be,) = words(NOT_FORMS[be_word])
                    en_verb = [be, v]
                    zh_before_verb = [zh("没", be), zh("在", be, v)]
                else:
                    (not_,) = words("not")
                    en_verb = [be, not_, v]
                    zh_before_verb = [zh("没", not_), zh("在", be, v)]
            else:
                en_verb = [be, v]
                zh_before_verb = [zh("正在", be, v)]
        elif tense == "future":
            (will,) = words("will")
            v = verb_token(base)
            if question:
                en_before, en_verb = [will], [v]
                zh_before_verb, tail_zh = [zh("会", will)], [zh("吗", will)]
            elif negated:
                if self.chance(0.3):
                    (wont,) = words("won't")
                    en_verb = [wont, v]
                    zh_before_verb = [zh("不", wont), zh("会", wont)]
                else:
                    (not_,) = words("not")
                    en_verb = [will, not_, v]
                    zh_before_verb = [zh("不", not_), zh("会", will)]
            else:
                en_verb = [will, v]
                zh_before_verb = [zh("会", will)]
        else:  # present or past
            if question or negated:
                aux_word = DO[(tense, third)]
                v = verb_token(base)
                if question:
                    (aux,) = words(aux_word)
                    en_before, en_verb = [aux], [v]
                    tail_zh = [zh("吗", aux)]
                    if tense == "past":
                        zh_after_verb = [zh("了", aux, v)]
                else:
                    if self.chance(0.3):
                        (aux,) = words(NOT_FORMS[aux_word])
                        en_verb = [aux, v]
                        neg_sources = (aux,)
                    else:
                        aux, not_ = words(aux_word, "not")
                        en_verb = [aux, not_, v]
                        neg_sources = (not_,) if tense == "present" else (aux, not_)
                    zh_before_verb = [zh("不" if tense == "present" else "没", *neg_sources)]
            elif tense == "past" and shape == "plain" and self.chance(0.08):  # the eighth part: 我 以前 住 在 这里
                used, to = words("used", "to")
                v = verb_token(base)
                en_verb = [used, to, v]
                zh_before_verb = [zh("以前", used, to)]
                tense = "used to"  # no 了, no time phrase
            else:
                v = verb_token(third_form if (tense == "present" and third) else (past if tense == "past" else base))
                en_verb = [v]
                if tense == "past":
                    zh_after_verb = [zh("了", v)]
        verb_en = en_verb[-1]
        if everyone:  # everyone likes tea → 大家 都 喜欢 茶 (都 after the time, before 会, 不 …)
            zh_before_verb = [zh("都", *everyone)] + zh_before_verb
        # the sixth part: also / still / only / even (all, after a plural subject) before the verb in both languages
        zh_around: list = []  # again, together: before the verb in Chinese, at the end in English
        en_around: list[En] = []
        if shape in ("plain", "modal") and not question and self.chance(0.2):
            roll = self.rng.random()
            if roll < 0.6:
                plural_adverb = subject["plural"] and self.chance(0.5)  # we all / we both (the eighth part) → 都
                adverb, chinese = (self.pick(["all", "both"]), "都") if plural_adverb else self.pick(BEFORE_VERB)
                if tense == "past" and self.chance(0.2):  # the seventh part: she just left → 她 刚 走 了
                    adverb, chinese = JUST
                (a,) = words(adverb)
                en_verb = en_verb[:-1] + [a] + en_verb[-1:]  # she also likes, she will also come
                zh_before_verb = [zh(chinese, a)] + zh_before_verb  # 她 也 会 来
            else:
                adverb, past_chinese, chinese = self.pick(AFTER_VERB)
                if adverb == "together" and not subject["plural"]:
                    adverb, past_chinese, chinese = AFTER_VERB[0]
                (a,) = en_around = words(adverb)
                zh_around = [zh(past_chinese if tense == "past" else chinese, a)]
        # objects
        en_after: list[En] = []
        objectless = False  # a verb with no object nor particle: it may go on until a time (the tenth part)
        zh_verb: list
        if shape == "ditransitive":
            receiver = self.object_phrase_() if self.chance(0.6) else self.pronoun_phrase("object")
            thing = self.noun_phrase(person=False)
            en_after = receiver.en + thing.en
            if zh_after:
                zh_verb = [zh(zh_before, verb_en)] + receiver.zh + [zh(zh_after, verb_en)] + zh_after_verb + thing.zh
            else:
                zh_verb = [zh(zh_before, verb_en)] + zh_after_verb + receiver.zh + thing.zh
        else:
            particle = words(word.particle) if word.particle else []  # get up → 起床, aligned to both
            zh_verb = [zh(word.chinese, verb_en, *particle)] + zh_after_verb
            en_after = particle
            takes_object = 1.0 if word.particle in PREPOSITION_PARTICLES else 0.3 if word.particle else 0.6
            reciprocal = subject["plural"] and not particle and word.lemma in RECIPROCAL and not zh_around
            if reciprocal and self.chance(0.3):  # the seventh part: they help each other → 他们 互相 帮助
                each_other = words("each", "other")
                en_after = each_other
                zh_verb = [zh("互相", *each_other)] + zh_verb
            elif objects:
                obj = self.noun_phrase(noun=self.pick(objects), place=False)
                en_after = en_after + obj.en
                zh_verb = zh_verb + obj.zh
            elif not intransitive and self.chance(takes_object):
                if shape == "plain" and not particle and tense in ("present", "past") and self.chance(0.12):
                    # the eighth part: she knows everything → 她 什么 都 知道; i saw nothing → 我 什么 都 没 看见
                    (thing,) = en_after = words(self.pick(["everything", "nothing", "something"]))
                    if thing.word == "something":  # the ninth part: i bought something → 我 买 了 一些 东西
                        zh_verb = zh_verb + [zh("一些", thing), zh("东西", thing)]
                    else:
                        if thing.word == "nothing":
                            no = zh("不" if tense == "present" else "没", thing)
                            zh_verb = [no, zh(word.chinese, verb_en)]  # no 了 after 没
                        zh_verb = [zh("什么", thing), zh("都", thing)] + zh_verb
                elif (shape in ("not", "question") and not particle and tense in ("present", "past")
                      and self.chance(0.2)):  # fmt: skip
                    # the ninth part: i didn't see anything → 我 什么 都 没 看见;
                    # did you see anything → 你 看见 了 什么 吗
                    (thing,) = en_after = words("anything")
                    if negated:
                        zh_before_verb = [zh("什么", thing), zh("都", thing)] + zh_before_verb
                    else:
                        zh_verb = zh_verb + [zh("什么", thing)]
                else:
                    obj = self.object_phrase_()
                    en_after = en_after + obj.en
                    zh_verb = zh_verb + obj.zh
            objectless = not en_after
        # a manner or frequency adverb, a place, a time
        zh_adverb: list = []
        en_frequency: list[En] = []
        if manner:
            a = self.content_token(manner, manner.forms["adverb"])
            en_after = en_after + [a]
            zh_adverb = [self.chinese(manner, a), zh("地", a)]
        elif shape == "plain" and self.chance(0.25):
            if self.chance(0.5):
                adverb = self.content("adverb")
                a = self.content_token(adverb, adverb.lemma)
                en_after = en_after + [a]
                zh_adverb = [self.chinese(adverb, a), zh("地", a)]
            else:
                adjective = self.content("adjective")
                form = adjective.forms.get("adverb")
                if form:
                    a = self.content_token(adjective, form)
                    en_after = en_after + [a]
                    zh_adverb = [self.chinese(adjective, a), zh("地", a)]
        elif shape == "plain" and tense == "present" and self.chance(0.2):
            en_word, zh_word = self.pick(FREQUENCY)
            (f,) = en_frequency = words(en_word)
            zh_adverb = [zh(zh_word, f)]
        place_en, place_zh = self.place_phrase() if self.chance(0.3) else ([], [])
        time = self.time_phrase({"modal": "future", "had to": "past"}.get(tense, tense)) if self.chance(0.3) else None
        time_en, time_zh = time or ([], [])
        until = objectless and shape == "plain" and tense in ("present", "past", "future") and self.chance(0.2)
        if until:  # the tenth part: we waited until nine → 我们 等 到 九 点 (no 了: the time says where it ended)
            until_en, until_zh = self.pick(UNTIL)
            (until_word, *when) = time_en = words("until", *until_en)
            time_zh = []
            zh_verb = [z for z in zh_verb if z[0] != "了"] + [zh("到", until_word)] + [zh(c, *when) for c in until_zh]
        time_first = bool(time_en) and not until and not question and self.chance(0.3)
        en_after = en_after + en_around
        en = en_before + subject.en + en_frequency + en_verb + en_after + place_en + ([] if time_first else time_en)
        if time_first:
            en = time_en + en
        # Chinese: (time) subject (time) frequency 不/会/正在 place manner verb 了 object 吗
        zh_words = (time_zh if time_first else []) + subject.zh + ([] if time_first else time_zh)
        zh_words += zh_adverb[:1] if en_frequency else []
        zh_words += zh_before_verb + zh_around + place_zh + ([] if en_frequency else zh_adverb) + zh_verb + tail_zh
        if shape in ("plain", "modal") and not question and self.chance(0.05):  # maybe she … → 也许 她 …
            (maybe,) = words("maybe")
            en, zh_words = [maybe] + en, [zh("也许", maybe)] + zh_words
        return Phrase(en, zh_words, question=question)

    def be_clause(self) -> Phrase:
        """X is (very / not) ADJ → X 很 / 不 ADJ; X is a N → X 是 一 个 N; is X ADJ → X ADJ 吗; X is too ADJ → X 太
        ADJ 了 (the fifth part)."""
        subject = self.subject_phrase()
        be_word = self.subject_be(subject)
        tense = "adjective"
        if self.chance(0.25):
            be_word = "were" if subject["plural"] or be_word == "are" else "was"
            tense = "past"
        question = self.chance(0.2)
        (be,) = words(be_word)
        if tense == "adjective" and not question and self.chance(0.06):  # the ninth part
            return self.good_at(subject, be)
        time = self.time_phrase(tense) if self.chance(0.2) else None
        time_en, time_zh = time or ([], [])
        if self.chance(0.2):  # the eighth part
            return self.be_somewhere(subject, be, question, time_en, time_zh)
        if self.chance(0.3) and not subject["plural"]:  # X is a (ADJ) N
            noun = self.noun_phrase(plural=False)
            if noun.en and noun.en[0].word in ("the", "my", "this", "one"):
                noun = self.noun_phrase(plural=False)
            negated = not question and self.chance(0.2)
            not_ = words("not") if negated else []
            en = ([be] + subject.en if question else subject.en + [be] + not_) + noun.en
            zh_words = subject.zh + time_zh + ([zh("不", *not_)] if negated else []) + [zh("是", be)] + noun.zh
            if question:
                zh_words.append(zh("吗", be))
            return Phrase(en + time_en, zh_words, question=question)
        adjective = self.content("adjective")
        a = self.content_token(adjective, adjective.lemma)
        degree = "" if question else self.pick(["", "very", "very", "not", "so", "really", "too"])
        if tense == "adjective" and degree != "not" and not question and self.chance(0.15):  # the sixth part
            return self.will_be(subject, a, adjective, degree)
        if question:
            return Phrase(
                [be] + subject.en + [a] + time_en,
                subject.zh + time_zh + [self.chinese(adjective, a), zh("吗", be)],
                question=True,
            )
        d, degree_zh, too = degree_words(degree, be)
        return Phrase(
            subject.en + [be, *d, a] + time_en, subject.zh + time_zh + degree_zh + [self.chinese(adjective, a)] + too
        )

    def good_at(self, subject: Phrase, be: En) -> Phrase:
        """she is good at swimming → 她 擅长 游泳; they are not good at games → 他们 不 擅长 游戏: 擅长 aligned to good
        and at, 不 to not."""
        not_ = words("not") if self.chance(0.25) else []
        good, at = words("good", "at")
        if self.chance(0.5):
            verb = self.content("verb")
            thing = self.content_token(verb, verb.form("progressive"))
            thing_zh = self.chinese(verb, thing)
        else:
            noun, thing = self.some_noun()
            thing_zh = self.chinese(noun, thing)
        return Phrase(
            subject.en + [be, *not_, good, at, thing],
            subject.zh + [zh("不", *not_)] * bool(not_) + [zh("擅长", good, at), thing_zh],
        )

    def be_somewhere(self, subject: Phrase, be: En, question: bool, time_en: list[En], time_zh: list) -> Phrase:
        """she is at home → 她 在 家; the book was on the table → 书 在 桌子 上; is he in the garden → 他 在 花园 里
        吗; they are not here → 他们 不 在 这里: 在 aligned to be and the preposition, 不 to not."""
        place_en, place_zh = self.place_phrase()
        (_, at), place_rest = place_zh[0], place_zh[1:]
        negated = not question and self.chance(0.25)
        not_ = words("not") if negated else []
        en = ([be] + subject.en if question else subject.en + [be] + not_) + place_en + time_en
        zh_words = subject.zh + time_zh + ([zh("不", *not_)] if negated else []) + [zh("在", be, *at)] + place_rest
        return Phrase(en, zh_words + ([zh("吗", be)] if question else []), question=question)

    def will_be(self, subject: Phrase, a: En, adjective: Word, degree: str) -> Phrase:
        """it will be cold tomorrow → 明天 会 很 冷; you will be very happy → 你 会 很 高兴: 会 aligned to will, 很 to
        be when no degree word says it."""
        will, be = words("will", "be")
        time = self.time_phrase("future") if self.chance(0.3) else None
        time_en, time_zh = time or ([], [])
        d, degree_zh, too = degree_words(degree, be)
        return Phrase(
            subject.en + [will, be] + d + [a] + time_en,
            subject.zh + time_zh + [zh("会", will)] + degree_zh + [self.chinese(adjective, a)] + too,
        )

    def some_noun(self) -> tuple[Word, En]:
        """A noun that takes no article after no and any: a plural, or a mass noun (money, water)."""
        noun = self.content("noun", person=False)
        return noun, self.content_token(noun, noun.lemma if noun.mass else noun.form("plural"))

    def none_of(self, noun: Word, token: En, *no: En) -> list:
        """没有 (aligned to ``no``: no, have no, there is no, didn't have) and the noun: 没有 钱."""
        return [zh("没有", *no), self.chinese(noun, token)]

    def have_clause(self) -> Phrase:
        """X has a N → X 有 一 只 N; there is a N in the P → 在 P 里 有 一 个 N; (the eighth part) i have no money →
        我 没有 钱; there are no apples in the box → 在 箱子 里 没有 苹果; do you have any books → 你 有 书 吗; she
        did not have any money → 她 没有 钱 (any has no Chinese word)."""
        if self.chance(0.4):
            if self.chance(0.2):  # the eighth part: no or any
                noun, token = self.some_noun()
                plural = token.word != noun.lemma
                there, be, some = words("there", "are" if plural else "is", self.pick(["no", "any"]))
                place_en, place_zh = self.place_phrase()
                if some.word == "no":
                    none = self.none_of(noun, token, there, be, some)
                    return Phrase([there, be, some, token] + place_en, place_zh + none)
                return Phrase([be, there, some, token] + place_en,
                              place_zh + [zh("有", be, there), self.chinese(noun, token), zh("吗", be)],
                              question=True)  # fmt: skip
            there, be = words("there", "are" if (plural := self.chance(0.3)) else "is")
            thing = self.noun_phrase(plural=plural)
            if thing.en[0].word in ("the", "my", "this", "these"):
                thing = self.noun_phrase(plural=plural)
            place_en, place_zh = self.place_phrase()
            return Phrase([there, be] + thing.en + place_en, place_zh + [zh("有", there, be)] + thing.zh)
        subject = self.subject_phrase()
        tense = self.pick(["present", "present", "past"])
        word = "had" if tense == "past" else ("has" if subject["third"] else "have")
        roll = self.rng.random()
        if roll < 0.25:  # the eighth part: no, and any after do
            noun, token = self.some_noun()
            if roll < 0.1:
                have, no = words(word, "no")
                return Phrase(subject.en + [have, no, token], subject.zh + self.none_of(noun, token, have, no))
            aux, have, any_ = words(DO[(tense, subject["third"])], "have", "any")
            if roll < 0.17:
                return Phrase([aux] + subject.en + [have, any_, token],
                              subject.zh + [zh("有", have), self.chinese(noun, token), zh("吗", aux)],
                              question=True)  # fmt: skip
            negation = words(NOT_FORMS[aux.word]) if self.chance(0.4) else [aux, *words("not")]
            none = self.none_of(noun, token, negation[-1], have)
            return Phrase(subject.en + negation + [have, any_, token], subject.zh + none)
        (have,) = words(word)
        thing = self.noun_phrase()
        return Phrase(subject.en + [have] + thing.en, subject.zh + [zh("有", have)] + thing.zh)

    def please_clause(self) -> Phrase:
        """please open the window → 请 打开 窗; please don't V → 请 不要 V; let 's V → 我们 V 吧 (the fifth part); and
        without please (the eleventh part): open the window → 打开 窗, don't V → 不要 V."""
        (please,) = words("please")
        if self.chance(0.1):  # please be quiet → 请 安静 (the sixth part; be has no Chinese word)
            adjective = self.content("adjective")
            be, a = En("be"), self.content_token(adjective, adjective.lemma)
            return Phrase([please, be, a], [zh("请", please), self.chinese(adjective, a)])
        word = self.content("phrasal") if self.chance(0.25) else self.content("verb")
        v = self.content_token(word, word.lemma)
        particle = words(word.particle) if word.particle else []  # please sit down → 请 坐下
        negated = self.chance(0.2)
        neg_en = words("don't") if negated else []
        neg_zh = [zh("不要", *neg_en)] if negated else []
        takes_object = 1.0 if word.particle in PREPOSITION_PARTICLES else 0.3 if word.particle else 0.7
        obj = self.noun_phrase(person=False) if self.chance(takes_object) else Phrase()
        place_en, place_zh = self.place_phrase() if self.chance(0.2) else ([], [])
        verb_en = [v] + particle + obj.en + place_en
        verb_zh = place_zh + [zh(word.chinese, v, *particle)] + obj.zh
        if not negated and self.chance(0.2):  # let 's play in the park → 我们 在 公园 里 玩 吧
            let, s = words("let", "'s")
            return Phrase([let, s] + verb_en, [zh("我们", let, s)] + verb_zh + [zh("吧", let)])
        if self.chance(0.35):  # the eleventh part, bare: open the window → 打开 窗; don't worry → 不要 担心
            return Phrase(neg_en + verb_en, neg_zh + verb_zh, imperative=True)
        en = neg_en + verb_en + [please] if self.chance(0.3) else [please] + neg_en + verb_en  # "…, please"
        return Phrase(en, [zh("请", please)] + neg_zh + verb_zh)

    def reported_clause(self) -> Phrase:
        """i think it will rain → 我 觉得 会 下雨; she said that the river was long → 她 说 河 很 长; he doesn't think …
        → 他 不 觉得 … (the eleventh part). The clause reported is a statement (REPORTED), and *that* before it has
        no Chinese word of its own: the verb's Chinese is aligned to it too, as to the *to* of like to."""
        subject = self.subject_phrase()
        base, third_form, past, chinese = self.pick(REPORTERS)
        clause = getattr(self, self.pick(REPORTED))()
        while clause.facts.get("question"):
            clause = getattr(self, self.pick(REPORTED))()
        # no that before a clause that opens with a demonstrative or one (says that one uncle …: that one?)
        that = words("that") if self.chance(0.4) and clause.en[0].word not in ("one", "that", "this") else []
        if base in ("think", "believe") and self.chance(0.2):  # i don't think … → 我 不 觉得 …
            negation = (
                words(NOT_FORMS[DO[("present", subject["third"])]])
                if self.chance(0.5)
                else words(DO[("present", subject["third"])], "not")
            )
            (verb,) = words(base)
            return Phrase(
                subject.en + negation + [verb] + that + clause.en,
                subject.zh + [zh("不", *negation)] + [zh(chinese, verb, *that)] + clause.zh,
            )
        (verb,) = words(self.pick([third_form if subject["third"] else base, past]))
        return Phrase(subject.en + [verb] + that + clause.en, subject.zh + [zh(chinese, verb, *that)] + clause.zh)

    def weather_clause(self) -> Phrase:
        """it is raining → 正在 下雨; it will snow tomorrow → 明天 会 下雪 (it has no Chinese)."""
        base, third, past, ing, chinese = self.pick(WEATHER)
        tense = self.pick(["present", "past", "future", "progressive"])
        it = En("it")
        if tense == "progressive":
            be, v = words("is", ing)
            en, before = [it, be, v], [zh("正在", be, v)]
        elif tense == "future":
            will, v = words("will", base)
            en, before = [it, will, v], [zh("会", will)]
        else:
            (v,) = words(third if tense == "present" else past)
            en, before = [it, v], []
        time = self.time_phrase(tense) if self.chance(0.4) else None
        time_en, time_zh = time or ([], [])
        place_en, place_zh = [], []
        if self.chance(0.25):  # it is snowing outside → 外面 正在 下雪
            place_words, place_chinese = self.pick(PLACE_ADVERBS[:2])
            place_en = words(*place_words)
            place_zh = [zh(place_chinese, *place_en)]
        after = [zh("了", v)] if tense == "past" else []
        return Phrase(en + place_en + time_en, time_zh + place_zh + before + [zh(chinese, v)] + after)

    def destination(self, determiners: list[str], preposition: str = "to") -> tuple[En, list[En], list]:
        """Where one goes: "to", the English after it and its Chinese (to my school → 我的 学校; to a park → 一 个
        公园), the determiner drawn from ``determiners``; or where one comes from (``preposition`` "from")."""
        to, det = words(preposition, self.pick(determiners))
        noun = self.content("noun", person=False)
        token = self.content_token(noun, noun.lemma)
        det_zh = [zh(word, det) for word in OWNERS.get(det.word, ())]
        if det.word == "a":
            det.word = "an" if noun.lemma[0] in "aeiou" else "a"
            det_zh = [zh("一", det), zh(noun.measure, det, token)]
        return to, [det, token], det_zh + [self.chinese(noun, token)]

    def motion_clause(self) -> Phrase:
        """she goes to school by bus → 她 坐 公共汽车 去 学校; he went home → 他 回 家 了; will you come to my house
        tomorrow → 你 明天 会 来 我的 房子 吗. The time comes after the subject, 了 at the end of the clause."""
        subject = self.subject_phrase()
        third = subject["third"]
        base, third_form, past, chinese = self.pick(MOTION)
        tense = self.pick(["present", "present", "past", "past", "future"])
        shape = self.pick(["plain", "plain", "plain", "not", "question"])
        before_subject: list[En] = []
        en_verb: list[En] = []
        zh_before: list = []
        tail: list = []
        if tense == "future":
            (will,) = words("will")
            (v,) = words(base)
            if shape == "question":
                before_subject, en_verb, tail = [will], [v], [zh("吗", will)]
                zh_before = [zh("会", will)]
            elif shape == "not":
                will_, not_ = words("will", "not")
                en_verb, zh_before = [will_, not_, v], [zh("不", not_), zh("会", will_)]
            else:
                en_verb, zh_before = [will, v], [zh("会", will)]
        elif shape == "plain":
            (v,) = words(third_form if tense == "present" and third else past if tense == "past" else base)
            en_verb = [v]
        else:
            aux, v = words(DO[(tense, third)], base)
            if shape == "question":
                before_subject, en_verb, tail = [aux], [v], [zh("吗", aux)]
            else:
                (not_,) = words("not")
                en_verb = [aux, not_, v]
                zh_before = [zh("不" if tense == "present" else "没", not_, *([aux] if tense == "past" else []))]
        if self.chance(0.25):  # go home → 回 家
            (home,) = words("home")
            place_en, verb_zh = [home], [zh("回", v), zh("家", home)]
        else:
            to, where_en, where_zh = self.destination(["the", "the", "my", "our", "a"])
            place_en, verb_zh = [to, *where_en], [zh(chinese, v, to), *where_zh]
        origin_zh: list = []
        if self.chance(0.15):  # the seventh part: she went home from the park → 她 从 公园 回 家
            from_, origin_en, origin_zh = self.destination(["the", "the", "my", "our"], "from")
            origin_zh = [zh("从", from_)] + origin_zh
            from_first = place_en[0].word == "to" and self.chance(0.5)  # from the park to the school
            place_en = [from_, *origin_en] + place_en if from_first else place_en + [from_, *origin_en]
        how_en, how_zh = [], []
        if self.chance(0.35):
            vehicle_en, vehicle_zh = self.pick(VEHICLES)
            how_en = words(*vehicle_en)
            how_zh = (
                [zh(vehicle_zh[0], *how_en)]
                if len(vehicle_zh) == 1
                else [zh(vehicle_zh[0], *how_en), zh(vehicle_zh[1], how_en[1])]  # 坐: by bus, not by alone
            )
        time = self.time_phrase("future" if tense == "future" else tense) if self.chance(0.3) else None
        time_en, time_zh = time or ([], [])
        if tense == "past" and shape != "not":
            tail = [zh("了", v if shape == "plain" else before_subject[0])] + tail
        en = before_subject + subject.en + en_verb + place_en + how_en + time_en
        zh_words = subject.zh + time_zh + zh_before + origin_zh + how_zh + verb_zh + tail
        return Phrase(en, zh_words, question=shape == "question")

    # --- the third part -------------------------------------------------------------------

    def _verb_and_object(self, word: Word, v: En, object_share: float | None = 0.6) -> tuple[list[En], list, list]:
        """The English after the verb (its particle, an object), the verb's Chinese, the object's Chinese.
        ``object_share`` None: never an object (what did you look at: the question word is the object)."""
        particle = words(word.particle) if word.particle else []
        takes_object = 1.0 if word.particle in PREPOSITION_PARTICLES else 0.3 if word.particle else object_share
        obj = self.object_phrase_() if object_share is not None and self.chance(takes_object) else Phrase()
        return particle + obj.en, [zh(word.chinese, v, *particle)], obj.zh

    def _subject_and_verb(self) -> tuple[Phrase, Word, En]:
        """A subject and a content verb agreeing with it, in the present (two draws in three) or the past: what a
        complement of degree or a comparison of how one does it follows (she sings well, he ran faster than me)."""
        subject = self.subject_phrase()
        word = self.content("verb")
        tense = self.pick(["present", "present", "past"])
        form = "past" if tense == "past" else "present-3rd" if subject["third"] else None
        return subject, word, self.content_token(word, word.form(form) if form else word.lemma)

    def _auxiliary(self, tense: str, subject: Phrase) -> En:
        """The word a question or a negation leans on: do / does / did / will / am / is / are."""
        if tense == "future":
            return En("will")
        if tense == "progressive":
            return En(self.subject_be(subject))
        return En(DO[(tense, subject["third"])])

    def wh_clause(self) -> Phrase:
        """Chinese asks in place, the question word where the answer would stand: what is this → 这 是 什么; where is
        the bank → 银行 在 哪里; who opened the door → 谁 打开 了 门; what did she buy → 她 买 了 什么; where do you
        work → 你 在 哪里 工作; when will they come → 他们 什么时候 会 来; why did he leave → 他 为什么 离开 了; how do
        you go to school → 你 怎么 去 学校."""
        kind = self.pick(["be", "be", "what", "what", "who", "where", "when", "why", "how", "which"])
        if kind == "which":
            return self.which_question()
        if kind == "be":
            wh_en, wh_zh = self.pick([("what", "什么"), ("who", "谁"), ("where", "哪里")])
            if wh_en == "what" and self.chance(0.3):
                (this,) = words(self.pick(["this", "that"]))
                subject = Phrase([this], [zh("这" if this.word == "this" else "那", this)], third=True, plural=False)
            else:
                subject = self.noun_phrase(person=wh_en == "who", place=False)
            wh, be = words(wh_en, self.subject_be(subject))
            link = zh("在" if wh_en == "where" else "是", be)
            return Phrase([wh, be] + subject.en, subject.zh + [link, zh(wh_zh, wh)], question=True)
        if kind == "how" and self.chance(0.15):  # how are you → 你 好 吗
            how, are, you = words("how", "are", "you")
            return Phrase([how, are, you], [zh("你", you), zh("好", how), zh("吗", are)], question=True)
        if kind in ("how", "where") and (kind == "how" or self.chance(0.3)):
            return self.motion_question(kind)
        tense = self.pick(["present", "past", "future", "progressive"] if kind != "when" else ["present", "future"])
        if kind == "what" and self.chance(0.25):
            base, third_form, past, ing, chinese = DO_VERB
            word = Word(
                base, "verb", chinese, None, {"present-3rd": third_form, "past": past, "progressive": ing}, True
            )
        else:
            word = self.content("phrasal") if self.chance(0.15) else self.content("verb")
        if kind == "who":  # who is the subject: who opened the door → 谁 打开 了 门
            (who,) = words("who")
            subject = Phrase([who], [zh("谁", who)], third=True, plural=False)
            aux = self._auxiliary(tense, subject) if tense in ("future", "progressive") else None
            form = {"present": "present-3rd", "past": "past", "future": None, "progressive": "progressive"}[tense]
            v = self.content_token(word, word.form(form) if form else word.lemma)
            after, verb_zh, obj_zh = self._verb_and_object(word, v)
            before = (
                [zh("会" if tense == "future" else "正在", aux, *([v] if tense == "progressive" else []))]
                if aux
                else []
            )
            tail = [zh("了", v)] if tense == "past" else []
            return Phrase(
                [who] + ([aux] if aux else []) + [v] + after,
                subject.zh + before + verb_zh + tail + obj_zh,
                question=True,
            )
        subject = self.subject_phrase()
        (wh,) = words(kind)
        aux = self._auxiliary(tense, subject)
        v = self.content_token(word, word.form("progressive") if tense == "progressive" else word.lemma)
        after, verb_zh, obj_zh = self._verb_and_object(word, v, object_share=None if kind == "what" else 0.6)
        before = {"future": [zh("会", aux)], "progressive": [zh("正在", aux, v)]}.get(tense, [])
        tail = [zh("了", aux, v)] if tense == "past" else []
        if kind == "what":  # the object is what is asked: 她 买 了 什么
            middle = before + verb_zh + tail + [zh("什么", wh)]
        else:
            asked = [zh(chinese, wh) for chinese in WH_BEFORE_VERB[kind]]
            middle = (before + asked if kind == "where" else asked + before) + verb_zh + tail + obj_zh
            if kind == "where" and tense == "progressive":  # 正在 在 哪里 → 在 哪里, aligned to be, where and the verb
                middle = [zh("在", wh, aux, v), asked[1]] + verb_zh + obj_zh
        return Phrase([wh, aux] + subject.en + [v] + after, subject.zh + middle, question=True)

    def which_question(self) -> Phrase:
        """The seventh part: which book do you like → 你 喜欢 哪 本 书; which song did she sing → 她 唱 了 哪 首 歌:
        哪 and the measure word where the answer would stand, aligned to which (the measure to the noun too)."""
        subject = self.subject_phrase()
        tense = self.pick(["present", "past", "future"])
        noun = self.content("noun", person=False)
        word = self.content("verb")
        which, thing = words("which"), self.content_token(noun, noun.lemma)
        aux = self._auxiliary(tense, subject)
        v = self.content_token(word, word.lemma)
        before = [zh("会", aux)] if tense == "future" else []
        tail = [zh("了", aux, v)] if tense == "past" else []
        asked = [zh("哪", *which), zh(noun.measure, *which, thing), self.chinese(noun, thing)]
        return Phrase(
            which + [thing, aux] + subject.en + [v],
            subject.zh + before + [zh(word.chinese, v)] + tail + asked,
            question=True,
        )

    def motion_question(self, kind: str) -> Phrase:
        """how do you go to school → 你 怎么 去 学校; how will she come to the party → 她 会 怎么 来 聚会 (how: present
        and future); where did they go → 他们 去 了 哪里; where will you go → 你 会 去 哪里."""
        subject = self.subject_phrase()
        tense = self.pick(["present", "future"] if kind == "how" else ["present", "past", "past", "future"])
        base, _, _, chinese = self.pick(MOTION)
        wh, v = words(kind, base)
        aux = self._auxiliary(tense, subject)
        will = [zh("会", aux)] if tense == "future" else []
        if kind == "where":
            tail = [zh("了", aux, v)] if tense == "past" else []
            return Phrase(
                [wh, aux] + subject.en + [v],
                subject.zh + will + [zh(chinese, v)] + tail + [zh("哪里", wh)],
                question=True,
            )
        to, where_en, where_zh = self.destination(["the", "the", "my", "our"])
        return Phrase(
            [wh, aux] + subject.en + [v, to, *where_en],
            subject.zh + will + [zh("怎么", wh), zh(chinese, v, to), *where_zh],
            question=True,
        )

    def comparison_clause(self) -> Phrase:
        """the river is longer than the road → 河 比 路 长; she is more careful than me → 她 比 我 小心; is your bag
        heavier than mine … → … 吗; he is not taller than his brother → 他 没有 他的 哥哥 高. "more" has no Chinese
        word: the comparison is 比's."""
        subject = self.subject_phrase()
        be_word = self.subject_be(subject)
        if self.chance(0.2):
            be_word = "were" if subject["plural"] or be_word == "are" else "was"
        adjective, form = self.pick(self.common_or_rare(COMPARABLE["common"], COMPARABLE["rare"]))
        more = words("more") if form == "more" else []
        a = self.content_token(adjective, adjective.lemma if more else form)
        other = self.object_phrase_()
        shape = self.pick(["plain", "plain", "plain", "not", "question", "as"])
        be, than = words(be_word, "than")
        if shape == "as":  # the eighth part: she is as tall as her brother → 她 和 她的 哥哥 一样 高
            first, second = words("as", "as")
            a = self.content_token(adjective, adjective.lemma)
            not_ = words("not") if self.chance(0.3) else []  # not as tall as → 没有 … 高
            same = [zh("没有", *not_, second)] if not_ else [zh("和", second)]
            return Phrase(
                subject.en + [be] + not_ + [first, a, second] + other.en,
                subject.zh + same + other.zh + ([] if not_ else [zh("一样", first)]) + [self.chinese(adjective, a)],
            )
        compared = more + [a, than] + other.en
        if shape == "question":
            return Phrase(
                [be] + subject.en + compared,
                subject.zh + [zh("比", than)] + other.zh + [self.chinese(adjective, a), zh("吗", be)],
                question=True,
            )
        if shape == "not":
            (not_,) = words("not")
            return Phrase(
                subject.en + [be, not_] + compared,
                subject.zh + [zh("没有", not_, than)] + other.zh + [self.chinese(adjective, a)],
            )
        return Phrase(
            subject.en + [be] + compared, subject.zh + [zh("比", than)] + other.zh + [self.chinese(adjective, a)]
        )

    def catenative_clause(self) -> Phrase:
        """i like to eat apples → 我 喜欢 吃 苹果; she started to cry → 她 开始 哭; do you need to go → 你 需要 去 吗;
        he didn't forget to call → 他 没 忘记 打电话. The first verb's Chinese is aligned to it and to "to"."""
        subject = self.subject_phrase()
        base, third_form, past, chinese = self.pick(CATENATIVES)
        tense = self.pick(["present", "present", "past"])
        shape = self.pick(["plain", "plain", "plain", "not", "question"])
        word = self.content("phrasal") if self.chance(0.1) else self.content("verb")
        v = self.content_token(word, word.lemma)
        after, verb_zh, obj_zh = self._verb_and_object(word, v)
        to = En("to")
        if shape == "plain":
            (cat,) = words(third_form if tense == "present" and subject["third"] else past if tense == "past" else base)
            return Phrase(subject.en + [cat, to, v] + after, subject.zh + [zh(chinese, cat, to)] + verb_zh + obj_zh)
        aux, cat = words(DO[(tense, subject["third"])], base)
        if shape == "question":
            return Phrase(
                [aux] + subject.en + [cat, to, v] + after,
                subject.zh + [zh(chinese, cat, to)] + verb_zh + obj_zh + [zh("吗", aux)],
                question=True,
            )
        (not_,) = words("not")
        negation = "不" if tense == "present" or base in STATIVE else "没"
        return Phrase(
            subject.en + [aux, not_, cat, to, v] + after,
            subject.zh
            + [zh(negation, not_, *([aux] if negation == "没" else []))]
            + [zh(chinese, cat, to)]
            + verb_zh
            + obj_zh,
        )

    def perfect_clause(self) -> Phrase:
        """she has finished her homework → 她 完成 了 她的 作业; they have already eaten → 他们 已经 吃 了; he hasn't
        called yet → 他 还 没 打电话; we have never met him → 我们 从来 没 见 过 他; have you ever seen a panda → 你
        看见 过 一 只 熊猫 吗."""
        subject = self.subject_phrase()
        have_word = "has" if subject["third"] else "have"
        word = self.content("phrasal") if self.chance(0.1) else self.content("verb")
        v = self.content_token(word, word.participle())
        after, verb_zh, obj_zh = self._verb_and_object(word, v)
        shape = self.pick(["plain", "plain", "already", "yet", "never", "question", "ever"])
        (have,) = words(have_word)
        if shape == "plain":
            return Phrase(subject.en + [have, v] + after, subject.zh + verb_zh + [zh("了", have, v)] + obj_zh)
        if shape == "already":
            (already,) = words("already")
            return Phrase(
                subject.en + [have, already, v] + after,
                subject.zh + [zh("已经", already)] + verb_zh + [zh("了", have, v)] + obj_zh,
            )
        if shape == "yet":  # hasn't … yet → 还 没
            if self.chance(0.5):
                (have,) = words(have_word[:-1] + "sn't" if have_word == "has" else "haven't")
                negation, not_ = [have], have
            else:
                (not_,) = words("not")
                negation = [have, not_]
            (yet,) = words("yet")
            return Phrase(
                subject.en + negation + [v] + after + [yet],
                subject.zh + [zh("还", yet), zh("没", not_)] + verb_zh + obj_zh,
            )
        if shape == "never":
            (never,) = words("never")
            return Phrase(
                subject.en + [have, never, v] + after,
                subject.zh + [zh("从来", never), zh("没", never)] + verb_zh + [zh("过", have, v)] + obj_zh,
            )
        ever = words("ever") if shape == "ever" else []
        done = zh("过", *ever, v) if ever else zh("了", have, v)
        return Phrase(
            [have] + subject.en + ever + [v] + after,
            subject.zh + verb_zh + [done] + obj_zh + [zh("吗", have)],
            question=True,
        )

    def degree_clause(self) -> Phrase:
        """she sings well → 她 唱 得 很 好; he runs very fast → 他 跑 得 很 快; they worked hard → 他们 工作 得 很 努力
        (a complement of degree: 得 and 很, 很 aligned to very when English says it); an object goes before the verb
        (she speaks english very well → 她 英语 说 得 很 好: the fifth part)."""
        subject, word, v = self._subject_and_verb()
        adverb, chinese = self.pick(DEGREE_ADVERBS)
        (how,) = words(adverb)
        very = words("very") if self.chance(0.4) else []
        obj = self.noun_phrase(person=False, place=False) if self.chance(0.35) else Phrase()  # before the verb
        return Phrase(
            subject.en + [v] + obj.en + very + [how],
            subject.zh + obj.zh + [self.chinese(word, v), zh("得", how), zh("很", *(very or [how])), zh(chinese, how)],
        )

    # --- the fourth part -------------------------------------------------------------------

    def relative_who(self, plural: bool) -> Phrase:
        """who lives here / who helped me / who is singing, after a person: Chinese puts it before the noun with 的
        (住 在 这里 的 男人), aligned to who; the past takes no 了 there."""
        (who,) = words("who")
        word = self.content("verb")
        tense = self.pick(["present", "present", "past", "progressive"])
        if tense == "progressive":
            (be,) = words("are" if plural else "is")
            v = self.content_token(word, word.form("progressive"))
            verb_en, before = [be, v], [zh("正在", be, v)]
        else:
            form = "past" if tense == "past" else None if plural else "present-3rd"
            v = self.content_token(word, word.form(form) if form else word.lemma)
            verb_en, before = [v], []
        obj = self.pronoun_phrase("object") if self.chance(0.3) else Phrase()
        if not obj.en and self.chance(0.4):
            place_en, place_zh = self.place_phrase()
        else:
            place_en, place_zh = [], []
        return Phrase(
            [who] + verb_en + obj.en + place_en,
            before + place_zh + [self.chinese(word, v)] + obj.zh + [zh("的", who)],
        )

    def superlative_clause(self) -> Phrase:
        """he is the tallest boy in the class → 他 是 班 里 最 高 的 男孩; she is the happiest → 她 最 高兴; the most
        careful … → 最 小心 的 …: 最 aligned to the -est form (or most), the adjective's Chinese to the adjective."""
        subject = self.subject_phrase()
        (be,) = words(self.subject_be(subject))
        adjective, form = self.pick(self.common_or_rare(SUPERLATIVE["common"], SUPERLATIVE["rare"]))
        most = words("most") if form == "most" else []
        a = self.content_token(adjective, adjective.lemma if most else form)
        (the,) = words("the")
        top = zh("最", *(most or [a]))
        if not self.chance(0.6):  # she is the happiest → 她 最 高兴
            return Phrase(subject.en + [be, the] + most + [a], subject.zh + [top, self.chinese(adjective, a)])
        noun = self.content("noun", person=subject["kind"] == "person" or None)
        token = self.content_token(noun, noun.form("plural") if subject["plural"] else noun.lemma)
        place_en, place_zh = self.place_phrase(preposition=True) if self.chance(0.4) else ([], [])
        return Phrase(
            subject.en + [be, the] + most + [a, token] + place_en,
            subject.zh
            + [zh("是", be)]
            + place_zh[1:]
            + [top, self.chinese(adjective, a), zh("的", a)]
            + [self.chinese(noun, token)],
        )

    def going_to_clause(self) -> Phrase:
        """we are going to visit my grandmother → 我们 要 参观 我的 奶奶; is she going to cook → 她 要 做饭 吗; they are
        not going to buy it → 他们 不 打算 买 它: 要 (打算 when negated) aligned to going only (were it aligned to be
        or to too, what the corpus teaches would let every is or to write 要: taught.py)."""
        subject = self.subject_phrase()
        be, going, to = words(self.subject_be(subject), "going", "to")
        word = self.content("phrasal") if self.chance(0.1) else self.content("verb")
        v = self.content_token(word, word.lemma)
        after, verb_zh, obj_zh = self._verb_and_object(word, v)
        time = self.time_phrase("future") if self.chance(0.3) else None
        time_en, time_zh = time or ([], [])
        shape = self.pick(["plain", "plain", "plain", "not", "question"])
        if shape == "question":
            return Phrase(
                [be] + subject.en + [going, to, v] + after + time_en,
                subject.zh + time_zh + [zh("要", going)] + verb_zh + obj_zh + [zh("吗", be)],
                question=True,
            )
        if shape == "not":
            (not_,) = words("not")
            return Phrase(
                subject.en + [be, not_, going, to, v] + after + time_en,
                subject.zh + time_zh + [zh("不", not_), zh("打算", going)] + verb_zh + obj_zh,
            )
        return Phrase(
            subject.en + [be, going, to, v] + after + time_en,
            subject.zh + time_zh + [zh("要", going)] + verb_zh + obj_zh,
        )

    def how_many_clause(self) -> Phrase:
        """how old are you → 你 几 岁; how many apples do you have → 你 有 多少 苹果; how many cats are there in the
        garden → 花园 里 有 多少 猫; what time do you get up → 你 几 点 起床; whose book is this → 这 是 谁的 书."""
        kind = self.pick(["old", "many", "many", "there", "time", "whose", "much"])
        if kind == "much":  # the eighth part: how much is this book → 这 本 书 多少 钱; how much is it → 多少 钱
            how, much = words("how", "much")
            price = [zh("多少", how, much), zh("钱", how, much)]
            if self.chance(0.25):
                be, it = words("is", "it")
                return Phrase([how, much, be, it], price, question=True)
            noun = self.content("noun", person=False)
            plural = self.chance(0.3)
            token = self.content_token(noun, noun.form("plural") if plural else noun.lemma)
            near = noun.lemma not in TIME_NOUNS and self.chance(0.7)  # how much is this week: not asked
            be, this = words("are" if plural else "is", ("these" if plural else "this") if near else "the")
            owner = self.this_chinese(this, noun, token) if this.word != "the" else []
            return Phrase([how, much, be, this, token], owner + [self.chinese(noun, token)] + price, question=True)
        if kind == "old":
            subject = self.noun_phrase(person=True, place=False) if self.chance(0.5) else self.pronoun_phrase("subject")
            how, old, be = words("how", "old", self.subject_be(subject))
            return Phrase([how, old, be] + subject.en, subject.zh + [zh("几", how), zh("岁", old)], question=True)
        if kind == "whose":
            noun = self.content("noun", person=False)
            token = self.content_token(noun, noun.lemma)
            whose, be, this = words("whose", "is", self.pick(["this", "that"]))
            return Phrase(
                [whose, token, be, this],
                [
                    zh("这" if this.word == "this" else "那", this),
                    zh("是", be),
                    zh("谁的", whose),
                    self.chinese(noun, token),
                ],
                question=True,
            )
        if kind == "time":
            subject = self.subject_phrase()
            what, time_ = words("what", "time")
            aux = self._auxiliary(self.pick(["present", "past", "future"]), subject)
            word = self.content("phrasal") if self.chance(0.3) else self.content("verb")
            v = self.content_token(word, word.lemma)
            after, verb_zh, obj_zh = self._verb_and_object(word, v, object_share=0.4)
            will = [zh("会", aux)] if aux.word == "will" else []
            return Phrase(
                [what, time_, aux] + subject.en + [v] + after,
                subject.zh + [zh("几", what), zh("点", time_)] + will + verb_zh + obj_zh,
                question=True,
            )
        noun = self.content("noun")
        token = self.content_token(noun, noun.form("plural"))
        how, many = words("how", "many")
        if kind == "there":
            be, there = words("are", "there")
            place_en, place_zh = self.place_phrase(preposition=True)
            return Phrase(
                [how, many, token, be, there] + place_en,
                place_zh[1:] + [zh("有", be, there), zh("多少", how, many), self.chinese(noun, token)],
                question=True,
            )
        subject = self.subject_phrase()
        aux = self._auxiliary(self.pick(["present", "present", "past"]), subject)
        (have,) = words("have")
        return Phrase(
            [how, many, token, aux] + subject.en + [have],
            subject.zh + [zh("有", have), zh("多少", how, many), self.chinese(noun, token)],
            question=True,
        )

    # --- the fifth part -------------------------------------------------------------------

    def greeting_clause(self) -> Phrase:
        """thank you → 谢谢 你; good morning tom → 汤姆 早上 好; hello my name is mary → 你好 我 叫 玛丽: what one says
        as a whole (GREETINGS), sometimes to someone named after it (Chinese names them first), a hello or a good
        morning sometimes followed by one's name. Never joined to another clause."""
        english, chinese = self.pick(GREETINGS)
        said = words(*english)
        phrase = Phrase(said, [zh(word, *(said[j] for j in sources)) for word, sources in chinese], question=True)
        roll = self.rng.random()
        if roll < 0.3:  # … tom, … teacher
            if self.chance(0.6):
                who = self.name()
            else:
                noun = self.content("noun", person=True)
                token = self.content_token(noun, noun.lemma)
                who = Phrase([token], [self.chinese(noun, token)])
            phrase.en += who.en
            phrase.zh = who.zh + phrase.zh
        elif roll < 0.5 and english[0] in ("hello", "good"):  # … my name is mary → … 我 叫 玛丽
            my, name_, is_ = words("my", "name", "is")
            called = self.name()
            phrase.en += [my, name_, is_] + called.en
            phrase.zh += [zh("我", my), zh("叫", name_)] + called.zh
        return phrase

    def name_clause(self) -> Phrase:
        """my name is tom → 我 叫 汤姆; what is your name → 你 叫 什么 名字; what 's your sister 's name → 你的 姐姐 叫
        什么 名字: the owner without 的 (a name's 's has no Chinese word), 叫 aligned to name (not to is: what the
        corpus teaches, taught.py, would let every is write 叫), 什么 to what, and 名字 to name in a question."""
        roll = self.rng.random()
        _, _, poss, zh_word, zh_poss, _, _ = self.pick(PRONOUNS[:-1])
        (s,) = words("'s")
        if roll < 0.6:  # my, your, …
            (owner,) = owner_en = words(poss)
            owner_zh = [zh(zh_word, owner)]
        elif roll < 0.8:  # tom 's
            person = self.name()
            owner_en, owner_zh = person.en + [s], person.zh
        else:  # your sister 's
            noun = self.content("noun", person=True)
            (d,) = words(poss)
            token = self.content_token(noun, noun.lemma)
            owner_en, owner_zh = [d, token, s], [zh(zh_poss, d), self.chinese(noun, token)]
        (name_,) = words("name")
        if self.chance(0.5):
            what, be = words("what", self.pick(["is", "is", "'s"]))
            return Phrase(
                [what, be] + owner_en + [name_],
                owner_zh + [zh("叫", name_), zh("什么", what), zh("名字", name_)],
                question=True,
            )
        (be,) = words("is")
        called = self.name()
        return Phrase(owner_en + [name_, be] + called.en, owner_zh + [zh("叫", name_)] + called.zh)

    def duration_clause(self) -> Phrase:
        """she slept for two hours → 她 睡觉 了 两 个 小时; we have lived in this town for three years → 我们 在 这
        个 小镇 住 了 三 年 了: the length after the verb and its 了 (the present perfect's second 了 aligned to
        have); for has no Chinese word."""
        subject = self.subject_phrase()
        word = self.pick(DURATION_WORDS)
        perfect = self.chance(0.4)
        have = En("has" if subject["third"] else "have")
        v = self.content_token(word, word.participle() if perfect else word.form("past"))
        place_en, place_zh = self.place_phrase() if self.chance(0.4) else ([], [])
        if perfect and self.chance(0.3):  # the tenth part: since last year → 从 去年 开始 就 …, no 了
            since_en, since_zh = self.pick(SINCE)
            since, *when = words("since", *since_en)
            return Phrase(
                subject.en + [have, v] + place_en + [since, *when],
                subject.zh
                + [zh("从", since), *(zh(c, *when) for c in since_zh), zh("开始", since), zh("就", since)]
                + place_zh
                + [self.chinese(word, v)],
            )
        single, plural_form, chinese, measure = self.pick(DURATIONS)
        plural = self.chance(0.75)
        number, zh_number = self.pick(PLURAL_NUMBERS) if plural else ("an" if single == "hour" else "a", "一")
        for_, n, unit = words("for", number, plural_form if plural else single)
        length_en = [for_, n, unit]
        length = [zh(zh_number, n)] + ([zh(measure, n, unit)] if measure else []) + [zh(chinese, unit)]
        if single == "hour" and self.chance(0.3):  # the eighth part: half an hour → 半 个 小时
            half, an = words("half", "an")
            length_en = [for_, half, an, unit]
            length = [zh("半", half), zh("个", an, unit), zh(chinese, unit)]
        return Phrase(
            subject.en + ([have, v] if perfect else [v]) + place_en + length_en,
            subject.zh
            + place_zh
            + [self.chinese(word, v), zh("了", *([have, v] if perfect else [v]))]
            + length
            + ([zh("了", have)] if perfect else []),
        )

    def verb_comparison_clause(self) -> Phrase:
        """tom runs faster than his friends → 汤姆 比 他的 朋友 们 跑 得 快; she sang better than me → 她 比 我 唱
        得 好: 比 aligned to than, 得 and the adjective to the comparative adverb."""
        subject, word, v = self._subject_and_verb()
        adverb, chinese = self.pick(COMPARED_ADVERBS)
        how, than = words(adverb, "than")
        other = self.object_phrase_()
        return Phrase(
            subject.en + [v, how, than] + other.en,
            subject.zh + [zh("比", than)] + other.zh + [self.chinese(word, v), zh("得", how), zh(chinese, how)],
        )

    def everyday_clause(self) -> Phrase:
        """One clause, its shape drawn by CLAUSES' bounds on one draw of the generator."""
        roll = self.rng.random()
        return getattr(self, next(name for bound, name in CLAUSES if roll < bound))()

    def sense_clause(self) -> Phrase:
        """The twelfth part: a word whose Chinese depends on the word it goes with (SENSES; ``senses`` writes it for
        every sentence, this clause draws the pairs often enough to learn): she wears a hat → 她 戴 帽子, i lost my
        key → 我 丢 了 我的 钥匙; the old book → 旧 书, the boy is short → 男孩 很 矮; she reads the letter carefully →
        她 仔细 地 看 信, drive carefully → 小心 地 开车 (an imperative, never joined)."""
        kind = self.pick(["object", "object", "object", "object", "adjective", "manner", "opens"])
        if kind == "opens":  # the thirteenth part: the shop opens at nine → 商店 九 点 开门
            subject = self.noun_phrase(noun=self.pick(SHOP_NOUNS), place=False)
            return self.verb_clause(subject, verb=SENSE_WORDS[self.pick(["open", "close"])], intransitive=True)
        if kind == "object":
            lemma = self.pick(sorted(SENSE_OBJECTS))
            subject = self.noun_phrase(person=True, place=False) if lemma != "lose" else None
            return self.verb_clause(subject, verb=SENSE_WORDS[lemma], objects=SENSE_NOUNS[lemma])
        if kind == "adjective":
            adjective = SENSE_WORDS[self.pick(["old", "old", "short"])]
            noun = self.content("noun", person=self.chance(0.5))
            if self.chance(0.5):  # the old man reads a book: before its noun
                return self.verb_clause(self.noun_phrase(place=False, noun=noun, adjective=adjective))
            subject = self.noun_phrase(place=False, noun=noun)  # the book is very old
            (be,) = words(self.subject_be(subject))
            d, degree_zh, too = degree_words(self.pick(["", "very", "very", "not", "so", "really", "too"]), be)
            a = self.content_token(adjective, adjective.lemma)
            return Phrase(subject.en + [be, *d, a], subject.zh + degree_zh + [self.chinese(adjective, a)] + too)
        careful = SENSE_WORDS["careful"]
        verb = self.pick(MANNER_VERBS)
        if self.chance(0.3):  # listen carefully → 仔细 地 听; drive carefully → 小心 地 开车
            v, a = self.content_token(verb, verb.lemma), self.content_token(careful, careful.forms["adverb"])
            particle = words(verb.particle) if verb.particle else []
            obj = self.noun_phrase(person=False, place=False) if particle and verb.particle != "up" else Phrase()
            return Phrase(
                [v] + particle + obj.en + [a],
                [self.chinese(careful, a), zh("地", a), zh(verb.chinese, v, *particle)] + obj.zh,
                imperative=True,
            )
        return self.verb_clause(verb=verb, manner=careful)

    def sentence(self) -> Phrase:
        """A sentence of one clause or two, each word in the sense of the words it goes with (``senses``)."""
        phrase = self._sentence()
        senses(phrase)
        return phrase

    def _sentence(self) -> Phrase:
        roll = self.rng.random()
        # when / after / before open an action (a clause before 的 时候 or 以前 takes no 了: the simple past's, the
        # only 了 these clauses write)
        action = roll >= 0.955
        first = getattr(self, self.pick(ACTIONS))() if action else self.everyday_clause()
        alone = stands_alone(first)
        if roll < 0.8 or alone:
            if roll < 0.035 and not alone:
                if roll >= 0.025:  # the ninth part: i am sorry i forgot → 对不起 我 忘记 了
                    sorry = words("i", "am", "sorry") if self.chance(0.6) else words("sorry")
                    return Phrase(sorry + first.en, [zh("对不起", sorry[-1])] + first.zh)
                (answer,) = words(self.pick(["yes", "no"]))  # the eighth part: yes i do → 是的 我 …; no → 不
                return Phrase([answer] + first.en, [zh("是的" if answer.word == "yes" else "不", answer)] + first.zh)
            return first
        second = self.everyday_clause()
        if stands_alone(second):
            return first
        if roll < 0.83:  # if A B, B if A → 如果 A B
            (if_,) = words("if")
            en = [if_] + first.en + second.en if self.chance(0.6) else second.en + [if_] + first.en
            return Phrase(en, [zh("如果", if_)] + first.zh + second.zh)
        if roll < 0.87:  # A and B → A B ("and" between clauses has no Chinese word)
            (and_,) = words("and")
            if self.chance(0.3):  # the seventh part: A and then B → A 然后 B
                (then,) = words("then")
                return Phrase(first.en + [and_, then] + second.en, first.zh + [zh("然后", then)] + second.zh)
            return Phrase(first.en + [and_] + second.en, first.zh + second.zh)
        if roll < 0.91:
            (but,) = words("but")
            return Phrase(first.en + [but] + second.en, first.zh + [zh("但是", but)] + second.zh)
        if roll < 0.94:
            (because,) = words("because")
            return Phrase(
                first.en + [because] + second.en, [zh("因为", because)] + second.zh + [zh("所以", because)] + first.zh
            )
        if roll < 0.955:  # the seventh part: A so B → A 所以 B
            (so,) = words("so")
            return Phrase(first.en + [so] + second.en, first.zh + [zh("所以", so)] + second.zh)
        # the seventh part: when A, B / B when A → A 的 时候 B, A an action
        english, chinese = self.pick(SUBORDINATORS)
        (joint,) = words(english)
        en = [joint] + first.en + second.en if self.chance(0.5) else second.en + [joint] + first.en
        opened = [z for z in first.zh if z[0] != "了"] if english in ("when", "before") else first.zh
        return Phrase(en, opened + [zh(word, joint) for word in chinese] + second.zh)


# the words a sentence's subject, or the noun an adjective describes, may be without a noun of the dictionary
PERSON_WORDS = frozenset(
    {"i", "you", "he", "she", "we", "they", "me", "him", "her", "us", "them", "everyone", "someone"}
    | {name for name, _ in story.NAMES}
)
THING_WORDS = frozenset({"it", "this", "that", "these", "those"})
# between a predicative adjective and its subject: the book is not very old, is the book old, it was too short
BE_AND_DEGREE = frozenset(
    {"is", "are", "am", "was", "were", "be", "will", "not", "isn't", "aren't", "wasn't", "weren't", "won't"}
    | {"very", "so", "really", "too", "more", "most", "the"}
)
CLAUSE_EDGES = frozenset({"and", "but", "because", "if", "when", "so", "then", "after", "before", "that", "or"})
# a verb's object comes before any of these: she plays in the park has none (the thirteenth part)
PLACE_PREPOSITIONS = frozenset(
    {"in", "at", "on", "near", "under", "behind", "to", "from", "with", "for", "by", "into", "until", "about"}
    | {"next", "outside", "inside", "here", "there"}
)
OBJECT_ENDS = CLAUSE_EDGES | PLACE_PREPOSITIONS  # where the search for a verb's object stops


def _kind(word: Word) -> str:
    return "person" if word.person else "animal" if word.chinese in ANIMAL_CHINESE else "thing"


def partners(en: list[En], position: int) -> set[str]:
    """What the content word at ``position`` goes with, for SENSES: a verb its object's noun (and "person",
    "animal" or "thing"); an adjective the noun after it, else its subject (the book is old); an adjective's adverb
    the verb before it (listen carefully). Nothing when the sentence does not say."""
    token = en[position]
    word = token.content
    if word.role == "verb":
        after = en[position + 1 :]
        for k, other in enumerate(after):
            if other.word in OBJECT_ENDS or (other.content and other.content.role == "verb"):
                break
            if other.content and other.content.role == "noun":
                return {other.content.lemma, _kind(other.content)}
            owner = k + 1 < len(after) and (after[k + 1].word == "'s" or after[k + 1].content is not None)
            if other.content is None and other.word in PERSON_WORDS and not owner:  # i know him (not her zoo)
                return {"person"}
        for other in reversed(en[:position]):  # no object: what it is said of (the shop opens → "shop -")
            if other.word in CLAUSE_EDGES:
                break
            if other.content and other.content.role == "noun":
                return {f"{other.content.lemma} -"}
        return set()
    if token.word == word.forms.get("adverb"):  # carefully: the verb before it, in its clause
        for other in reversed(en[:position]):
            if other.word in CLAUSE_EDGES:
                break
            if other.content and other.content.role == "verb":
                return {other.content.lemma}
        return set()
    after = en[position + 1].content if position + 1 < len(en) else None
    if after is not None and after.role == "noun":  # an old book
        return {after.lemma, _kind(after)}
    before = position - 1
    while before >= 0 and en[before].word in BE_AND_DEGREE:
        before -= 1
    if before < 0:
        return set()
    subject = en[before]
    if subject.content is not None and subject.content.role == "noun":
        return {subject.content.lemma, _kind(subject.content)}
    return {"person"} if subject.word in PERSON_WORDS else {"thing"} if subject.word in THING_WORDS else set()


def senses(phrase: Phrase) -> None:
    """Each word of SENSES in the sense of the word it goes with (``partners``), in place: the Chinese word that
    translates it (the dictionary's) becomes the sense's. The twelfth part; every sentence of the grammar."""
    for position, token in enumerate(phrase.en):
        word = token.content
        if word is None or word.particle or (word.lemma, word.role) not in SENSES:
            continue
        around = partners(phrase.en, position)
        chinese = next((c for holders, c in SENSES[(word.lemma, word.role)] if holders & around), None)
        if chinese is None:
            continue
        for i, (written, sources) in enumerate(phrase.zh):
            if written == word.chinese and token in sources:
                phrase.zh[i] = (chinese, sources)


def stands_alone(clause: Phrase) -> bool:
    """A clause never joined to another: an imperative (please …, let 's …, and bare: open the window) or a question."""
    return bool(clause.en[0].word in IMPERATIVES or clause.facts.get("question") or clause.facts.get("imperative"))


def chinese_of(word: Word) -> set[str]:
    """Every Chinese the grammar writes for a word: the dictionary's, and its senses' (SENSES)."""
    return {word.chinese} | {chinese for _, chinese in SENSES.get((word.lemma, word.role), ())}


def unknown_words(phrase: Phrase, rng) -> None:
    """Rare words and a share ``DROPOUT`` of common ones become <unk> in Chinese (and the dropped ones their typed
    <unk> in English), in place: the Chinese word that translates exactly that one English word.

    What Chinese writes around such a word must not depend on the word the model cannot see: a hidden noun's
    measure word is the general 个 (一 个 <unk>, not 一 台 <unk>), and a hidden adjective before its noun always
    takes 的 (<unk> 的 安全; a visible one of one character does not: 大 猫)."""
    for position, token in enumerate(phrase.en):
        word = token.content
        if word is None or word.particle:  # a phrasal verb's Chinese translates two English words: never <unk>
            continue
        dropped = word.common and rng.random() < DROPOUT
        if not (dropped or not word.common):
            continue
        if dropped:
            token.word = CORE.unknown_token(token.word)
        for i, (chinese, sources) in enumerate(phrase.zh):
            if sources == (token,) and chinese in chinese_of(word) and chinese not in PARTICLES:
                phrase.zh[i] = (UNK, sources)
                following = phrase.en[position + 1].content if position + 1 < len(phrase.en) else None
                attributive = word.role == "adjective" and following is not None and following.role == "noun"
                has_de = i + 1 < len(phrase.zh) and phrase.zh[i + 1][0] == "的" and phrase.zh[i + 1][1][:1] == (token,)
                if attributive and not has_de:
                    phrase.zh.insert(i + 1, ("的", (token,)))
                break
        if word.role == "noun":  # its measure word is aligned to the determiner and to it
            for i, (chinese, sources) in enumerate(phrase.zh):
                if chinese == word.measure and len(sources) > 1 and any(s is token for s in sources):
                    phrase.zh[i] = ("个", sources)
