"""The answer of one view, declared once: what `compute_view` returns, the JSON API sends and /docs describes.

Each view builder of app/view/compute.py fills one `Answer` (a plain dataclass: the constructor refuses a name it
does not declare and asks for every field without a default, and costs about a microsecond, where validating a
view's thousands of numbers with pydantic would cost far more on every request). Its fields come in the order
the JSON writes them; a field a mode has not keeps its default (null, or an empty list or table), so every answer
carries every field. The web layer takes this class as the API's response schema (FastAPI derives it with
pydantic, descriptions included); tests/test_answer.py checks real answers of every mode against that schema.

The parts below (the head, the arithmetic, the geometry, ...) are declared as pydantic models for the schema;
the builders fill them as plain dicts of lists and numpy arrays, which app.web.jsonio writes.
"""

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Matrix = list[list[float]]
Vector = list[float]


class Tokens(BaseModel):
    queries: list[str] = Field(description="Query tokens (rows), as written. Self-attention: the source's tokens.")
    keys: list[str] = Field(description="Key (and value) tokens (columns), as written.")


class Embeddings(BaseModel):
    queries: Matrix = Field(description="(n_queries, d_model) input vectors of the queries, positions added if on.")
    keys: Matrix | None = Field(
        description="(n_keys, d_model) input vectors of the keys and values. Null in a sentence view's answer when "
        "they are the queries' (self-attention)."
    )


class Head(BaseModel):
    q: Matrix = Field(description="(n_queries, d_k) the head's queries.")
    k: Matrix = Field(description="(n_keys, d_k) the head's keys.")
    v: Matrix | None = Field(
        description="(n_keys, d_v) the head's values. Null in a sentence view's answer when they are the keys' input "
        "vectors (W_V is the identity: the named heads)."
    )
    scores: Matrix | None = Field(
        description="Stage 1: (n_queries, n_keys) similarity, after the √d_k scaling of scaled_dot, "
        "before the temperature and the mask (null for rnnencdec, which has no attention and no scores)."
    )
    mask: list[list[bool]] = Field(description="(n_queries, n_keys) true where the query may see the key.")
    weights: Matrix | None = Field(
        description="Stage 2: (n_queries, n_keys) attention weights; each row sums to 1. Null in a sentence view's "
        "answer when `focus.rows` holds every head's. rnnencdec has no attention: one key, C, read whole at every "
        "step ([[1], [1], ...]), which its page shows as no weights at all."
    )
    output: Matrix = Field(description="Stage 3: (n_queries, d_v) weighted sum of the values.")
    parameters: dict[str, Matrix | Vector] | None = Field(
        description="Every named matrix the head used: W_Q, W_K, W_V (d_model, d_k); W (general); W1, W2, v "
        "(additive). Null when the answer's `fixed` holds them."
    )


class Arithmetic(BaseModel):
    step: int = Field(description="The query step written out (from 0).")
    score: str = Field(description="The score function of stage 1.")
    q: Vector | None = Field(
        description="(d_k,) the query."
        " Null in a sentence view's answer: the head's own (weighted_values: weights[j] × v[j])."
    )
    k: Matrix | None = Field(
        description="(n_keys, d_k) the keys."
        " Null in a sentence view's answer: the head's own (weighted_values: weights[j] × v[j])."
    )
    mask: list[bool] | None = Field(
        description="(n_keys,) true where the query may see the key."
        " Null in a sentence view's answer: the head's own (weighted_values: weights[j] × v[j])."
    )
    scores: Vector | None = Field(
        description="(n_keys,) stage 1: the score of the query with each key."
        " Null in a sentence view's answer: the head's own (weighted_values: weights[j] × v[j])."
    )
    dots: Vector | None = Field(None, description="(n_keys,) q·k for each key (dot, scaled_dot, cosine).")
    scale: float | None = Field(None, description="√d_k, the divisor of scaled_dot.")
    norms: Vector | None = Field(None, description="(n_keys,) |q| |k| for each key (cosine).")
    qW: Vector | None = Field(None, description="(d_k,) qᵀW (general): each score is qᵀW · k.")
    W1q: Vector | None = Field(None, description="(d_a,) W₁q (additive).")
    W2k: Matrix | None = Field(None, description="(n_keys, d_a) W₂k for each key (additive).")
    hidden: Matrix | None = Field(None, description="(n_keys, d_a) tanh(W₁q + W₂k); each score is v · hidden.")
    shift: float | None = Field(None, description="Subtracted from the scores before e^x when e^(s/T) would not print.")
    temperature: float | None = Field(None, description="T of the softmax (absent for hard attention).")
    exponentials: Vector | None = Field(None, description="(n_keys,) e^((s - shift)/T), 0 where masked.")
    total: float | None = Field(None, description="The sum of the exponentials.")
    weights: Vector | None = Field(
        description="(n_keys,) stage 2: each weight (exponential / sum, or 0/1 when hard)."
        " Null in a sentence view's answer: the head's own (weighted_values: weights[j] × v[j])."
    )
    weighted_values: Matrix | None = Field(
        description="(n_keys, d_v) each weight times its value."
        " Null in a sentence view's answer: the head's own (weighted_values: weights[j] × v[j])."
    )
    output: Vector | None = Field(
        description="(d_v,) stage 3: the sum of the weighted values."
        " Null in a sentence view's answer: the head's own (weighted_values: weights[j] × v[j])."
    )
    value_norms: Vector | None = Field(None, description="(n_keys,) ‖v_j W_O[h]‖ (see `attribution`).")
    contributions: Vector | None = Field(None, description="(n_keys,) weight × value norm, α_j ‖v_j W_O[h]‖.")
    contribution_shares: Vector | None = Field(
        None, description="(n_keys,) each contribution's share of the step's total (sums to 1, as the weights do)."
    )


class Attribution(BaseModel):
    value_norms: Vector = Field(
        description="(n_keys,) ‖v_j W_O[h]‖ of the head in focus: the length of key j's value after the head's rows of "
        "the output projection W_O, its bias left out (Kobayashi et al. 2020). Named heads: W_O averages the heads "
        "(‖v_j‖ / n_heads); exercise: no W_O (‖v_j‖); rnnsearch: the readout's context columns (logits = W_out [s; c; "
        "e]); a real model's words: the mean over the word's pieces."
    )
    contributions: Matrix | None = Field(
        description="(n_queries, n_keys) α_ij ‖v_j W_O[h]‖, weight × value norm: what key j puts into query i's "
        "output (a real model's words: summed over the key's pieces, averaged over the query's). Only with "
        "attribution=norm (null otherwise: the weights times value_norms)."
    )


class Overview(BaseModel):
    layers: int = Field(description="Number of layers (1 for the teaching engine).")
    heads: int = Field(description="Number of heads per layer.")
    rows: int = Field(description="Rows of each map (at most 32; longer sentences are averaged in blocks).")
    cols: int = Field(description="Columns of each map (at most 32).")
    maps: list[list[str]] = Field(
        description="maps[layer][head]: rows x cols weights as bytes 0..255 (weight x 255), base64, row by row."
    )


class ColumnNames(BaseModel):
    vectors: list[str] | None = Field(
        description="Names of the q and k columns (a named head: its questions), or null."
    )
    values: list[str] | None = Field(description="Names of the v columns, or null: d0, d1, ...")
    output: list[str] | None = Field(description="Names of the output's columns (stage 3), or null: d0, d1, ...")


class NamedHeadFacts(BaseModel):
    name: str = Field(description="The named head in focus: sense, pronoun, previous, doer, counterpart, aligned.")
    question: dict[str, str] = Field(description="Its question in words, by language (en, zh).")


class ModelFacts(BaseModel):
    name: str = Field(description="The `model` parameter.")
    label: str = Field(description="The model's name for people.")
    languages: str = Field(description="The languages the model reads, in words.")
    weights: str | None = Field(description="How its weights are stored when not as trained (e5: 4-bit weights).")
    n_layers: int = Field(description="Layers, from the model's own config.")
    n_heads: int = Field(description="Heads per layer, from the model's own config.")
    units: str = Field(description="pieces (the model's word pieces) or words (pieces merged into words).")


class Summaries(BaseModel):
    statistics: dict[str, list[list[float]]] = Field(
        description="Per statistic (entropy in nats; mean attention to the first token, the last token, itself, the "
        "previous and the next token, punctuation), an (n_layers, n_heads) table: one number per head."
    )
    rollout: list[list[float]] = Field(
        description="Attention rollout (Abnar & Zuidema 2020) up to `layer`: (n, n), how much each position draws "
        "on each input token through every path of attention and the residual stream."
    )


class ValueZeroing(BaseModel):
    layer_map: Matrix = Field(
        description="Value zeroing (Mohebbi et al. 2023) of layer `layer`: (n, n), row i the cosine distance between "
        "token i's output of the layer and that output with token j's value vector zeroed in every head (the rest "
        "of the block run again), each row divided by its sum. One map per layer, not per head. With hide_special "
        "the rows are divided again over the shown tokens; with units=words summed over a word's pieces as keys, "
        "averaged as queries."
    )
    rollout: Matrix = Field(
        description="Those maps multiplied from layer 0 up to `layer`, as attention rollout, with no identity added "
        "for the residual: each map already runs the whole block, residual included."
    )


class GuessedRole(BaseModel):
    word: str = Field(description="A word the lexicon lacks, as written.")
    role: str = Field(description="The role guessed for it: noun, verb, adjective, ...")
    how: str = Field(description="The rule that guessed it: a function word, an English ending, jieba's tag.")


class ReadAs(BaseModel):
    word: str = Field(description="A source word with two meanings of one role (bank).")
    sense: str = Field(description="The Chinese word of the meaning its sentence picks (河岸 beside river).")


class Focus(BaseModel):
    auto: bool = Field(description="True when the link names no head: each step shows the head its word asks.")
    head: int = Field(description="The head shown at the current step (from 0).")
    heads: list[int] = Field(description="The head shown at each step.")
    asks: list[int | None] = Field(description="The head whose question each query word asks (null: none applies).")
    names: list[str] | None = Field(description="The named heads' names, in order (null for other projections).")
    notes: list[dict[str, str]] | None = Field(description="Per step, one sentence per language about the head shown.")
    rows: list[list[list[float]]] | None = Field(
        description="(n_heads, n_queries, n_keys) every head's weights (null for long sentences)."
    )


class DecoderSelfAttention(BaseModel):
    keys: list[str] = Field(description="What each step was fed: <s>, then every word produced before it.")
    q: Matrix = Field(description="(n_queries, d_head) each step's query of the decoder's self-attention.")
    k: Matrix = Field(description="(n_queries, d_head) the cached keys: step i reads rows 0..i (one row more a word).")
    v: Matrix = Field(description="(n_queries, d_head) the cached values, likewise.")
    scores: Matrix = Field(description="(n_queries, n_queries) stage 1, 0 above the diagonal (masked).")
    mask: list[list[bool]] = Field(description="(n_queries, n_queries) true on and below the diagonal.")
    weights: Matrix = Field(description="(n_queries, n_queries) stage 2, each row sums to 1 over rows 0..i.")
    output: Matrix = Field(description="(n_queries, d_head) stage 3 of the head.")
    value_norms: Vector = Field(description="(n_queries,) the cached values' ‖v_j W_O[h]‖ (weight × value norm).")


class GoldAlignment(BaseModel):
    target: list[str] = Field(description="The corpus's translation of the sentence.")
    alignment: list[list[int]] = Field(description="For each of its words, the English positions it translates.")


class TranslatorVocabulary(BaseModel):
    source: int = Field(description="English words the model knows (others are read as <unk>).")
    target: int = Field(description="Chinese words it can write.")
    max_source_words: int = Field(description="The most English words a sentence may have.")


class UnknownReplacement(BaseModel):
    position: int = Field(description="The target word's position (its row in `head`), where the model wrote <unk>.")
    source: int | None = Field(
        description="The English position its attention pointed to (the largest weight; transformer-mt: the mean of "
        "the last layer's heads); null for rnnencdec, which has no attention to point with."
    )
    word: str = Field(description="What the output shows in place of <unk>.")
    origin: Literal["dictionary", "english", "none"] = Field(
        description="dictionary: the translators' dictionary's Chinese for that English word (or, for a name it "
        "lacks, or a name that is also a word typed as a name, the Chinese of CC-CEDICT's list of names: chen → 陈, "
        "Mark → 马克); english: the word is in neither and is kept in "
        "English, as the sentence typed it (Lisa; `source` has it as read, lisa); none: no attention, <unk> stays."
    )


class TranslationCheck(BaseModel):
    translates: list[list[int]] = Field(
        description="For each word of `output`, the English positions it translates by the lexicon, the translators' "
        "dictionary or the corpus's own grammar (mt/taught.tsv; a link it taught only beside other words counts "
        "only in a sentence that has one of them, one taught only right before other words only where one of them "
        "follows: go home -> 回): alone or joined with the word beside it."
    )
    content: list[bool] = Field(description="For each word of `output`: a content word (noun, verb, adjective).")
    invented: list[int] = Field(
        description="Positions in `output` of content words that translate no English word of the sentence: the "
        "model wrote them from its grammar, not from the sentence."
    )
    left_out: list[int] = Field(
        description="Positions in `source` of the English words a translation must not lose (nouns, verbs, "
        "adjectives, not be, do, have; a question word that asks; a number from two up, in words or in digits; a name; "
        "a word no dictionary reads) that no word of `output` translates (a word kept in English or in digits "
        "translates itself)."
    )
    coverage: Vector | None = Field(
        description="(n_source,) each English word's column of stage 2 summed over the Chinese words: the attention "
        "it received (the head shown; Tu et al. 2016). Null for rnnencdec, which has no attention."
    )


class RuledOut(BaseModel):
    position: int = Field(
        description="The step whose own first choice was ruled out: a word of `target`, or len(target) for the end "
        "(</s> written instead)."
    )
    word: str = Field(description="The model's own first choice.")
    probability: float = Field(description="Its probability by the model.")
    reason: Literal["made_up", "loop", "left_out"] = Field(
        description="made_up: a content word that translates no English word of the sentence; loop: it would have "
        "written a run of one to three words a third time in a row, or a word other than a verb or <unk> twice in a "
        "row; left_out: </s>, while English words the check "
        "weighs were left out (the end guard: the words after it translated one of them)."
    )
    left_out: list[str] = Field(
        default_factory=list,
        description="Where the end guard ruled </s> out (the first choice, with left_out; or the likeliest candidate "
        "after a first choice ruled out): the English words the translation would have left out.",
    )


class LikeliestTranslation(BaseModel):
    output: list[str] = Field(description="What a reader would have seen (every <unk> replaced).")
    log_probability: float = Field(description="Its log-probability, </s> included.")
    left_out: list[str] = Field(description="The English words it leaves out, by the check.")


class TranslationFacts(BaseModel):
    decoding: Literal["greedy", "beam", "forced"] = Field(
        description="greedy or beam: the model translated (empty Target); forced: it was made to produce the Target."
    )
    beam: int = Field(description="The beam width (1: greedy or forced).")
    candidates: Literal["dictionary", "all"] = Field(
        description="dictionary: each word was chosen among the candidate list (no made-up content word); all: among "
        "every word the model knows (always all for forced decoding)."
    )
    ruled_out: list[RuledOut] = Field(
        description="The steps where the candidate list ruled out the model's own first choice, with that choice."
    )
    source: list[str] = Field(
        description="The English words as the model read them (lower case; a contraction the corpus never writes in "
        "full: i'm → i am, it's → it is, can't → can not; a number of one word in words, 3 → three, one of two "
        "words in digits, twenty-one → 21), except a name that is also a word, kept as typed where the "
        "sentence shows it is a name (a first name typed with a capital, not first in its sentence; a surname so "
        "typed after Mr, Mrs, Ms, Miss, Dr or a first name): Grace, Brown; and a name of several words typed with "
        "capitals, read as one word: New York. Such a name is read as <unk:noun>, never as the word. An -ing word "
        "that is also a noun of its own, after a determiner (and adjectives), is read as the noun, marked: the "
        "meeting → 'meeting (noun)', read as <unk:noun> and written with the noun's Chinese (会议), not the "
        "verb's (见面)."
    )
    unknown_source: list[str] = Field(description="English words outside its vocabulary, read as <unk>.")
    unknown_read_as: list[str] = Field(
        description="The typed <unk> each word of `unknown_source` is read as, by its role and form in the "
        "translators' dictionary (caught → <unk:verb-ed>; a word in no dictionary: by its ending)."
    )
    unknown_target: list[str] = Field(description="Target words outside its vocabulary (forced decoding).")
    vocabulary: TranslatorVocabulary = Field(description="The model's vocabulary and limits.")
    target: list[str] = Field(description="The Chinese words produced (or given), without </s>.")
    output: list[str] = Field(
        description="The translation as a reader sees it: `target` with each <unk> replaced (see `replaced`). `check` "
        "reads it with a word kept in English as read (lower case), as the model reads it."
    )
    check: TranslationCheck = Field(
        description="The output checked word by word against the dictionary (app/engine/models/mt_check.py): what "
        "each word translates, what was made up, what was left out, and each English word's attention."
    )
    replaced: list[UnknownReplacement] = Field(
        description="Each <unk> the model wrote, and what stands in its place: the dictionary's word for the English "
        "word its attention pointed to (Luong et al. 2015). Empty for forced decoding."
    )
    probabilities: Vector = Field(description="Each word's probability given the words before it.")
    end_probability: float | None = Field(
        description="The probability of </s> after the last word (null: the decoder reached the word limit first)."
    )
    log_probability: float = Field(description="The log-probability of the whole target, </s> included.")
    likeliest: LikeliestTranslation | None = Field(
        None,
        description="Beam search: its likeliest finished translation, when the end guard chose another that leaves "
        "fewer English words out (null otherwise, and for greedy decoding).",
    )
    learned_alignment: list[int] | None = Field(
        description="For each word, the English position with the largest weight of the head shown (null: rnnencdec)."
    )
    gold: GoldAlignment | None = Field(description="The corpus's translation and word alignment, where known.")
    context_vector: Vector | None = Field(description="rnnencdec: the one context vector C every step reads.")
    self_attention: DecoderSelfAttention | None = Field(
        description="transformer-mt: the decoder's masked self-attention of the layer and head shown."
    )
    leave_one_out: Matrix | None = Field(
        None,
        description="(n_queries, n_source) for each word (the rows of `head`), the drop in its probability when each "
        "English word in turn is read as <unk>, the same Chinese words forced: p(y_i | x) - p(y_i | x without x_j). "
        "Positive: the word helped; 0 for a word already unknown. Null unless asked (attribution=leave-one-out).",
    )


class GeometryLines(BaseModel):
    step: int = Field(description="The query step whose lines these are (`step`).")
    dots: Vector | None = Field(
        description="(n_keys,) q·k of the current query with each key, in full (every d_k number); null for an "
        "additive score (rnnsearch), which adds W1 s and W2 h instead of multiplying q and k."
    )
    scores: Vector | None = Field(description="(n_keys,) stage 1: each key's score (scaled_dot: q·k/√d_k).")
    weights: Vector | None = Field(description="(n_keys,) stage 2: each key's weight, the width of its line.")
    mask: list[bool] | None = Field(
        description="(n_keys,) true where the query may see the key. In a sentence view's answer these three and "
        "`dots` (when the arithmetic's) are null: the head's rows at `step`."
    )


class Geometry(BaseModel):
    plane: Literal["qk", "embedding"] = Field(
        description="qk: the head's queries and keys; embedding (named heads, `plane`): the word vectors before "
        "W_Q and W_K."
    )
    method: Literal["exact", "features", "pca", "inputs"] = Field(
        description="exact: vectors 1 or 2 wide, drawn as they are; features: a named head's two question dimensions "
        "that carry the most of its choice between keys; pca: the two principal components of the queries and keys "
        "together; inputs: the two input features the head's chosen dimensions read most."
    )
    axes: list[str] = Field(description="The two axes' names: features, question dimensions, d0 d1, or PC1 PC2.")
    basis: Matrix = Field(description="(2, d) the plane's unit directions in the space of the vectors drawn.")
    center: Vector = Field(description="(d,) the point drawn at (0, 0): the mean for pca, zero otherwise.")
    retained: float = Field(
        description="Share (0..1) of the vectors' squared distances from `center` that the plane keeps (pca: the "
        "share of variance); 1 for exact."
    )
    score_share: float | None = Field(
        description="features: the two axes' share of the head's choice between keys (sum of |q_d| |k_d - mean k_d|)."
    )
    queries: Matrix = Field(description="(n_queries, 2) each query's point: (vector - center) · basisᵀ.")
    keys: Matrix = Field(description="(n_keys, 2) each key's point, in the same plane.")
    stretch: float = Field(description="The `stretch` the queries and keys were multiplied by.")
    lines: GeometryLines = Field(description="The current query's line to every key.")


class FixedReference(BaseModel):
    href: str = Field(
        description="GET it once (immutable: the URL carries the sha256 of its bytes): every head's matrices and "
        "names at this view's settings. This answer's `features`, `names`, `named_head`, `head_note`, `parameters` "
        "and `head.parameters` are null; they are the resource's `features` and `parameters`, and of "
        "`heads[focus.head]`: `names`, `name` and `question`, `note`, `parameters`. The answer also leaves out (null) "
        "what it would say twice: `embeddings.keys` (the queries'), `head.v` (the keys' vectors), `head.weights` "
        "(`focus.rows[focus.head]`), the arithmetic's q, k, mask, scores, weights, output (the head's rows at its "
        "step) and weighted_values (weights[j] × v[j]), and the geometry's lines (the same rows; dots: the "
        "arithmetic's). app/view/fixed.py's whole_view puts them back, as the page does."
    )


def no_names() -> dict[str, None]:
    """Columns without names (the page writes d0, d1, ...)."""
    return {"vectors": None, "values": None, "output": None}


@dataclass(kw_only=True)
class Answer:
    """One view: every field in every mode, null (or empty) where the mode has none."""

    # Every field is in every answer: the schema lists those with a default as required too (they are sent).
    __pydantic_config__ = ConfigDict(json_schema_serialization_defaults_required=True)

    params: Annotated[dict[str, Any], Field(description="The canonical parameters, defaults filled in.")]
    share_path: Annotated[
        str, Field(description="The canonical link to this view (the page); /api/attention takes its query.")
    ]
    query: Annotated[str, Field(description="The canonical query string of what is computed, without the view state.")]
    mode: Annotated[
        Literal["self", "cross", "exercise", "model", "translate"],
        Field(
            description="self: one sentence; cross: target words query source words; exercise: hand-typed q, k, v; "
            "model: a real pretrained model; translate: a trained English→Chinese translator (queries: its Chinese "
            "words)."
        ),
    ]
    model: Annotated[
        ModelFacts | None, Field(description="Real models and translators: which model, and its shape.")
    ] = None
    tokens: Annotated[Tokens, Field(description="The row (query) and column (key) labels.")]
    unknown_tokens: Annotated[list[str], Field(description="Words the lexicon (or the model's vocabulary) lacks.")] = (
        field(default_factory=list)
    )
    guessed_roles: Annotated[
        list[GuessedRole], Field(description="Roles guessed for words the lexicon lacks, and how.")
    ] = field(default_factory=list)
    read_as: Annotated[
        list[ReadAs],
        Field(
            description="Encoder-decoder: source words with two meanings, read with the meaning their sentence picks."
        ),
    ] = field(default_factory=list)
    features: Annotated[
        list[str] | None,
        Field(description="Names of the lexicon's feature dimensions, or null (and null when `fixed` holds them)."),
    ] = None
    embeddings: Annotated[
        Embeddings | None, Field(description="The input vectors (null in the exercise and for models).")
    ] = None
    d_model: Annotated[int, Field(description="Width of the input vectors.")]
    d_k: Annotated[int, Field(description="Width of each head's queries and keys.")]
    n_heads: Annotated[int, Field(description="Number of heads (per layer).")]
    focus: Annotated[Focus | None, Field(description="The teaching engine: which head each step shows, and why.")] = (
        None
    )
    names: Annotated[
        ColumnNames | None,
        Field(description="Names of the head's columns, where they have names (null when `fixed` holds them)."),
    ] = field(default_factory=no_names)
    named_head: Annotated[NamedHeadFacts | None, Field(description="projection=named: the question the head asks.")] = (
        None
    )
    head_note: Annotated[
        dict[str, str] | None, Field(description="One sentence about the head in focus, by language.")
    ] = None
    head: Annotated[
        Head, Field(description="The head in focus (`head`, of layer `layer` for models): its three stages.")
    ]
    attribution: Annotated[
        Attribution | None,
        Field(
            description="Beside the weights, what each key contributes (weight × value norm, Kobayashi et al. "
            "2020): the head in focus's value norms, and with attribution=norm every α_ij ‖v_j W_O[h]‖ "
            "(null for rnnencdec, which has no attention)."
        ),
    ] = None
    arithmetic: Annotated[
        Arithmetic | None,
        Field(
            description="Every number of the current step (`step`) of that head (null for a real model's word units "
            "and for rnnencdec)."
        ),
    ]
    output: Annotated[
        Matrix | None,
        Field(
            description="(n_queries, d_model) every head's output concatenated and projected by W_O (null for models)."
        ),
    ] = None
    parameters: Annotated[
        dict[str, Matrix] | None,
        Field(
            description="Parameters shared by the heads: W_O. Empty for the named heads, whose W_O averages them: "
            "`output` is the mean of the heads' outputs (null when `fixed` holds them)."
        ),
    ] = field(default_factory=dict)
    overview: Annotated[
        Overview | None, Field(description="A small weight map of every layer and head (several heads only).")
    ] = None
    geometry: Annotated[
        Geometry | None,
        Field(
            description="The head in focus's queries and keys as points in one plane, and the current query's lines "
            "(rnnsearch: the two terms of its additive score, W1 s and W2 h). Null for rnnencdec, which has no "
            "attention."
        ),
    ] = None
    summaries: Annotated[Summaries | None, Field(description="Real models: the whole model summarised.")] = None
    value_zeroing: Annotated[
        ValueZeroing | None,
        Field(description="Real models, when the link asks (attribution=zeroing): value zeroing's map and rollout."),
    ] = None
    translation: Annotated[TranslationFacts | None, Field(description="Translators: what was decoded, and how.")] = None
    sentence_embedding: Annotated[
        list[float] | None,
        Field(
            description="Real models: the mean-pooled, L2-normalised last hidden state, as the model's reference does."
        ),
    ] = None

    fixed: Annotated[
        FixedReference | None,
        Field(
            description="A sentence view of the teaching engine, as the JSON API sends it: what every sentence at its "
            "settings shares, sent once (app/view/fixed.py). Null in every other answer and in the page's own data."
        ),
    ] = None

    def as_dict(self) -> dict[str, Any]:
        """The fields in their declared order, the values as they are (dataclasses.asdict would copy every array)."""
        return dict(self.__dict__)
