#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Device run (one GPU, docs/probe.md): the probe's calibration, a GEMM shape sweep of dense and MoE
# layers, a sustained-clock trace and the kernel measurements of scripts/probe-kernels.py.
# Results land under $OUT/r and, packed as they come, in $OUT/results.tar.gz, so that a run stopped
# at its time limit still returns what it measured. build-devcarry/parallax-probe is the probe built
# on the host (carried); without a usable one the probe is built here.
#   OUT=... scripts/probe-sweep.sh [sustained seconds, default 40]
set -u
cd "$(dirname "$0")/.."
C=$PWD/build-devcarry
P=$C/parallax-probe
SUSTAIN=${1:-40}
R=$OUT/r; mkdir -p $R/sweep
exec > >(tee $OUT/run.log) 2>&1
snap() { tar czf $OUT/results.tar.gz -C $OUT r; }
date -u; nvidia-smi > $R/nvidia-smi.txt 2>&1; head -20 $R/nvidia-smi.txt
nvidia-smi -q -d CLOCK,POWER > $R/nvidia-smi-q.txt 2>&1
if ldd $P | grep -q 'not found'; then
  for lib in libcublasLt.so.13 libcublas.so.13 libcudart.so.13; do
    f=$(find / -xdev -name "$lib" 2>/dev/null | head -1); [ -n "$f" ] && export LD_LIBRARY_PATH=$(dirname $f):${LD_LIBRARY_PATH:-}
  done
fi
ldd $P | tee $R/ldd.txt | grep -E 'cu|not found'
if ldd $P | grep -q 'not found' || ! $P --version; then
  echo "== carried binary unusable: building on the device"
  cmake -S . -B /tmp/bp -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$C/prefix -DPARALLAX_BUILD_UI=OFF \
    -DPARALLAX_BUILD_PROBE=ON -DPARALLAX_BUILD_BENCHMARKS=OFF -DBUILD_TESTING=OFF > $R/build.log 2>&1 &&
  cmake --build /tmp/bp --target parallax-probe -j 16 >> $R/build.log 2>&1; tail -5 $R/build.log
  P=$(find /tmp/bp -type f -name parallax-probe -perm -u+x | head -1)
fi
echo "== main run"; time PROBE=$P OUT=$R/main timeout 150 scripts/probe-on-gpu.sh; echo "main rc=$?"; snap
echo "== kernels (scripts/probe-kernels.py)"
time timeout 120 python3 scripts/probe-kernels.py $R/kernels.json > $R/kernels.txt 2>&1; echo "kernels rc=$?"; snap
echo "== MoE sweep"
for t in 256 1024 4096 8192; do s=$(( t<4096 ? t : 4096 ));
  timeout 40 $P --repeats 5 --max-square 0 --hidden 6144 --ffn 32768 --heads 48 --kv-heads 8 --vocab 131072 --tp 1 --seq $s \
    --experts 8 --top-k 2 --expert-ffn 32768 --ep 8 --tokens $t --out $R/sweep/grok-t$t.json > $R/sweep/grok-t$t.txt 2>&1; echo "grok t$t rc=$?"
  timeout 40 $P --repeats 5 --max-square 0 --hidden 7168 --ffn 18432 --heads 128 --kv-heads 128 --vocab 129280 --tp 1 --seq $s \
    --experts 256 --top-k 8 --expert-ffn 2048 --ep 64 --tokens $t --out $R/sweep/dsv3-t$t.json > $R/sweep/dsv3-t$t.txt 2>&1; echo "dsv3 t$t rc=$?"
done
snap
echo "== dense sweep (Llama-3-70B shapes)"
for tp in 1 2 8; do for t in 1024 16384; do s=$(( t<4096 ? t : 4096 ));
  timeout 40 $P --repeats 5 --max-square 0 --tp $tp --tokens $t --seq $s --out $R/sweep/dense-tp$tp-t$t.json > $R/sweep/dense-tp$tp-t$t.txt 2>&1; echo "tp$tp t$t rc=$?"
done; done
snap
echo "== sustained bf16 8192^3 for $SUSTAIN s, clocks and power every second"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -l 1 > $R/sustained-smi.csv 2>&1 &
SMI=$!
timeout $((SUSTAIN + 30)) python3 - $SUSTAIN > $R/sustained.txt 2>&1 <<'PY'
import sys, time, torch
n=8192; a=torch.randn(n,n,device="cuda",dtype=torch.bfloat16); b=torch.randn(n,n,device="cuda",dtype=torch.bfloat16)
t0=time.time()
while time.time()-t0<float(sys.argv[1]):
    s=torch.cuda.Event(enable_timing=True); e=torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(100): torch.matmul(a,b)
    e.record(); e.synchronize()
    print(f"{time.time()-t0:.1f} s  {100*2*n**3/(s.elapsed_time(e)/1e3)/1e12:.1f} TFLOP/s", flush=True)
PY
kill $SMI; tail -3 $R/sustained.txt
cp $R/main/calibration.json $OUT/calibration.json 2>/dev/null
snap
ls -la $OUT; date -u
