"""The ideas of the seed text, in order, each with a view that shows it. Rendered by /learn.

A lesson names one of the examples (app/presets.py) or, where no example fits, its own link parameters.
"""

from app.view.presets import PRESETS
from app.view.state import state_from_link_values

PRESET_PARAMS = {preset["id"]: preset["params"] for preset in PRESETS}

LESSONS = [
    {
        "title": {"en": "1. Encoder–decoder without attention", "zh": "1. 没有注意力的编码器–解码器"},
        "text": {
            "en": "The encoder squeezes the whole source sentence into one meaning vector C, and every target word "
            "is generated from the same C: every source word has the same influence on every target word. "
            "A very high temperature shows that picture: every row of weights is almost uniform, so every "
            "target word gets almost the same context vector (stage 3).",
            "zh": "编码器把整个源句子压缩成一个语义向量 C，每个目标词都由同一个 C 生成：每个源词对每个目标词的影响都一样。"
            "把温度调到很高就能看到这个情形：每一行权重几乎是均匀的，所以每个目标词得到的上下文向量几乎相同（阶段三）。",
        },
        "params": {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞", "temperature": "20"},
    },
    {
        "title": {"en": "2. Soft attention in translation", "zh": "2. 翻译中的软注意力"},
        "text": {
            "en": "When the decoder produces 杰瑞, the source words should not count equally: each target step i has its "
            "own distribution over the source words, like (Tom, 0.3) (Chase, 0.2) (Jerry, 0.5), and its own context "
            "vector C_i = Σ_j a_ij · h_j. Step through the target words and watch the distribution change.",
            "zh": "解码器生成“杰瑞”时，源句子的词不应同等重要：每个目标步骤 i 都有自己在源词上的分布，比如 (Tom, 0.3) (Chase, 0.2) "
            "(Jerry, 0.5)，以及自己的上下文向量 C_i = Σ_j a_ij · h_j。逐个目标词查看，分布随之变化。",
        },
        "preset": "translate",
    },
    {
        "title": {
            "en": "3. The essence: Query, Key, Value in three stages",
            "zh": "3. 本质：Query、Key、Value 三个阶段",
        },
        "text": {
            "en": "The source is a set of (Key, Value) pairs. A query is compared with every key (stage 1, similarity), "
            "a softmax turns the scores into weights that sum to 1 (stage 2), and the values are summed with those "
            "weights (stage 3). The arithmetic panel writes every number out; the exercise mode lets you type Q, K, V.",
            "zh": "源句子是一组 (Key, Value) 对。查询与每个键比较（阶段一，相似度），softmax 把分数变成和为 1 的权重（阶段二），"
            "再用这些权重对值加权求和（阶段三）。计算面板写出每一个数；练习模式可以手写 Q、K、V。",
        },
        "preset": "exercise",
    },
    {
        "title": {"en": "4. Similarity functions", "zh": "4. 相似度函数"},
        "text": {
            "en": "Stage 1 can be a dot product, a cosine similarity, Luong's general form qᵀWk, or a small neural "
            "network with one hidden layer (Bahdanau's additive score vᵀtanh(W₁q + W₂k)). Switch the score "
            "function and compare stage 1.",
            "zh": "阶段一可以是点积、余弦相似度、Luong 的 general 形式 qᵀWk，或者只有一个隐藏层的小神经网络"
            "（Bahdanau 的加性分数 vᵀtanh(W₁q + W₂k)）。切换相似度函数，比较阶段一。",
        },
        "params": {"source": "walk by river bank", "score": "cosine", "step": "3"},
    },
    {
        "title": {"en": "5. Soft vs hard attention", "zh": "5. 软注意力与硬注意力"},
        "text": {
            "en": "Soft attention's weights are a probability distribution; hard attention puts weight 1 on one "
            "position and 0 everywhere else.",
            "zh": "软注意力的权重是概率分布；硬注意力把权重 1 放在一个位置上，其余都是 0。",
        },
        "preset": "hard",
    },
    {
        "title": {"en": "6. Global vs local attention", "zh": "6. 全局注意力与局部注意力"},
        "text": {
            "en": "Global attention looks at every encoder position; local attention only at a window around the "
            "aligned position. The hidden keys show as × and get weight 0.",
            "zh": "全局注意力查看编码器的每个位置；局部注意力只看对齐位置附近的一个窗口。被遮住的键显示为 ×，权重为 0。",
        },
        "preset": "local",
    },
    {
        "title": {"en": "7. Self-attention", "zh": "7. 自注意力"},
        "text": {
            "en": "Source = Target: the words of one sentence attend to each other. X·Xᵀ gives the word-by-word "
            "similarity; a softmax normalises it; multiplying by X gives contextualised vectors of the same size. "
            "In “walk by river bank”, bank's weight on river tells 河岸 (river bank) from 银行 (a bank for money).",
            "zh": "Source = Target：一个句子里的词互相关注。X·Xᵀ 给出词与词的相似度；softmax 归一化；再乘以 X 得到同样大小的上下文向量。"
            "在“walk by river bank”中，bank 对 river 的权重区分了“河岸”和“银行”。",
        },
        "preset": "river-bank",
    },
    {
        "title": {"en": "8. Scaled dot-product attention", "zh": "8. 缩放点积注意力"},
        "text": {
            "en": "The Transformer computes softmax(QKᵀ/√d_k)·V. Dividing by √d_k keeps large dot products from "
            "saturating the softmax: compare the plain dot product with random projections on long vectors.",
            "zh": "Transformer 计算 softmax(QKᵀ/√d_k)·V。除以 √d_k 可以防止很大的点积让 softmax 饱和：在长向量的随机投影上比较普通点积。",
        },
        "params": {
            "source": "walk by river bank",
            "embedding": "hash",
            "dim": "64",
            "projection": "random",
            "score": "dot",
            "step": "3",
        },
    },
    {
        "title": {"en": "9. Multi-head attention", "zh": "9. 多头注意力"},
        "text": {
            "en": "Several heads with their own projections W_Q^i, W_K^i, W_V^i attend differently; their outputs "
            "are concatenated and projected by W_O. Choose a head in the small multiples.",
            "zh": "多个头各有自己的投影 W_Q^i、W_K^i、W_V^i，关注的地方各不相同；它们的输出拼接后再由 W_O 投影。在小图中选择一个头。",
        },
        "preset": "multi-head",
    },
    {
        "title": {"en": "10. The search-engine analogy", "zh": "10. 搜索引擎的类比"},
        "text": {
            "en": "You type a query; the engine matches it against the keys and returns the values, ranked by how "
            "well each key matches. The bar chart of one step is that ranking.",
            "zh": "你输入一个查询；搜索引擎把它与各个键匹配，返回值，并按匹配程度排序。某一步的权重柱状图就是这个排序。",
        },
        "preset": "two-banks",
    },
    {
        "title": {"en": "11. A real Transformer", "zh": "11. 真实的 Transformer"},
        "text": {
            "en": "Attention in vision (Recurrent Models of Visual Attention, 2014), in translation (Bahdanau et al., "
            "aligning and translating jointly) and in “Attention Is All You Need” (2017). Here a trained model, "
            "all-MiniLM-L6-v2, shows every layer and head through the same three stages.",
            "zh": "注意力用于视觉（Recurrent Models of Visual Attention，2014）、翻译（Bahdanau 等，对齐与翻译联合学习）"
            "以及《Attention Is All You Need》（2017）。这里一个训练好的模型 all-MiniLM-L6-v2 用同样的三个阶段展示每一层、每一个头。",
        },
        "preset": "real-model",
    },
]


def lesson_params(lesson: dict) -> dict:
    return PRESET_PARAMS[lesson["preset"]] if "preset" in lesson else lesson["params"]


def lessons_for(lang: str) -> list[dict]:
    """Every lesson in `lang`, with the canonical link of the view that shows it (in that language)."""
    return [
        {
            "title": lesson["title"][lang],
            "text": lesson["text"][lang],
            "link": state_from_link_values({**lesson_params(lesson), "lang": lang}).share_path(),
        }
        for lesson in LESSONS
    ]
