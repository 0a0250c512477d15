"""Text to vectors: split a sentence into tokens, then give every token a vector.

- ``tokenize.py``   English words and punctuation; Chinese segmented with jieba unless the user spaced it.
- ``lexicon.py``    the curated bilingual lexicon (``lexicon.tsv``) with 16 named features.
- ``embed.py``      token -> vector: lexicon, or the hashed random baseline; optional positions.
"""
