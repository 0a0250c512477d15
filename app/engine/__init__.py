"""The engine: pure numpy, no web imports.

- ``attention/``  the three stages, masks, multi-head attention (the textbook part)
- ``text/``       sentences to tokens to vectors (tokenizer, the bilingual lexicon, hashed and positional vectors)
- ``models/``     real pretrained Transformers run in numpy through the same stage functions
"""
