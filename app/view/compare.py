"""Compare: the same word in two sentences, or one sentence under two settings, side by side.

A comparison (``Comparison``, declared in app/view/state.py beside ``State``) is two full view states,
pane `a` and pane `b`, plus the focus word. In a link every parameter of a pane carries its pane's prefix
(``a.source=...&b.source=...``), written in each State's canonical order, then ``focus``; so a comparison
has exactly one link, as a single view does, written by the same code (``link_query``).

The focus word is a word both panes' queries contain (by default the first such word that is not a
function word or a pronoun: bank in "I sat by the river bank" vs "I put money in the bank"). Both panes
step to it; its weights rows are put on one colour scale, its top keys listed, and its two outputs
compared (cosine similarity, and the features or dimensions that differ most). For real models the
word's hidden state is compared layer by layer: how far apart the two words drift.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from pydantic import ValidationError

from app.engine.models.words import group_pieces, merge_vectors
from app.engine.text.lexicon import FEATURES, load_lexicon
from app.view import examples, models
from app.view.compute import compute_view
from app.view.links import comparison_from_query, named_by_pane
from app.view.state import PANES, Comparison, State

TOP_KEYS = 3  # how many of the focus word's keys each pane lists
DIFFERING = 5  # how many of the most different output features the comparison names


# ---------------------------------------------------------------------------
# The focus word
# ---------------------------------------------------------------------------


def key_of(token: str) -> str:
    return token.lower()


def is_content_word(word: str) -> bool:
    """A word whose strongest lexicon feature is not 'function' or 'pronoun' (unknown words count as content)."""
    vector = load_lexicon().lookup(key_of(word))
    if vector is None:
        return not word.startswith("[") and any(character.isalnum() for character in word)
    strongest = vector.max()
    return all(vector[FEATURES.index(name)] < strongest for name in ("function", "pronoun"))


def shared_words(a: list[str], b: list[str]) -> list[str]:
    """Query words of pane a that pane b's queries contain too, in a's order, each once."""
    in_b = {key_of(word) for word in b}
    found: list[str] = []
    for word in a:
        if key_of(word) in in_b and key_of(word) not in {key_of(w) for w in found}:
            found.append(word)
    return found


def choose_focus(asked: str | None, a: list[str], b: list[str]) -> str | None:
    shared = shared_words(a, b)
    if asked is not None:
        return next((word for word in shared if key_of(word) == key_of(asked)), None)
    content = [word for word in shared if is_content_word(word)]
    return (content or shared or [None])[0]


# ---------------------------------------------------------------------------
# The comparison's numbers
# ---------------------------------------------------------------------------


def cosine(x: np.ndarray, y: np.ndarray) -> float:
    """x·y / (|x| |y|); 0 when either is a zero vector."""
    norms = float(np.linalg.norm(x) * np.linalg.norm(y))
    return float(x @ y / norms) if norms > 0 else 0.0


def differing(x: np.ndarray, y: np.ndarray, names: list[str] | None, count: int = DIFFERING) -> list[dict]:
    """The columns where two vectors differ most: name, value in a, value in b."""
    order = np.argsort(-np.abs(x - y), kind="stable")[:count]  # (count,)
    return [{"name": names[i] if names else f"d{i}", "a": float(x[i]), "b": float(y[i])} for i in order if x[i] != y[i]]


def top_keys(weights: np.ndarray, keys: list[str], count: int = TOP_KEYS) -> list[dict]:
    order = np.argsort(-weights, kind="stable")[:count]  # (count,)
    return [{"key": keys[j], "weight": float(weights[j])} for j in order]


def drift(comparison: Comparison, steps: dict[str, int]) -> list[float] | None:
    """Real models, the same model in both panes: cosine of the focus word's hidden states, layer by layer."""
    a, b = comparison.a, comparison.b
    if a.mode != "model" or b.mode != "model" or a.model != b.model:
        return None
    hidden = {}
    for name, state in comparison.panes().items():
        run = models.run(state.model, state.source)
        keep = models.shown_pieces(run.kinds, state.hide_special)
        states = np.asarray(run.hidden, dtype=np.float64)[:, keep]  # (n_layers + 1, n, d_model)
        if state.units == "words":  # the word's hidden state: the mean of its pieces', as the view merges them
            pick = lambda values, keep=keep: [values[i] for i in keep]  # noqa: E731
            units = group_pieces(run.text, pick(run.tokens), pick(run.kinds), pick(run.offsets))
            states = merge_vectors(states, units)  # (n_layers + 1, m, d_model)
        hidden[name] = states[:, steps[name]]  # (n_layers + 1, d_model)
    return [cosine(x, y) for x, y in zip(hidden["a"], hidden["b"], strict=True)]


def pane_view(name: str, state: State) -> dict[str, Any]:
    """One pane's view; a limit only its model knows (word pieces) is named with the pane (`b.source`)."""
    try:
        return compute_view(state)
    except ValidationError as error:
        raise named_by_pane(error, name) from None


def compare_view(comparison: Comparison) -> dict[str, Any]:
    """Both panes' views, stepped to the focus word, and the comparison of that word."""
    link = comparison
    first = {name: pane_view(name, state) for name, state in comparison.panes().items()}
    focus = choose_focus(comparison.focus, first["a"]["tokens"]["queries"], first["b"]["tokens"]["queries"])
    if focus is None:
        panes = first
        steps = {name: state.step for name, state in comparison.panes().items()}
    else:
        steps = {
            name: next(i for i, word in enumerate(view["tokens"]["queries"]) if key_of(word) == key_of(focus))
            for name, view in first.items()
        }
        stepped = {name: state.replace(step=steps[name]) for name, state in comparison.panes().items()}
        panes = {name: pane_view(name, state) for name, state in stepped.items()}
        comparison = comparison.replace(a=stepped["a"], b=stepped["b"])
    weights = [np.asarray(view["head"]["weights"], dtype=np.float64) for view in panes.values()]
    body: dict[str, Any] = {
        "share_path": link.share_path(),  # the focus word sets the steps: the link need not
        "params": comparison.model_dump(mode="json", exclude=set(PANES)),  # the comparison's own view state
        "weights_max": float(max(w.max() for w in weights)),  # one colour scale for both panes' weights
        "panes": panes,
        "focus": focus,
        "shared": shared_words(panes["a"]["tokens"]["queries"], panes["b"]["tokens"]["queries"]),
    }
    if focus is None:
        return body
    rows = {name: np.asarray(view["head"]["weights"][steps[name]], dtype=np.float64) for name, view in panes.items()}
    outputs = {name: np.asarray(view["head"]["output"][steps[name]], dtype=np.float64) for name, view in panes.items()}
    names = panes["a"]["names"]["output"] if panes["a"]["names"]["output"] == panes["b"]["names"]["output"] else None
    same_width = outputs["a"].shape == outputs["b"].shape
    body["word"] = {
        "steps": steps,
        "top": {name: top_keys(rows[name], panes[name]["tokens"]["keys"]) for name in PANES},
        "output_cosine": cosine(outputs["a"], outputs["b"]) if same_width else None,
        "differing": differing(outputs["a"], outputs["b"], names) if same_width else [],
        "drift": drift(comparison, steps),
    }
    return body


# ---------------------------------------------------------------------------
# Ready-made comparisons, each stating what it shows
# ---------------------------------------------------------------------------

COMPARE_PRESETS = [
    {
        "id": "bank-senses",
        "title": {"en": "bank: by the river, or with money?", "zh": "bank：河边的，还是存钱的？"},
        "lesson": {
            "en": "The same word, two contexts: in A bank looks at {top_a} ({weight_a}), in B at {top_b} ({weight_b}); "
            "its two outputs have a cosine of {cosine}.",
            "zh": "同一个词，两种语境：在 A 中 bank 最关注 {top_a}（{weight_a}），在 B 中最关注 {top_b}（{weight_b}）；"
            "两个输出的余弦相似度是 {cosine}。",
        },
        "query": "a.source=I+sat+by+the+river+bank&b.source=I+put+money+in+the+bank",
        "differ": True,
    },
    {
        "id": "temperature",
        "title": {"en": "Tom chase Jerry at temperature 0.3 and 3", "zh": "Tom chase Jerry：温度 0.3 与 3"},
        "lesson": {
            "en": "One sentence, two temperatures: 杰瑞 puts {weight_a} on {top_a} at 0.3, only {weight_b} at 3.",
            "zh": "同一个句子，两个温度：温度 0.3 时“杰瑞”放在 {top_a} 上的权重是 {weight_a}，温度 3 时只有 {weight_b}。",
        },
        "query": "a.source=Tom+chase+Jerry&a.target=汤姆+追逐+杰瑞&a.temperature=0.3"
        "&b.source=Tom+chase+Jerry&b.target=汤姆+追逐+杰瑞&b.temperature=3&focus=杰瑞",
        "differ": False,
    },
    {
        "id": "scaling",
        "title": {"en": "Plain vs scaled dot product, width 64", "zh": "普通点积与缩放点积（64 维）"},
        "lesson": {
            "en": "The same 64-wide vectors: the plain dot product saturates (bank puts {weight_a} on {top_a}), "
            "the scaled one does not ({weight_b}).",
            "zh": "同样的 64 维向量：普通点积饱和（bank 把 {weight_a} 放在 {top_a} 上），缩放点积不饱和（{weight_b}）。",
        },
        "query": "a.source=walk+by+river+bank&a.embedding=hash&a.dim=64&a.projection=random&a.score=dot"
        "&b.source=walk+by+river+bank&b.embedding=hash&b.dim=64&b.projection=random&focus=bank",
        "differ": False,
    },
    {
        "id": "minilm-bank",
        "title": {"en": "MiniLM: bank by the river vs bank with money", "zh": "MiniLM：河边的 bank 与存钱的 bank"},
        "lesson": {
            "en": "A trained model reads the two banks: their hidden states start equal (cosine {drift_first}) and "
            "drift apart to a cosine of {drift_last} in the last layer.",
            "zh": "训练好的模型读这两个 bank：它们的隐藏状态一开始相同（余弦 {drift_first}），到最后一层分开到余弦 {drift_last}。",
        },
        "query": "a.source=I+sat+by+the+river+bank&a.model=minilm&b.source=I+put+money+in+the+bank&b.model=minilm",
        "differ": False,
    },
    {
        "id": "e5-bank",
        "title": {"en": "e5, multilingual: the two banks", "zh": "e5（多语言）：两个 bank"},
        "lesson": {
            "en": "multilingual-e5-small reads the same two sentences: the banks' hidden states go from a cosine of "
            "{drift_first} to {drift_last} in the last layer.",
            "zh": "multilingual-e5-small 读同样的两个句子：两个 bank 的隐藏状态从余弦 {drift_first} 变到最后一层的 {drift_last}。",
        },
        "query": "a.source=I+sat+by+the+river+bank&a.model=e5&a.units=words&a.hide_special=true"
        "&b.source=I+put+money+in+the+bank&b.model=e5&b.units=words&b.hide_special=true",
        "differ": False,
    },
    {
        "id": "e5-chinese-go",
        "title": {"en": "e5: 我去 the bank, 我去 the river", "zh": "e5：我去银行，我去河边"},
        "lesson": {
            "en": "In Chinese, “我去银行取钱” (I go to the bank to take money) and “我去河边钓鱼” (I go to the river to fish) "
            "share 我去: its hidden states go from {drift_first} to {drift_last} as the model reads where I go.",
            "zh": "“我去银行取钱”和“我去河边钓鱼”都有“我去”：模型读到去哪里之后，它的隐藏状态从 {drift_first} 变到 {drift_last}。",
        },
        "query": "a.source=我去银行取钱&a.model=e5&a.units=words&a.hide_special=true"
        "&b.source=我去河边钓鱼&b.model=e5&b.units=words&b.hide_special=true",
        "differ": False,
    },
]


def compare_quoted(view: dict[str, Any]) -> dict[str, Any]:
    """What a comparison's lesson quotes, as numbers: each pane's top key and weight, the cosine, the drift."""
    word = view.get("word") or {}
    tops = {}
    for pane in PANES:
        top = (word.get("top") or {}).get(pane) or [{"key": "—", "weight": 0.0}]
        tops[pane] = [top[0]["key"], float(top[0]["weight"])]
    cosine_value = word.get("output_cosine")
    drift_values = word.get("drift")
    return {
        "top": tops,
        "cosine": None if cosine_value is None else float(cosine_value),
        "drift": [float(drift_values[0]), float(drift_values[-1])] if drift_values else None,
    }


def compare_text(quoted: dict[str, Any]) -> dict[str, str]:
    """`compare_quoted`'s numbers as the lesson's placeholders (2 decimals)."""
    found: dict[str, str] = {}
    for pane in PANES:
        key, weight = quoted["top"][pane]
        found[f"top_{pane}"] = key
        found[f"weight_{pane}"] = f"{weight:.2f}"
    found["cosine"] = "—" if quoted["cosine"] is None else f"{quoted['cosine']:.2f}"
    first, last = quoted["drift"] or (float("nan"), float("nan"))
    found["drift_first"], found["drift_last"] = f"{first:.2f}", f"{last:.2f}"
    return found


COMPARE_QUERIES = {preset["id"]: preset["query"] for preset in COMPARE_PRESETS}


@functools.cache
def compare_preset_numbers(preset_id: str) -> dict[str, str]:
    """The numbers a ready-made comparison's lessons quote (the same in every language), kept in examples.json."""
    comparison = comparison_from_query(COMPARE_QUERIES[preset_id])
    key = f"{preset_id}?{COMPARE_QUERIES[preset_id]}"  # a comparison changed since the file was written: computed
    return compare_text(examples.remembered("compare", key, lambda: compare_quoted(compare_view(comparison))))


@functools.cache
def compare_presets_for(lang: str) -> list[dict]:
    """Every ready-made comparison that works here, with its lesson filled in and its canonical link."""
    found = []
    for preset in COMPARE_PRESETS:
        try:
            comparison = comparison_from_query(preset["query"])
            text = preset["lesson"][lang].format(**compare_preset_numbers(preset["id"]))
        except Exception:  # a real model that is not installed here
            continue
        found.append(
            {"id": preset["id"], "title": preset["title"][lang], "lesson": text, "link": comparison.share_path()}
        )
    return found
