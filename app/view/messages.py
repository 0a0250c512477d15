"""Validation messages for people, in English and Chinese.

Every error has a ``type`` (pydantic's own, like ``greater_than_equal``, or one of ours, like
``heads_divide``) and a context of numbers and names; the message is written from them in the
reader's language. The API keeps ``loc`` and ``type`` the same in both languages, so programs can
read the error whatever the language.
"""

from __future__ import annotations

from typing import Any

from app.view.i18n import check_same_words

MODE_NAMES = {
    "en": {
        "self": "self-attention",
        "cross": "encoder–decoder attention",
        "exercise": "the exercise (q, k, v)",
        "model": "real models",
        "translate": "the trained translators",
    },
    "zh": {
        "self": "自注意力",
        "cross": "编码器–解码器注意力",
        "exercise": "练习（q、k、v）",
        "model": "真实模型",
        "translate": "训练好的翻译模型",
    },
}

TEMPLATES: dict[str, dict[str, str]] = {
    "en": {
        # pydantic's own error types (the ones a link or a JSON body can cause)
        "greater_than_equal": "must be at least {ge}",
        "less_than_equal": "must be at most {le}",
        "greater_than": "must be more than {gt}",
        "less_than": "must be less than {lt}",
        "int_parsing": "must be a whole number",
        "int_parsing_size": "must be a whole number of a sensible size",
        "int_from_float": "must be a whole number",
        "int_type": "must be a whole number",
        "float_parsing": "must be a number",
        "float_type": "must be a number",
        "finite_number": "must be a finite number",
        "bool_parsing": "must be true or false",
        "bool_type": "must be true or false",
        "literal_error": "must be one of: {expected}",
        "string_type": "must be text",
        "string_too_long": "at most {max_length} characters",
        "too_long": "at most {max_length} items",
        "list_type": "must be a list",
        "tuple_type": "must be a list",
        "extra_forbidden": "unknown parameter (known: {known})",
        "unknown_parameter": "unknown parameter",
        "model_attributes_type": "the body must be a JSON object (Content-Type: application/json)",
        "dict_type": "the body must be a JSON object (Content-Type: application/json)",
        "model_type": "the body must be a JSON object (Content-Type: application/json)",
        "json_invalid": "not readable as JSON: UTF-8 text, sensible nesting and numbers",
        "missing": "is required",
        # ours
        "given_twice": "given more than once",
        "not_a_choice": "must be one of: {expected}",
        "control_character": "control character {character} is not allowed",
        "lone_surrogate": "lone surrogate {character} is not allowed (not valid Unicode text)",
        "too_many_characters": "at most {limit} characters (got {count})",
        "empty_sentence": "must not be empty",
        "too_many_tokens": "at most {limit} words (got {count})",
        "too_many_pieces": "at most {limit} word pieces for {model} (this sentence has {count})",
        "zeroing_pieces": "value zeroing takes at most {limit} word pieces (this sentence has {count})",
        "applies_to": "applies to {modes} only",
        "requires": "applies only when {other} is {values}",
        "choice_requires": "{value} needs {other} to be {values}",
        "choice_not_in_mode": "{value} is not available in {mode}",
        "matrix_number": "row {row} has something that is not a number: {text}",
        "matrix_empty": "needs at least one row",
        "matrix_rows": "at most {limit} rows (got {count})",
        "matrix_ragged": "every row needs the same number of columns (got {widths})",
        "matrix_columns": "1 to {limit} columns (got {count})",
        "matrix_entries": "entries must be finite numbers with |x| <= {limit}",
        "exercise_needs": "the exercise needs q, k and v ({missing} missing)",
        "exercise_without_q": "k, v and labels belong to the exercise: give q too",
        "key_columns": "keys need as many columns as queries ({expected}, got {count})",
        "value_rows": "one value row per key ({expected}, got {count})",
        "causal_square": "the causal mask needs as many queries as keys",
        "label_count": "one name per row ({expected}, got {count})",
        "label_text": "each name needs at least one character and no comma (commas separate them)",
        "heads_divide": "{heads} heads do not divide the width {dim}",
        "named_heads_count": "{mode} attention has {count} named heads",
        "head_range": "must be less than the number of heads ({count})",
        "layer_range": "{model} has {count} layers (0 to {last})",
        "exercise_model": "the exercise uses the teaching engine: leave model at toy",
        "view_too_large": "at most {limit} bytes",
        "too_many_words": "{model} translates at most {limit} English words (got {count}; i'm, it's … count as two)",
        "no_english_words": "the translators read English words; none found",
        "too_many_target_words": "at most {limit} Chinese words, separated by spaces (got {count})",
    },
    "zh": {
        "greater_than_equal": "不能小于 {ge}",
        "less_than_equal": "不能大于 {le}",
        "greater_than": "必须大于 {gt}",
        "less_than": "必须小于 {lt}",
        "int_parsing": "必须是整数",
        "int_parsing_size": "必须是大小合理的整数",
        "int_from_float": "必须是整数",
        "int_type": "必须是整数",
        "float_parsing": "必须是数字",
        "float_type": "必须是数字",
        "finite_number": "必须是有限的数字",
        "bool_parsing": "必须是 true 或 false",
        "bool_type": "必须是 true 或 false",
        "literal_error": "必须是以下之一：{expected}",
        "string_type": "必须是文本",
        "string_too_long": "最多 {max_length} 个字符",
        "too_long": "最多 {max_length} 项",
        "list_type": "必须是列表",
        "tuple_type": "必须是列表",
        "extra_forbidden": "未知参数（已知参数：{known}）",
        "unknown_parameter": "未知参数",
        "model_attributes_type": "请求体必须是 JSON 对象（Content-Type: application/json）",
        "dict_type": "请求体必须是 JSON 对象（Content-Type: application/json）",
        "model_type": "请求体必须是 JSON 对象（Content-Type: application/json）",
        "json_invalid": "无法按 JSON 读取：需要 UTF-8 文本、合理的嵌套和数字",
        "missing": "必须提供",
        "given_twice": "出现了不止一次",
        "not_a_choice": "必须是以下之一：{expected}",
        "control_character": "不允许控制字符 {character}",
        "lone_surrogate": "不允许孤立的代理字符 {character}（不是有效的 Unicode 文本）",
        "too_many_characters": "最多 {limit} 个字符（现在 {count} 个）",
        "empty_sentence": "不能为空",
        "too_many_tokens": "最多 {limit} 个词（现在 {count} 个）",
        "too_many_pieces": "{model} 最多读 {limit} 个词片（这个句子有 {count} 个）",
        "zeroing_pieces": "值置零最多算 {limit} 个词片（这个句子有 {count} 个）",
        "applies_to": "只适用于{modes}",
        "requires": "只在 {other} 为 {values} 时适用",
        "choice_requires": "{value} 要求 {other} 为 {values}",
        "choice_not_in_mode": "{value} 在{mode}中不可用",
        "matrix_number": "第 {row} 行有不是数字的内容：{text}",
        "matrix_empty": "至少需要一行",
        "matrix_rows": "最多 {limit} 行（现在 {count} 行）",
        "matrix_ragged": "每一行的列数必须相同（现在是 {widths}）",
        "matrix_columns": "列数必须在 1 到 {limit} 之间（现在 {count} 列）",
        "matrix_entries": "每个数必须是有限的，且 |x| <= {limit}",
        "exercise_needs": "练习需要 q、k 和 v（缺少 {missing}）",
        "exercise_without_q": "k、v 和名称属于练习：也请给出 q",
        "key_columns": "键的列数必须和查询相同（应为 {expected}，现在 {count}）",
        "value_rows": "每个键对应一行值（应为 {expected}，现在 {count}）",
        "causal_square": "因果掩码需要查询和键一样多",
        "label_count": "每行一个名称（应为 {expected}，现在 {count}）",
        "label_text": "每个名称至少一个字符，且不能含逗号（逗号用来分隔名称）",
        "heads_divide": "{heads} 个头不能整除宽度 {dim}",
        "named_heads_count": "{mode} 注意力有 {count} 个命名头",
        "head_range": "必须小于头数（{count}）",
        "layer_range": "{model} 有 {count} 层（0 到 {last}）",
        "exercise_model": "练习使用教学引擎：model 请保持为 toy",
        "view_too_large": "最多 {limit} 字节",
        "too_many_words": "{model} 最多翻译 {limit} 个英文词（现在 {count} 个；i'm、it's 这样的缩写算两个词）",
        "no_english_words": "翻译模型读英文词；这里没有英文词",
        "too_many_target_words": "最多 {limit} 个中文词，用空格分开（现在 {count} 个）",
    },
}
check_same_words("TEMPLATES", TEMPLATES)

SEPARATOR = {"en": ", ", "zh": "、"}
OR = {"en": " or ", "zh": "或"}


def _words(value: Any, lang: str) -> str:
    if isinstance(value, (list, tuple)):
        return SEPARATOR[lang].join(_words(item, lang) for item in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # a bound of 20.0 reads "20"
    return str(value)


def render(error_type: str, context: dict[str, Any] | None, lang: str, fallback: str) -> str:
    """The message for an error of `error_type`, in `lang` ("en" or "zh")."""
    template = TEMPLATES.get(lang, TEMPLATES["en"]).get(error_type)
    if template is None:
        return fallback
    context = dict(context or {})
    if "modes" in context:
        context["modes"] = OR[lang].join(MODE_NAMES[lang][mode] for mode in context["modes"])
    if "mode" in context:
        context["mode"] = MODE_NAMES[lang].get(context["mode"], context["mode"])
    words = {name: _words(value, lang) for name, value in context.items()}
    try:
        return template.format(**words)
    except (KeyError, IndexError):
        return fallback
