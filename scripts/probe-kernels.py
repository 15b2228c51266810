# SPDX-License-Identifier: Apache-2.0
"""Kernel measurements beside the probe's GEMMs, with PyTorch on one GPU: the MoE grouped GEMM
(torch._grouped_mm, the grouped kernel Megatron-Core's --moe-grouped-gemm and torchtitan use on
Hopper) against one GEMM per expert, fused attention (scaled_dot_product_attention's flash and cuDNN
backends, causal) and the memory-bound layer kernels (norms, SwiGLU, rotary, residual add, fp8 cast,
token permutation, cross-entropy). Writes one JSON file; every figure is a median of CUDA-event timed
repeats. Run: python3 scripts/probe-kernels.py OUT.json  (needs torch with CUDA)."""
import json
import math
import statistics
import sys
import time

import torch
import torch.nn.functional as F

DEV = "cuda"
BF16 = torch.bfloat16


def timed(fn, min_ms=40.0, max_reps=50, warmup=3):
    """Median milliseconds of fn() over repeats, each timed with CUDA events."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    start_all = time.time()
    while len(times) < max_reps and (sum(times) < min_ms or len(times) < 5):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
        if time.time() - start_all > 10:
            break
    return statistics.median(times)


def offsets(m_per_expert, experts):
    return torch.arange(1, experts + 1, device=DEV, dtype=torch.int32) * m_per_expert


def grouped_gemm_rows():
    rows = []
    # (name, hidden, expert ffn, local experts): DeepSeek-V3 at EP 64 / 32 / 8, Mixtral 8x7B at EP 1.
    configs = [("dsv3-ep64", 7168, 2048, 4), ("dsv3-ep32", 7168, 2048, 8), ("dsv3-ep8", 7168, 2048, 32),
               ("mixtral-ep1", 4096, 14336, 8)]
    for name, h, f, g in configs:
        for m in (64, 128, 256, 512, 1024, 2048, 4096):
            # the two expert linears: up+gate (h -> 2f) and down (f -> h)
            for lin, k, n in (("up-gate", h, 2 * f), ("down", f, h)):
                total = m * g
                if total * max(k, n) * 2 > 8e9:
                    continue
                a = torch.randn(total, k, device=DEV, dtype=BF16)
                w = torch.randn(g, k, n, device=DEV, dtype=BF16)
                dy = torch.randn(total, n, device=DEV, dtype=BF16)
                offs = offsets(m, g)
                wt = w.transpose(-2, -1).contiguous().transpose(-2, -1)  # column-major weight, as nn.Linear stores it
                # each pass: the operands as Megatron-Core's grouped GEMM hands them over, then a contiguous
                # variant in case this torch wants another layout; the first that runs is timed
                passes = {
                    "fwd": ([lambda: torch._grouped_mm(a, wt, offs=offs), lambda: torch._grouped_mm(a, w, offs=offs)],
                            m, n, k),
                    "dgrad": ([lambda: torch._grouped_mm(dy, w.transpose(-2, -1), offs=offs),
                               lambda: torch._grouped_mm(dy, w.transpose(-2, -1).contiguous(), offs=offs)], m, k, n),
                    "wgrad": ([lambda: torch._grouped_mm(a.t(), dy, offs=offs),
                               lambda: torch._grouped_mm(a.t().contiguous(), dy, offs=offs)], k, n, m),
                }
                loops = {
                    "fwd": lambda: [a[i * m:(i + 1) * m] @ w[i] for i in range(g)],
                    "dgrad": lambda: [dy[i * m:(i + 1) * m] @ w[i].t() for i in range(g)],
                    "wgrad": lambda: [a[i * m:(i + 1) * m].t() @ dy[i * m:(i + 1) * m] for i in range(g)],
                }
                for p, (candidates, gm, gn, gk) in passes.items():
                    flops = 2.0 * gm * gn * gk * g
                    row = {"config": name, "linear": lin, "pass": p, "experts": g, "m_per_expert": m,
                           "gemm_m": gm, "gemm_n": gn, "gemm_k": gk}
                    errors = []
                    for variant, fn in enumerate(candidates):
                        try:
                            ms = timed(fn)
                            row["grouped_tflops"] = flops / ms / 1e9
                            row["grouped_variant"] = variant
                            break
                        except Exception as ex:  # noqa: BLE001 - recorded, the run goes on
                            errors.append(str(ex)[:200])
                    if "grouped_tflops" not in row:
                        row["grouped_error"] = " | ".join(errors)
                    ms = timed(loops[p])
                    row["loop_tflops"] = flops / ms / 1e9
                    rows.append(row)
                del a, w, dy, wt
                torch.cuda.empty_cache()
    return rows


def attention_rows():
    rows = []
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    # (name, query heads, kv heads, head dim): Llama 3 70B at TP 1 and TP 8 (GQA), GPT-3 at TP 8 (MHA).
    for name, hq, hkv, d in (("llama70b-tp1", 64, 8, 128), ("llama70b-tp8", 8, 1, 128), ("gpt3-tp8", 12, 12, 128)):
        for s in (2048, 4096, 8192, 16384):
            b = max(1, 16384 // s)
            q = torch.randn(b, hq, s, d, device=DEV, dtype=BF16, requires_grad=True)
            k = torch.randn(b, hkv, s, d, device=DEV, dtype=BF16, requires_grad=True)
            v = torch.randn(b, hkv, s, d, device=DEV, dtype=BF16, requires_grad=True)
            do = torch.randn(b, hq, s, d, device=DEV, dtype=BF16)
            fwd_flops = 4.0 * b * hq * s * s * d / 2  # QK^T and PV, causal: half the square
            for bname, backend in backends.items():
                row = {"config": name, "backend": bname, "batch": b, "seq": s, "q_heads": hq, "kv_heads": hkv,
                       "head_dim": d, "causal": True}
                try:
                    with sdpa_kernel(backend):
                        fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=hq != hkv)
                        ms_f = timed(fwd)

                        def both():
                            o = fwd()
                            o.backward(do)
                        ms_fb = timed(both)
                    row["fwd_ms"] = ms_f
                    row["fwd_tflops"] = fwd_flops / ms_f / 1e9
                    row["bwd_ms"] = ms_fb - ms_f
                    row["bwd_tflops"] = 2.5 * fwd_flops / (ms_fb - ms_f) / 1e9  # 5 of the backward's matmuls vs 2
                except Exception as ex:  # noqa: BLE001
                    row["error"] = str(ex)[:200]
                q.grad = k.grad = v.grad = None
                rows.append(row)
            del q, k, v, do
            torch.cuda.empty_cache()
    return rows


def memory_rows():
    rows = []
    t, h, f, vocab = 8192, 8192, 28672, 128256

    # bytes: the traffic of one fused pass (inputs read once, outputs written once), so gb_per_s is the
    # effective bandwidth against the engine's layer kernels at a share of the streaming rate
    def add(name, fn, bytes_moved):
        try:
            ms = timed(fn)
            rows.append({"kernel": name, "ms": ms, "bytes": bytes_moved, "gb_per_s": bytes_moved / ms / 1e6})
        except Exception as ex:  # noqa: BLE001
            rows.append({"kernel": name, "error": str(ex)[:200]})

    x = torch.randn(t, h, device=DEV, dtype=BF16, requires_grad=True)
    y = torch.randn(t, h, device=DEV, dtype=BF16)
    wn = torch.ones(h, device=DEV, dtype=BF16, requires_grad=True)
    dx = torch.randn(t, h, device=DEV, dtype=BF16)
    e = 2 * t * h  # bytes of one t x h bf16 tensor
    add("copy (read + write)", lambda: y.clone(), 2 * e)
    add("residual add", lambda: x.detach() + y, 3 * e)
    add("rms_norm fwd", lambda: F.rms_norm(x.detach(), (h,), wn.detach()), 2 * e)
    add("rms_norm fwd+bwd", lambda: torch.autograd.grad(F.rms_norm(x, (h,), wn), (x, wn), dx), 2 * e + 3 * e)
    add("layer_norm fwd", lambda: F.layer_norm(x.detach(), (h,), wn.detach()), 2 * e)
    add("layer_norm fwd+bwd", lambda: torch.autograd.grad(F.layer_norm(x, (h,), wn), (x, wn), dx), 2 * e + 3 * e)
    if hasattr(torch, "float8_e4m3fn"):
        add("fp8 cast with scale (eager: 2 kernels)", lambda: (x.detach() * 0.5).to(torch.float8_e4m3fn), 3 * t * h)
        add("amax", lambda: x.detach().abs().amax(), e)
    del x, y, dx
    torch.cuda.empty_cache()

    gu = torch.randn(t, 2 * f, device=DEV, dtype=BF16, requires_grad=True)
    dg = torch.randn(t, f, device=DEV, dtype=BF16)
    ef = 2 * t * f

    def swiglu(z):
        g, u = z.chunk(2, dim=-1)
        return F.silu(g) * u
    add("swiglu fwd (eager: 2 kernels)", lambda: swiglu(gu.detach()), 3 * ef)
    add("swiglu fwd+bwd (eager)", lambda: torch.autograd.grad(swiglu(gu), gu, dg), 3 * ef + 5 * ef)
    try:
        cs = torch.compile(swiglu)
        cs(gu.detach())
        add("swiglu fwd (torch.compile: fused)", lambda: cs(gu.detach()), 3 * ef)
        add("swiglu fwd+bwd (torch.compile)", lambda: torch.autograd.grad(cs(gu), gu, dg), 3 * ef + 5 * ef)
    except Exception as ex:  # noqa: BLE001
        rows.append({"kernel": "swiglu torch.compile", "error": str(ex)[:200]})
    del gu, dg
    torch.cuda.empty_cache()

    # rotary embedding on q (t, 64 heads, 128): x * cos + rotate_half(x) * sin
    q = torch.randn(t, 64, 128, device=DEV, dtype=BF16)
    cos = torch.randn(t, 1, 128, device=DEV, dtype=BF16)
    sin = torch.randn(t, 1, 128, device=DEV, dtype=BF16)

    def rope(z):
        z1, z2 = z.chunk(2, dim=-1)
        return z * cos + torch.cat((-z2, z1), dim=-1) * sin
    add("rotary q (eager)", lambda: rope(q), 2 * 2 * t * 64 * 128)
    try:
        cr = torch.compile(rope)
        cr(q)
        add("rotary q (torch.compile: fused)", lambda: cr(q), 2 * 2 * t * 64 * 128)
    except Exception as ex:  # noqa: BLE001
        rows.append({"kernel": "rotary torch.compile", "error": str(ex)[:200]})
    del q
    torch.cuda.empty_cache()

    # token permutation: gather the top-k copies (t x 8) of 7168-wide tokens into expert order
    hh, topk = 7168, 8
    tok = torch.randn(t, hh, device=DEV, dtype=BF16)
    idx = torch.randint(0, t, (t * topk,), device=DEV)
    add("permute: index_select of t x top8 rows", lambda: tok.index_select(0, idx), 2 * 2 * t * topk * hh)
    out = torch.zeros(t, hh, device=DEV, dtype=BF16)
    src = torch.randn(t * topk, hh, device=DEV, dtype=BF16)
    add("unpermute: index_add of t x top8 rows", lambda: out.index_add_(0, idx, src), 2 * t * topk * hh + 2 * 2 * t * hh)
    del tok, idx, out, src
    torch.cuda.empty_cache()

    # router: fp32 softmax + top-k over 256 experts
    logits = torch.randn(t * 4, 256, device=DEV, dtype=torch.float32)
    add("router softmax + top8 (fp32, 32768 x 256)", lambda: torch.topk(torch.softmax(logits, -1), 8, -1),
        4 * 2 * t * 4 * 256)
    del logits

    # cross-entropy over the vocabulary (logits bf16, loss in fp32), forward + backward
    tc = 4096
    lg = torch.randn(tc, vocab, device=DEV, dtype=BF16, requires_grad=True)
    tgt = torch.randint(0, vocab, (tc,), device=DEV)
    add("cross_entropy fwd+bwd (4096 x 128256)",
        lambda: torch.autograd.grad(F.cross_entropy(lg.float(), tgt), lg), 2 * 2 * tc * vocab)
    del lg
    torch.cuda.empty_cache()
    return rows


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "kernels.json"
    props = torch.cuda.get_device_properties(0)
    result = {"format": "parallax-kernel-probe", "version": 1, "torch_version": torch.__version__,
              "cuda": torch.version.cuda, "gpu": props.name, "sm_count": props.multi_processor_count,
              "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    torch.manual_seed(0)
    for key, fn in (("grouped_gemm", grouped_gemm_rows), ("attention", attention_rows), ("memory_bound", memory_rows)):
        t0 = time.time()
        try:
            result[key] = fn()
        except Exception as ex:  # noqa: BLE001 - one section failing keeps the others
            result[key + "_error"] = repr(ex)[:500]
        print(f"{key}: {time.time() - t0:.1f} s", flush=True)
        with open(out, "w") as fh:
            json.dump(result, fh, indent=1)
    for r in result.get("memory_bound", []):
        print(f"  {r['kernel']:<48} {r.get('gb_per_s', float('nan')):8.0f} GB/s {r.get('error', '')}")
    for r in result.get("attention", []):
        print(f"  attn {r['config']:<14} {r['backend']:<6} s={r['seq']:<6} fwd {r.get('fwd_tflops', math.nan):6.0f} "
              f"bwd {r.get('bwd_tflops', math.nan):6.0f} TFLOP/s {r.get('error', '')}")
    for r in result.get("grouped_gemm", []):
        print(f"  gg {r['config']:<12} {r['linear']:<8} {r['pass']:<6} M/e={r['m_per_expert']:<5} grouped "
              f"{r.get('grouped_tflops', math.nan):6.0f} loop {r['loop_tflops']:6.0f} TFLOP/s {r.get('grouped_error', '')}")


if __name__ == "__main__":
    main()
