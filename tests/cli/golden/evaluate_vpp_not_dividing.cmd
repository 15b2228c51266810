args: evaluate --vpp 3
exit: 1
stderr: parallel.vpp: the 10 layers of each pipeline stage do not split into vpp=3 chunks
stdout: ignore
