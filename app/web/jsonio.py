"""JSON bytes for responses, with orjson.

numpy arrays go straight to orjson (OPT_SERIALIZE_NUMPY), which is far faster than turning
nested float lists into JSON in Python. Every number is written in the shortest form that reads back
exactly, in the precision it was computed in: the teaching engine's float64 keeps every significant
digit (tiny weights like 3.7e-44 too), the real models' float32 arrays are written as float32
(0.33333334, not 0.3333333432674408: half the bytes, no digit the model did not compute). The same
bytes in every process.
"""

from typing import Any

import numpy as np
import orjson
from fastapi.responses import Response


def prepare(value: Any) -> Any:
    """numpy arrays as contiguous bool, float32 (computed so) or float64 arrays; dicts and lists walked."""
    if isinstance(value, np.ndarray):
        if value.dtype in (np.bool_, np.float32):
            return np.ascontiguousarray(value)
        return np.ascontiguousarray(value, dtype=np.float64)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, dict):
        return {key: prepare(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [prepare(item) for item in value]
    return value


def dumps(value: Any) -> bytes:
    return orjson.dumps(prepare(value), option=orjson.OPT_SERIALIZE_NUMPY)


class JSONBytes(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return content if isinstance(content, bytes) else dumps(content)
