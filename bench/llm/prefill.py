"""prefill.py: LLM prefill passes with random weights, for skip's batch-size sweeps.

    python3 bench/llm/prefill.py [--model llama1b|gpt2|bert-base] [--batch B] [--seq S]
                                 [--passes N] [--warmup W] [--profiler]
                                 [--ab PAIRS [--ab-block K]]

Builds the model's architecture with random weights directly on the GPU in bf16 (nothing is
downloaded), runs W warm-up passes, then N timed prefill passes, each inside the NVTX range
"prefill" (torch.cuda.nvtx), and prints one line "APP prefill model=... batch=... ms=...
run=... kind=..." (run: SKIP_RUN_ID, set by `skip record`, else -; kind: SKIP_TRACE, else -).
With --profiler the timed passes run inside torch.profiler.profile(CPU+CUDA), the comparison
point for skip's cost on the same program.
With --ab PAIRS the program measures a recording's cost on itself: after the warm-up, PAIRS
pairs of blocks of K passes (--ab-block, default 5), one block of each pair recording (inside
torch.cuda.profiler.start/stop, which `skip record --capture-range cudaProfilerApi` records
between, or inside a torch.profiler with --profiler), the other not; the APP line then also
has ab_off= and ab_on= (median ms a pass) and ab_ratio= (median over pairs of on / off, with
its min and max). Run bare, the ratio shows the method's own noise.
A prefill pass is one forward over (batch, seq) token ids without a KV cache; for the causal
models only the last position's logits are computed, as generation does.

Models (architecture only):
  llama1b    Llama-3.2-1B: hidden 2048, 16 layers, 32 heads, 8 KV heads, intermediate 8192,
             vocab 128256, tied embeddings
  gpt2       GPT-2 small: hidden 768, 12 layers, 12 heads, vocab 50257
  bert-base  BERT-base encoder: hidden 768, 12 layers, 12 heads, intermediate 3072
"""
import argparse
import contextlib
import os
import time

from benchlib import ab_line, ab_measure, ab_switches, need_torch_gpu

try:
    import torch
except ImportError:  # main() says so; importing this file for its builders needs no torch
    torch = None


def build(name):
    import transformers as tf
    if name == "llama1b":
        cfg = tf.LlamaConfig(hidden_size=2048, num_hidden_layers=16, num_attention_heads=32,
                             num_key_value_heads=8, intermediate_size=8192, vocab_size=128256,
                             tie_word_embeddings=True, max_position_embeddings=131072,
                             rope_theta=500000.0)
        cls, vocab = tf.LlamaForCausalLM, cfg.vocab_size
    elif name == "gpt2":
        cfg = tf.GPT2Config()
        cls, vocab = tf.GPT2LMHeadModel, cfg.vocab_size
    elif name == "bert-base":
        cfg = tf.BertConfig()
        cls, vocab = tf.BertModel, cfg.vocab_size
    else:
        raise SystemExit(f"prefill.py: unknown --model {name}")
    torch.set_default_dtype(torch.bfloat16)
    with torch.device("cuda"):
        model = cls(cfg)
    return model.eval(), vocab


def prefill_fn(name, model, ids):
    """The prefill pass of model NAME over token ids IDS, as a function of no arguments."""
    kwargs = {} if name == "bert-base" else {"use_cache": False, "logits_to_keep": 1}

    def prefill():
        try:
            return model(input_ids=ids, **kwargs)
        except TypeError:  # an older transformers without logits_to_keep
            kwargs.pop("logits_to_keep", None)
            return model(input_ids=ids, **kwargs)
    return prefill


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="llama1b")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--profiler", action="store_true")
    ap.add_argument("--ab", type=int, default=0, metavar="PAIRS")
    ap.add_argument("--ab-block", type=int, default=5, metavar="K")
    args = ap.parse_args()
    if args.ab < 0 or args.ab_block < 1:
        ap.error("--ab takes 0 or more pairs, --ab-block 1 or more passes")

    need_torch_gpu("prefill.py")
    torch.manual_seed(0)
    model, vocab = build(args.model)
    ids = torch.randint(0, vocab, (args.batch, args.seq), device="cuda")
    prefill = prefill_fn(args.model, model, ids)
    ctx = contextlib.nullcontext()
    if args.profiler and not args.ab:
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        ctx = torch.profiler.profile(activities=acts)

    def one():
        """One timed pass inside the NVTX range "prefill": its ms."""
        t0 = time.perf_counter()
        torch.cuda.nvtx.range_push("prefill")
        prefill()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        return (time.perf_counter() - t0) * 1e3

    with torch.inference_mode():
        for _ in range(args.warmup):
            prefill()
        torch.cuda.synchronize()
        with ctx:
            times = [one() for _ in range(args.passes)]
        ab = ""
        if args.ab:
            ab = " " + ab_line(ab_measure(one, args.ab, args.ab_block, *ab_switches(args.profiler)))
    times.sort()
    print(f"APP prefill model={args.model} batch={args.batch} seq={args.seq} "
          f"passes={args.passes} ms={times[len(times) // 2]:.3f} min_ms={times[0]:.3f} "
          f"param={os.environ.get('SKIP_PARAM_BATCH', '-')} "
          f"run={os.environ.get('SKIP_RUN_ID', '-')} kind={os.environ.get('SKIP_TRACE', '-')}"
          f"{ab}", flush=True)


if __name__ == "__main__":
    main()
