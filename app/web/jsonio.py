"""JSON bytes for responses, with orjson.

numpy arrays go straight to orjson (OPT_SERIALIZE_NUMPY), which is far faster than turning
nested float lists into JSON in Python. Floats travel as float64, written in the shortest form
that reads back exactly: every significant digit, even for tiny weights like 3.7e-44 that float32
would flush to a handful of digits, and the same bytes in every process.
"""

from typing import Any

import numpy as np
import orjson
from fastapi.responses import Response


def prepare(value: Any) -> Any:
    """numpy arrays as contiguous float64 (numbers) or bool arrays; dicts and lists walked."""
    if isinstance(value, np.ndarray):
        if value.dtype == bool:
            return np.ascontiguousarray(value)
        return np.ascontiguousarray(value, dtype=np.float64)
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
