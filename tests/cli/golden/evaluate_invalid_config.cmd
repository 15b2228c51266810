args: evaluate --tp 16 --pp 4
exit: 1
stderr: parallel.tp: kv_heads=8 is not divisible by tp=16
stdout: ignore
