"""The real pretrained transformers, computed in pure numpy.

Entry point: ``registry.get_model(name)`` for name in ``MODEL_NAMES`` ("minilm", "e5"): loads and
verifies once per process, raises ``ModelUnavailable``.
"""

from .base import EncoderModel, Encoding, ModelRun, ModelUnavailable
from .minilm import MiniLM
from .registry import MODEL_NAMES

__all__ = ["MODEL_NAMES", "Encoding", "EncoderModel", "MiniLM", "ModelRun", "ModelUnavailable"]
