"""JSON bytes for responses, with orjson.

numpy arrays and scalars go straight to orjson (OPT_SERIALIZE_NUMPY), which is far faster than
turning nested float lists into JSON in Python; orjson walks the dicts and lists itself and asks
`as_json_array` only for the arrays it cannot write as they are (a slice that is not contiguous, an
integer dtype of the engine). Every number is written in the shortest form that reads back exactly,
in the precision it was computed in: the teaching engine's float64 keeps every significant digit
(tiny weights like 3.7e-44 too), the real models' float32 values are written as float32
(0.33333334, not 0.3333333432674408: half the bytes, no digit the model did not compute). The same
bytes in every process.
"""

from typing import Any

import numpy as np
import orjson
from fastapi.responses import Response


def as_json_array(value: Any) -> Any:
    """An array orjson cannot write as it is: a contiguous bool, float32 (computed so) or float64 copy."""
    if isinstance(value, np.ndarray):
        if value.dtype in (np.bool_, np.float32):
            return np.ascontiguousarray(value)
        return np.ascontiguousarray(value, dtype=np.float64)
    raise TypeError(f"not JSON: {type(value).__name__}")


def dumps(value: Any) -> bytes:
    return orjson.dumps(value, default=as_json_array, option=orjson.OPT_SERIALIZE_NUMPY)


class JSONBytes(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return content if isinstance(content, bytes) else dumps(content)
