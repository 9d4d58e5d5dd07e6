"""skip record --torch-ops: PyTorch's own per-operator NVTX ranges, with no code change.

skip record puts this folder first on PYTHONPATH and sets SKIP_TORCH_OPS=1. When a Python
process imports torch, this turns on torch.autograd.profiler.emit_nvtx() - one NVTX range per
ATen operator, which the collector records as operators - as soon as that process initializes
CUDA (processes that never use CUDA are left alone: emit_nvtx synchronizes the device). With a
capture range (skip record --capture-range) it is on only where the collector records: inside
torch.cuda.profiler.start() ... stop() (and torch.cuda.profiler.profile()) with
SKIP_CAPTURE=cudaProfilerApi; with nvtx:NAME[:FIRST[:COUNT]], from where occurrence FIRST - 1
of NAME ends to where occurrence FIRST + COUNT begins, counting NAME pushed with
torch.cuda.nvtx.range_push (and torch.cuda.nvtx.range). Outside, the program runs without the
ranges' cost. Any other sitecustomize on the
path still runs. Nothing is printed unless something fails.
"""
import importlib.abc
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _warn(msg):
    sys.stderr.write(f"skip: --torch-ops: {msg}\n")


def _enable_after_cuda_init(torch):
    orig = torch.cuda._lazy_init
    state = {"done": False}

    def lazy_init(*args, **kwargs):
        orig(*args, **kwargs)
        if state["done"]:
            return
        state["done"] = True
        try:
            ctx = torch.autograd.profiler.emit_nvtx(record_shapes=False)
            ctx.__enter__()
            torch._skip_emit_nvtx = ctx  # kept for the life of the process
        except Exception as e:  # never break the program
            _warn(f"could not enable emit_nvtx: {e}")
    torch.cuda._lazy_init = lazy_init


def _ops_switch(torch):
    """switch(on): enter emit_nvtx (on) or leave it; a repeated call is a no-op."""
    state = {"ctx": None}

    def switch(on):
        if on and state["ctx"] is None:
            try:
                ctx = torch.autograd.profiler.emit_nvtx(record_shapes=False)
                ctx.__enter__()
                state["ctx"] = ctx
            except Exception as e:  # never break the program
                _warn(f"could not enable emit_nvtx: {e}")
        elif not on and state["ctx"] is not None:
            ctx, state["ctx"] = state["ctx"], None
            try:
                ctx.__exit__(None, None, None)
            except Exception as e:
                _warn(f"could not disable emit_nvtx: {e}")
    return switch


def _enable_in_capture_ranges(torch):
    """emit_nvtx entered after each torch.cuda.profiler.start(), left before each stop()."""
    import torch.cuda.profiler as prof
    start, stop, switch = prof.start, prof.stop, _ops_switch(torch)

    def start_with_ops():
        start()
        switch(True)

    def stop_with_ops():
        switch(False)
        stop()
    prof.start, prof.stop = start_with_ops, stop_with_ops


def _nvtx_capture(spec):
    """NAME, FIRST, COUNT of SKIP_CAPTURE=nvtx:NAME[:FIRST[:COUNT]] (COUNT 0: to the end),
    read as skip_capture_parse() reads it; None when it is not one."""
    if not spec.startswith("nvtx:"):
        return None
    fields, nums = spec[5:].split(":"), []
    while len(nums) < 2 and len(fields) > 1 and fields[-1].isdigit():
        nums.insert(0, int(fields.pop()))
    name = ":".join(fields)
    if not name or any(n < 1 for n in nums):
        return None
    return name, (nums[0] if nums else 1), (nums[1] if len(nums) == 2 else 0)


def _enable_in_nvtx_range(torch, name, first, count):
    """emit_nvtx entered where the collector's NVTX capture range starts (occurrence FIRST - 1
    of NAME ends, or occurrence 1 begins) and left where it stops (occurrence FIRST + COUNT
    begins), as collector/capture.c decides, for NAME pushed with torch.cuda.nvtx."""
    import threading
    import torch.cuda.nvtx as nvtx
    push, pop, switch = nvtx.range_push, nvtx.range_pop, _ops_switch(torch)
    state, local, lock = {"seen": 0}, threading.local(), threading.Lock()

    def range_push(msg, *args, **kwargs):
        depth = getattr(local, "depth", 0)
        if depth:
            local.depth = depth + 1
        if msg == name:
            with lock:
                state["seen"] += 1
                n = state["seen"]
            if n + 1 == first:
                local.depth = 1
            if count and n == first + count:
                switch(False)
        r = push(msg, *args, **kwargs)
        if msg == name and n == first:
            switch(True)
        return r

    def range_pop(*args, **kwargs):
        r = pop(*args, **kwargs)
        depth = getattr(local, "depth", 0)
        if depth:
            local.depth = depth - 1
            if depth == 1:
                switch(True)
        return r
    nvtx.range_push, nvtx.range_pop = range_push, range_pop


class _TorchHook(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("torch")
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def wrapped(module):
            exec_module(module)
            try:
                capture = os.environ.get("SKIP_CAPTURE", "")
                if capture == "cudaProfilerApi":
                    _enable_in_capture_ranges(module)
                elif _nvtx_capture(capture):
                    _enable_in_nvtx_range(module, *_nvtx_capture(capture))
                else:
                    _enable_after_cuda_init(module)
            except Exception as e:
                _warn(f"could not hook CUDA initialization: {e}")
        spec.loader.exec_module = wrapped
        return spec


def _chain_next_sitecustomize():
    """Run the sitecustomize that this one shadows, if any."""
    for entry in sys.path:
        if not entry or os.path.abspath(entry) == _HERE:
            continue
        candidate = os.path.join(entry, "sitecustomize.py")
        if os.path.isfile(candidate):
            try:
                spec = importlib.util.spec_from_file_location("_skip_chained_sitecustomize",
                                                              candidate)
                spec.loader.exec_module(importlib.util.module_from_spec(spec))
            except Exception as e:
                _warn(f"{candidate}: {e}")
            return


if os.environ.get("SKIP_TORCH_OPS") == "1":
    sys.meta_path.insert(0, _TorchHook())
_chain_next_sitecustomize()
