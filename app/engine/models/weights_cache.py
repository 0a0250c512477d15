"""The models' weights as the forward pass uses them, written once to a file every worker maps read-only.

Loading a model from its package costs time and memory in every worker: 90 MB read and hashed for MiniLM,
72 MB read, hashed and dequantised for e5, each worker keeping its own float32 copy. The first worker to
load a model writes the arrays it made (``encoder.BertParams``: the arranged float32 matrices, e5's 4-bit
word-embedding blocks, e5's vocabulary) to one file; every later load, in any worker, maps that file
(``np.memmap``, read-only): no copy, the operating system keeps one copy of its pages for all the workers
(PSS counts a shared page once across them), and the numbers are the very float32 numbers the package
load makes, so every answer is bit for bit the same.

A cache file is never stale and never damaged unnoticed:

* its name carries the sha256 of the package file it was made from (the pinned one, verified while
  making it) and this format's version: another model file or another layout is another name;
* it carries the sha256 of its own contents, checked on every load (reading, not mapping: the pages go
  to the page cache every worker shares, not into this worker's memory), and its exact size;
* it is written to a temporary file in the same folder and renamed into place: a reader sees a whole
  file or none; two workers writing at once both rename a whole file of the same bytes.

Layout: ``MAGIC``, the header's length (u64, little-endian), the header (JSON: each array's dtype,
shape and offset; the model's own facts; the data's sha256), then each array, 64-byte aligned.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import struct
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from . import encoder

FORMAT = 1  # bump when the layout or the arrays' arrangement changes: old files are then never read
MAGIC = b"LENSW001"
ALIGN = 64

log = logging.getLogger(__name__)


class CacheUnusable(Exception):
    """The cache file is missing, damaged or not this format: load from the package instead."""


def aligned(offset: int) -> int:
    """The first multiple of ALIGN at or after offset."""
    return -(-offset // ALIGN) * ALIGN


def data_start(header_bytes: int) -> int:
    """Where the data section begins: after MAGIC, the header's length and the header, aligned."""
    return aligned(len(MAGIC) + 8 + header_bytes)


def file_name(model: str, source_sha256: str) -> str:
    return f"{model}-{source_sha256[:32]}-v{FORMAT}.weights"


# --------------------------------------------------------------------------- params <-> arrays


NOT_TOP_ARRAYS = ("config", "word_emb", "layers", "mapped_from")  # BertParams' fields that are no plain array


def params_arrays(params: encoder.BertParams) -> dict[str, np.ndarray]:
    """Every array of the parameters under a flat name (the word-embedding table left to the caller)."""
    arrays = {f.name: getattr(params, f.name) for f in dataclasses.fields(params) if f.name not in NOT_TOP_ARRAYS}
    for i, layer in enumerate(params.layers):
        for f in dataclasses.fields(layer):
            arrays[f"layers.{i}.{f.name}"] = getattr(layer, f.name)
    return arrays


def layers_from_arrays(arrays: dict[str, np.ndarray], config: encoder.BertConfig) -> tuple[encoder.LayerParams, ...]:
    """The encoder's layers back from ``params_arrays``'s names (views into the mapped file, not copies)."""
    layer_fields = [f.name for f in dataclasses.fields(encoder.LayerParams)]
    return tuple(
        encoder.LayerParams(**{name: arrays[f"layers.{i}.{name}"] for name in layer_fields})
        for i in range(config.n_layers)
    )


def params_from_arrays(
    arrays: dict[str, np.ndarray], config: encoder.BertConfig, word_emb: encoder.EmbeddingRows, path: Path
) -> encoder.BertParams:
    """The parameters back from ``params_arrays``'s names (views into the mapped file ``path``, not copies)."""
    top = {f.name: arrays[f.name] for f in dataclasses.fields(encoder.BertParams) if f.name not in NOT_TOP_ARRAYS}
    layers = layers_from_arrays(arrays, config)
    mapped_from = encoder.MappedFile(str(path), layers)
    return encoder.BertParams(config=config, word_emb=word_emb, layers=layers, mapped_from=mapped_from, **top)


def config_facts(config: encoder.BertConfig) -> dict[str, Any]:
    return dataclasses.asdict(config)


def config_from_facts(facts: dict[str, Any]) -> encoder.BertConfig:
    return encoder.BertConfig(**facts)


# --------------------------------------------------------------------------- the file


def write(path: Path, arrays: dict[str, np.ndarray], facts: dict[str, Any]) -> None:
    """Write the arrays and facts to ``path`` atomically (a temporary file in the same folder, renamed)."""
    entries, offset = {}, 0
    for name, array in arrays.items():
        offset = aligned(offset)
        entries[name] = {"dtype": array.dtype.str, "shape": list(array.shape), "offset": offset}
        offset += array.nbytes
    data_bytes = offset
    digest = hashlib.sha256()  # of the data section as written: each array after its padding
    for _ in _data_pieces(arrays, entries, digest.update):
        pass
    header = json.dumps(
        {"format": FORMAT, "arrays": entries, "facts": facts, "data_bytes": data_bytes, "sha256": digest.hexdigest()},
        sort_keys=True,
    ).encode("utf-8")
    start = data_start(len(header))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + struct.pack("<Q", len(header)) + header)
            f.write(b"\0" * (start - f.tell()))
            for _ in _data_pieces(arrays, entries, f.write):
                pass
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _data_pieces(arrays: dict[str, np.ndarray], entries: dict[str, dict], sink: Any) -> Any:
    """Each array's padding then its bytes, in order, handed to ``sink`` (the data section, from offset 0)."""
    position = 0
    for name, array in arrays.items():
        padding = entries[name]["offset"] - position
        sink(b"\0" * padding)
        data = np.ascontiguousarray(array).data.cast("B")
        sink(data)
        position += padding + len(data)
        yield name


def read(path: Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays (read-only views of the mapped file) and facts; raises CacheUnusable."""
    try:
        with open(path, "rb") as f:
            start_bytes = f.read(len(MAGIC) + 8)
            if len(start_bytes) != len(MAGIC) + 8 or start_bytes[: len(MAGIC)] != MAGIC:
                raise CacheUnusable("not a weights cache of this format")
            (header_len,) = struct.unpack("<Q", start_bytes[len(MAGIC) :])
            if header_len > 1 << 24:
                raise CacheUnusable("header too long")
            header = json.loads(f.read(header_len))
            start = data_start(header_len)
            size = os.fstat(f.fileno()).st_size
            if header.get("format") != FORMAT or size != start + header["data_bytes"]:
                raise CacheUnusable("another format, or the file is cut short")
            f.seek(start)
            if hashlib.file_digest(f, "sha256").hexdigest() != header["sha256"]:
                raise CacheUnusable("its contents fail their sha256 check")
    except FileNotFoundError:
        raise CacheUnusable("no cache file yet") from None
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise CacheUnusable(f"unreadable ({type(e).__name__})") from None
    mapped = np.memmap(path, dtype=np.uint8, mode="r")  # (file bytes,) read-only, shared with every worker
    arrays = {}
    for name, entry in header["arrays"].items():
        dtype = np.dtype(entry["dtype"])
        count = int(np.prod(entry["shape"], dtype=np.int64))
        first = start + entry["offset"]
        view = mapped[first : first + count * dtype.itemsize].view(dtype).reshape(entry["shape"])
        arrays[name] = np.asarray(view)  # an ndarray over the map (no copy), not writeable
    return arrays, header["facts"]


def load_or_make(
    directory: Path | None, model: str, source_sha256: str, make: Any, from_cache: Any, to_cache: Any
) -> Any:
    """The model from its cache file when there is a good one, else ``make()`` (from the package), which is then
    written to the cache for the next load. ``from_cache(arrays, facts, path)`` builds the model from a cache's
    contents; ``to_cache(model)`` gives (arrays, facts). ``directory`` None: no cache at all."""
    if directory is None:
        return make()
    path = Path(directory).resolve() / file_name(model, source_sha256)  # absolute: a helper process maps it too
    try:
        arrays, facts = read(path)
    except CacheUnusable as e:
        log.info("weights cache %s not used: %s", path.name, e)
    else:
        return from_cache(arrays, facts, path)
    made = make()
    try:
        write(path, *to_cache(made))
    except OSError as e:  # a read-only or full disk: the model still works, each worker keeps its own copy
        log.warning("weights cache %s not written: %s", path, e)
        return made
    try:  # the model from the file just written, so that this worker shares its pages too
        arrays, facts = read(path)
        return from_cache(arrays, facts, path)
    except CacheUnusable as e:
        log.warning("weights cache %s just written is unusable: %s", path.name, e)
        return made
