"""Ready-made examples, each teaching one idea of attention. `params` are share-URL parameters.

``presets_for(lang)`` gives the page each example with its canonical link, written by the State
(app/view/state.py) like every other link.
"""

import functools

from app.view.state import State, state_from_link_values

PRESETS = [
    {
        "id": "translate",
        "title": {"en": "Tom chase Jerry → 汤姆 追逐 杰瑞", "zh": "Tom chase Jerry → 汤姆 追逐 杰瑞"},
        "lesson": {
            "en": "Cross-attention: when the decoder writes 杰瑞, which English word matters most? "
            "(At temperature 0.3 the weights are the seed text's (Tom, 0.3) (chase, 0.2) (Jerry, 0.5).)",
            "zh": "交叉注意力：生成“杰瑞”时，哪个英文单词最重要？（温度 0.3 时，权重正是原文的 (Tom, 0.3) (Chase, 0.2) (Jerry, 0.5)。）",
        },
        "params": {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞", "temperature": "0.3", "step": "2"},
    },
    {
        "id": "river-bank",
        "title": {"en": "walk by river bank", "zh": "walk by river bank（河岸）"},
        "lesson": {
            "en": "Self-attention: bank looks at river, so it means 河岸, not 银行.",
            "zh": "自注意力：bank 关注 river，所以它的意思是“河岸”而不是“银行”。",
        },
        "params": {"source": "walk by river bank", "step": "3"},
    },
    {
        "id": "pronoun",
        "title": {"en": "A pronoun finds its noun", "zh": "代词找到它指代的名词"},
        "lesson": {
            "en": "Which word does “it” attend to? The animal, not the milk.",
            "zh": "“it”关注哪个词？是动物，而不是牛奶。",
        },
        "params": {"source": "the cat drank the milk because it was hungry", "step": "6"},
    },
    {
        "id": "two-banks",
        "title": {"en": "bank (money) next to bank (river)", "zh": "银行的 bank 与河岸的 bank"},
        "lesson": {
            "en": "The same word, the same vector, different neighbours: step to each bank and compare.",
            "zh": "同一个词、同一个向量，邻居不同：分别走到两个 bank，比较它们的注意力。",
        },
        "params": {"source": "I paid money at the bank then sat on the river bank", "step": "5"},
    },
    {
        "id": "local",
        "title": {"en": "Local attention on a long sentence", "zh": "长句上的局部注意力"},
        "lesson": {
            "en": "With window=2 each word sees only its neighbours; compare with global attention.",
            "zh": "窗口为 2 时，每个词只能看到附近的词；与全局注意力比较。",
        },
        "params": {
            "source": "yesterday the little girl and her father walked by the river to the old school and read a book about fish",
            "window": "2",
            "step": "8",
        },
    },
    {
        "id": "chinese",
        "title": {"en": "Chinese without spaces (jieba)", "zh": "不带空格的中文（结巴分词）"},
        "lesson": {
            "en": "The sentence is segmented into words by jieba, then attends to itself.",
            "zh": "句子先由结巴分词切分成词，再做自注意力。",
        },
        "params": {"source": "我们在河边散步然后去银行取钱", "step": "3"},
    },
    {
        "id": "causal",
        "title": {"en": "Causal mask (a decoder cannot peek)", "zh": "因果掩码（解码器不能偷看后文）"},
        "lesson": {
            "en": "Each word sees only itself and the words before it: the upper triangle is hidden.",
            "zh": "每个词只能看到自己和前面的词：右上三角被遮住。",
        },
        "params": {"source": "the dog chased the cat into the house", "causal": "true", "step": "4"},
    },
    {
        "id": "multi-head",
        "title": {"en": "Multi-head: four heads, four views", "zh": "多头注意力：四个头，四种视角"},
        "lesson": {
            "en": "Each head sees its own slice of the features, so each attends differently.",
            "zh": "每个头只看到一部分特征，所以关注的词各不相同。",
        },
        "params": {"source": "the teacher gave the student a book about the sea", "heads": "4", "step": "1"},
    },
    {
        "id": "hard",
        "title": {"en": "Soft vs hard attention", "zh": "软注意力与硬注意力"},
        "lesson": {
            "en": "Hard attention picks exactly one word per step: every weight is 0 or 1.",
            "zh": "硬注意力每一步只选一个词：每个权重都是 0 或 1。",
        },
        "params": {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞", "hard": "true", "step": "2"},
    },
    {
        "id": "temperature",
        "title": {"en": "Temperature: sharp or flat", "zh": "温度：尖锐还是平坦"},
        "lesson": {
            "en": "A low temperature sharpens the softmax towards hard attention; a high one flattens it.",
            "zh": "低温让 softmax 更尖锐、接近硬注意力；高温让它更平坦。",
        },
        "params": {"source": "walk by river bank", "temperature": "0.2", "step": "3"},
    },
    {
        "id": "real-model",
        "title": {"en": "A real model: MiniLM layer 5, head 11", "zh": "真实模型：MiniLM 第 5 层第 11 个头"},
        "lesson": {
            "en": "A trained Transformer: in this head, “it” attends most to “animal”, not to “street”.",
            "zh": "训练好的 Transformer：在这个头里，“it”最关注“animal”，而不是“street”。",
        },
        "params": {
            "source": "the animal did not cross the street because it was too tired",
            "model": "minilm",
            "layer": "5",
            "head": "11",
            "step": "9",
        },
    },
    {
        "id": "exercise",
        "title": {"en": "Exercise: Q, K, V by hand", "zh": "练习：手写 Q、K、V"},
        "lesson": {
            "en": "Two queries, three keys: work the dot products and the softmax by hand, then check.",
            "zh": "两个查询、三个键：手算点积和 softmax，再核对答案。",
        },
        "params": {
            "q": "1,0;0,1",
            "k": "1,0;0,1;1,1",
            "v": "1,2;3,4;5,6",
            "score": "dot",
            "query_labels": "q1,q2",
            "key_labels": "a,b,c",
        },
    },
]


@functools.cache
def preset_state(preset_id: str) -> State:
    preset = next(p for p in PRESETS if p["id"] == preset_id)
    return state_from_link_values(preset["params"])


def presets_for(lang: str) -> list[dict]:
    """Every example for the page: its title and lesson in `lang`, its canonical link and compute query."""
    found = []
    for preset in PRESETS:
        try:
            state = preset_state(preset["id"])
        except Exception:  # a real model that is not installed here: the example is not offered
            continue
        found.append(
            {
                "id": preset["id"],
                "title": preset["title"][lang],
                "lesson": preset["lesson"][lang],
                "link": state.share_path(),
                "query": state.query_string(view=False),
            }
        )
    return found
