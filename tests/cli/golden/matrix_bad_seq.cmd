args: matrix --seq-len 0
exit: 2
stderr: --seq-len
stdout: ignore
