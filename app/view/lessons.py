"""The ideas of attention, in order, each with a view that shows it and numbers from that view. Rendered by /learn.

A lesson names one of the examples (app/view/presets.py): its link opens the example's view, and its
text quotes the numbers of the example's claims ({key0}, {weight0}, {pairs0}...), computed by the engine.
`more` lists further examples that show the same idea.
"""

from __future__ import annotations

import functools
import re

from app.engine.models import translator as mt
from app.view import examples, models
from app.view.compare import COMPARE_PRESETS, COMPARE_QUERIES, compare_preset_numbers
from app.view.compute import compute_view
from app.view.i18n import STRINGS
from app.view.links import comparison_from_query
from app.view.presets import PRESETS, preset_numbers, preset_state
from app.view.state import State

LESSONS = [
    {
        "title": {"en": "1. Encoder–decoder without attention", "zh": "1. 没有注意力的编码器–解码器"},
        "text": {
            "en": "The encoder squeezes the whole source sentence into one meaning vector C, and every target word is "
            "generated from the same C: every source word has the same influence on every target word. A very high "
            "temperature shows that picture: every weight is within {furthest0} of 1/3, so every target word gets "
            "almost the same context vector (stage 3).",
            "zh": "编码器把整个源句子压缩成一个语义向量 C，每个目标词都由同一个 C 生成：每个源词对每个目标词的影响都一样。"
            "把温度调得很高就能看到这个情形：每个权重与 1/3 相差不超过 {furthest0}，"
            "所以每个目标词得到的上下文向量几乎相同（阶段三）。",
        },
        "preset": "temperature",
        "translators": "encdec",
    },
    {
        "title": {"en": "2. Soft attention in translation", "zh": "2. 翻译中的软注意力"},
        "text": {
            "en": "When the decoder produces 杰瑞, the source words should not count equally. A classic textbook picture "
            "gives the distribution (Tom, 0.3) (Chase, 0.2) (Jerry, 0.5); this view gives {pairs2}. Each target step "
            "i has its own distribution and its own context vector C_i = Σ_j a_ij · h_j: step through the target "
            "words (← →) and watch it change.",
            "zh": "解码器生成“杰瑞”时，源句子的词不应同等重要。一个经典的教科书例子给出的分布是 (Tom, 0.3) (Chase, 0.2) "
            "(Jerry, 0.5)；这个视图给出的是 {pairs2}。每个目标步骤 i 都有自己的分布和自己的上下文向量 "
            "C_i = Σ_j a_ij · h_j：用 ← → 逐个查看目标词，看分布怎样变化。",
        },
        "preset": "translate",
        "more": ["love", "mt-tom", "mt-library", "mt-when", "mt-used-to", "mt-think", "mt-question"],
        "translators": "search",
    },
    {
        "title": {
            "en": "3. The essence: Query, Key, Value in three stages",
            "zh": "3. 本质：Query、Key、Value 三个阶段",
        },
        "text": {
            "en": "The source is a set of (Key, Value) pairs. A query is compared with every key (stage 1, similarity), a "
            "softmax turns the scores into weights that sum to 1 (stage 2), and the values are summed with those "
            "weights (stage 3). In the exercise, q1 puts {weight0} on {key0}: work it out by hand, then check the "
            "arithmetic panel, which writes every number out.",
            "zh": "源句子是一组 (Key, Value) 对。查询与每个键比较（阶段一，相似度），softmax 把分数变成和为 1 的权重"
            "（阶段二），再用这些权重对值加权求和（阶段三）。在练习里，q1 放在 {key0} 上的权重是 {weight0}："
            "先手算，再核对写出每一个数的计算过程。",
        },
        "preset": "exercise",
    },
    {
        "title": {"en": "4. Similarity functions", "zh": "4. 相似度函数"},
        "text": {
            "en": "Stage 1 can be a dot product, a cosine similarity, Luong's general form qᵀWk, or a small neural "
            "network with one hidden layer (Bahdanau's additive score vᵀtanh(W₁q + W₂k)). The choice matters: "
            "cosine ignores length, its scores lie between −1 and 1, and bank gives {key0} only {weight0}; the "
            "matrices W, W₁, W₂ and v "
            "are shown beside the general and additive examples, so every score can be recomputed by hand.",
            "zh": "阶段一可以是点积、余弦相似度、Luong 的一般形式 qᵀWk，或者只有一个隐藏层的小神经网络"
            "（Bahdanau 的加性分数 vᵀtanh(W₁q + W₂k)）。选择不同，结果不同：余弦不管长度，分数在 −1 到 1 之间，"
            "bank 给 {key0} 的权重只有 {weight0}；一般形式和加性的例子旁边显示了矩阵 W、W₁、W₂ 和 v，每个分数都能手算。",
        },
        "preset": "cosine",
        "more": ["general", "additive"],
    },
    {
        "title": {"en": "5. Soft vs hard attention", "zh": "5. 软注意力与硬注意力"},
        "text": {
            "en": "Soft attention's weights are a probability distribution; hard attention puts weight 1 on one position "
            "and 0 everywhere else. Here every weight is 0 or 1, and 杰瑞 picks {key1}.",
            "zh": "软注意力的权重是概率分布；硬注意力把权重 1 放在一个位置上，其余都是 0。这里每个权重都是 0 或 1，"
            "“杰瑞”选了 {key1}。",
        },
        "preset": "hard",
    },
    {
        "title": {"en": "6. Global vs local attention", "zh": "6. 全局注意力与局部注意力"},
        "text": {
            "en": "Global attention looks at every encoder position; local attention only at a window around the aligned "
            "position. With a window of 2, the hidden keys show as × and get weight exactly 0 (stage 2); “by” looks "
            "at {key0} ({weight0}).",
            "zh": "全局注意力查看编码器的每个位置；局部注意力只看对齐位置附近的一个窗口。窗口为 2 时，被遮住的键显示为 ×，"
            "权重正好是 0（阶段二）；“by”最关注 {key0}（{weight0}）。",
        },
        "preset": "local",
        "view": {"stage": 2},
    },
    {
        "title": {"en": "7. Self-attention", "zh": "7. 自注意力"},
        "text": {
            "en": "Source = Target: the words of one sentence attend to each other. In “walk by river bank” the head asks "
            "which word tells bank what it means, and bank looks at {key0} ({weight0}): 河岸 (river bank), not 银行. "
            "With the identity projection (Q = K = V = X, the X·Xᵀ picture) every word would look most at itself, "
            "because a vector is most similar to itself; a head's W_Q and W_K ask questions that point elsewhere.",
            "zh": "Source = Target：一个句子里的词互相关注。在“walk by river bank”中，这个头问“哪个词告诉 bank "
            "它的意思”，bank 最关注 {key0}（{weight0}）：是“河岸”，不是“银行”。用恒等投影（Q = K = V = X，即 "
            "X·Xᵀ 的图）时，每个词会最关注自己，因为一个向量和它自己最相似；一个头的 W_Q 和 W_K 提出的问题会指向别的词。",
        },
        "preset": "river-bank",
        "more": ["money-bank", "pronoun"],
    },
    {
        "title": {"en": "8. Scaled dot-product attention", "zh": "8. 缩放点积注意力"},
        "text": {
            "en": "The Transformer computes softmax(QKᵀ/√d_k)·V. On 64-wide vectors the plain dot product gives large "
            "scores and the softmax saturates: “bank” puts {weight0} on a single word. Dividing by √d_k keeps it "
            "from saturating: open the scaled example, where no weight reaches 0.95. The same happens on two numbers: "
            "stretch a query and its keys and every q·k grows by the square of the stretch (the longer vectors "
            "example); the panel of queries and keys in one plane shows the lines thinning to one.",
            "zh": "Transformer 计算 softmax(QKᵀ/√d_k)·V。在 64 维向量上，普通点积的分数很大，softmax 饱和："
            "“bank”把 {weight0} 放在一个词上。除以 √d_k 可以防止饱和：打开缩放的例子，没有一个权重达到 0.95。"
            "只有两个数时也一样：把查询和键拉长，每个 q·k 按拉长倍数的平方增大（“向量越长”的例子）；"
            "“同一平面上的查询和键”面板里，连线最后只剩一条。",
        },
        "preset": "plain-dot",
        "more": ["scaled-dot", "stretch"],
    },
    {
        "title": {"en": "9. Multi-head attention", "zh": "9. 多头注意力"},
        "text": {
            "en": "Several heads with their own projections W_Q^i, W_K^i, W_V^i ask different questions; their outputs "
            "are concatenated and projected by W_O (here W_O averages them). On “it”, the pronoun head looks at "
            "{key0} ({weight0}) and the previous-word head at {key1} ({weight1}). Each head's matrices are shown "
            "under the stages; choose a head in “Every head”.",
            "zh": "多个头各有自己的投影 W_Q^i、W_K^i、W_V^i，提出不同的问题；它们的输出拼接后由 W_O 投影"
            "（这里 W_O 取平均）。在“it”这一步，代词头最关注 {key0}（{weight0}），前一个词的头最关注 {key1}"
            "（{weight1}）。每个头的矩阵显示在各阶段下方；在“所有的头”里选择一个头。",
        },
        "preset": "multi-head",
        "view": {"head": 1},
        "more": ["grammar"],
    },
    {
        "title": {"en": "10. The search-engine analogy", "zh": "10. 搜索引擎的类比"},
        "text": {
            "en": "You type a query; the engine matches it against the keys and returns the values, ranked by how well "
            "each key matches. The weights of one step, ranked, are that list of results: for bank the first result "
            "is {key0} ({weight0}).",
            "zh": "你输入一个查询；搜索引擎把它与各个键匹配，返回值，并按匹配程度排序。某一步的权重按大小排序，"
            "就是这张结果列表：bank 的第一个结果是 {key0}（{weight0}）。",
        },
        "preset": "money-bank",
        "view": {"rank": True},
    },
    {
        "title": {"en": "11. Word order", "zh": "11. 词序"},
        "text": {
            "en": "Attention by itself does not know word order: two copies of bank have the same vector and the same "
            "row. Positions fix that, with a position code appended to each word or a local window: in “I paid "
            "money at the bank then sat on the river bank” the first bank looks at {key0} ({weight0}), the second "
            "at {key1} ({weight1}).",
            "zh": "注意力本身不知道词序：两个 bank 的向量相同，行也相同。位置可以解决这个问题，比如给每个词加上位置编码，"
            "或者用局部窗口：在“I paid money at the bank then sat on the river bank”中，第一个 bank 最关注 "
            "{key0}（{weight0}），第二个最关注 {key1}（{weight1}）。",
        },
        "preset": "two-banks",
    },
    {
        "title": {"en": "12. Why the word vectors have length 4", "zh": "12. 为什么词向量的长度是 4"},
        "text": {
            "en": "Each word's meaning here has length √16 = 4, a unit vector times √d. Then the scaled dot product of "
            "two meanings is √d times their cosine, between −4 and 4: the spread a trained model's scores have, so "
            "the weights show contrast at temperature 1. This view compares the word vectors themselves (the "
            "identity projection, Q = K = X: meaning, role and position code together, divided by √d_k): every "
            "score in stage 1 lies between −4 and 4. With unit vectors every score would lie between −0.25 and "
            "0.25 and every row would look uniform.",
            "zh": "这里每个词义向量的长度都是 √16 = 4，即单位向量乘以 √d。这样两个词义的缩放点积等于 √d 乘以它们的余弦，"
            "在 −4 到 4 之间：和训练好的模型的分数范围差不多，所以温度为 1 时权重也有明显的对比。这个视图直接比较词向量本身"
            "（恒等投影，Q = K = X：词义、词性和位置编码一起，再除以 √d_k）：阶段一的每个分数都在 −4 到 4 之间。"
            "如果用单位向量，每个分数都在 −0.25 到 0.25 之间，每一行看起来都差不多均匀。",
        },
        "preset": "river-bank",
        "view": {"projection": "identity"},
    },
    {
        "title": {"en": "13. One word, two meanings, side by side", "zh": "13. 同一个词，两种意思，并排对比"},
        "text": {
            "en": "Self-attention gives a word its meaning from its context. Compare “I sat by the river bank” with "
            "“I put money in the bank”: in the first, bank looks at {top_a} ({weight_a}), in the second at {top_b} "
            "({weight_b}), and its two outputs have a cosine of only {cosine}. With a real model the two banks' "
            "hidden states drift apart layer by layer.",
            "zh": "自注意力让一个词从语境中得到意思。对比“I sat by the river bank”和“I put money in the bank”："
            "第一句里 bank 最关注 {top_a}（{weight_a}），第二句里最关注 {top_b}（{weight_b}），两个输出的余弦只有 {cosine}。"
            "用真实模型时，两个 bank 的隐藏状态一层一层地分开。",
        },
        "compare": "bank-senses",
        "more_compare": ["minilm-bank", "e5-bank", "e5-chinese-go", "temperature", "scaling"],
    },
    {
        "title": {"en": "14. A real Transformer", "zh": "14. 真实的 Transformer"},
        "text": {
            "en": "Attention is used in vision (Recurrent Models of Visual Attention, 2014), in translation (Bahdanau et "
            "al., aligning and translating jointly) and in “Attention Is All You Need” (2017). Here a trained model, "
            "all-MiniLM-L6-v2, shows every layer and head through the same three stages: in layer 5, head 11, “it” "
            "looks at {key0} ({weight0}). A second model, multilingual-e5-small, reads Chinese: open its examples "
            "below (汤姆追逐杰瑞, 银行 and 河岸), and switch between word pieces and words.",
            "zh": "注意力用于视觉（Recurrent Models of Visual Attention，2014）、翻译（Bahdanau 等，对齐与翻译联合学习）"
            "以及《Attention Is All You Need》（2017）。这里一个训练好的模型 all-MiniLM-L6-v2 用同样的三个阶段展示"
            "每一层、每一个头：在第 5 层第 11 个头里，“it”最关注 {key0}（{weight0}）。第二个模型 multilingual-e5-small "
            "能读中文：打开下面的例子（汤姆追逐杰瑞、银行和河岸），并在词片和词之间切换。",
        },
        "preset": "real-model",
        "more": ["e5-chinese", "e5-money-bank", "e5-river-bank"],
    },
    {
        "title": {"en": "15. Every word asks a question", "zh": "15. 每个词都在提问"},
        "text": {
            "en": "A trained Transformer's heads learn questions of their own; here eight are written in words, one for "
            "each relation most words of a sentence take part in: which word tells me my meaning (sense), which noun "
            "a pronoun points to, the word before me, who does an action (doer) and what it happens to (object), "
            "which noun an adjective, a number or my describes, the object of a preposition, and which action a "
            "noun belongs to. With no head in the link, each step shows the head its word asks. “reads” asks who "
            "reads: {key0} ({weight0}); the object head finds {key1} ({weight1}); “young” describes {key2} "
            "({weight2}); “in” takes {key3} ({weight3}); “woman” belongs to {key4} ({weight4}).",
            "zh": "训练好的 Transformer 的头会学到自己的问题；这里用文字写出八个，每个对应句子里大多数词都参与的一种关系："
            "哪个词告诉我意思（词义）、代词指向哪个名词、我前面的词、谁做这个动作（施事）和动作作用于什么（宾语）、"
            "形容词、数词或“我的”修饰哪个名词、介词的宾语、名词属于哪个动作。链接里不指定头时，每一步显示这个词所问的头。"
            "“reads”问谁在读：{key0}（{weight0}）；宾语头找到 {key1}（{weight1}）；“young”修饰 {key2}（{weight2}）；"
            "“in”的宾语是 {key3}（{weight3}）；“woman”属于 {key4}（{weight4}）。",
        },
        "preset": "grammar",
    },
    {
        "title": {"en": "16. Does a big weight mean the word matters?", "zh": "16. 权重大，这个词就重要吗？"},
        "text": {
            "en": "A weight says where a word looks, not what it takes: the head's output adds α_j · v_j W_O, and a "
            "weight on a short value moves little. Kobayashi et al. (2020, “Attention is Not Only a Weight”) measure "
            "each key's contribution as α‖v W_O‖, the weight times the length of its value after the output projection. "
            "In MiniLM's layer 2, head 7, “{query0}” puts {weight0} of its weight on {key0}, yet [CLS]'s value is "
            "short (‖v W_O‖ = {norm0}) and its share of the contribution is only {share0}: a big weight, little "
            "effect. They can agree too: in layer 5, head 11, “{query1}” puts {weight1} on {key1}, and {key1} also "
            "makes {share1} of the contribution. The switch under stage 2's chart shows the weights or the contributions.",
            "zh": "权重说明一个词看向哪里，而不是它拿到了什么：头的输出是 α_j · v_j W_O 之和，值很短的键即使权重大也几乎"
            "不改变输出。Kobayashi 等（2020，《Attention is Not Only a Weight》）用 α‖v W_O‖ 衡量每个键的贡献，即权重乘以"
            "它的值经过输出投影后的长度。在 MiniLM 第 2 层第 7 个头里，“{query0}”把 {weight0} 的权重放在 {key0} 上，"
            "可是 [CLS] 的值很短（‖v W_O‖ = {norm0}），它在贡献中只占 {share0}：权重大，作用小。两者也可能一致："
            "在第 5 层第 11 个头里，“{query1}”把 {weight1} 放在 {key1} 上，{key1} 在贡献中也占 {share1}。"
            "阶段二图下方的开关可以在权重和贡献之间切换。",
        },
        "preset": "norm-cls",
        "more": ["real-model", "mt-sense"],
    },
    {
        "title": {"en": "17. A word the translator does not know", "zh": "17. 翻译模型不认识的词"},
        "text": {
            "en": "A trained translator knows a fixed list of words (here about 3,900 English and 1,700 Chinese). A "
            "word beyond it is read as <unk>, typed by what it looks like (<unk:noun>, <unk:verb-ed>...), and the "
            "model was trained to write <unk> where its translation goes, never to invent another word. What "
            "should stand there? Luong et al. and Jean et al. (2015) follow the attention: the <unk> is replaced by "
            "the dictionary's translation of the source word it looks at most. Writing the <unk> for enemy, "
            "RNNsearch looks at {key0} ({weight0}), and the page writes 〔{word0}〕, marked as taken from the "
            "dictionary. When attention points at the wrong word, the wrong word is copied: the second example. A "
            "name the dictionary lacks comes from CC-CEDICT's list of names (chen → 陈); a word in neither stays in "
            "English.",
            "zh": "训练好的翻译模型只认识一张固定的词表（这里约 3,900 个英文词、1,700 个中文词）。表外的词被读成 <unk>，"
            "并按它的样子分类（<unk:noun>、<unk:verb-ed>……）；模型训练时学会在它的译文该出现的位置写 <unk>，"
            "而不是编造另一个词。那里该写什么？Luong 等和 Jean 等（2015）顺着注意力找：用词典里注意力最关注的那个源词的"
            "译法代替 <unk>。为 enemy 写 <unk> 时，RNNsearch 最关注 {key0}（{weight0}），页面写出〔{word0}〕，"
            "并注明取自词典。注意力指错了词，复制的也就是错的词：见第二个例子。词典里没有的人名、地名取自 CC-CEDICT 的"
            "名字表（chen → 陈）；两处都没有的词保留英文。",
        },
        "preset": "mt-unknown",
        "more": ["mt-unknown-name", "mt-name-word", "mt-unknown-wrong"],
    },
    {
        "title": {"en": "18. Looked at, but not translated", "zh": "18. 看了，却没译出"},
        "text": {
            "en": "A translator beyond its corpus can go wrong with no <unk> at all: it writes a fluent word no English "
            "word asked for, or drops one. The page checks every translation against the dictionary: each Chinese "
            "word's English counterpart, the words made up, the English words left out. For “the rain stopped”, RNNsearch "
            "writes {word0} (Mike, a name) while putting {weight0} of its weight on {key0}: attention pointed at "
            "the right word, and the word written is still not its translation. {key0} is marked left out though "
            "its column of stage 2 sums to {coverage0} (the attention a word receives over all the steps is its "
            "coverage, Tu et al. 2016). Where a word looks and what it translates are two questions. This lesson's link "
            "lets the model write any word (candidates=all); by default the page chooses among the dictionary's "
            "candidates, and {word0} is ruled out.",
            "zh": "超出语料的句子，翻译模型即使不写 <unk> 也会出错：写出一个没有英文词要求的通顺的词，或者漏掉一个词。"
            "页面按词典检查每个译文：每个中文词对应的英文词、编造的词、漏译的英文词。对“the rain stopped”，RNNsearch "
            "把 {weight0} 的权重放在 {key0} 上，却写出“{word0}”（一个人名）：注意力指对了词，写出的仍不是它的译文。"
            "{key0} 被标为漏译，尽管它在阶段二中那一列的和是 {coverage0}（一个词在所有步骤中得到的注意力之和叫"
            "覆盖度，Tu 等 2016）。看向哪里和译出什么，是两个问题。本课的链接让模型可以写任何词（candidates=all）；"
            "页面默认只在词典给出的候选词中选词，“{word0}”会被排除。",
        },
        "preset": "mt-made-up",
        "more": ["mt-ends-early", "mt-beam-coverage"],
    },
]

PRESET_TITLES = {preset["id"]: preset["title"] for preset in PRESETS}
COMPARE_TITLES = {preset["id"]: preset["title"] for preset in COMPARE_PRESETS}


def compare_lesson(lesson: dict, lang: str) -> dict:
    """A lesson that opens a comparison (app/view/compare.py) rather than a single view."""
    comparison = comparison_from_query(COMPARE_QUERIES[lesson["compare"]])
    text = lesson["text"][lang].format(**compare_preset_numbers(lesson["compare"]))
    more = [
        {
            "title": COMPARE_TITLES[name][lang],
            "link": comparison_from_query(COMPARE_QUERIES[name]).replace(lang=lang).share_path(),
        }
        for name in lesson.get("more_compare", ())
    ]
    return {
        "title": lesson["title"][lang],
        "text": text,
        "link": comparison.replace(lang=lang).share_path(),
        "more": more,
    }


@functools.cache
def lessons_for(lang: str) -> list[dict]:
    """Every lesson in `lang`, with its numbers and the canonical links of the views that show it."""
    found = []
    for lesson in LESSONS:
        if "compare" in lesson:
            try:
                found.append(compare_lesson(lesson, lang))
            except Exception:  # a real model that is not installed here
                continue
            continue
        try:
            text = lesson["text"][lang].format(**preset_numbers(lesson["preset"]))
            state = preset_state(lesson["preset"])
        except Exception:  # a real model that is not installed here: the lesson is not offered
            continue
        opened = state.replace(lang=lang, **lesson.get("view", {}))
        more = claim_links(lesson, opened, lang) + [
            {"title": PRESET_TITLES[name][lang], "link": preset_state(name).replace(lang=lang).share_path()}
            for name in lesson.get("more", ())
        ]
        found.append(
            {
                "title": lesson["title"][lang],
                "text": text,
                "link": opened.share_path(),
                "more": more,
                "translators": translator_block(lesson.get("translators"), lang),
            }
        )
    return found


def quoted_claims(lesson: dict) -> list[int]:
    """The claims of a lesson's example that its text quotes ({key1}, {weight1}... name claim 1)."""
    claims = next(p for p in PRESETS if p["id"] == lesson["preset"])["claims"]
    text = lesson["text"]["en"]
    return [i for i in range(len(claims)) if re.search(r"\{[a-z]+" + str(i) + r"\}", text)]


def query_word(state: State, step: int) -> str:
    """The query a view's step is about, as its tokens row names it."""
    return compute_view(state)["tokens"]["queries"][step]


def claim_links(lesson: dict, opened: State, lang: str) -> list[dict]:
    """A link for each quoted claim that the opened view does not show (another head or step): what a lesson
    names is visible on the view its link opens, or on a link of its own beside it."""
    claims = next(p for p in PRESETS if p["id"] == lesson["preset"])["claims"]
    strings = STRINGS[lang]
    links = []
    for index in quoted_claims(lesson):
        claim = claims[index]
        head = opened.head if claim.head is None else claim.head
        step = opened.step if claim.step is None else claim.step
        layer = opened.layer if getattr(claim, "layer", None) is None else claim.layer
        if (head, step, layer) == (opened.head, opened.step, opened.layer):
            continue
        shown = opened.replace(head=head, step=step, layer=layer)
        query = examples.remembered(
            "query_words",
            f"{shown.share_path()}#{step}",
            functools.partial(query_word, shown, step),
        )
        where = f"{strings['step']} {step + 1} · “{query}”"
        title = where if head == opened.head else f"{strings['head']} {head + 1} · {where}"  # counted from 1
        if layer != opened.layer:  # a real model's layers and heads are counted from 0, as its papers count them
            title = f"{strings['layer']} {layer} · {strings['head']} {head} · {where}"
        links.append({"title": title, "link": shown.share_path()})
    return links


# ---------------------------------------------------------------------------
# Lessons 1 and 2 with the trained translators: the same sentences through RNNencdec and RNNsearch, and
# their quality against sentence length on the held-out test set (the figures train.py wrote beside the weights)
# ---------------------------------------------------------------------------

# The seed text's sentence, one with the place moved before the verb, and a long one of the corpus's grammar
TRANSLATOR_SENTENCES = (
    "Tom chase Jerry",
    "I read books in the library",
    "a rabbit loves that fat man in the garden but tom drank the tea on sunday",
)
CHART_MODELS = ("rnnencdec", "rnnsearch", "transformer-mt")
TRANSLATOR_TEXT = {
    "encdec": {
        "en": "The trained RNNencdec works exactly this way: its encoder's last states are one vector C of {size} "
        "numbers, and every Chinese word is written from that same C. Short sentences fit: on the held-out test "
        "sentences of 1–5 English words it translates {short} exactly; of 21–25 words only {long}. The same "
        "sentences through both models:",
        "zh": "训练好的 RNNencdec 就是这样工作的：编码器最后的状态是一个 {size} 个数的向量 C，每个中文词都由同一个 C "
        "写出。短句装得下：在留出的测试句子中，1–5 个英文词的句子它完全译对 {short}；21–25 个词的只有 {long}。"
        "同样的句子分别交给两个模型：",
    },
    "search": {
        "en": "RNNsearch, the same encoder and decoder with additive attention, learned where to look from the sentence "
        "pairs alone: {long} of the 21–25-word test sentences come out exactly ({short} of the 1–5-word ones), and "
        "{aligned} of its target words put their largest weight on the English word the corpus aligns them with. "
        "The chart is Bahdanau et al.'s Figure 2 for these models: without attention, quality falls with length.",
        "zh": "RNNsearch 是同样的编码器和解码器加上加性注意力，只从句对中学会了看哪里：21–25 个词的测试句子它完全译对 "
        "{long}（1–5 个词的 {short}），而且它的目标词中有 {aligned} 把最大的权重放在语料标注的对应英文词上。"
        "这张图就是这些模型的 Bahdanau 等人的图 2：没有注意力时，质量随句长下降。",
    },
}
LIMITS_TEXT = {
    "en": "What they were trained on: {pairs} generated sentence pairs, {source} English and {target} Chinese words of "
    "the dictionary, the story's grammar (names, nouns with measure words, adjectives, possessives, relative clauses, "
    "places and times before the verb, 把, but and because) and everyday sentences (very, not, will, questions, "
    "please, time words in front, gave someone something), sentences of up to {longest} words (they take at most "
    "{max}). What they cannot translate: any other word (read as <unk>, written <unk> and replaced from the "
    "dictionary where attention points, lesson 17), any other construction (longer sentences, phrasal verbs such as "
    "get up), and anything outside that world. Of the 21–25-word test sentences the small "
    "Transformer translates {transformer_long} exactly, RNNsearch {search_long}.",
    "zh": "它们学过的：{pairs} 个生成的句对，词表中的 {source} 个英文词和 {target} 个中文词，一套小语法（人名、带量词的名词、"
    "形容词、所有格、关系从句、放到动词前的地点和时间、把字句、but 和 because）和日常句子（很、不、会、疑问、请、"
    "放在句首的时间词、给某人某物），句子最长 {longest} 个词（它们最多接受 {max} 个词）。它们不会翻译的：任何其他的词"
    "（读作 <unk>，写成 <unk>，再按注意力所指的词从词典里取译法，见第 17 课）、任何其他句式（更长的句子、get up "
    "这样的短语动词），以及这个世界之外的一切。"
    "21–25 个词的测试句子，小 Transformer 完全译对 {transformer_long}，RNNsearch {search_long}。",
}


def percent(x: float) -> str:
    return f"{100 * x:.1f}%"


@functools.cache
def translator_figures() -> dict[str, dict]:
    """Each translator's figures as train.py wrote them (app/engine/models/mt/<model>.json)."""
    import json

    return {name: json.loads((mt.DIRECTORY / f"{name}.json").read_text(encoding="utf-8")) for name in CHART_MODELS}


def length_chart(lang: str) -> dict:
    """Exact match on the test set against English length, one line per model, as SVG coordinates."""
    figures = translator_figures()
    buckets = list(figures["rnnsearch"]["test"]["by_length"])
    width, height, left, bottom, top, right = 640, 320, 56, 44, 16, 150
    plot_w, plot_h = width - left - right, height - top - bottom
    x_of = {b: left + plot_w * (i + 0.5) / len(buckets) for i, b in enumerate(buckets)}
    series = []
    for index, name in enumerate(CHART_MODELS):
        by_length = figures[name]["test"]["by_length"]
        points = [
            {
                "bucket": b,
                "value": by_length[b]["exact_match"],
                "text": percent(by_length[b]["exact_match"]),
                "sentences": by_length[b]["sentences"],
                "x": round(x_of[b], 1),
                "y": round(top + plot_h * (1 - by_length[b]["exact_match"]), 1),
            }
            for b in buckets
        ]
        series.append(
            {
                "model": name,
                "label": STRINGS[lang][f"model_label_{name}"],  # in the page's language
                "short": mt.MODELS[name]["label"].split(" (")[0],  # beside the line's end: RNNsearch
                "points": points,
                "path": " ".join(f"{p['x']},{p['y']}" for p in points),
                "index": index,
                "end": points[-1],
            }
        )
    gap = 18  # px between two lines' labels at the right end, so that close lines keep readable names
    placed = top
    for line in sorted(series, key=lambda line: line["end"]["y"]):
        line["label_y"] = round(max(line["end"]["y"] + 5, placed), 1)
        placed = line["label_y"] + gap
    ticks = [{"value": f"{v}%", "y": round(top + plot_h * (1 - v / 100), 1)} for v in (0, 25, 50, 75, 100)]
    return {
        "width": width,
        "height": height,
        "left": left,
        "right": width - right,
        "top": top,
        "bottom": height - bottom,
        "buckets": [{"label": b, "x": round(x_of[b], 1)} for b in buckets],
        "ticks": ticks,
        "series": series,
        "caption": STRINGS[lang]["mt_chart_caption"],
        "table_caption": STRINGS[lang]["mt_chart_table"],
        "x_title": STRINGS[lang]["mt_chart_x"],
        "y_title": STRINGS[lang]["mt_chart_y"],
    }


@functools.cache
def translator_block(kind: str | None, lang: str) -> dict | None:
    """Lesson 1 or 2's part with the trained translators (None: the lesson has none, or they are missing here)."""
    if kind is None:
        return None
    try:
        figures = translator_figures()
        model = "rnnencdec" if kind == "encdec" else "rnnsearch"
        by_length = figures[model]["test"]["by_length"]
        numbers = {
            "short": percent(by_length["1-5"]["exact_match"]),
            "long": percent(by_length["21-25"]["exact_match"]),
            "aligned": percent(figures["rnnsearch"]["test"].get("alignment_accuracy", 0.0)),
            "size": len(models.translation("rnnencdec", TRANSLATOR_SENTENCES[0], None, 1).extra["state"]["c"]),
        }
        rows = []
        for sentence in TRANSLATOR_SENTENCES:
            cells = []
            for name in ("rnnencdec", "rnnsearch"):
                result = models.translation(name, sentence, None, 1)
                state = State(source=sentence, model=name, lang=lang)
                cells.append({"target": " ".join(result.target), "link": state.share_path()})
            gold = models.GOLD.get(" ".join(mt.source_words(sentence)))
            rows.append({"source": sentence, "cells": cells, "same": cells[0]["target"] == cells[1]["target"],
                         "gold": " ".join(gold[0]) if gold else None})  # fmt: skip
        vocabulary = models.translator("rnnsearch").vocabulary
        limits = LIMITS_TEXT[lang].format(
            pairs=f"{figures['rnnsearch']['train_pairs']:,}",
            source=sum(vocabulary.knows(w) for w in vocabulary.source),
            target=len(vocabulary.target) - 4,
            transformer_long=percent(figures["transformer-mt"]["test"]["by_length"]["21-25"]["exact_match"]),
            search_long=percent(figures["rnnsearch"]["test"]["by_length"]["21-25"]["exact_match"]),
            longest=list(figures["rnnsearch"]["test"]["by_length"])[-1].split("-")[-1],  # the last bucket's end: 25
            max=models.info("rnnsearch").max_pieces,  # the one limit the view checks (translator.MAX_SOURCE_WORDS)
        )
    except models.ModelUnavailable:
        return None
    return {
        "kind": kind,
        "text": TRANSLATOR_TEXT[kind][lang].format(**numbers),
        "rows": rows if kind == "encdec" else [],
        "chart": length_chart(lang) if kind == "search" else None,
        "limits": limits if kind == "search" else None,
    }
