"""From a validated State to the data of one view: the JSON API's body and the page's embedded data.

This module only wires things together: text -> vectors (app.engine.text), the engine
(app.engine.attention) or a real model (app.view.models), and the answer each view builder fills (one
`Answer`, declared in app/view/answer.py). The numbers are computed there. A view carries the head in
focus in full (its three stages and the arithmetic of the current step) and a small overview of every
head, never every head's matrices.
"""

from __future__ import annotations

import base64
import dataclasses

import numpy as np

from app.engine.attention import HeadResult, multi_head_attention, single_head_attention
from app.engine.attention.arithmetic import step_arithmetic
from app.engine.attention.focus import Asker, focus_heads
from app.engine.attention.geometry import Plane, exact_plane, feature_plane, input_plane, lines, pca_plane
from app.engine.attention.masks import attention_mask
from app.engine.attention.named_heads import PREVIOUS, NamedHead, named_heads
from app.engine.attention.norms import head_rows, value_norms, weighted_norms
from app.engine.attention.stages import softmax_weights, weighted_sum
from app.engine.attention.summaries import attention_rollout, head_statistics
from app.engine.models import mt_check, mt_dictionary
from app.engine.models import translator as mt
from app.engine.models.encoder import output_rows
from app.engine.models.words import (
    WordUnits,
    group_pieces,
    merge_attention,
    merge_scores,
    merge_vectors,
    punctuation_mask,
    unit_punctuation_mask,
)
from app.engine.models.zeroing import normalised_rows, zeroing_rollout
from app.engine.text.embed import LEXICON_DIM, MEANING_DIM, column_names, embed_tokens, read_in_context
from app.engine.text.lexicon import FEATURES, load_lexicon
from app.engine.text.roles import main_roles, meanings, token_roles
from app.engine.text.tokenize import Token, tokenize
from app.view import models
from app.view.answer import Answer, no_names
from app.view.i18n import STRINGS
from app.view.links import invalid
from app.view.state import State

LIGHT_CHARACTERS = 80  # sentences this short take the teaching engine well under a millisecond


def is_light(state: State) -> bool:
    """A view computed faster than a worker thread is handed it: the teaching engine (no real model) on
    short sentences, or an exercise (at most 32x32). The web layer computes these in line."""
    return state.mode not in ("model", "translate") and len(state.source) + len(state.target or "") <= LIGHT_CHARACTERS


# Value zeroing runs n copies of every layer's n rows: its cost grows with the square of the pieces (bench/README.md:
# 0.15 s of CPU for MiniLM and 0.4 s for e5 at 20 pieces, so about 1.5 s and 4 s at 64, 6 s and 16 s at 128).
ZEROING_MAX_PIECES = 64


def settled(state: State) -> State:
    """What validation leaves to the model, which it never loads (app/view/state.py): a real model's word pieces
    within its limit (the same 422 as any other limit), and the step within the queries its tokenizer gives or
    the words a translator produces (a link to a later step opens the last, as for the teaching engine)."""
    if state.mode == "model":
        info = models.info(state.model)
        pieces = models.count_pieces(state.model, state.source)
        if pieces > info.max_pieces:
            raise invalid(
                "too_many_pieces",
                "at most {limit} word pieces",
                "source",
                drop=["model", "layer", "hide_special", "units", "head"],  # a lenient reading keeps the sentence
                model=info.label,
                limit=info.max_pieces,
                count=pieces,
            )
        if state.attribution == "zeroing" and pieces > ZEROING_MAX_PIECES:
            raise invalid(
                "zeroing_pieces",
                "value zeroing takes at most {limit} word pieces",
                "attribution",
                drop=["attribution"],  # a lenient reading keeps the sentence and shows the weights
                limit=ZEROING_MAX_PIECES,
                count=pieces,
            )
        return state.clamped(
            models.count_queries(state.model, state.source, hide_special=state.hide_special, units=state.units)
        )
    if state.mode == "translate":
        result = models.translation(state.model, state.source, state.target, state.beam, candidates_of(state))
        return state.clamped(max(1, len(result.target)))
    return state


def compute_view(state: State) -> dict:
    """The answer for a State, as the dict of lists and numpy arrays that the JSON API writes and the page embeds:
    the `Answer` its mode's builder fills, with the plane of the head in focus added (raises ValidationError for a
    sentence longer than a real model reads: see settled)."""
    state = settled(state)
    builder = {"exercise": exercise_view, "model": model_view, "translate": translation_view}.get(
        state.mode, sentence_view
    )
    answer = builder(state)
    answer.geometry = geometry_of(state, answer)
    return answer.as_dict()


def link_fields(state: State) -> dict:
    """The fields every answer opens with: the canonical parameters and links of the view, and its mode."""
    share_path, query = state.share_path_and_query()
    return {"params": state.model_dump(mode="json"), "share_path": share_path, "query": query, "mode": state.mode}


def geometry_of(state: State, answer: Answer) -> dict | None:
    """The head in focus's queries and keys as points in one plane (app/engine/attention/geometry.py).

    Exercise vectors 1 or 2 wide: drawn as typed. Named heads: on the two named question dimensions that carry
    the most of the head's scores, or (plane=embedding) the words before W_Q and W_K on the two input features
    those dimensions read most. Anything else (random projections, real models): a PCA of the queries and keys
    together. The current step's lines: q·k, the score and the weight of each key.
    """
    head = answer.head
    if head["scores"] is None:  # rnnencdec: no attention, no queries or keys to draw
        return None
    q, k = np.asarray(head["q"], dtype=float), np.asarray(head["k"], dtype=float)  # (n_q, d_q), (n_k, d_k)
    mask = np.asarray(head["mask"], dtype=bool)  # (n_q, n_k)
    additive = q.shape[1] != k.shape[1]  # rnnsearch: e = vᵀ tanh(W1 s + W2 h), decoder state and annotations
    if additive:  # draw the two terms the score adds, W1 s and W2 h, which live in one space
        p = models.translator(state.model).network.p  # W (d_att, d_h), U (d_att, 2 d_h): the answer leaves them out
        q, k = q @ p["W.weight"].T, k @ p["U.weight"].T  # (n_q, d_att), (n_k, d_att)
    drawn_q, drawn_k = q, k  # the vectors drawn: the head's queries and keys, or the word vectors
    vector_names = answer.names["vectors"]  # a named head's question dimensions, or None
    named = answer.named_head is not None and vector_names is not None
    plane: Plane
    if q.shape[1] <= 2:
        plane = exact_plane(q.shape[1], tuple(vector_names or ()) or None)
    elif named:
        plane = feature_plane(q, k, mask, tuple(vector_names))
        if state.plane == "embedding":
            inputs = tuple(answer.features or answer.names["values"])
            parameters = head["parameters"]
            drawn_q, drawn_k = (np.asarray(answer.embeddings[side], dtype=float) for side in ("queries", "keys"))
            columns = (plane.basis[0].argmax(), plane.basis[1].argmax())  # the two question dimensions
            plane = input_plane(drawn_q, drawn_k, parameters["W_Q"], parameters["W_K"], columns, inputs)
    else:
        plane = pca_plane(q, k)
    step = state.step
    return {
        "plane": "embedding" if plane.method == "inputs" else "qk",
        "method": plane.method,
        "axes": list(plane.axis_names),
        "basis": plane.basis,
        "center": plane.center,
        "retained": plane.retained,
        "score_share": plane.score_share,
        "queries": plane.project(drawn_q),
        "keys": plane.project(drawn_k),
        "stretch": state.stretch,
        "lines": {
            "step": step,
            **lines(q[step], k, np.asarray(head["scores"])[step], np.asarray(head["weights"])[step], mask[step]),
            **({"dots": None} if additive else {}),  # an additive score multiplies nothing: no q·k to show
        },
    }


def model_facts(info: models.ModelInfo, units: str) -> dict:
    """A real model or a trained translator as the answer names it."""
    return {
        "name": info.name,
        "label": info.label,
        "languages": info.languages,
        "weights": info.weights_note,
        "n_layers": info.n_layers,
        "n_heads": info.n_heads,
        "units": units,
    }


def stages_of(head: HeadResult | ModelHead) -> dict:
    """The three stages of one head, as the answer names them."""
    return {
        "q": head.q,
        "k": head.k,
        "v": head.v,
        "scores": head.scores,
        "mask": head.mask,
        "weights": head.weights,
        "output": head.output,
        "parameters": head.parameters,
    }


def arithmetic_of(state: State, head: HeadResult | ModelHead) -> dict:
    """The current step's arithmetic, written out by the engine from the head's own numbers."""
    score = {"model": "scaled_dot", "translate": TRANSLATOR_SCORES.get(state.model)}.get(state.mode, state.score)
    temperature = 1.0 if state.mode in ("model", "translate") else state.temperature
    board = step_arithmetic(head, state.step, score=score, temperature=temperature, hard=state.hard)
    return {"step": state.step, "score": score, **board}


def thumbnail_levels(weights: np.ndarray, size: int = 32) -> np.ndarray:
    """Weight maps shrunk to at most size x size by averaging blocks, as 0..255 levels.

    weights (..., n_q, n_k): leading axes (layers, heads) pass through, so every map is shrunk at once."""
    if max(weights.shape[-2:]) <= size:  # blocks of one: the weights themselves
        return np.round(np.clip(weights, 0, 1) * 255).astype(np.uint8)
    blocks = []
    for axis_length in weights.shape[-2:]:
        edges = np.linspace(0, axis_length, min(axis_length, size) + 1).astype(int)[:-1]  # first index of each block
        blocks.append((edges, np.diff(np.append(edges, axis_length))))  # (blocks,), (blocks,)
    (row_edges, row_counts), (col_edges, col_counts) = blocks
    sums = np.add.reduceat(np.add.reduceat(weights, row_edges, axis=-2), col_edges, axis=-1)  # (..., rows, cols)
    means = sums / np.outer(row_counts, col_counts)  # (..., rows, cols)
    return np.round(np.clip(means, 0, 1) * 255).astype(np.uint8)


def thumbnail(weights: np.ndarray, size: int = 32) -> str:
    """A weight map (n_q, n_k) shrunk to at most size x size by averaging blocks, as 0..255 bytes in base64."""
    return base64.b64encode(thumbnail_levels(weights, size).tobytes()).decode("ascii")


def overview(weights: np.ndarray) -> dict:
    """Small weight maps of every layer and head: enough to pick one, far less than the weights themselves."""
    # weights (n_layers, n_heads, n_q, n_k)
    n_layers, n_heads, n_q, n_k = weights.shape
    levels = thumbnail_levels(weights)  # (n_layers, n_heads, rows, cols), every map in one pass
    return {
        "layers": n_layers,
        "heads": n_heads,
        "rows": min(n_q, 32),
        "cols": min(n_k, 32),
        "maps": [
            [base64.b64encode(levels[layer, head].tobytes()).decode("ascii") for head in range(n_heads)]
            for layer in range(n_layers)
        ],  # fmt: skip
    }


def head_names(state: State, inputs: tuple[str, ...], head: HeadResult, index: int) -> dict:
    """Names of the columns of head `index`: its queries and keys, its values (and stage 3's output)."""
    d_k, d_v = head.q.shape[1], head.v.shape[1]
    if state.projection == "named":
        question = named_heads(state.mode, state.n_heads)[index]
        return {"vectors": list(question.dimensions), "values": list(inputs), "output": list(inputs)}
    if state.projection == "identity":  # head h sees columns h*d_k ... (h+1)*d_k - 1 of the word vectors
        own = list(inputs[index * d_k : (index + 1) * d_k])
        return {"vectors": own, "values": own[:d_v], "output": own[:d_v]}
    return no_names()


def askers(tokens: tuple[Token, ...], roles: np.ndarray) -> list[Asker]:
    """What each query word is, as the named heads' questions see it: its role, pronoun, two meanings."""
    lexicon = load_lexicon()
    pronoun = FEATURES.index("pronoun")
    found = []
    for token, role in zip(tokens, main_roles(roles), strict=True):
        vector = lexicon.lookup(token.key)
        is_pronoun = role == "noun" and vector is not None and vector[pronoun] > 0
        found.append(Asker(role, is_pronoun, meanings(token) >= 2))
    return found


def focus_of(
    state: State, heads: tuple[NamedHead, ...], tokens: tuple[Token, ...], x_q: np.ndarray, weights: np.ndarray
) -> list[int | None]:
    """The head in focus at each step when the link names none: the named head whose question the word asks
    (encoder-decoder: the counterpart head for every word); head 0 for the other projections.

    x_q (n_q, d_model): the queries' word vectors, whose columns MEANING_DIM..LEXICON_DIM are their roles.
    """
    n = len(tokens)
    if state.projection != "named":
        return [0] * n
    if state.mode == "cross":
        return [0] * n  # every target word asks for its counterpart
    roles = x_q[:, MEANING_DIM:LEXICON_DIM]  # (n, n_roles) named heads need the lexicon's vectors
    return focus_heads(heads, weights, askers(tokens, roles), self_attention=True)


def focus_notes(
    state: State, heads: tuple[NamedHead, ...], tokens: tuple[Token, ...], focus: list[int | None], shown: list[int]
) -> list[dict]:
    """Per step, one sentence per language: the question the word asks, or that no head's question applies."""
    notes = []
    for token, chosen, index in zip(tokens, focus, shown, strict=True):
        note = {}
        for lang, words in STRINGS.items():
            label = f"{words['head']} {index + 1} ({heads[index].name})"
            if state.head is not None:
                note[lang] = f"{label} {words['head_asks']}{words['colon']}{heads[index].question[lang]}"
            elif chosen is None:
                note[lang] = words["no_question"].format(word=token.text, head=label)
            else:
                question = heads[index].question[lang]
                note[lang] = words["word_asks"].format(word=token.text, head=label, question=question)
        notes.append(note)
    return notes


def sentence_view(state: State) -> Answer:
    """Self-attention over the source, or cross-attention of the target's words over the source's."""
    source_tokens = tokenize(state.source)
    target_tokens = tokenize(state.target) if state.mode == "cross" else source_tokens
    dim = LEXICON_DIM if state.embedding == "lexicon" else state.dim
    embed = {"embedding": state.embedding, "dim": dim, "positional": state.positional}
    inputs = column_names(**embed)  # names of the word vectors' columns
    x_kv, unknown = embed_tokens(source_tokens, **embed)  # (n_k, dim)
    read_as = []  # source words read in their sentence (encoder-decoder): bank beside river is 河岸
    if state.mode == "cross":
        x_q, unknown_target = embed_tokens(target_tokens, **embed)  # (n_q, dim)
        unknown += [word for word in unknown_target if word not in unknown]
        if state.embedding == "lexicon":
            x_kv, read_as = read_in_context(source_tokens, x_kv)  # (n_k, dim)
    else:
        x_q = x_kv
    n_heads = state.n_heads
    result = multi_head_attention(
        x_q,
        x_kv,
        n_heads=n_heads,
        projection=state.projection,
        score=state.score,
        temperature=state.temperature,
        hard=state.hard,
        window=state.window,
        causal=state.causal,
        seed=state.seed,
        inputs=inputs,
        kind=state.mode,
        stretch=state.stretch,
    )
    weights = result.weights  # (n_heads, n_q, n_k)
    computed = named_heads(state.mode, n_heads) if state.projection == "named" else ()
    focus = focus_of(state, computed, target_tokens, x_q, weights)  # per step: the head whose question the word asks
    fallback = computed.index(PREVIOUS) if PREVIOUS in computed and state.mode == "self" else 0  # no question asked
    shown = [state.head if state.head is not None else (h if h is not None else fallback) for h in focus]
    index = shown[state.step]
    head = result.head(index)
    W_O = result.parameters["W_O"]  # (n_heads * d_v, d_model): the head shown's rows give ‖v_j W_O[h]‖ (norms.py)
    head.value_norms = value_norms(head.v, head_rows(W_O, index, head.v.shape[1]))  # (n_k,)
    guessed = []  # words the lexicon lacks, with the role guessed for each
    if state.embedding == "lexicon":
        guessed = token_roles(target_tokens)[1] + (token_roles(source_tokens)[1] if state.mode == "cross" else [])
    return Answer(
        **link_fields(state),
        tokens={"queries": [t.text for t in target_tokens], "keys": [t.text for t in source_tokens]},
        unknown_tokens=unknown,
        guessed_roles=[vars(g) for g in guessed],
        read_as=read_as,
        features=list(inputs) if state.embedding == "lexicon" else None,
        embeddings={"queries": x_q, "keys": x_kv},
        d_model=len(inputs),
        d_k=head.q.shape[1],
        n_heads=n_heads,
        focus={
            "auto": state.head is None,
            "head": index,
            "heads": shown,
            "asks": focus,
            "names": [h.name for h in computed] if computed else None,
            "notes": focus_notes(state, computed, target_tokens, focus, shown) if computed else None,
            "rows": weights if weights.size <= ALL_HEADS_NUMBERS else None,  # (n_heads, n_q, n_k) every head's weights
        },
        names=head_names(state, inputs, head, index),
        named_head={"name": computed[index].name, "question": computed[index].question} if computed else None,
        head_note=head_note(state, index),
        head=stages_of(head),
        attribution=attribution_of(state, head),
        arithmetic=arithmetic_of(state, head),
        output=result.output,
        # The named heads' W_O averages them (output = the mean of the heads' outputs), as the page says in words;
        # as numbers it was half of the answer: (n_heads * d_model) x d_model of zeros and 1 / n_heads.
        parameters={} if state.projection == "named" else result.parameters,
        overview=overview(weights[None]) if n_heads > 1 else None,
    )


ALL_HEADS_NUMBERS = 40_000  # every head's weights go with the view up to this many numbers (8 heads x 70 x 70)


def head_note(state: State, index: int) -> dict[str, str] | None:
    """One sentence about the head in focus, by language: the question a named head asks, or why a word
    looks at itself with the identity projection."""
    if state.projection == "named":
        question = named_heads(state.mode, state.n_heads)[index].question
        return {
            lang: f"{words['head']} {index + 1} {words['head_asks']}{words['colon']}{question[lang]}"
            for lang, words in STRINGS.items()
        }
    if state.projection == "identity":
        return {lang: words["identity_note"] for lang, words in STRINGS.items()}
    return None


def exercise_view(state: State) -> Answer:
    """Hand-typed q, k, v through the same three stages, as one head."""
    q, k, v = (
        np.array(getattr(state, name), dtype=float) for name in ("q", "k", "v")
    )  # (n_q, d_k) (n_k, d_k) (n_k, d_v)
    if state.stretch != 1:
        q, k = q * state.stretch, k * state.stretch  # longer (or shorter) vectors, the same directions
    mask = attention_mask(len(q), len(k), window=state.window, causal=state.causal)  # (n_q, n_k)
    head = single_head_attention(q, k, v, score=state.score, temperature=state.temperature, hard=state.hard, mask=mask)
    head.value_norms = value_norms(v, None)  # (n_k,) no W_O: the weighted sum is the output itself
    return Answer(
        **link_fields(state),
        tokens={
            "queries": list(state.query_labels or (f"q{i + 1}" for i in range(len(q)))),
            "keys": list(state.key_labels or (f"k{j + 1}" for j in range(len(k)))),
        },
        d_model=q.shape[1],
        d_k=q.shape[1],
        n_heads=1,
        head=stages_of(head),
        attribution=attribution_of(state, head),
        arithmetic=arithmetic_of(state, head),
        output=head.output,
    )


class ModelHead:
    """One head of one layer of a real model, in the shape the stages and the arithmetic expect."""

    def __init__(
        self, q: np.ndarray, k: np.ndarray, v: np.ndarray, scores: np.ndarray, weights: np.ndarray, output: np.ndarray
    ):
        n = len(q)
        self.q, self.k, self.v, self.scores, self.weights, self.output = q, k, v, scores, weights, output
        self.mask = np.ones((n, len(k)), dtype=bool)  # (n, n) one sentence, no padding: every token sees every token
        self.parameters = {}
        self.value_norms: np.ndarray | None = None  # (n_k,) ‖v_j W_O[h]‖ where the model has a W_O for the head
        self.contributions: np.ndarray | None = None  # (n_q, n_k) when not the weights times value_norms (words)


def attribution_of(state: State, head: HeadResult | ModelHead) -> dict:
    """Weight × value norm of the head in focus (Kobayashi et al. 2020; app/engine/attention/norms.py): every key's
    ‖v_j W_O[h]‖ always (n_k numbers), the whole matrix α_ij ‖v_j W_O[h]‖ when the view shows it (attribution=norm)."""
    contributions = None
    if state.attribution == "norm":
        contributions = getattr(head, "contributions", None)  # a real model's words: merged from its pieces (ModelHead)
        if contributions is None:
            contributions = weighted_norms(head.weights, head.value_norms)  # (n_q, n_k)
    return {"value_norms": head.value_norms, "contributions": contributions}


def model_view(state: State) -> Answer:
    """One layer of a real pretrained model: the head in focus in full, every head as a small map, and the
    whole model summarised (each head's statistics, attention rollout up to the layer, the sentence embedding).

    With hide_special the special tokens (and e5's prefix) are left out as queries and keys: the softmax
    (stage 2) is taken over the remaining keys and the outputs (stage 3) recomputed from those weights.
    With units=words the pieces are then merged into words (app/engine/models/words.py): weights to a word
    summed over its pieces, from a word averaged; vectors and scores averaged. The arithmetic is the
    pieces' own and is not given for words.
    """
    info = models.info(state.model)
    run = models.run(state.model, state.source)
    keep = models.shown_pieces(run.kinds, state.hide_special)
    index = np.array(keep)  # (n,) the pieces shown
    q = run.q[:, :, index]  # (L, H, n, d_head)
    k = run.k[:, :, index]  # (L, H, n, d_head)
    v = run.v[:, :, index]  # (L, H, n, d_head)
    scores = run.scores[:, :, index][:, :, :, index]  # (L, H, n, n)
    if state.hide_special:
        weights = softmax_weights(scores, np.True_)  # (L, H, n, n) stage 2 over the kept keys only
        context = weighted_sum(weights, v)  # (L, H, n, d_head) stage 3 from those weights
    else:
        weights, context = run.weights, run.context
    layer, h = state.layer, state.head or 0
    rows = output_rows(models.get(state.model).params.layers[layer], h, info.d_head)  # (d_head, d_model) W_O[h]
    norms = value_norms(v[layer, h], rows)  # (n,) ‖v_j W_O[h]‖ of the pieces shown
    contributions = None  # the pieces' α ‖v W_O‖ are the head's own weights times norms (attribution_of)
    tokens = [run.tokens[i] for i in keep]
    punctuation = punctuation_mask(run)[index]  # (n,)
    units = None
    if state.units == "words":
        units = group_pieces(run.text, tokens, [run.kinds[i] for i in keep], [run.offsets[i] for i in keep])
        q, k, v, context = (merge_vectors(x, units) for x in (q, k, v, context))  # (L, H, m, d_head)
        scores = merge_scores(scores, units)  # (L, H, m, m) averaged: not what the softmax saw
        if state.attribution == "norm":  # to a word: the sum of its pieces' contributions; from a word: the mean
            contributions = merge_attention(weighted_norms(weights[layer, h], norms), units)  # (m, m)
        norms = merge_vectors(norms[:, None], units)[:, 0]  # (m,) a word's: the mean of its pieces' norms
        weights = merge_attention(weights, units)  # (L, H, m, m) rows still sum to 1
        tokens, punctuation = units.labels, unit_punctuation_mask(units)
    head = ModelHead(q[layer, h], k[layer, h], v[layer, h], scores[layer, h], weights[layer, h], context[layer, h])
    head.value_norms = norms
    head.contributions = contributions
    statistics = head_statistics(weights, punctuation)  # name -> (L, H)
    return Answer(
        **link_fields(state),
        model=model_facts(info, state.units),
        tokens={"queries": tokens, "keys": tokens},
        unknown_tokens=run.unknown,
        d_model=info.d_model,
        d_k=info.d_head,
        n_heads=info.n_heads,
        head=stages_of(head),
        attribution=attribution_of(state, head),
        arithmetic=arithmetic_of(state, head) if state.units == "pieces" else None,
        overview=overview(weights),
        summaries={
            "statistics": dict(statistics),
            "rollout": attention_rollout(weights)[layer],  # (n, n) through layers 0 .. layer
        },
        value_zeroing=value_zeroing_of(state, keep, units) if state.attribution == "zeroing" else None,
        sentence_embedding=run.embedding,
    )


def value_zeroing_of(state: State, keep: list[int], units: WordUnits | None) -> dict:
    """Value zeroing of the sentence (cached beside its run) over the tokens shown: the layer in focus's map and the
    rollout up to it. With hide_special each row is divided again over the shown pieces (their shares of the change
    among themselves, as stage 2 takes its softmax over them); words merge as attention does (summed over a word's
    pieces as keys, averaged as queries)."""
    index = np.array(keep)  # (n,) the pieces shown
    maps = models.zeroing(state.model, state.source)[:, index][:, :, index]  # (L, n, n)
    if state.hide_special:
        maps = normalised_rows(maps)  # (L, n, n) rows sum to 1 again
    if units is not None:
        maps = merge_attention(maps[:, None], units)[:, 0]  # (L, m, m)
    return {"layer_map": maps[state.layer], "rollout": zeroing_rollout(maps)[state.layer]}


# ---------------------------------------------------------------------------
# The trained translators: the words they produce, each step's attention over the English words
# ---------------------------------------------------------------------------

TRANSLATOR_SCORES = {"rnnsearch": "additive", "transformer-mt": "scaled_dot"}  # rnnencdec: no scores at all
END = "</s>"  # the end of the translation, a word of the target vocabulary
ONE_CONTEXT = "C"  # rnnencdec's one context vector, the only thing its decoder reads of the sentence


def candidates_of(state: State) -> bool:
    """Whether the translator chooses among the dictionary's candidates only (state.candidates)."""
    return state.candidates == "dictionary"


def translation_view(state: State) -> Answer:
    """A trained translator: greedy or beam decoding (empty Target) or forced decoding (Target given).

    Each generated (or given) Chinese word is a query step; the keys and values are the encoder's
    vectors of the English words. rnnsearch: the query is the decoder state s_{i-1}, stage 1 the
    additive score; transformer-mt: one head of one layer of the cross-attention (scaled dot product),
    with the decoder's masked self-attention over the words so far beside it; rnnencdec has no
    attention: every step reads the same context vector C, which the view shows as it is.
    """
    info = models.info(state.model)
    candidates = candidates_of(state)
    result = models.translation(state.model, state.source, state.target, state.beam, candidates)
    last = result.extra["state"]  # the decoder's last state: the encoder's vectors, the cached keys and values
    n_q = max(1, len(result.target))
    steps = result.steps[:n_q]  # one per Chinese word (the last, </s>, only when nothing was produced)
    queries = list(result.target) or [END]
    keys = list(result.source)
    layer, h = state.layer, state.head or 0
    self_attention = None
    overview_maps = None
    context_vector = None
    if state.model == "rnnsearch":
        annotations = last["h"]  # (n_k, 2 d_h): h_j = [forward_j; backward_j], keys and values
        p = models.translator(state.model).network.p
        head = ModelHead(
            np.stack([s.attention.query for s in steps]),  # (n_q, d_h) s_{i-1}
            annotations,
            annotations,
            np.stack([s.attention.scores for s in steps]),  # (n_q, n_k)
            np.stack([s.attention.weights for s in steps]),  # (n_q, n_k)
            np.stack([s.attention.context for s in steps]),  # (n_q, 2 d_h) c_i
        )
        head.parameters = {"W1": p["W.weight"], "W2": p["U.weight"], "v": p["v.weight"][0]}  # for the arithmetic
        network = models.translator(state.model).network
        head.value_norms = value_norms(annotations, network.context_readout())  # (n_k,) ‖h_j W_c‖: see there
    elif state.model == "transformer-mt":
        cross_k, cross_v = last["cross"][layer]  # (heads, n_k, d_head) each, computed once from the source
        head = ModelHead(
            np.stack([s.attention.query[layer, h] for s in steps]),  # (n_q, d_head)
            cross_k[h],
            cross_v[h],
            np.stack([s.attention.scores[layer, h] for s in steps]),  # (n_q, n_k)
            np.stack([s.attention.weights[layer, h] for s in steps]),
            np.stack([s.attention.context[layer, h] for s in steps]),  # (n_q, d_head)
        )
        network = models.translator(state.model).network
        head.value_norms = value_norms(cross_v[h], network.output_rows(f"dec.{layer}.cross_attn", h))  # (n_k,)
        every = np.stack([s.attention.weights for s in steps], axis=2)  # (layers, heads, n_q, n_k)
        overview_maps = overview(every)
        self_attention = decoder_self_attention(steps, last, layer, h, queries)
        self_attention["value_norms"] = value_norms(
            self_attention["v"], network.output_rows(f"dec.{layer}.self_attn", h)
        )  # (n_q,) the cached values' ‖v_j W_O[h]‖
    else:
        c = last["c"]  # (2 d_h,) [forward_last; backward_first]: the whole sentence in one vector
        head = ModelHead(np.zeros((n_q, 0)), c[None, :], c[None, :], None, np.ones((n_q, 1)), np.tile(c, (n_q, 1)))
        keys = [ONE_CONTEXT]
        context_vector = c
    replacements = mt.replace_unknown(result) if result.extra["decoding"] != "forced" else []  # none when forced
    checked = mt_check.check(list(result.source), mt.output_words(result, replacements))  # the words as read
    typed = mt.typed_forms(state.source, list(result.source))
    replaced = [shown(r, typed) for r in replacements]
    output = mt.output_words(result, replaced)  # what a reader sees: a word kept in English as typed (Lisa)
    learned = None if state.model == "rnnencdec" else [int(row.argmax()) for row in head.weights]
    gold_target, gold_align = models.GOLD.get(" ".join(result.source), (None, None))
    vocabulary = models.translator(state.model).vocabulary
    stages = stages_of(head)
    stages["parameters"] = {}  # W and U are 128 x 128 and 128 x 256: the arithmetic gives W s and U h_j instead
    return Answer(
        **link_fields(state),
        model=model_facts(info, "words"),
        tokens={"queries": queries, "keys": keys},
        unknown_tokens=list(result.unknown) + list(result.extra.get("unknown_target", [])),
        d_model=info.d_model,
        d_k=head.k.shape[1],
        n_heads=info.n_heads,
        head=stages,
        attribution=attribution_of(state, head) if state.model != "rnnencdec" else None,
        arithmetic=arithmetic_of(state, head) if state.model != "rnnencdec" else None,
        overview=overview_maps,
        translation={
            "decoding": result.extra["decoding"],
            "beam": state.beam if result.extra["decoding"] == "beam" else 1,
            "candidates": state.candidates if result.extra["decoding"] != "forced" else "all",
            "ruled_out": [  # the steps whose own first choice the candidate list ruled out (the last: the end)
                {
                    "position": i,
                    "word": step.preferred[0],
                    "probability": step.preferred[1],
                    "reason": step.ruled_by,
                    "left_out": list(step.left_out),
                }
                for i, step in enumerate(result.steps)
                if step.preferred is not None
            ],
            "source": list(result.source),
            "unknown_source": list(result.unknown),
            "unknown_read_as": [mt_dictionary.unknown_token(word) for word in result.unknown],
            "unknown_target": list(result.extra.get("unknown_target", [])),
            "vocabulary": {
                "source": sum(vocabulary.knows(w) for w in vocabulary.source),
                "target": len(vocabulary.target) - 4,  # <pad> <s> </s> <unk>
                "max_source_words": info.max_pieces,
            },
            "target": list(result.target),
            "output": output,
            "check": {
                "translates": [list(found) for found in checked.translates],
                "content": list(checked.content),
                "invented": list(checked.invented),
                "left_out": list(checked.left_out),
                "coverage": (  # (n_source,) each English word's column of stage 2 summed over the Chinese words
                    head.weights[: len(result.target)].sum(axis=0) if state.model != "rnnencdec" else None
                ),
            },
            "replaced": [dataclasses.asdict(r) for r in replaced],
            "probabilities": [s.probability for s in steps] if result.target else [],
            "end_probability": result.steps[-1].probability if result.steps[-1].token_id == mt.EOS else None,
            "log_probability": result.log_probability,
            "likeliest": likeliest_of(result, typed),
            "learned_alignment": learned,
            "gold": {"target": gold_target, "alignment": gold_align} if gold_target else None,
            "context_vector": context_vector,
            "self_attention": self_attention,
            "leave_one_out": (
                models.leave_one_out(state.model, state.source, state.target, state.beam, candidates)[:n_q]
                if state.attribution == "leave-one-out"  # (n_q, n_source)
                else None
            ),
        },
    )


def shown(replacement: mt.Replacement, typed: list[str]) -> mt.Replacement:
    """The replacement as the page shows it: a word kept in English as the sentence typed it (Lisa, not lisa)."""
    if replacement.origin != "english":
        return replacement
    return dataclasses.replace(replacement, word=typed[replacement.source])


def likeliest_of(result: mt.Translation, typed: list[str]) -> dict | None:
    """Beam search's likeliest finished translation, when the end guard chose one that leaves fewer English words
    out: what a reader would have seen (a word kept in English as ``typed``), its log-probability, and the English
    words it leaves out."""
    passed = result.extra.get("likeliest")
    if passed is None:
        return None
    return {
        "output": mt.output_words(passed, [shown(r, typed) for r in mt.replace_unknown(passed)]),
        "log_probability": passed.log_probability,
        "left_out": list(mt.left_out(passed, passed.steps[: len(passed.target)])),
    }


def decoder_self_attention(steps: list, last: dict, layer: int, h: int, queries: list[str]) -> dict:
    """The decoder's masked self-attention of one head: step i reads the words fed in so far, <s> and the
    first i words, whose keys and values are cached, one row more per word (the KV cache)."""
    n_q = len(steps)
    keys, values = last["cache"][layer]  # (heads, n_steps, d_head): every row cached by the end
    weights = np.zeros((n_q, n_q))  # (n_q, n_q) zero above the diagonal: later words do not exist yet
    scores = np.zeros((n_q, n_q))
    for i, step in enumerate(steps):
        weights[i, : i + 1] = step.attention.self_weights[layer, h]  # (i+1,)
        scores[i, : i + 1] = step.attention.self_scores[layer, h]
    return {
        "keys": ["<s>", *queries[: n_q - 1]],  # what step i was fed: <s>, then each word produced before it
        "q": np.stack([s.attention.self_query[layer, h] for s in steps]),  # (n_q, d_head)
        "k": keys[h, :n_q],  # (n_q, d_head) the cache: step i reads rows 0..i
        "v": values[h, :n_q],
        "scores": scores,
        "mask": np.tril(np.ones((n_q, n_q), dtype=bool)),
        "weights": weights,
        "output": np.stack([s.attention.self_context[layer, h] for s in steps]),  # (n_q, d_head)
    }
