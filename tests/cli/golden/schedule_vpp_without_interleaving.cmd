args: schedule --pp 4 --microbatches 8 --vpp 2 --schedule gpipe
exit: 2
stderr: vpp=2 needs schedule interleaved-1f1b
stdout: ignore
