"""Split a sentence into tokens, keeping the original spelling for display.

English: words (letters, digits, apostrophes, inner hyphens) and single punctuation marks.
Chinese: a run of Chinese characters is segmented into words with jieba, unless the user
already put spaces between Chinese words ("汤姆 追逐 杰瑞"): then the user's spaces are kept.
Mixed sentences work: each run is handled by its own rule.
"""

import functools
import logging
import re
import threading
from dataclasses import dataclass

import jieba

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{CJK}]+|[^\W_]+(?:['’\-][^\W_]+)*|\S", re.UNICODE)
_SPACED_CHINESE = re.compile(rf"[{CJK}]\s+[{CJK}]")
_CHINESE_RUN = re.compile(rf"[{CJK}]+")
_WORD = re.compile(r"[^\W_]", re.UNICODE)


@dataclass(frozen=True)
class Token:
    text: str  # as the user wrote it, shown on the axes
    key: str  # lookup form: lower-case

    @property
    def is_word(self):
        return bool(_WORD.match(self.text))


_segmenter = None
_segmenter_lock = threading.Lock()


def chinese_segmenter():
    """One jieba tokenizer per process, taught the lexicon's Chinese words so they stay whole."""
    global _segmenter
    with _segmenter_lock:
        if _segmenter is None:
            from app.engine.text.lexicon import load_lexicon

            jieba.setLogLevel(logging.WARNING)
            segmenter = jieba.Tokenizer()
            segmenter.initialize()
            for word in sorted(load_lexicon().chinese_words):
                segmenter.add_word(word, freq=100_000)
            _segmenter = segmenter
    return _segmenter


def lexicon_split(word):
    """A jieba word the lexicon lacks but can spell from its own words (我爱你 -> 我/爱/你); else the word.

    Dynamic programming over the characters, preferring the fewest pieces.
    """
    from app.engine.text.lexicon import load_lexicon

    known = load_lexicon().chinese_words
    if word in known:
        return [word]
    best = [None] * (len(word) + 1)  # best[i]: fewest lexicon words spelling word[:i]
    best[0] = []
    for end in range(1, len(word) + 1):
        for start in range(max(0, end - 6), end):
            if best[start] is not None and word[start:end] in known:
                candidate = best[start] + [word[start:end]]
                if best[end] is None or len(candidate) < len(best[end]):
                    best[end] = candidate
    return best[-1] if best[-1] else [word]


def word_spans(text: str, split_by_lexicon: bool = True) -> list[tuple[int, int]]:
    """Character spans (start, end) of the words of a sentence, in order, by the rules above.

    ``split_by_lexicon``: also split a jieba word the lexicon can spell from its own words (the toy
    engine's vectors need that); the real models' word view keeps jieba's words whole.
    """
    keep_user_spaces = bool(_SPACED_CHINESE.search(text))
    spans = []
    for match in _TOKEN.finditer(text):
        piece, start = match.group(), match.start()
        if _CHINESE_RUN.fullmatch(piece) and not keep_user_spaces and len(piece) > 1:
            for word in chinese_segmenter().cut(piece, HMM=True):
                for part in lexicon_split(word) if split_by_lexicon else [word]:
                    spans.append((start, start + len(part)))
                    start += len(part)
        else:
            spans.append((start, match.end()))
    return spans


@functools.lru_cache(maxsize=512)
def tokenize(text):
    """The tokens of a sentence, in order (a tuple: cached, since validation counts them and compute uses them)."""
    return tuple(Token(text[start:end], text[start:end].lower()) for start, end in word_spans(text))
