"""Ready-made examples, each teaching one idea of attention, each stating in numbers what it shows.

`params` are share-URL parameters; `claims` (claims.py) say what the view shows, and the lesson text
is filled with the numbers the engine computes for them ({key0}, {weight0}, {pairs0}...), so the
words on screen and the picture cannot disagree. ``presets_for(lang)`` gives the page each example
with its canonical link, written by the State like every other link.
"""

from __future__ import annotations

import functools

from app.view import examples
from app.view.claims import Claim, check, placeholders
from app.view.state import State, state_from_link_values

TRANSLATION = {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞"}
TWO_BANKS = "I paid money at the bank then sat on the river bank"
LONG = "yesterday the little girl and her father walked by the river to the old school and read a book about fish"
PRONOUN = "the cat drank the milk because it was hungry"
GRAMMAR = "the young woman reads an old book in the garden"

PRESETS = [
    {
        "id": "translate",
        "title": {"en": "Tom chase Jerry → 汤姆 追逐 杰瑞", "zh": "Tom chase Jerry → 汤姆 追逐 杰瑞"},
        "lesson": {
            "en": "Encoder–decoder attention: producing 杰瑞, the decoder looks most at {key2} ({weight2}); "
            "its weights are {pairs2}. 汤姆 looks at {key0} ({weight0}), 追逐 at {key1} ({weight1}).",
            "zh": "编码器–解码器注意力：生成“杰瑞”时，解码器最关注 {key2}（{weight2}），权重是 {pairs2}。"
            "“汤姆”最关注 {key0}（{weight0}），“追逐”最关注 {key1}（{weight1}）。",
        },
        "params": {**TRANSLATION, "step": "2"},
        "claims": (
            Claim("top", step=0, key="Tom", at_least=0.4),
            Claim("top", step=1, key="chase", at_least=0.4),
            Claim("top", step=2, key="Jerry", at_least=0.4),
        ),
    },
    {
        "id": "love",
        "title": {"en": "I love you → 我 爱 你", "zh": "I love you → 我 爱 你"},
        "lesson": {
            "en": "Each Chinese word looks most at its English counterpart: 我 → {key0} ({weight0}), "
            "爱 → {key1} ({weight1}), 你 → {key2} ({weight2}).",
            "zh": "每个中文词最关注对应的英文词：我 → {key0}（{weight0}），爱 → {key1}（{weight1}），你 → {key2}（{weight2}）。",
        },
        "params": {"source": "I love you", "target": "我 爱 你"},
        "claims": (
            Claim("top", step=0, key="I", at_least=0.4),
            Claim("top", step=1, key="love", at_least=0.4),
            Claim("top", step=2, key="you", at_least=0.4),
        ),
    },
    {
        "id": "river-bank",
        "title": {"en": "walk by river bank", "zh": "walk by river bank（河岸）"},
        "lesson": {
            "en": "Self-attention: the head asks which word tells bank what it means. bank looks at {key0} "
            "({weight0}), so it means 河岸 (river bank), not 银行.",
            "zh": "自注意力：这个头问“哪个词告诉 bank 它在这里的意思”。bank 最关注 {key0}（{weight0}），"
            "所以它是“河岸”，不是“银行”。",
        },
        "params": {"source": "walk by river bank", "step": "3"},
        "claims": (Claim("top", step=3, key="river", at_least=0.5),),
    },
    {
        "id": "bank-tree",
        "title": {"en": "we sat on the river bank under a tree", "zh": "we sat on the river bank under a tree（河岸）"},
        "lesson": {
            "en": "The page opens here. The head asks which word tells bank what it means: bank looks at {key0} "
            "({weight0}), so it means 河岸. In the panel “Queries and keys in one plane”, "
            "drag the vector lengths up and watch the weight go all to river (the softmax saturates), or down and "
            "watch it spread.",
            "zh": "页面从这里开始。这个头问“哪个词告诉 bank 它的意思”：bank 最关注 {key0}（{weight0}），"
            "所以它是“河岸”。在“同一平面上的查询和键”面板里，把向量长度往上拖，权重会全部落到 river 上"
            "（softmax 饱和）；往下拖，权重会分散开。",
        },
        # not saturated (below 0.95): the opening row is where a teacher first tries the stretch, which must show
        "params": {"source": "we sat on the river bank under a tree", "step": "5"},
        "claims": (Claim("top", step=5, key="river", at_least=0.5, below=0.95),),
    },
    {
        "id": "money-bank",
        "title": {"en": "I put money in the bank", "zh": "I put money in the bank（银行）"},
        "lesson": {
            "en": "The same word in another sentence: bank looks at {key0} ({weight0}), so here it means 银行.",
            "zh": "同一个词换一个句子：bank 最关注 {key0}（{weight0}），所以这里是“银行”。",
        },
        "params": {"source": "I put money in the bank", "step": "5"},
        "claims": (Claim("top", step=5, key="money", at_least=0.5),),
    },
    {
        "id": "pronoun",
        "title": {"en": "A pronoun finds its noun", "zh": "代词找到它指代的名词"},
        "lesson": {
            "en": "Head 1 asks which noun a pronoun points to: “it” looks at {key0} ({weight0}), not at the milk.",
            "zh": "头 1 问代词指的是哪个名词：“it”最关注 {key0}（{weight0}），而不是牛奶。",
        },
        "params": {"source": PRONOUN, "heads": "2", "head": "1", "step": "6"},
        "claims": (Claim("top", step=6, key="cat", at_least=0.5),),
    },
    {
        "id": "two-banks",
        "title": {"en": "bank (money) and bank (river) in one sentence", "zh": "一句话里的两个 bank：银行和河岸"},
        "lesson": {
            "en": "Without word order both banks have the same vector, so the same row. A local window (3 words "
            "on each side) uses their positions: the first bank looks at {key0} ({weight0}), the second at "
            "{key1} ({weight1}).",
            "zh": "没有词序时，两个 bank 的向量相同，所以行也相同。局部窗口（左右各 3 个词）用上了位置："
            "第一个 bank 最关注 {key0}（{weight0}），第二个最关注 {key1}（{weight1}）。",
        },
        "params": {"source": TWO_BANKS, "window": "3", "step": "5"},
        "claims": (Claim("top", step=5, key="money", at_least=0.5), Claim("top", step=11, key="river", at_least=0.5)),
    },
    {
        "id": "local",
        "title": {"en": "Local attention on a long sentence", "zh": "长句上的局部注意力"},
        "lesson": {
            "en": "With window=2 each word sees only two neighbours on each side; every other key gets exactly 0. "
            "“by” looks at {key0} ({weight0}).",
            "zh": "窗口为 2 时，每个词只看左右各两个词，其余键的权重正好是 0。“by”最关注 {key0}（{weight0}）。",
        },
        "params": {"source": LONG, "window": "2", "step": "8"},
        "claims": (Claim("top", step=8, key="river", at_least=0.5),),
    },
    {
        "id": "chinese",
        "title": {"en": "Chinese without spaces (jieba)", "zh": "不带空格的中文（结巴分词）"},
        "lesson": {
            "en": "jieba cuts the sentence into words, then self-attention runs on them: in the sense head (Head 1), "
            "银行 looks at {key0} ({weight0}), the money sense.",
            "zh": "结巴先把句子切成词，再做自注意力：在词义头（头 1）里，“银行”最关注“{key0}”（{weight0}），是“钱”的意思。",
        },
        "params": {"source": "我们在河边散步然后去银行取钱", "head": "0", "step": "6"},
        "claims": (Claim("top", step=6, key="钱", at_least=0.5),),
    },
    {
        "id": "causal",
        "title": {"en": "Causal mask (a decoder cannot peek)", "zh": "因果掩码（解码器不能偷看后文）"},
        "lesson": {
            "en": "Each word sees only itself and the words before it: every weight above the diagonal is 0. "
            "The doer head sends “chased” to {key1} ({weight1}).",
            "zh": "每个词只能看到自己和前面的词：对角线右上方的权重都是 0。动作头让“chased”最关注 {key1}（{weight1}）。",
        },
        "params": {
            "source": "the dog chased the cat into the house",
            "causal": "true",
            "heads": "4",
            "positional": "true",
            "head": "3",
            "step": "2",
        },  # fmt: skip
        "claims": (Claim("causal"), Claim("top", step=2, key="dog", at_least=0.5)),
    },
    {
        "id": "multi-head",
        "title": {"en": "Multi-head: four heads, four questions", "zh": "多头注意力：四个头，四个问题"},
        "lesson": {
            "en": "Four named heads ask four questions. On “it”: the pronoun head (1) looks at {key0} ({weight0}), "
            "the previous-word head (2) at {key1} ({weight1}); the doer head (3) sends “drank” to {key2} "
            "({weight2}). W_O averages them.",
            "zh": "四个有名字的头提四个问题。在“it”这一步：代词头（1）最关注 {key0}（{weight0}），"
            "前一个词的头（2）最关注 {key1}（{weight1}）；动作头（3）让“drank”最关注 {key2}（{weight2}）。W_O 把它们平均。",
        },
        "params": {"source": PRONOUN, "heads": "4", "positional": "true", "step": "6"},
        "claims": (
            Claim("top", step=6, key="cat", at_least=0.5, head=1),
            Claim("top", step=6, key="because", at_least=0.5, head=2),
            Claim("top", step=2, key="cat", at_least=0.5, head=3),
        ),
    },
    {
        "id": "grammar",
        "title": {"en": "Every word asks a question", "zh": "每个词都在提问"},
        "lesson": {
            "en": "Eight named heads, and each step shows the one its word asks. “reads” asks who reads: {key0} "
            "({weight0}); the object head finds what is read: {key1} ({weight1}). “young” asks which noun it "
            "describes: {key2} ({weight2}); “in” asks for its object: {key3} ({weight3}); “woman” asks which action "
            "it belongs to: {key4} ({weight4}).",
            "zh": "八个有名字的头，每一步显示这个词所问的那个头。“reads”问谁在读：{key0}（{weight0}）；宾语头找到读的是什么："
            "{key1}（{weight1}）。“young”问它修饰哪个名词：{key2}（{weight2}）；“in”找它的宾语：{key3}（{weight3}）；"
            "“woman”问它属于哪个动作：{key4}（{weight4}）。",
        },
        "params": {"source": GRAMMAR, "step": "3"},
        "claims": (
            Claim("top", step=3, key="woman", at_least=0.5),
            Claim("top", step=3, key="book", at_least=0.5, head=4),
            Claim("top", step=1, key="woman", at_least=0.5),
            Claim("top", step=7, key="garden", at_least=0.5),
            Claim("top", step=2, key="reads", at_least=0.5),
        ),
    },
    {
        "id": "hard",
        "title": {"en": "Soft vs hard attention", "zh": "软注意力与硬注意力"},
        "lesson": {
            "en": "Hard attention picks exactly one word per step: every weight is 0 or 1; 杰瑞 picks {key1}.",
            "zh": "硬注意力每一步只选一个词：每个权重都是 0 或 1；“杰瑞”选了 {key1}。",
        },
        "params": {**TRANSLATION, "hard": "true", "step": "2"},
        "claims": (Claim("one_hot"), Claim("top", step=2, key="Jerry", at_least=1.0)),
    },
    {
        "id": "temperature",
        "title": {"en": "Temperature: sharp or flat", "zh": "温度：尖锐还是平坦"},
        "lesson": {
            "en": "At temperature 20 every row is almost uniform (each weight within {furthest0} of 1/3): "
            "every target word gets almost the same context vector, as an encoder–decoder without attention.",
            "zh": "温度为 20 时，每一行几乎都是均匀的（每个权重与 1/3 相差不超过 {furthest0}）："
            "每个目标词得到几乎相同的上下文向量，就像没有注意力的编码器–解码器。",
        },
        "params": {**TRANSLATION, "temperature": "20", "projection": "identity"},
        "claims": (Claim("flat", within=0.05),),
    },
    {
        "id": "plain-dot",
        "title": {"en": "Plain dot product on long vectors", "zh": "长向量上的普通点积"},
        "lesson": {
            "en": "64-wide random vectors, score q·k without scaling: the scores are large, the softmax saturates and "
            "“bank” puts {weight0} on one word. Compare with the scaled example.",
            "zh": "64 维随机向量，分数 q·k 不缩放：分数很大，softmax 饱和，“bank”把 {weight0} 放在一个词上。请和缩放的例子比较。",
        },
        "params": {
            "source": "walk by river bank",
            "embedding": "hash",
            "dim": "64",
            "projection": "random",
            "score": "dot",
            "step": "3",
        },  # fmt: skip
        "claims": (Claim("max_above", step=3, at_least=0.95),),
    },
    {
        "id": "scaled-dot",
        "title": {"en": "Scaled dot product on long vectors", "zh": "长向量上的缩放点积"},
        "lesson": {
            "en": "The same vectors, score q·k/√64: no weight reaches 0.95 (the largest is {weight0}): dividing by "
            "√d_k keeps the softmax from saturating.",
            "zh": "同样的向量，分数 q·k/√64：没有一个权重达到 0.95（最大 {weight0}）：除以 √d_k 防止 softmax 饱和。",
        },
        "params": {
            "source": "walk by river bank",
            "embedding": "hash",
            "dim": "64",
            "projection": "random",
            "step": "3",
        },  # fmt: skip
        "claims": (Claim("max_below", below=0.95),),
    },
    {
        "id": "cosine",
        "title": {"en": "Cosine: direction without length", "zh": "余弦：只看方向，不看长度"},
        "lesson": {
            "en": "Cosine similarity ignores length: every score lies between −1 and 1, so the softmax stays flat. bank "
            "still looks most at {key0}, but with only {weight0}; the scaled dot product of the same length-4 vectors "
            "gives it almost all the weight.",
            "zh": "余弦相似度不管长度：每个分数都在 −1 到 1 之间，所以 softmax 很平坦。bank 仍然最关注 {key0}，"
            "但权重只有 {weight0}；同样长度为 4 的向量用缩放点积时，几乎全部权重都给了它。",
        },
        "params": {"source": "walk by river bank", "score": "cosine", "step": "3"},
        "claims": (Claim("top", step=3, key="river", at_least=0.3), Claim("max_below", below=0.6)),
    },
    {
        "id": "general",
        "title": {"en": "general qᵀWk with its matrix W", "zh": "一般形式 qᵀWk 及其矩阵 W"},
        "lesson": {
            "en": "Luong's general score puts a matrix between query and key: s = qᵀWk. W here is drawn at random "
            "(3 × 3, under “The head's matrices”); bank looks at {key0} ({weight0}).",
            "zh": "Luong 的一般形式（general）分数在查询和键之间放一个矩阵：s = qᵀWk。这里的 W 是随机抽取的矩阵"
            "（3 × 3，见“这个头的矩阵”）；bank 最关注 {key0}（{weight0}）。",
        },
        "params": {"source": "walk by river bank", "score": "general", "step": "3"},
        "claims": (Claim("top", step=3, key="river", at_least=0.5),),
    },
    {
        "id": "additive",
        "title": {"en": "additive vᵀtanh(W₁q + W₂k)", "zh": "加性 vᵀtanh(W₁q + W₂k)"},
        "lesson": {
            "en": "Bahdanau's additive score is a small network with one hidden layer; W₁, W₂ and v (drawn at random) "
            "are under “The head's matrices”, every step in the arithmetic. bank looks at {key0} ({weight0}).",
            "zh": "Bahdanau 的加性分数是只有一个隐藏层的小网络；W₁、W₂ 和 v（随机抽取）见“这个头的矩阵”，"
            "每一步都写在计算过程里。bank 最关注 {key0}（{weight0}）。",
        },
        "params": {"source": "walk by river bank", "score": "additive", "step": "3"},
        "claims": (Claim("top", step=3, key="by", at_least=0.3),),
    },
    {
        "id": "real-model",
        "title": {"en": "A real model: MiniLM layer 5, head 11", "zh": "真实模型：MiniLM 第 5 层第 11 个头"},
        "lesson": {
            "en": "A trained Transformer: in this head, “it” looks most at {key0} ({weight0}), not at “street”.",
            "zh": "训练好的 Transformer：在这个头里，“it”最关注 {key0}（{weight0}），而不是“street”。",
        },
        "params": {
            "source": "the animal did not cross the street because it was too tired",
            "model": "minilm",
            "layer": "5",
            "head": "11",
            "step": "9",
        },  # fmt: skip
        "claims": (Claim("top", step=9, key="animal", at_least=0.4),),
    },
    {
        "id": "norm-cls",
        "title": {"en": "MiniLM: a big weight that contributes little", "zh": "MiniLM：权重大，贡献小"},
        "lesson": {
            "en": "Layer 2, head 7: “{query0}” puts {weight0} of its weight on {key0}, but [CLS]'s value is short "
            "(‖v W_O‖ = {norm0}): its share of weight × ‖value‖ is only {share0}.",
            "zh": "第 2 层第 7 个头：“{query0}”把 {weight0} 的权重放在 {key0} 上，但 [CLS] 的值很短（‖v W_O‖ = {norm0}）："
            "它在“权重 × ‖值‖”中只占 {share0}。",
        },
        "params": {
            "source": "the animal did not cross the street because it was too tired",
            "model": "minilm",
            "layer": "2",
            "head": "7",
            "step": "2",
            "attribution": "norm",
        },  # fmt: skip
        "claims": (
            Claim("weight_not_norm", step=2, key="[CLS]", at_least=0.8, below=0.2),
            Claim("weight_and_norm", step=9, key="animal", at_least=0.5, layer=5, head=11),
        ),
    },
    {
        "id": "e5-chinese",
        "title": {"en": "A multilingual model reads 汤姆追逐杰瑞", "zh": "多语言模型读“汤姆追逐杰瑞”"},
        "lesson": {
            "en": "multilingual-e5-small reads Chinese (4-bit weights, words merged from its pieces): in layer 2, head 11, "
            "杰瑞 looks most at {key0} ({weight0}): who is chasing.",
            "zh": "multilingual-e5-small 能读中文（4 位权重，词片合并成词）：在第 2 层第 11 个头里，“杰瑞”最关注“{key0}”"
            "（{weight0}）：是谁在追。",
        },
        "params": {
            "source": "汤姆追逐杰瑞",
            "model": "e5",
            "units": "words",
            "hide_special": "true",
            "layer": "2",
            "head": "11",
            "step": "2",
        },  # fmt: skip
        "claims": (Claim("top", step=2, key="汤姆", at_least=0.5),),
    },
    {
        "id": "e5-money-bank",
        "title": {"en": "e5: 银行 and the money", "zh": "e5：“银行”和“钱”"},
        "lesson": {
            "en": "In “我把钱存进银行” (I put the money into the bank), layer 4, head 0: 银行 looks most at {key0} "
            "({weight0}).",
            "zh": "在“我把钱存进银行”里，第 4 层第 0 个头：“银行”最关注“{key0}”（{weight0}）。",
        },
        "params": {
            "source": "我把钱存进银行",
            "model": "e5",
            "units": "words",
            "hide_special": "true",
            "layer": "4",
            "step": "4",
        },  # fmt: skip
        "claims": (Claim("top", step=4, key="钱", at_least=0.4),),
    },
    {
        "id": "e5-river-bank",
        "title": {"en": "e5: 河岸 and the fishing", "zh": "e5：“河岸”和“钓鱼”"},
        "lesson": {
            "en": "In “我在河岸上钓鱼” (I fish on the river bank), layer 11, head 10: 河岸 looks most at {key0} "
            "({weight0}).",
            "zh": "在“我在河岸上钓鱼”里，第 11 层第 10 个头：“河岸”最关注“{key0}”（{weight0}）。",
        },
        "params": {
            "source": "我在河岸上钓鱼",
            "model": "e5",
            "units": "words",
            "hide_special": "true",
            "layer": "11",
            "head": "10",
            "step": "1",
        },  # fmt: skip
        "claims": (Claim("top", step=1, key="钓鱼", at_least=0.5),),
    },
    {
        "id": "mt-tom",
        "title": {"en": "Trained: Tom chase Jerry (RNNsearch)", "zh": "训练出的模型：Tom chase Jerry（RNNsearch）"},
        "lesson": {
            "en": "RNNsearch was trained, not told where to look: it translates Tom chase Jerry as 汤姆 追逐 杰瑞, and "
            "producing 杰瑞 it puts {weight0} of its attention on {key0}; 汤姆 looks at {key1} ({weight1}), 追逐 at "
            "{key2} ({weight2}). The alignment was learned from sentence pairs alone.",
            "zh": "RNNsearch 是训练出来的，没有人告诉它看哪里：它把 Tom chase Jerry 译成 汤姆 追逐 杰瑞；生成“杰瑞”时，"
            "{weight0} 的注意力在 {key0} 上；“汤姆”看 {key1}（{weight1}），“追逐”看 {key2}（{weight2}）。"
            "对齐只从句对中学来。",
        },
        "params": {"source": "Tom chase Jerry", "model": "rnnsearch", "step": "2"},
        "claims": (
            Claim("top", step=2, key="jerry", at_least=0.9),
            Claim("top", step=0, key="tom", at_least=0.9),
            Claim("top", step=1, key="chase", at_least=0.85),
        ),
    },
    {
        "id": "mt-money-bank",
        "title": {
            "en": "Trained: I put money in the bank (银行)",
            "zh": "训练出的模型：I put money in the bank（银行）",
        },
        "lesson": {
            "en": "RNNsearch writes 我 把 钱 放 在 银行 里: bank with money is 银行. Producing 银行 it looks most at "
            "{key0} ({weight0}); 钱 looks at {key1} ({weight1}). The word order changed (把 before the money), and "
            "the attention follows the words, not the positions.",
            "zh": "RNNsearch 译为 我 把 钱 放 在 银行 里：和钱一起的 bank 是“银行”。生成“银行”时最关注 {key0}（{weight0}）；"
            "“钱”看 {key1}（{weight1}）。语序变了（把 在钱之前），注意力跟着词走，而不是跟着位置走。",
        },
        "params": {"source": "I put money in the bank", "model": "rnnsearch", "step": "5"},
        "claims": (Claim("top", step=5, key="bank", at_least=0.5), Claim("top", step=2, key="money", at_least=0.5)),
    },
    {
        "id": "mt-river-bank",
        "title": {
            "en": "Trained: we sat on the river bank (河岸)",
            "zh": "训练出的模型：we sat on the river bank（河岸）",
        },
        "lesson": {
            "en": "Beside river, bank becomes 河岸: RNNsearch writes 我们 坐 在 河岸 上. Producing 河岸, one Chinese word "
            "for the two English words river bank, its weights are {pairs0}: most on {key0} ({weight0}), the word "
            "that makes this bank 河岸 and not 银行, and little on bank itself. Where a word looks is not always the "
            "word it translates.",
            "zh": "在 river 旁边，bank 成了“河岸”：RNNsearch 译为 我们 坐 在 河岸 上。“河岸”一个中文词译的是 river bank "
            "两个英文词，生成它时的权重是 {pairs0}：最多在 {key0} 上（{weight0}），正是 river 让这里的 bank "
            "成了“河岸”而不是“银行”；bank 本身得到的很少。一个词看向哪里，不一定就是它所译的那个词。",
        },
        "params": {"source": "we sat on the river bank", "model": "rnnsearch", "step": "3"},
        "claims": (Claim("top", step=3, key="river", at_least=0.5),),
    },
    {
        "id": "mt-library",
        "title": {"en": "Trained: I read books in the library", "zh": "训练出的模型：I read books in the library"},
        "lesson": {
            "en": "Made to produce 我 在 图书馆 看 书 (the place moves before the verb in Chinese), RNNsearch's 图书馆 "
            "looks at {key0} ({weight0}) at the end of the English sentence, and 看 back at {key1} ({weight1}): "
            "the lines cross. Each word's probability is in the table.",
            "zh": "强制它输出 我 在 图书馆 看 书（中文里地点移到动词之前）：RNNsearch 的“图书馆”看英文句末的 {key0}"
            "（{weight0}），“看”回头看 {key1}（{weight1}）：连线交叉。表中有每个词的概率。",
        },
        "params": {
            "source": "I read books in the library",
            "target": "我 在 图书馆 看 书",
            "model": "rnnsearch",
            "step": "2",
        },  # fmt: skip
        "claims": (Claim("top", step=2, key="library", at_least=0.5), Claim("top", step=3, key="read", at_least=0.5)),
    },
    {
        "id": "mt-when",
        "title": {
            "en": "Trained: a clause that moves to the front (i read books when it rains)",
            "zh": "训练出的模型：移到句首的从句（i read books when it rains）",
        },
        "lesson": {
            "en": "Chinese puts a when-clause first: RNNsearch writes 下雨 的 时候 我 看 书. Its first word, 下雨, looks at "
            "{key0} ({weight0}), the last English word; 时候, the word for when, looks at {key2} ({weight2}); then 我 "
            "goes back to {key1} ({weight1}), the first. No one showed the model where each word is: its attention "
            "learned to go to the end of the sentence and back.",
            "zh": "中文把 when 从句放在前面：RNNsearch 译为 下雨 的 时候 我 看 书。第一个词“下雨”看英文的最后一个词 "
            "{key0}（{weight0}）；“时候”，也就是 when 的译文，看 {key2}（{weight2}）；接着“我”回到第一个词 {key1}"
            "（{weight1}）。没有人告诉模型每个词在哪里：它的注意力自己学会了先到句末、再回到句首。",
        },
        "params": {"source": "i read books when it rains", "model": "rnnsearch", "step": "0"},
        "claims": (
            Claim("top", step=0, key="rains", at_least=0.5),
            Claim("top", step=3, key="i", at_least=0.9),
            Claim("top", step=2, key="when", at_least=0.5),
        ),
    },
    {
        "id": "mt-used-to",
        "title": {
            "en": "Trained: two English words, one Chinese (i used to live here)",
            "zh": "训练出的模型：两个英文词，一个中文词（i used to live here）",
        },
        "lesson": {
            "en": "used to has no word-for-word Chinese: RNNsearch writes 我 以前 在 这里 住, 以前 (before) for the two "
            "words, and writing it puts {weight0} of its attention on {key0}. Then the place moves before the verb: "
            "这里 looks at {key1} ({weight1}), the last English word, and 住 back at {key2} ({weight2}). A phrase "
            "is aligned to a word, and the lines cross.",
            "zh": "used to 没有逐词对应的中文：RNNsearch 译为 我 以前 在 这里 住，用“以前”译这两个词，写它时把 "
            "{weight0} 的注意力放在 {key0} 上。接着地点移到动词之前：“这里”看英文的最后一个词 {key1}（{weight1}），"
            "“住”再回头看 {key2}（{weight2}）。一个短语对齐到一个词，连线交叉。",
        },
        "params": {"source": "i used to live here", "model": "rnnsearch", "step": "1"},
        "claims": (
            Claim("top", step=1, key="used", at_least=0.5),
            Claim("top", step=3, key="here", at_least=0.6),
            Claim("top", step=4, key="live", at_least=0.8),
        ),
    },
    {
        "id": "mt-unknown",
        "title": {
            "en": "Trained: a word it does not know (enemy)",
            "zh": "训练出的模型：一个它不认识的词（enemy）",
        },
        "lesson": {
            "en": "enemy is not among RNNsearch's words: it reads <unk:noun> there and writes <unk> where the noun "
            "goes. Writing that <unk> it looks most at {key0} ({weight0}), so the page puts the dictionary's word "
            "for {key0} in its place, 〔{word0}〕, marked: from the dictionary, where attention pointed.",
            "zh": "enemy 不在 RNNsearch 的词表里：它在那里读到 <unk:noun>，并在名词该出现的位置写出 <unk>。写这个 <unk> "
            "时它最关注 {key0}（{weight0}），所以页面用词典里 {key0} 的译法代替它：〔{word0}〕，并注明：来自词典，"
            "取自注意力所指的词。",
        },
        "params": {"source": "the police caught the enemy yesterday", "model": "rnnsearch", "step": "4"},
        "claims": (Claim("replaced", step=4, key="enemy", at_least=0.5),),
    },
    {
        "id": "mt-unknown-name",
        "title": {
            "en": "Trained: a name it does not know (Xiamen)",
            "zh": "训练出的模型：一个它不认识的名字（Xiamen）",
        },
        "lesson": {
            "en": "Xiamen is a city, and a name is no word of the dictionary, nor of RNNsearch's: it reads <unk:noun> "
            "and writes <unk> where the place goes. Writing it, it looks most at {key0} ({weight0}), and the page "
            "writes 〔{word0}〕 from a list of names taken from CC-CEDICT's proper nouns (surnames, given names, "
            "places). The model never learnt the name: attention found the place to copy from.",
            "zh": "Xiamen 是一个城市，名字不是词典里的词，也不在 RNNsearch 的词表里：它读到 <unk:noun>，并在地点该出现"
            "的位置写出 <unk>。写它时最关注 {key0}（{weight0}），页面就从取自 CC-CEDICT 专有名词（姓、名、地名）的"
            "名字表里写出〔{word0}〕。模型从没学过这个名字：是注意力找到了该从哪里复制。",
        },
        "params": {"source": "we went to Xiamen last summer", "model": "rnnsearch", "step": "4"},
        "claims": (Claim("replaced", step=4, key="xiamen", at_least=0.7),),
    },
    {
        "id": "mt-name-word",
        "title": {
            "en": "Trained: names that are also words (Mark, Grace)",
            "zh": "训练出的模型：也是英文词的名字（Mark、Grace）",
        },
        "lesson": {
            "en": "mark and grace are words (记号, 优雅), and Mark and Grace are names. Typed with a capital after the "
            "sentence's first word, they are read as names: <unk:noun>, not the words. Writing the first <unk>, "
            "RNNsearch looks most at {key0} ({weight0}), and the page writes 〔{word0}〕 from the list of names; "
            "Grace, which the list lacks, stays in English. Before, the page wrote 记号 and 优雅 and marked nothing.",
            "zh": "mark 和 grace 是英文词（记号、优雅），Mark 和 Grace 是名字。在句首以外大写输入时，它们被读作名字："
            "<unk:noun>，而不是那两个词。写第一个 <unk> 时，RNNsearch 最关注 {key0}（{weight0}），页面从名字表写出"
            "〔{word0}〕；名字表里没有的 Grace 保留英文。以前页面写出“记号”和“优雅”，什么也没标出。",
        },
        "params": {"source": "I saw Mark and Grace in the park", "model": "rnnsearch", "step": "5"},
        "claims": (Claim("replaced", step=5, key="Mark", at_least=0.7),),
    },
    {
        "id": "mt-unknown-wrong",
        "title": {
            "en": "Trained: three unknown words, and one copied twice",
            "zh": "训练出的模型：三个不认识的词，其中一个被复制了两次",
        },
        "lesson": {
            "en": "enemy, crowd and mayor are all unknown, and all read as the same <unk:noun>. RNNsearch writes four "
            "<unk> for the three words. The first looks at {key0} ({weight0}): 〔{word0}〕. After 和, the next looks "
            "at {key1} ({weight1}): 〔{word1}〕; the third at {key2} ({weight2}): 〔{word2}〕. The fourth, one too many, looks at {key3} again ({weight3}), so the page copies 〔{word3}〕 a "
            "second time. Copying through attention is only as good as the place attention points to, and attention "
            "does not remember what was already copied.",
            "zh": "enemy、crowd 和 mayor 都不认识，都读成同一个 <unk:noun>。RNNsearch 为这三个词写了四个 <unk>。第一个"
            "看着 {key0}（{weight0}）：〔{word0}〕。“和”之后的下一个看着 {key1}（{weight1}）："
            "〔{word1}〕；第三个看着 {key2}（{weight2}）：〔{word2}〕。第四个是多出来的，它又看着 {key3}"
            "（{weight3}），页面于是第二次复制了〔{word3}〕。借注意力复制词，只能和注意力所指的位置一样好，而注意力"
            "并不记得哪些词已经复制过。",
        },
        "params": {"source": "the enemy and the crowd and the mayor are here", "model": "rnnsearch", "step": "4"},
        "claims": (
            Claim("replaced", step=0, key="enemy", at_least=0.9),
            Claim("replaced", step=2, key="crowd", at_least=0.4),
            Claim("replaced", step=3, key="mayor", at_least=0.4),
            Claim("replaced", step=4, key="mayor", at_least=0.3),
        ),
    },
    {
        "id": "mt-made-up",
        "title": {
            "en": "Trained: it looked at the word and wrote another (the rain stopped)",
            "zh": "训练出的模型：看着这个词，却写了别的词（the rain stopped）",
        },
        "lesson": {
            "en": "Writing {word0} (Mike, a name), RNNsearch puts {weight0} of its weight on {key0}, yet "
            "{word0} translates no word of the sentence: the check against the dictionary marks it made up, and "
            "{key0} left out, though its column of stage 2 sums to {coverage0}. Attention says where the model "
            "looked, not that it translated what it looked at.",
            "zh": "写“{word0}”（一个人名）时，RNNsearch 把 {weight0} 的权重放在 {key0} 上，可“{word0}”不是句中任何"
            "词的译文：按词典检查，它被标为编造，{key0} 被标为漏译，尽管 {key0} 在阶段二中那一列的和是 {coverage0}。"
            "注意力说明模型看了哪里，并不说明它译出了所看的词。",
        },
        "params": {"source": "the rain stopped", "model": "rnnsearch", "step": "0", "candidates": "all"},
        "claims": (Claim("made_up", step=0, key="rain", at_least=0.9),),
    },
    {
        "id": "mt-ends-early",
        "title": {
            "en": "Trained: it wanted to end with a word left out (The sea is vast and blue.)",
            "zh": "训练出的模型：还有词没译就想结束（The sea is vast and blue.）",
        },
        "lesson": {
            "en": "Decoding greedily (beam=1: the likeliest word at each step), after 〔广阔〕 (vast, a word it does not "
            "know, written from the dictionary) RNNsearch's own "
            "first choice is the end, </s> ({probability0}), with {key0} not yet translated: a decoder can stop "
            "before the sentence is. The page does not let a translation end while the check against the dictionary "
            "marks a word left out, if a few more words translate it (the end guard): </s> is ruled out, and the "
            "model writes its next choice, {word0}, with {weight1} of its weight on {key1}. Had that translated "
            "nothing, the translation would have ended where the model wanted. Beam search, the page's default, "
            "ranks the translations it finds by the words they leave out, then by probability.",
            "zh": "贪心解码（beam=1：每步取最可能的词）时，写完〔广阔〕（vast，它不认识的词，按词典写出）后，"
            "RNNsearch 自己的首选是结束 </s>"
            "（{probability0}），而 {key0} 还没有译出：解码器可能在句子译完之前就停下。页面不让译文在按词典检查仍有"
            "漏译时结束，只要再写几个词能译出它（结束守卫）：</s> 被排除，模型写出它的下一个选择“{word0}”，把 "
            "{weight1} 的权重放在 {key1} 上。如果它什么也没译出，译文就在模型想结束的地方结束。"
            "页面默认的束搜索则先按漏译的词数、再按概率给找到的译文排序。",
        },
        "params": {"source": "The sea is vast and blue.", "model": "rnnsearch", "beam": "1", "step": "3"},
        "claims": (
            Claim("end_guarded", step=3, key="blue", at_least=0.5),
            Claim("top", step=3, key="blue", at_least=0.8),
        ),
    },
    {
        "id": "mt-beam-coverage",
        "title": {
            "en": "Trained: beam search, and the likeliest translation that leaves a word out (we have an English "
            "lesson on Monday)",
            "zh": "训练出的模型：束搜索，以及漏译了一个词的最可能译文（we have an English lesson on Monday）",
        },
        "lesson": {
            "en": "Beam search, the page's default, keeps eight partial translations at each step and finds several "
            "whole ones. The likeliest, {likeliest0} (log p {likeliest_lp0}), ends after 英语 "
            "(English) and leaves {key0} out. The end guard takes the likeliest of those that leave out fewer words: {output0} (log p "
            "{lp0}), less probable, and right. What the model finds likely and what the sentence says can "
            "pull apart; the panel names both translations.",
            "zh": "束搜索是页面的默认解码：每一步保留八个部分译文，最后找到几个完整的译文。其中最可能的是 {likeliest0}"
            "（log p {likeliest_lp0}），它写到“英语”就结束了，漏译了 {key0}。结束守卫在漏译更少的译文中取最可能的"
            "一个：{output0}（log p {lp0}），概率低一些，却是对的。模型认为可能的，和句子所说的，可能并不一致；面板把两个"
            "译文都列出来。",
        },
        "params": {"source": "we have an English lesson on Monday", "model": "rnnsearch"},
        "claims": (Claim("passed_over", key="lesson", at_least=0.3),),
    },
    {
        "id": "mt-transformer",
        "title": {
            "en": "Trained: a small Transformer, Tom chase Jerry",
            "zh": "训练出的模型：小 Transformer，Tom chase Jerry",
        },
        "lesson": {
            "en": "The Transformer's cross-attention, layer 1, head 0: producing 杰瑞 it puts {weight0} on {key0}. "
            "Below the stages, its masked self-attention: each step sees only <s> and the words it wrote before, "
            "whose keys and values are cached, one row more per word.",
            "zh": "Transformer 的交叉注意力，第 1 层第 0 个头：生成“杰瑞”时把 {weight0} 放在 {key0} 上。"
            "阶段下方是它的掩码自注意力：每一步只看到 <s> 和之前写出的词，它们的键和值被缓存，每个词多一行。",
        },
        "params": {"source": "Tom chase Jerry", "model": "transformer-mt", "layer": "1", "head": "0", "step": "2"},
        "claims": (Claim("top", step=2, key="jerry", at_least=0.9),),
    },
    {
        "id": "mt-think",
        "title": {
            "en": "Trained: a clause after think (i think he is tired)",
            "zh": "训练出的模型：think 后面的从句（i think he is tired）",
        },
        "lesson": {
            "en": "RNNsearch writes 我 觉得 他 很 累. 觉得, the Chinese for this think, looks at {key0} ({weight0}); the "
            "reported clause follows as it is, and its copula before an adjective becomes 很, which looks at {key1} "
            "({weight1}), the adjective it stands before, more than at is; 累 looks at {key2} ({weight2}). Chinese needs no word for an English that after think "
            "(i think that he is tired reads the same).",
            "zh": "RNNsearch 译为 我 觉得 他 很 累。“觉得”是这里 think 的译法，它看着 {key0}（{weight0}）；后面的从句照原样"
            "跟着，形容词前的系动词变成“很”，它看着 {key1}（{weight1}），即紧跟在它后面的形容词，多于看 is；“累”看着 {key2}（{weight2}）。think 之后的"
            " that 在中文里不需要对应的词（i think that he is tired 的译文相同）。",
        },
        "params": {"source": "i think he is tired", "model": "rnnsearch", "step": "1"},
        "claims": (
            Claim("top", step=1, key="think", at_least=0.8),
            Claim("top", step=3, key="tired", at_least=0.5),
            Claim("top", step=4, key="tired", at_least=0.8),
        ),
    },
    {
        "id": "mt-sense",
        "title": {
            "en": "Trained: a word's sense from another word, where attention does not look (she plays the piano)",
            "zh": "训练出的模型：词义取决于另一个词，注意力却没有看它（she plays the piano）",
        },
        "lesson": {
            "en": "Chinese plays a piano with 弹, a ball with 踢 or 打, a game with 玩: RNNsearch writes 她 弹 钢琴. "
            "Writing 弹 it puts {weight0} of its weight on {key0}, and only {weight1} on {key1}. Yet read piano as an "
            "unknown word, and 弹 becomes {drop1} less probable (leave-one-out, the heatmap with attribution set "
            "to it). The encoder reads the sentence both ways, so its vector for plays already carries piano: "
            "attention says where the decoder looked, not everything the word depended on.",
            "zh": "中文弹钢琴、踢足球、打篮球、玩游戏：RNNsearch 译为 她 弹 钢琴。写“弹”时它把 {weight0} 的权重放在 "
            "{key0} 上，放在 {key1} 上的只有 {weight1}。可是把 piano 读成不认识的词，“弹”的概率就下降 {drop1}"
            "（逐词删除，把归因设为它时的热力图）。编码器从两个方向读句子，所以它给 plays 的向量里已经带着 piano："
            "注意力说明解码器看了哪里，并不说明这个词依赖的全部。",
        },
        "params": {
            "source": "she plays the piano",
            "model": "rnnsearch",
            "step": "1",
            "attribution": "leave-one-out",
        },
        "claims": (
            Claim("top", step=1, key="plays", at_least=0.8),
            Claim("drop_not_weight", step=1, key="piano", at_least=0.5, below=0.2),
        ),
    },
    {
        "id": "mt-question",
        "title": {
            "en": "Trained: a question asked in place (what did she buy yesterday)",
            "zh": "训练出的模型：就地提问（what did she buy yesterday）",
        },
        "lesson": {
            "en": "English puts the question word first; Chinese leaves it where the answer would stand. The Transformer "
            "translates what did she buy yesterday as 她 昨天 买 了 什么: 什么 goes to the end and yesterday moves "
            "forward. In layer 0, head 0, 什么 puts {weight0} of its attention on {key0}, the first English word, and "
            "昨天 puts {weight1} on {key1}, the last: the alignment lines cross the whole sentence, learned from "
            "sentence pairs alone.",
            "zh": "英语把疑问词放在句首，中文把它留在答案该在的位置。Transformer 把 what did she buy yesterday 译成 "
            "她 昨天 买 了 什么：“什么”到了句末，yesterday 移到了前面。第 0 层第 0 个头里，“什么”把 {weight0} 的"
            "注意力放在 {key0} 上，那是英文的第一个词；“昨天”把 {weight1} 放在 {key1} 上，那是最后一个词："
            "对齐线横跨整句交叉，只从句对中学来。",
        },
        "params": {
            "source": "what did she buy yesterday",
            "model": "transformer-mt",
            "layer": "0",
            "head": "0",
            "step": "4",
        },
        "claims": (Claim("top", step=4, key="what", at_least=0.9), Claim("top", step=1, key="yesterday", at_least=0.7)),
    },
    {
        "id": "stretch",
        "title": {"en": "Longer vectors saturate the softmax", "zh": "向量越长，softmax 越饱和"},
        "lesson": {
            "en": "The query (2, 1) and the keys a (1, 0), b (0, 1), c (0.8, 0.6), every vector 3 times as long: each "
            "q·k is 9 times larger and the softmax, which gave c about half of the weight, now gives {pairs0}. In the "
            "panel “Queries and keys in one plane”, drag the vector length back to 1, or divide by √d_k, and watch "
            "stage 2 recover.",
            "zh": "查询 (2, 1)，键 a (1, 0)、b (0, 1)、c (0.8, 0.6)，每个向量都变长 3 倍：每个 q·k 变成 9 倍，"
            "原来给 c 大约一半权重的 softmax 现在给出 {pairs0}。在“同一平面上的查询和键”面板里，把向量长度拖回 1，"
            "或者除以 √d_k，看阶段二怎样恢复。",
        },
        "params": {
            "q": "2,1",
            "k": "1,0;0,1;0.8,0.6",
            "v": "1,0;0,1;1,1",
            "score": "dot",
            "stretch": "3",
            "query_labels": "q",
            "key_labels": "a,b,c",
        },  # fmt: skip
        "claims": (Claim("top", step=0, key="c", at_least=0.8),),
    },
    {
        "id": "exercise",
        "title": {"en": "Exercise: Q, K, V by hand", "zh": "练习：手写 Q、K、V"},
        "lesson": {
            "en": "Two queries, three keys: work out the dot products and the softmax by hand, then check: "
            "q1 puts {weight0} on {key0}, e/(2e + 1).",
            "zh": "两个查询、三个键：先手算点积和 softmax，再核对：q1 放在 {key0} 上的权重是 {weight0}，即 e/(2e + 1)。",
        },
        "params": {
            "q": "1,0;0,1",
            "k": "1,0;0,1;1,1",
            "v": "1,2;3,4;5,6",
            "score": "dot",
            "query_labels": "q1,q2",
            "key_labels": "a,b,c",
        },  # fmt: skip
        "claims": (Claim("top", step=0, key="a", at_least=0.42),),
    },
]


@functools.cache
def preset_state(preset_id: str) -> State:
    preset = next(p for p in PRESETS if p["id"] == preset_id)
    return state_from_link_values(preset["params"])


@functools.cache
def preset_numbers(preset_id: str) -> dict[str, str]:
    """The numbers a preset's lesson quotes, computed by the engine (kept in examples.json)."""
    preset = next(p for p in PRESETS if p["id"] == preset_id)
    state = preset_state(preset_id)
    # keyed by what the numbers depend on: an example changed since the file was written is computed here
    key = f"{preset_id}?{state.query_string()} {list(preset['claims'])!r}"
    checked = examples.remembered("claims", key, lambda: [check(state, claim) for claim in preset["claims"]])
    return placeholders(checked)


@functools.cache
def presets_for(lang: str) -> list[dict]:
    """Every example for the page: title and lesson (with its numbers) in `lang`, canonical link and query."""
    found = []
    for preset in PRESETS:
        try:
            state = preset_state(preset["id"])
            lesson = preset["lesson"][lang].format(**preset_numbers(preset["id"]))
        except Exception:  # a real model that is not installed here: the example is not offered
            continue
        found.append(
            {
                "id": preset["id"],
                "title": preset["title"][lang],
                "lesson": lesson,
                "link": state.share_path(),
                "query": state.query_string(view=False),
            }
        )
    return found
