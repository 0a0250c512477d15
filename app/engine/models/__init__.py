"""The pretrained transformer (all-MiniLM-L6-v2) computed in pure numpy.

Entry point: ``get_model()`` (loads and verifies once per process, raises ``ModelUnavailable``).
"""

from .minilm import Encoding, MiniLM, ModelRun, ModelUnavailable, get_model

__all__ = ["Encoding", "MiniLM", "ModelRun", "ModelUnavailable", "get_model"]
